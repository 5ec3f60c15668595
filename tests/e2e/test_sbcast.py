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
