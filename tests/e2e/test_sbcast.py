"""sbcast and srun --bcast end to end: real daemons on loopback, real MUNGE, the unprivileged
users alice and bob. The local cluster's "nodes" share one filesystem, so every broadcast here
goes into a directory (DEST ending in '/'), where each node's agent writes its own file,
slurm_bcast_<job>.<step>_<node>: a node that was not written leaves its file missing, and the
tasks of an srun step on each node check the file named for their own node (SLURMD_NODENAME).
Files are the job user's, written by the agents as that user (never root)."""

import errno
import hashlib
import os
import pwd
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from cluster import ensure_users, shared_dir, wait_for
from conftest import run_cluster

BIG = 5 * 1024 * 1024 + 12345   # over gRPC's 4 MiB message and over one 3 MiB block


@pytest.fixture(scope="module")
def cluster(request):
    ensure_users(("alice", "bob"))
    yield from run_cluster(request, nodes=2, gpus_per_node=0, heartbeat=1, node_down=4)


def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def owner(path):
    return pwd.getpwuid(os.stat(path).st_uid).pw_name


def source_file(d, name, size, mode=0o644):
    p = d / name
    p.write_bytes(os.urandom(size))
    os.chmod(p, mode)
    return p


def sbatch(cluster, *args, user="alice"):
    r = cluster.cli("sbatch", "--parsable", *args, user=user)
    assert r.returncode == 0, r.stderr
    return int(r.stdout.strip().split(";")[0])


@pytest.fixture(scope="module")
def job(cluster):
    """alice's running two-node batch job (it sleeps); sbcast -j targets it from outside."""
    d = shared_dir(cluster, "sbcast-job")
    job_id = sbatch(cluster, "-N2", "-n2", "-o", "/dev/null", "-D", str(d), "--wrap", "sleep 300")
    cluster.wait_job(job_id, "RUNNING")
    yield job_id
    cluster.cli("scancel", str(job_id))


def copies(d, job_id, step="batch"):
    return {n: d / f"slurm_bcast_{job_id}.{step}_{n}" for n in ("node1", "node2")}


def test_big_file_inside_a_batch_job_checked_on_each_node(cluster):
    d = shared_dir(cluster, "sbcast-big")
    dest = shared_dir(cluster, "sbcast-big-dest")
    src = source_file(d, "shard.bin", BIG)
    # Inside the job: SLURM_JOB_ID from the environment; then one task per node hashes the
    # copy named for its own node and names its owner.
    script = d / "job.sh"
    script.write_text(
        "#!/bin/sh\n"
        f"sbcast {src} {dest}/ || exit 3\n"
        "srun -N2 -n2 --ntasks-per-node=1 sh -c "
        f"'f={dest}/slurm_bcast_${{SLURM_JOB_ID}}.batch_${{SLURMD_NODENAME}}; "
        "echo \"$SLURMD_NODENAME $(sha256sum < $f | cut -d\" \" -f1) $(stat -c %U:%a $f)\"'\n")
    script.chmod(0o755)
    out = d / "out.txt"
    job_id = sbatch(cluster, "-N2", "-n2", "-o", str(out), "-D", str(d), str(script))
    cluster.wait_job(job_id, {"COMPLETED", "FAILED"}, timeout=60)
    text = out.read_text()
    assert cluster.job_fields(job_id)["JobState"] == "COMPLETED", text
    want = sha256(src)
    lines = sorted(line.split() for line in text.splitlines() if line.startswith("node"))
    assert lines == [["node1", want, "alice:700"], ["node2", want, "alice:700"]], text
    for path in copies(dest, job_id).values():
        assert path.stat().st_size == BIG


def test_from_outside_with_jobid_and_block_size(cluster, job):
    d = shared_dir(cluster, "sbcast-outside")
    src = source_file(d, "data.bin", 2 * 1024 * 1024 + 7)
    dest = shared_dir(cluster, "sbcast-outside-dest")
    r = cluster.cli("sbcast", "-v", "-s", "256k", "-j", str(job), str(src), f"{dest}/",
                    user="alice")
    assert r.returncode == 0, r.stderr
    assert "blocks to 2 nodes" in r.stderr, r.stderr
    for node, path in copies(dest, job).items():
        assert sha256(path) == sha256(src), node
        assert owner(path) == "alice"


def test_empty_file_and_exact_blocks(cluster, job):
    d = shared_dir(cluster, "sbcast-sizes")
    for name, size in (("empty", 0), ("exact", 2 * 1024)):
        src = source_file(d, f"{name}.bin", size)
        dest = shared_dir(cluster, f"sbcast-sizes-{name}")
        r = cluster.cli("sbcast", "-v", "-s", "1k", "-j", str(job), str(src), f"{dest}/",
                        user="alice")
        assert r.returncode == 0, r.stderr
        # A file that ends on a block boundary needs no empty block after it.
        assert f"sent {size} bytes in {max(1, size // 1024)} blocks to 2 nodes" in r.stderr, r.stderr
        for path in copies(dest, job).values():
            assert path.read_bytes() == src.read_bytes()


def test_written_with_the_users_permissions(cluster, job):
    """A directory alice may not write: root could, the agent writing as alice cannot."""
    d = shared_dir(cluster, "sbcast-perm")
    src = source_file(d, "f.bin", 100)
    closed = d / "roots"
    closed.mkdir()
    os.chmod(closed, 0o755)
    r = cluster.cli("sbcast", "-j", str(job), str(src), f"{closed}/", user="alice")
    assert r.returncode == errno.EACCES   # the reference exits with the nodes' errno
    assert sorted(r.stderr.splitlines()) == [
        "sbcast: error: REQUEST_FILE_BCAST(node1): Permission denied",
        "sbcast: error: REQUEST_FILE_BCAST(node2): Permission denied"], r.stderr
    assert list(closed.iterdir()) == []


def test_a_steps_nodes_only(cluster, job):
    d = shared_dir(cluster, "sbcast-step")
    src = source_file(d, "f.bin", 100)
    step = cluster.spawn([str(cluster.bin / "srun"), "--jobid", str(job), "--overlap", "-N1",
                          "-w", "node2", "sleep", "120"], "sbcast-step-srun",
                         env=cluster.env(), user="alice", cwd=str(d))
    try:
        def running_step():
            r = cluster.cli("squeue", "-s", "-h", "-j", str(job), "-o", "%i %N")
            for line in r.stdout.splitlines():
                sid, nodes = line.split()
                if not sid.endswith(".batch") and nodes == "node2":
                    return sid.split(".")[1]
            return None
        step_id = wait_for(running_step, 30, what="the srun step on node2")
        r = cluster.cli("sbcast", "-j", f"{job}.{step_id}", str(src), f"{d}/", user="alice")
        assert r.returncode == 0, r.stderr
        files = copies(d, job, step_id)
        assert files["node2"].read_bytes() == src.read_bytes()
        assert not files["node1"].exists()
        r = cluster.cli("sbcast", "-j", f"{job}.{int(step_id) + 50}", str(src), f"{d}/",
                        user="alice")
        assert r.returncode == 255 and "lookup error: Invalid job id specified" in r.stderr
    finally:
        step.kill()
        step.wait()


def test_force_and_its_absence(cluster, job):
    d = shared_dir(cluster, "sbcast-force")
    dest = shared_dir(cluster, "sbcast-force-dest")
    first = source_file(d, "first.bin", 1000)
    second = source_file(d, "second.bin", 500)
    assert cluster.cli("sbcast", "-j", str(job), str(first), f"{dest}/", user="alice").returncode == 0
    r = cluster.cli("sbcast", "-j", str(job), str(second), f"{dest}/", user="alice")
    assert r.returncode == errno.EEXIST
    assert sorted(r.stderr.splitlines()) == [
        "sbcast: error: REQUEST_FILE_BCAST(node1): File exists",
        "sbcast: error: REQUEST_FILE_BCAST(node2): File exists"], r.stderr
    for path in copies(dest, job).values():
        assert sha256(path) == sha256(first)
    r = cluster.cli("sbcast", "-f", "-j", str(job), str(second), f"{dest}/", user="alice")
    assert r.returncode == 0, r.stderr
    for path in copies(dest, job).values():
        assert sha256(path) == sha256(second)   # replaced, and no longer than the new file


def test_preserve_mode_and_times(cluster, job):
    d = shared_dir(cluster, "sbcast-preserve")
    src = source_file(d, "tool", 4096, mode=0o751)
    os.utime(src, (1_000_000_000, 1_100_000_000))
    kept = shared_dir(cluster, "sbcast-preserve-kept")
    plain = shared_dir(cluster, "sbcast-preserve-plain")
    assert cluster.cli("sbcast", "-p", "-j", str(job), str(src), f"{kept}/", user="alice").returncode == 0
    assert cluster.cli("sbcast", "-j", str(job), str(src), f"{plain}/", user="alice").returncode == 0
    for path in copies(kept, job).values():
        st = path.stat()
        assert (st.st_mode & 0o7777, int(st.st_atime), int(st.st_mtime)) == \
            (0o751, 1_000_000_000, 1_100_000_000)
    for path in copies(plain, job).values():
        st = path.stat()
        assert st.st_mode & 0o7777 == 0o700 and st.st_mtime > time.time() - 600


def test_bob_cannot_broadcast_into_alices_job(cluster, job):
    d = shared_dir(cluster, "sbcast-bob")
    src = source_file(d, "evil.bin", 100)
    r = cluster.cli("sbcast", "-j", str(job), str(src), f"{d}/", user="bob")
    assert r.returncode == 255
    assert r.stderr == f"sbcast: error: Slurm job {job} lookup error: Invalid user id\n"
    assert not any(p.exists() for p in copies(d, job).values())


def test_root_broadcasts_as_the_jobs_user(cluster, job):
    d = shared_dir(cluster, "sbcast-root")
    src = source_file(d, "root.bin", 100)
    r = cluster.cli("sbcast", "-j", str(job), str(src), f"{d}/")
    assert r.returncode == 0, r.stderr
    assert {owner(p) for p in copies(d, job).values()} == {"alice"}


def test_jobs_that_do_not_run(cluster):
    d = shared_dir(cluster, "sbcast-norun")
    src = source_file(d, "f.bin", 10)
    held = sbatch(cluster, "--hold", "-o", "/dev/null", "--wrap", "true")
    r = cluster.cli("sbcast", "-j", str(held), str(src), f"{d}/", user="alice")
    assert (r.returncode, r.stderr) == (
        255, f"sbcast: error: Slurm job {held} lookup error: Job is pending execution\n")
    cluster.cli("scancel", str(held))
    r = cluster.cli("sbcast", "-j", "999999", str(src), f"{d}/", user="alice")
    assert (r.returncode, r.stderr) == (
        255, "sbcast: error: Slurm job 999999 lookup error: Invalid job id specified\n")
    ended = sbatch(cluster, "-o", "/dev/null", "--wrap", "true")
    cluster.wait_job(ended, "COMPLETED")
    r = cluster.cli("sbcast", "-j", str(ended), str(src), f"{d}/", user="alice")
    assert r.returncode == 255 and "lookup error: Job/step already completing or completed" in r.stderr
    assert list(d.glob("slurm_bcast_*")) == []


def test_usage_errors(cluster):
    r = cluster.cli("sbcast", "/etc/hostname", "/tmp/x", user="alice")
    assert (r.returncode, r.stderr) == (1, "sbcast: error: Need a job id to run this command.  "
                                           "Run from within a Slurm job or use the --jobid option.\n")
    r = cluster.cli("sbcast", "-j", "5", "/etc/hostname", user="alice")
    assert (r.returncode, r.stderr) == (1, "Need two file names, have 1 names\n"
                                           "Try \"sbcast --help\" for more information\n")
    r = cluster.cli("sbcast", "-j", "5", "/no/such/file", "/tmp/x", user="alice")
    assert r.returncode == 255 and "Can't open `/no/such/file`: No such file or directory" in r.stderr


def bcast_program(cluster, name):
    d = shared_dir(cluster, f"bcast-{name}")
    prog = d / "whoami.sh"
    prog.write_text('#!/bin/sh\necho "$0 $(id -un) $SLURMD_NODENAME"\n')
    prog.chmod(0o755)
    return d, prog


def test_srun_bcast_into_a_directory_runs_each_nodes_copy(cluster):
    d, prog = bcast_program(cluster, "dir")
    dest = shared_dir(cluster, "bcast-dir-dest")
    r = cluster.cli("srun", "-N2", "-n2", "--ntasks-per-node=1", f"--bcast={dest}/",
                    "--compress", str(prog), user="alice", timeout=60)
    assert r.returncode == 0, r.stderr
    runs = sorted(line.split() for line in r.stdout.splitlines())
    assert len(runs) == 2, r.stdout
    for path, user, node in runs:
        m = re.fullmatch(rf"{re.escape(str(dest))}/slurm_bcast_(\d+)\.0_{node}", path)
        assert m and user == "alice", runs
        assert owner(path) == "alice" and Path(path).read_bytes() == prog.read_bytes()
    assert {node for _, _, node in runs} == {"node1", "node2"}


def test_srun_bcast_default_is_chdir(cluster):
    d, prog = bcast_program(cluster, "chdir")
    work = shared_dir(cluster, "bcast-chdir-work")
    r = cluster.cli("srun", "-N1", "--bcast", "-D", str(work), str(prog), user="alice", timeout=60)
    assert r.returncode == 0, r.stderr
    path, user, node = r.stdout.split()
    assert re.fullmatch(rf"{re.escape(str(work))}/slurm_bcast_\d+\.0_{node}", path), path
    assert owner(path) == "alice"


def test_srun_bcast_to_a_file_path_inside_a_job(cluster, job):
    d, prog = bcast_program(cluster, "file")
    dest = shared_dir(cluster, "bcast-file-dest") / "mine"
    # A step of alice's running job; srun finds the program by name in its own PATH.
    env_path = f"{d}:{cluster.bin}:/usr/bin:/bin"
    env = cluster.env()
    env["PATH"] = env_path
    p = subprocess.run([str(cluster.bin / "srun"), "--jobid", str(job), "-N2", "-n2",
                        "--ntasks-per-node=1", "--overlap", f"--bcast={dest}", "whoami.sh"],
                       capture_output=True, text=True, env=env, user="alice", timeout=60,
                       cwd=str(cluster.run_dir))
    assert p.returncode == 0, p.stderr
    runs = sorted(line.split() for line in p.stdout.splitlines())
    assert [(path, user) for path, user, _ in runs] == [(str(dest), "alice")] * 2, runs
    assert owner(dest) == "alice" and dest.read_bytes() == prog.read_bytes()


def compressible_file(d, name, size):
    p = d / name
    line = b"step 0042 loss=0.1234 accuracy=0.9876 lr=3e-4\n"
    p.write_bytes((line * (size // len(line) + 1))[:size])
    return p


@pytest.mark.parametrize("lib", ["lz4", "zlib"])
def test_compress_sends_fewer_bytes_and_the_nodes_get_the_file(cluster, job, lib):
    d = shared_dir(cluster, f"sbcast-compress-{lib}")
    src = compressible_file(d, "log.txt", 4 * 1024 * 1024 + 99)   # two blocks
    dest = shared_dir(cluster, f"sbcast-compress-{lib}-dest")
    r = cluster.cli("sbcast", f"--compress={lib}", "-vv", "-j", str(job), str(src), f"{dest}/",
                    user="alice")
    assert r.returncode == 0, r.stderr
    assert f"compress   = {lib}" in r.stderr, r.stderr
    m = re.search(r"sbcast: (\d+) bytes on the wire", r.stderr)
    assert m and int(m.group(1)) < src.stat().st_size // 10, r.stderr
    for node, path in copies(dest, job).items():
        assert sha256(path) == sha256(src), node
    # Random bytes do not shrink: they travel as they are, and arrive the same.
    rnd = source_file(d, "random.bin", 100000)
    r = cluster.cli("sbcast", "-C", "-vv", "-f", "-j", str(job), str(rnd), f"{dest}/", user="alice")
    assert r.returncode == 0, r.stderr
    assert "100000 bytes on the wire" in r.stderr, r.stderr
    for path in copies(dest, job).values():
        assert path.read_bytes() == rnd.read_bytes()


def test_compress_rejects_an_unknown_library(cluster, job):
    r = cluster.cli("sbcast", "--compress=zstd", "-j", str(job), "/etc/hostname", "/tmp/x",
                    user="alice")
    assert r.returncode == 1
    assert r.stderr == ("sbcast: error: Compression library 'zstd' is not supported "
                        "(lz4, zlib or none)\n")


def test_fanout_bounds_the_nodes_written_at_once(cluster, job):
    """200 blocks of 1 KiB to two nodes: with -F1 no block is ever being written on both at once
    (the controller counts the calls in flight where they run)."""
    d = shared_dir(cluster, "sbcast-fanout")
    src = source_file(d, "f.bin", 200 * 1024)
    for fanout, most in (("1", 1), ("2", 2)):
        dest = shared_dir(cluster, f"sbcast-fanout-{fanout}")
        r = cluster.cli("sbcast", "-F", fanout, "-s", "1k", "-vv", "-j", str(job), str(src),
                        f"{dest}/", user="alice", timeout=120)
        assert r.returncode == 0, r.stderr
        m = re.search(r"at most (\d+) nodes written at once", r.stderr)
        assert m and 1 <= int(m.group(1)) <= most, r.stderr
        if fanout == "1":
            assert m.group(1) == "1", r.stderr
        for path in copies(dest, job).values():
            assert path.read_bytes() == src.read_bytes()


LIB_C = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
const char *drover_where(void) {
    Dl_info info;
    return dladdr((void *)drover_where, &info) ? info.dli_fname : "?";
}
"""

PROG_C = r"""
#include <stdio.h>
const char *drover_where(void);
int main(void) { printf("%s\n", drover_where()); return 0; }
"""


def built_program(cluster, name):
    """A program linked against libdroverwhere.so (no rpath: found through LD_LIBRARY_PATH) that
    prints the path its copy of the library was loaded from."""
    d = shared_dir(cluster, name)
    libdir = d / "lib"
    libdir.mkdir(exist_ok=True)
    (d / "lib.c").write_text(LIB_C)
    (d / "prog.c").write_text(PROG_C)
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(libdir / "libdroverwhere.so"),
                    str(d / "lib.c")], check=True)
    subprocess.run(["cc", "-o", str(d / "prog"), str(d / "prog.c"), f"-L{libdir}",
                    "-ldroverwhere"], check=True)
    for p in (d, libdir):
        os.chmod(p, 0o755)
    return d / "prog", libdir


def as_alice(cluster, args, ld_library_path, timeout=60):
    env = cluster.env()
    env["LD_LIBRARY_PATH"] = str(ld_library_path)
    return subprocess.run([str(cluster.bin / args[0]), *args[1:]], capture_output=True, text=True,
                          env=env, user="alice", timeout=timeout, cwd=str(cluster.run_dir))


def test_send_libs_puts_the_libraries_beside_each_copy_and_the_copy_runs_with_them(cluster, job):
    prog, libdir = built_program(cluster, "sbcast-libs")
    dest = shared_dir(cluster, "sbcast-libs-dest")
    r = as_alice(cluster, ["sbcast", "--send-libs", "-v", "-j", str(job), str(prog), f"{dest}/"],
                 libdir)
    assert r.returncode == 0, r.stderr
    assert f"library {libdir}/libdroverwhere.so sent" in r.stderr, r.stderr
    for node, copy in copies(dest, job).items():
        libs = Path(f"{copy}_libs")
        # libc lies under the default exclusions (/lib, /usr/lib, ...): not sent.
        assert sorted(p.name for p in libs.iterdir()) == ["libdroverwhere.so"], node
        sent = libs / "libdroverwhere.so"
        assert sent.read_bytes() == (libdir / "libdroverwhere.so").read_bytes()
        assert owner(sent) == "alice" and owner(libs) == "alice"
    # Each node runs its copy with its own library directory, and loads the copied library.
    run = as_alice(cluster, [
        "srun", "--jobid", str(job), "-N2", "-n2", "--ntasks-per-node=1", "--overlap", "sh", "-c",
        f"c={dest}/slurm_bcast_{job}.batch_$SLURMD_NODENAME; "
        "LD_LIBRARY_PATH=${c}_libs $c"], "/nonexistent")
    assert run.returncode == 0, run.stderr
    loaded = sorted(run.stdout.split())
    assert loaded == sorted(f"{c}_libs/libdroverwhere.so" for c in copies(dest, job).values()), \
        run.stdout


def test_send_libs_exclude_keeps_libraries_out_and_none_sends_all(cluster, job):
    prog, libdir = built_program(cluster, "sbcast-libs-ex")
    dest = shared_dir(cluster, "sbcast-libs-ex-dest")
    exclude = f"--exclude=/lib,/lib64,/usr/lib,/usr/lib64,{libdir}"
    r = as_alice(cluster, ["sbcast", "--send-libs", exclude, "-v", "-j", str(job), str(prog),
                           f"{dest}/"], libdir)
    assert r.returncode == 0, r.stderr
    assert f"library {libdir}/libdroverwhere.so excluded" in r.stderr, r.stderr
    for copy in copies(dest, job).values():
        assert copy.exists() and not Path(f"{copy}_libs").exists()
    dest = shared_dir(cluster, "sbcast-libs-none-dest")
    r = as_alice(cluster, ["sbcast", "--send-libs", "--exclude=NONE", "-j", str(job), str(prog),
                           f"{dest}/"], libdir)
    assert r.returncode == 0, r.stderr
    for copy in copies(dest, job).values():
        names = {p.name for p in Path(f"{copy}_libs").iterdir()}
        assert {"libdroverwhere.so", "libc.so.6"} <= names, names


def test_srun_bcast_send_libs_tasks_load_the_copied_libraries(cluster):
    prog, libdir = built_program(cluster, "srun-libs")
    dest = shared_dir(cluster, "srun-libs-dest")
    # srun's own LD_LIBRARY_PATH (which the tasks inherit) names the original library: the
    # copied one is found first.
    r = as_alice(cluster, ["srun", "-N2", "-n2", "--ntasks-per-node=1", f"--bcast={dest}/",
                           "--send-libs", "--compress", str(prog)], libdir)
    assert r.returncode == 0, r.stderr
    loaded = sorted(r.stdout.split())
    assert len(loaded) == 2, r.stdout
    for path, node in zip(loaded, ("node1", "node2")):
        assert re.fullmatch(rf"{re.escape(str(dest))}/slurm_bcast_\d+\.0_{node}_libs/"
                            r"libdroverwhere\.so", path), loaded
    # Without --send-libs the tasks load the original.
    r = as_alice(cluster, ["srun", "-N1", f"--bcast={dest}/", str(prog)], libdir)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == f"{libdir}/libdroverwhere.so"


def test_timeout_bounds_each_nodes_time(cluster, job):
    """-t 1 with node2's droverd stopped: node2 times out after about a second (not the
    cluster's 5 s message timeout), node1 is written."""
    d = shared_dir(cluster, "sbcast-timeout")
    src = source_file(d, "f.bin", 1000)
    dest = shared_dir(cluster, "sbcast-timeout-dest")
    pid = cluster.pid("node2")
    os.kill(pid, signal.SIGSTOP)
    try:
        start = time.monotonic()
        r = cluster.cli("sbcast", "-t", "1", "-j", str(job), str(src), f"{dest}/", user="alice")
        took = time.monotonic() - start
    finally:
        os.kill(pid, signal.SIGCONT)
    assert r.returncode == 1, r.stderr
    assert r.stderr == ("sbcast: error: REQUEST_FILE_BCAST(node2): "
                        "Socket timed out on send/recv operation\n")
    assert took < 4, took
    assert copies(dest, job)["node1"].read_bytes() == src.read_bytes()


def conf_with_bcast(cluster, name, section):
    """A copy of the cluster's cluster.conf with a `bcast:` section: sbcast and srun read their
    defaults (Slurm's BcastParameters, BcastExclude) from the file they are given."""
    conf = Path(cluster.run_dir) / f"{name}.conf"
    conf.write_text(Path(cluster.conf).read_text() + section)
    os.chmod(conf, 0o644)
    return conf


def test_cluster_conf_bcast_section_gives_sbcasts_defaults_and_options_win(cluster, job):
    d = shared_dir(cluster, "sbcast-conf")
    dest_dir = shared_dir(cluster, "sbcast-conf-dest")
    shared_dir(cluster, "sbcast-conf-dest/sub")
    conf = conf_with_bcast(cluster, "bcast-defaults",
                           f"bcast:\n  dest_dir: {dest_dir}\n  compression: lz4\n"
                           "  send_libs: true\n  exclude: []\n")
    src = compressible_file(d, "log.txt", 1024 * 1024)
    # A relative DEST lands in dest_dir; blocks are compressed without -C.
    r = cluster.cli("sbcast", "-vv", "-j", str(job), str(src), "sub/", conf=conf, user="alice")
    assert r.returncode == 0, r.stderr
    for want in ("compress   = lz4", "send_libs  = true", "exclude    = none",
                 f"dest       = {dest_dir}/sub/"):
        assert f"sbcast: {want}\n" in r.stderr, r.stderr
    m = re.search(r"sbcast: (\d+) bytes on the wire", r.stderr)
    assert m and int(m.group(1)) < src.stat().st_size // 10, r.stderr
    for node, path in copies(dest_dir / "sub", job).items():
        assert sha256(path) == sha256(src), node
    # Each option given wins over the section.
    r = cluster.cli("sbcast", "-v", "-f", "--compress=none", "--send-libs=no", "--exclude=/opt",
                    "-j", str(job), str(src), "sub/", conf=conf, user="alice")
    assert r.returncode == 0, r.stderr
    for want in ("compress   = none", "send_libs  = false", "exclude    = /opt"):
        assert f"sbcast: {want}\n" in r.stderr, r.stderr
    # scontrol shows the section under Slurm's names.
    r = cluster.cli("scontrol", "show", "config", conf=conf)
    assert "\nBcastExclude            = none\n" in r.stdout, r.stdout
    assert (f"\nBcastParameters         = DestDir={dest_dir},Compression=lz4,send_libs\n"
            in r.stdout), r.stdout


def test_srun_bcast_without_a_path_goes_to_the_configured_dest_dir(cluster):
    d, prog = bcast_program(cluster, "conf-dir")
    dest_dir = shared_dir(cluster, "bcast-conf-dest-dir")
    work = shared_dir(cluster, "bcast-conf-work")
    conf = conf_with_bcast(cluster, "bcast-destdir", f"bcast:\n  dest_dir: {dest_dir}\n")
    # DestDir comes before --chdir (man srun).
    r = cluster.cli("srun", "-N1", "--bcast", "-D", str(work), str(prog), conf=conf, user="alice",
                    timeout=60)
    assert r.returncode == 0, r.stderr
    path, user, node = r.stdout.split()
    assert re.fullmatch(rf"{re.escape(str(dest_dir))}/slurm_bcast_\d+\.0_{node}", path), path
    assert owner(path) == "alice"
