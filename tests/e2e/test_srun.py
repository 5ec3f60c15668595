"""srun and salloc end to end on a local cluster of 3 agents: steps inside a batch job, inside
salloc and in an allocation of srun's own; -l labels; megabytes of output per task with no loss
and in order; stdin to task 0 or all; signals forwarded (SIGUSR1, SIGINT) and a double Ctrl-C
that kills the step; exit codes (highest task code, 128+signal, command not found); the
pending message and -I; scancel JOB.STEP; step records in sacct; the PyTorch variables; bad
options with Slurm's messages and exit codes."""

import hashlib
import os
import pwd
import re
import signal
import subprocess
import time

import pytest

from cluster import labelled, shared_dir, wait_for

BASH_USER = "drbash"  # test_salloc_without_a_command_or_shell_runs_the_passwd_shell_or_sh


def run(cluster, name, *args, timeout=60, input=None, user=None):
    exe = cluster.bin / name
    return subprocess.run([str(exe), *args], capture_output=True, env=cluster.env(),
                          timeout=timeout, input=input, cwd=str(cluster.run_dir), user=user)


def text(r):
    return r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace")


def spawn(cluster, name, *args):
    return subprocess.Popen([str(cluster.bin / name), *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=cluster.env(),
                            cwd=str(cluster.run_dir))


def job_fields(cluster, job_id):
    return cluster.job_fields(job_id)


def wait_final(cluster, job_id, timeout=60):
    final = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY"}
    return wait_for(lambda: (f := job_fields(cluster, job_id)).get("JobState") in final and f,
                    timeout, what=f"job {job_id} to end")


def sacct_steps(cluster, job_id):
    r = cluster.cli("sacct", "-j", str(job_id), "-P", "-n", "-o", "JobID,State,ExitCode,NodeList")
    rows = [line.split("|") for line in r.stdout.splitlines() if line]
    return {row[0]: row[1:] for row in rows}


def until_lines(proc, count, timeout=30):
    """Reads proc's stdout until `count` lines came (the tasks said they are ready)."""
    lines = []
    deadline = time.monotonic() + timeout
    while len(lines) < count:
        assert time.monotonic() < deadline, f"only {lines!r} within {timeout}s"
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line.decode())
    return lines


# --- where a step runs --------------------------------------------------------------------

def test_srun_outside_an_allocation_runs_N2_n4(cluster):
    r = run(cluster, "srun", "-N2", "-n4", "-l", "printenv", "SLURMD_NODENAME")
    out, err = text(r)
    assert r.returncode == 0, err
    tasks = labelled(out)
    assert sorted(tasks) == [0, 1, 2, 3]
    nodes = {v[0] for v in tasks.values()}
    assert len(nodes) == 2, tasks
    assert "queued and waiting" not in err  # it started at once


def test_tasks_run_as_the_user_who_ran_srun(cluster):
    r = run(cluster, "srun", "-N2", "-l", "id", "-un", user="nobody")
    out, err = text(r)
    assert r.returncode == 0, err
    assert labelled(out) == {0: ["nobody"], 1: ["nobody"]}


def test_salloc_fewer_tasks_than_nodes_sets_the_node_count_with_slurms_warning(cluster):
    r = run(cluster, "salloc", "-N", "3", "-n", "2", "sh", "-c", "echo $SLURM_NNODES")
    out, err = text(r)
    assert r.returncode == 0, err
    assert "salloc: Warning: can't run 2 processes on 3 nodes, setting nnodes to 2\n" in err, err
    assert out.strip() == "2", out


def test_salloc_refusals_say_job_submit_allocate_failed(cluster):
    """salloc's refusals as the reference's salloc printed them (srun's say "Unable to allocate
    resources"); `-t 0` asks for no time limit (sbatch(1)), which the partition's MaxTime refuses,
    as the reference refused it for sbatch, srun and salloc alike."""
    for args, why in [(["-N", "9"], "Node count specification invalid"),
                      (["-d", "foo:1"], "Job dependency problem"),
                      (["-t", "0"], "Requested time limit is invalid (missing or exceeds some limit)")]:
        r = run(cluster, "salloc", *args, "true")
        _, err = text(r)
        assert (r.returncode, err) == (1, f"salloc: error: Job submit/allocate failed: {why}\n"), args
    r = run(cluster, "srun", "-t", "0", "true")
    assert text(r)[1].endswith("srun: error: Unable to allocate resources: Requested time limit is "
                               "invalid (missing or exceeds some limit)\n"), text(r)


def test_salloc_immediate_and_revoked(cluster):
    blocker = subprocess.run([str(cluster.bin / "sbatch"), "--parsable", "-N3", "--exclusive",
                              "--wrap=sleep 300"], capture_output=True, env=cluster.env(),
                             cwd=str(cluster.run_dir))
    assert blocker.returncode == 0, blocker.stderr
    blocker_id = int(blocker.stdout.decode().split(";")[0])
    try:
        wait_for(lambda: job_fields(cluster, blocker_id).get("JobState") == "RUNNING", 30,
                 what="the blocker to run")
        # The reference's words for each form (2026-12-03, every node busy).
        r = run(cluster, "salloc", "-I", "-N1", "true", timeout=30)
        out, err = text(r)
        assert r.returncode == 1, err
        assert re.fullmatch(r"salloc: error: Unable to allocate resources: Requested nodes are busy\n"
                            r"salloc: Job allocation \d+ has been revoked\.\n", err), err
        r = run(cluster, "salloc", "-I1", "-N1", "true", timeout=30)
        out, err = text(r)
        assert r.returncode == 1, err
        assert re.fullmatch(r"salloc: Pending job allocation (\d+)\n"
                            r"salloc: job \1 queued and waiting for resources\n"
                            r"salloc: Job allocation \1 has been revoked\.\n"
                            r"salloc: error: Unable to allocate resources: Connection timed out\n",
                            err), err
        for immediate, queued in (("-I", ""), ("-I1", r"srun: job \d+ queued and waiting for resources\n")):
            r = run(cluster, "srun", immediate, "-N1", "true", timeout=30)
            out, err = text(r)
            assert r.returncode == 1, err
            assert re.fullmatch(queued + "srun: error: Unable to allocate resources: Requested nodes "
                                "are busy\n", err), (immediate, err)
    finally:
        run(cluster, "scancel", str(blocker_id))
    wait_final(cluster, blocker_id)
    p = spawn(cluster, "salloc", "-N1", "sleep", "300")
    try:
        job_id = wait_for(lambda: run(cluster, "squeue", "-h", "-n", "sleep", "-t", "R", "-o", "%i")
                          .stdout.decode().strip(), 20, what="the salloc job to run")
        r = run(cluster, "scancel", job_id)
        assert r.returncode == 0, r.stderr
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
    assert f"salloc: Job allocation {job_id} has been revoked." in err.decode(), err
    assert p.returncode != 0


def salloc_stdout_on_a_terminal(cluster, *args):
    """salloc ARGS with its stdout on a new pseudo-terminal: (exit code, bytes the terminal got)."""
    import pty
    master, slave = pty.openpty()
    try:
        r = subprocess.run([str(cluster.bin / "salloc"), *args], stdout=slave,
                           stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=cluster.env(),
                           timeout=60, cwd=str(cluster.run_dir))
        os.close(slave)
        slave = -1
        got = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO: no writer left
                break
            if not chunk:
                break
            got += chunk
        return r.returncode, got
    finally:
        if slave >= 0:
            os.close(slave)
        os.close(master)


def test_salloc_bell_rings_on_a_terminal_when_asked(cluster):
    """salloc(1): --bell rings the terminal bell (BEL on stdout) as the allocation is granted,
    only when stdout is a terminal; --no-bell and an allocation granted at once do not."""
    rc, got = salloc_stdout_on_a_terminal(cluster, "--bell", "-N1", "echo", "ran")
    assert rc == 0
    assert got.startswith(b"\a") and b"ran" in got, got
    rc, got = salloc_stdout_on_a_terminal(cluster, "-N1", "echo", "ran")
    assert rc == 0 and b"\a" not in got and b"ran" in got, got
    rc, got = salloc_stdout_on_a_terminal(cluster, "--no-bell", "-N1", "echo", "ran")
    assert rc == 0 and b"\a" not in got, got
    r = run(cluster, "salloc", "--bell", "-N1", "echo", "ran")
    assert r.returncode == 0 and r.stdout == b"ran\n", r


def test_salloc_no_shell_leaves_the_allocation_for_srun_jobid(cluster):
    """salloc --no-shell: the allocation is granted, no command runs (one given is ignored), and
    the job, named "no-shell" as Slurm names it, stays RUNNING for `srun --jobid` until
    scancel."""
    r = run(cluster, "salloc", "--no-shell", "-N1", "-t", "5", "touch", "should-not-exist")
    out, err = text(r)
    assert r.returncode == 0, err
    m = re.fullmatch(r"salloc: Granted job allocation (\d+)\n", err)
    assert m, err
    job_id = m.group(1)
    f = job_fields(cluster, job_id)
    assert (f["JobState"], f["JobName"], f["BatchFlag"]) == ("RUNNING", "no-shell", "0"), f
    assert not (cluster.run_dir / "should-not-exist").exists()
    r = run(cluster, "srun", f"--jobid={job_id}", "printenv", "SLURM_JOB_ID")
    assert text(r)[0].strip() == job_id, text(r)
    assert job_fields(cluster, job_id)["JobState"] == "RUNNING"
    assert run(cluster, "scancel", job_id).returncode == 0
    assert wait_final(cluster, job_id)["JobState"] == "CANCELLED"


def test_salloc_without_a_command_or_shell_runs_the_passwd_shell_or_sh(cluster):
    """No command and no $SHELL: salloc runs the login shell /etc/passwd gives (read by hand),
    else /bin/sh. Looking it up with glibc's NSS, the static salloc died of SIGSEGV for a uid
    the files lack (libnss_systemd)."""
    env = {k: v for k, v in cluster.env().items() if k != "SHELL"}
    script = b'echo "bash=${BASH_VERSION:+yes}"; exit 4\n'
    # A user of its own whose login shell is bash: the shared test users' shells depend on which
    # test created them first.
    try:
        pwd.getpwnam(BASH_USER)
    except KeyError:
        subprocess.run(["useradd", "-M", "-s", "/bin/bash", BASH_USER], check=True)
    assert pwd.getpwnam(BASH_USER).pw_shell == "/bin/bash"
    for user, want in ((BASH_USER, "bash=yes\n"), (54321, "bash=\n")):
        r = subprocess.run([str(cluster.bin / "salloc"), "-N1", "-t", "5"], capture_output=True,
                           env=env, timeout=60, input=script, cwd=str(cluster.run_dir), user=user)
        out, err = text(r)
        assert (r.returncode, out) == (4, want), (user, r.returncode, err)


def test_srun_inside_a_batch_job(cluster):
    out_dir = shared_dir(cluster, "batch-srun")
    out = out_dir / "steps.out"
    script = (f"#!/bin/sh\n{cluster.bin}/srun -n4 -l printenv SLURMD_NODENAME\n"
              f"{cluster.bin}/srun -N1 -n1 printenv SLURM_STEP_ID\n"
              "sleep 2\n")  # see test_sacct_records_the_step...: the last step's report
    # -c2, not -n4: the controller launches the batch script once per task of the first node
    # (a defect outside srun), so the job keeps one task per node.
    r = subprocess.run([str(cluster.bin / "sbatch"), "--parsable", "-N2", "-c2", "-o", str(out)],
                       input=script.encode(), capture_output=True, env=cluster.env(), cwd=str(out_dir))
    assert r.returncode == 0, r.stderr
    job_id = int(r.stdout.decode().split(";")[0])
    f = wait_final(cluster, job_id)
    assert f["JobState"] == "COMPLETED", (f, out.read_text())
    lines = out.read_text().splitlines()
    tasks = labelled("\n".join(lines[:4]))
    assert sorted(tasks) == [0, 1, 2, 3], lines
    assert len({v[0] for v in tasks.values()}) == 2
    assert lines[4] == "1", lines  # the second step is ID.1
    steps = wait_for(lambda: (s := sacct_steps(cluster, job_id)).get(f"{job_id}.1") and s, 15,
                     what="step records")
    assert steps[f"{job_id}.0"][:2] == ["COMPLETED", "0:0"], steps
    assert steps[f"{job_id}.1"][:2] == ["COMPLETED", "0:0"], steps


def test_exclusive_step_waits_for_the_cpus_another_holds(cluster):
    """Two --exclusive steps that each want all of the job's CPUs: the second is refused as
    busy by the controller, and srun retries (with Slurm's message) until the first ends."""
    out_dir = shared_dir(cluster, "exclusive-steps")
    out = out_dir / "steps.out"
    script = (f"#!/bin/sh\n{cluster.bin}/srun --exclusive -n1 -c4 sh -c 'sleep 2; echo first' &\n"
              "sleep 1\n"
              f"{cluster.bin}/srun --exclusive -n1 -c4 echo second\n"
              "wait\n")
    r = subprocess.run([str(cluster.bin / "sbatch"), "--parsable", "-N1", "-n1", "-c4", "-o", str(out)],
                       input=script.encode(), capture_output=True, env=cluster.env(), cwd=str(out_dir))
    assert r.returncode == 0, r.stderr
    job_id = int(r.stdout.decode().split(";")[0])
    f = wait_final(cluster, job_id)
    text_out = out.read_text()
    assert f["JobState"] == "COMPLETED", (f, text_out)
    lines = text_out.splitlines()
    busy = f"srun: Job {job_id} step creation temporarily disabled, retrying (Requested nodes are busy)"
    assert busy in lines, lines
    assert lines.index("first") < lines.index("second"), lines


def test_salloc_runs_its_command_with_the_job_variables(cluster):
    # Not the variables its steps get, nor a memory per CPU it did not ask for (the reference's
    # salloc shell had none of them).
    r = run(cluster, "salloc", "-N2", "-n4", "sh", "-c",
            f"{cluster.bin}/srun -l printenv SLURMD_NODENAME; echo JOB=$SLURM_JOB_ID NODES=$SLURM_JOB_NODELIST; "
            "echo STEPS=${SLURM_JOB_UID-}${SLURM_JOB_USER-}${SLURM_WORKING_CLUSTER-}${SLURM_MEM_PER_CPU-}; exit 3")
    out, err = text(r)
    assert r.returncode == 3, err
    m = re.search(r"salloc: Granted job allocation (\d+)", err)
    assert m, err
    job_id = m.group(1)
    assert f"salloc: Relinquishing job allocation {job_id}" in err
    lines = out.splitlines()
    tasks = labelled("\n".join(lines[:4]))
    assert sorted(tasks) == [0, 1, 2, 3], out
    assert re.fullmatch(rf"JOB={job_id} NODES=node\[\d-\d\]", lines[4]), lines
    assert lines[5] == "STEPS=", lines
    f = wait_final(cluster, job_id)
    assert f["JobState"] == "FAILED" and f["ExitCode"] == "3:0", f


# --- I/O ------------------------------------------------------------------------------------

def test_labels_are_padded_to_the_widest_task_id(cluster):
    r = run(cluster, "srun", "-N1", "-n12", "-l", "sh", "-c", "echo hi")
    out, err = text(r)
    assert r.returncode == 0, err
    assert sorted(out.splitlines()) == sorted(f"{i:2d}: hi" for i in range(12))


TASK_WRITER = r"""
import os, sys
rank = int(os.environ["SLURM_PROCID"])
out = sys.stdout.buffer
for j in range(%d):
    out.write(b"%%d %%08d %%s\n" %% (rank, j, b"x" * (60 + (j * 7 + rank) %% 50)))
out.flush()
"""


def test_megabytes_per_task_arrive_whole_and_in_order(cluster):
    lines_per_task = 50000  # about 4.5 MB per task
    script = shared_dir(cluster, "io") / "writer.py"
    script.write_text(TASK_WRITER % lines_per_task)
    r = run(cluster, "srun", "-N2", "-n4", "/usr/bin/python3", str(script), timeout=120)
    assert r.returncode == 0, r.stderr
    seen = {rank: 0 for rank in range(4)}
    digest = {rank: hashlib.sha256() for rank in range(4)}
    for line in r.stdout.split(b"\n")[:-1]:
        rank_s, j_s, pad = line.split(b" ")
        rank, j = int(rank_s), int(j_s)
        assert j == seen[rank], f"task {rank}: line {j} after {seen[rank] - 1}"
        assert len(pad) == 60 + (j * 7 + rank) % 50
        seen[rank] += 1
        digest[rank].update(line + b"\n")
    assert seen == {rank: lines_per_task for rank in range(4)}
    for rank in range(4):
        want = hashlib.sha256()
        for j in range(lines_per_task):
            want.update(b"%d %08d %s\n" % (rank, j, b"x" * (60 + (j * 7 + rank) % 50)))
        assert digest[rank].hexdigest() == want.hexdigest(), rank


def test_stdin_goes_to_task_zero_or_to_all(cluster):
    data = os.urandom(1 << 20)
    want = hashlib.md5(data).hexdigest()
    empty = hashlib.md5(b"").hexdigest()
    r = run(cluster, "srun", "-n2", "-l", "md5sum", input=data)
    assert r.returncode == 0, r.stderr
    got = {k: v[0].split()[0] for k, v in labelled(r.stdout.decode()).items()}
    assert got == {0: want, 1: empty}
    r = run(cluster, "srun", "-n2", "-l", "-i", "all", "md5sum", input=data)
    assert r.returncode == 0, r.stderr
    got = {k: v[0].split()[0] for k, v in labelled(r.stdout.decode()).items()}
    assert got == {0: want, 1: want}
    r = run(cluster, "srun", "-n3", "-l", "-i", "2", "md5sum", input=data)
    assert r.returncode == 0, r.stderr
    got = {k: v[0].split()[0] for k, v in labelled(r.stdout.decode()).items()}
    assert got == {0: empty, 1: empty, 2: want}


def test_output_patterns_write_per_task_files(cluster):
    d = shared_dir(cluster, "patterns")
    r = run(cluster, "srun", "-n3", "-o", str(d / "out-%j-%t.txt"), "sh", "-c", "echo task $SLURM_PROCID")
    assert r.returncode == 0, r.stderr
    files = sorted(d.glob("out-*-*.txt"))
    assert len(files) == 3, files
    for f in files:
        rank = f.stem.split("-")[-1]
        assert f.read_text() == f"task {rank}\n"


# --- exit codes -------------------------------------------------------------------------------

def test_exit_code_is_the_highest_task_code(cluster):
    r = run(cluster, "srun", "-n3", "-l", "bash", "-c", "exit $SLURM_PROCID")
    out, err = text(r)
    assert r.returncode == 2, err
    assert re.search(r"srun: error: node\d: task 1: Exited with exit code 1", err), err
    assert re.search(r"srun: error: node\d: task 2: Exited with exit code 2", err), err
    assert "task 0" not in err


def test_signalled_task_gives_128_plus_signal(cluster):
    r = run(cluster, "srun", "bash", "-c", "kill -9 $$")
    out, err = text(r)
    assert r.returncode == 137, err
    assert re.search(r"srun: error: node\d: task 0: Killed", err), err


def test_command_not_found(cluster):
    r = run(cluster, "srun", "-n2", "no-such-command-xyz")
    out, err = text(r)
    assert r.returncode == 2, err
    assert "no-such-command-xyz" in err
    # One line for the node's two tasks, as the reference's "node01: tasks 0-1: Exited with
    # exit code 2".
    assert re.search(r"srun: error: node\d: tasks 0-1: Exited with exit code 2\n", err), err


def test_a_program_on_the_users_path_runs_and_a_failed_exec_ends_with_its_errno(cluster):
    # As the reference's step daemon: the program is looked up in the task's PATH (the user's,
    # not the agent's), the first file of that name found is the one run, and a failed exec's
    # errno is the task's exit code and the step's (13: a file without x; 8: no "#!").
    bin_dir = shared_dir(cluster, "user-bin")
    for name, body, mode in (("myprog", "#!/bin/sh\necho mine $(id -un)\n", 0o755),
                             ("notexec", "#!/bin/sh\necho ran\n", 0o644),
                             ("noshebang", "echo ran\n", 0o755)):
        (bin_dir / name).write_text(body)
        os.chmod(bin_dir / name, mode)
    env = dict(cluster.env(), PATH=f"{bin_dir}:/usr/bin:/bin")

    def srun(*args):
        return subprocess.run([str(cluster.bin / "srun"), *args], capture_output=True, text=True,
                              env=env, timeout=60, cwd=str(cluster.run_dir), user="nobody")

    r = srun("myprog")
    assert (r.returncode, r.stdout) == (0, "mine nobody\n"), r.stderr
    for name, code, why in (("notexec", 13, "Permission denied"), ("noshebang", 8, "Exec format error")):
        r = srun(name)
        assert r.returncode == code, r.stderr
        assert f"error: execve(): {bin_dir}/{name}: {why}\n" in r.stderr, r.stderr
        assert re.search(rf"srun: error: node\d: task 0: Exited with exit code {code}\n", r.stderr), r.stderr
        assert r.stdout == ""
    r = srun("-J", "errno-step", "notexec")
    assert r.returncode == 13, r.stderr
    job_id = cluster.cli("sacct", "-n", "-X", "-a", "--name", "errno-step", "-o", "JobID").stdout.split()
    assert len(job_id) == 1, job_id
    steps = wait_for(lambda: (s := sacct_steps(cluster, job_id[0])).get(f"{job_id[0]}.0") and s,
                     15, what="the step's record")
    assert steps[job_id[0]][:2] == ["FAILED", "13:0"], steps
    assert steps[f"{job_id[0]}.0"][:2] == ["FAILED", "13:0"], steps


def test_sacct_records_the_step_with_state_and_exit_code(cluster):
    # The sleep: a step's own report reaches the controller just after srun has seen its
    # tasks exit; a CompleteAllocation before it records the step CANCELLED (controller side).
    r = run(cluster, "salloc", "-N1", "sh", "-c",
            f"{cluster.bin}/srun true; {cluster.bin}/srun sh -c 'exit 3'; sleep 2; true")
    out, err = text(r)
    assert r.returncode == 0, err
    job_id = re.search(r"Granted job allocation (\d+)", err).group(1)
    steps = wait_for(lambda: (s := sacct_steps(cluster, job_id)).get(f"{job_id}.1") and s, 15,
                     what="step records")
    assert steps[f"{job_id}.0"][:2] == ["COMPLETED", "0:0"], steps
    assert steps[f"{job_id}.1"][:2] == ["FAILED", "3:0"], steps
    assert re.fullmatch(r"node\d", steps[f"{job_id}.0"][2]), steps


# --- signals --------------------------------------------------------------------------------

TRAPPER = ("trap 'echo got USR1 $SLURM_PROCID' USR1; trap 'echo got INT $SLURM_PROCID; exit 5' INT; "
           "echo ready; while true; do sleep 0.1; done")


def test_sigusr1_and_sigint_reach_the_tasks(cluster):
    p = spawn(cluster, "srun", "-n2", "-l", "bash", "-c", TRAPPER)
    try:
        assert len(until_lines(p, 2)) == 2
        p.send_signal(signal.SIGUSR1)
        got = until_lines(p, 2)
        assert sorted(l.split(": ", 1)[1].strip() for l in got) == ["got USR1 0", "got USR1 1"]
        time.sleep(1.2)  # not a double Ctrl-C
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
    assert sorted(l.split(": ", 1)[1] for l in out.decode().splitlines()) == ["got INT 0", "got INT 1"]
    assert p.returncode == 5, err
    assert "srun: interrupt (one more within 1 sec to abort)" in err.decode()


def test_double_ctrl_c_kills_the_step(cluster):
    p = spawn(cluster, "srun", "-n2", "bash", "-c",
              "trap 'echo caught' INT; echo ready; while true; do sleep 0.1; done")
    try:
        assert len(until_lines(p, 2)) == 2
        start = time.monotonic()
        p.send_signal(signal.SIGINT)
        time.sleep(0.2)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
        assert time.monotonic() - start < 15
    finally:
        if p.poll() is None:
            p.kill()
    assert "srun: forcing job termination" in err.decode(), err
    # The reference's wait: the kill wait (30 s) and two more.
    assert "srun: Job step aborted: Waiting up to 32 seconds for job step to finish." in err.decode(), err
    assert p.returncode == 137, err


def test_srun_into_a_job_that_is_gone_says_so_as_the_reference(cluster):
    """srun --jobid (or SLURM_JOB_ID) of a job nobody has, and of one that ended: the
    reference's two lines each (2026-12-03), exit 1."""
    check = "srun: Check SLURM_JOB_ID environment variable. Expired or invalid job {}\n"
    r = run(cluster, "srun", "--jobid=999999", "true")
    assert (r.returncode, text(r)[1]) == (1, "srun: error: Unable to confirm allocation for job "
                                             "999999: Invalid job id specified\n"
                                             + check.format(999999)), text(r)
    r = run(cluster, "sbatch", "--parsable", "-o", "/dev/null", "--wrap=true")
    job = int(text(r)[0].strip())
    wait_final(cluster, job)
    r = run(cluster, "srun", f"--jobid={job}", "true")
    assert (r.returncode, text(r)[1]) == \
        (1, f"srun: error: Slurm job {job} has expired\n" + check.format(job)), text(r)


def cancel_under_srun(cluster, name, target, *options):
    """Starts `srun -J name OPTIONS sleep 300`, and once it runs scancels `target(job_id)`;
    returns srun's exit status, the job id and srun's stderr."""
    p = spawn(cluster, "srun", "-J", name, *options, "sleep", "300")
    try:
        job_id = wait_for(lambda: run(cluster, "squeue", "-h", "-n", name, "-o", "%i")
                          .stdout.decode().strip(), 20, what="the srun job")
        time.sleep(1)
        r = run(cluster, "scancel", target(job_id))
        assert r.returncode == 0, r.stderr
        _, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
    return p.returncode, job_id, err.decode()


def test_scancel_of_one_step_ends_it(cluster):
    code, job_id, err = cancel_under_srun(cluster, "stepcancel", lambda job: f"{job}.0",
                                          "-N3", "-l")
    assert code != 0, err
    # As the reference's srun (2026-12-04): the abort line, no "Force Terminated", and the step
    # daemon's line once, from the step's first node (task 0's).
    assert "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.\n" in err, err
    assert "Force Terminated" not in err, err
    assert len(re.findall(r"^0: drover-stepd-node\d: error: \*\*\* STEP \d+\.0 ON node\d CANCELLED",
                          err, re.M)) == 1 and err.count("CANCELLED AT") == 1, err
    wait_final(cluster, job_id)


def test_scancel_of_the_job_of_srun_says_what_the_reference_said(cluster):
    _, job_id, err = cancel_under_srun(cluster, "jobcancel", lambda job: job)
    lines = [line for line in err.splitlines() if line]
    assert re.fullmatch(rf"drover-stepd-node\d: error: \*\*\* STEP {job_id}\.0 ON node\d "
                        r"CANCELLED AT \S+ \*\*\*", lines[0]), err
    # Nothing about releasing the allocation the cancel already ended.
    assert lines[1:] == ["srun: Job step aborted: Waiting up to 32 seconds for job step to finish.",
                         "srun: error: node1: task 0: Terminated"], err


# --- allocations ----------------------------------------------------------------------------

def test_pending_message_and_immediate(cluster):
    blocker = subprocess.run([str(cluster.bin / "sbatch"), "--parsable", "-N3", "--exclusive",
                              "--wrap=sleep 300"], capture_output=True, env=cluster.env(),
                             cwd=str(cluster.run_dir))
    assert blocker.returncode == 0, blocker.stderr
    blocker_id = int(blocker.stdout.decode().split(";")[0])
    try:
        wait_for(lambda: job_fields(cluster, blocker_id).get("JobState") == "RUNNING", 30,
                 what="the blocker to run")
        r = run(cluster, "srun", "-I", "-N1", "true", timeout=30)
        out, err = text(r)
        assert r.returncode == 1, err
        assert "srun: error: Unable to allocate resources" in err, err
        p = spawn(cluster, "srun", "-N1", "echo", "ran")
        time.sleep(2)
        assert p.poll() is None
    finally:
        run(cluster, "scancel", str(blocker_id))
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    assert out.decode() == "ran\n"
    assert re.search(r"srun: job (\d+) queued and waiting for resources\nsrun: job \1 has been "
                     r"allocated resources\n", err.decode()), err


def test_an_allocation_that_ends_before_it_starts(cluster):
    """A job that can never end by its --deadline ends DEADLINE before it starts; srun and
    salloc say what the reference's did for a pending allocation that ended (scancel or
    --deadline), exit 1."""
    r = run(cluster, "srun", "--deadline=now+1minute", "-t", "10", "true", timeout=30)
    out, err = text(r)
    assert (r.returncode, err) == (1, "srun: Job has been cancelled\nsrun: error: Unable to "
                                      "allocate resources: Job/step already completing or "
                                      "completed\n"), err
    r = run(cluster, "salloc", "--deadline=now+1minute", "-t", "10", "true", timeout=30)
    out, err = text(r)
    assert r.returncode == 1, err
    assert re.fullmatch(r"salloc: Job allocation (\d+) has been revoked.\nsalloc: Job has been "
                        r"cancelled\nsalloc: error: Job submit/allocate failed: Job/step already "
                        r"completing or completed\n", err), err


# --- environment ----------------------------------------------------------------------------

def test_tasks_get_the_pytorch_variables(cluster):
    r = run(cluster, "srun", "-N2", "--ntasks-per-node=2", "-l", "sh", "-c",
            "echo $RANK $WORLD_SIZE $LOCAL_RANK $LOCAL_WORLD_SIZE $GROUP_RANK $MASTER_ADDR $MASTER_PORT "
            "$SLURM_PROCID $SLURM_NTASKS $SLURM_LOCALID $SLURM_NODEID $SLURM_STEP_NUM_TASKS")
    out, err = text(r)
    assert r.returncode == 0, err
    rows = {k: v[0].split() for k, v in labelled(out).items()}
    assert sorted(rows) == [0, 1, 2, 3]
    masters = {(row[5], row[6]) for row in rows.values()}
    assert len(masters) == 1, rows
    for rank, row in rows.items():
        assert row[0] == str(rank) and row[1] == "4" and row[7] == str(rank) and row[8] == "4", row
        assert row[2] == row[9] and row[4] == row[10] and row[3] == "2" and row[11] == "4", row


GPU_VARS = ("CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL", "ROCR_VISIBLE_DEVICES", "ZE_AFFINITY_MASK",
            "SLURM_STEP_GPUS", "SLURM_JOB_GPUS", "SLURM_GPUS_ON_NODE", "SLURMD_TRES_BIND")
GPU_VARS_CMD = "env | grep -E '^(" + "|".join(GPU_VARS) + ")=' | sort | tr '\\n' ' '; echo"


def gpu_env_by_task(cluster, *args, prog="srun"):
    """srun -N1 ARGS: {task: {GPU variable: value}} for the variables each task has."""
    r = run(cluster, prog, "-N1", *args, "-l", "sh", "-c", GPU_VARS_CMD)
    out, err = text(r)
    assert r.returncode == 0, err
    return {rank: dict(kv.split("=", 1) for kv in (v[0].split() if v else []))
            for rank, v in labelled(out).items()}


def own_gpus(env):
    """The task's GPU list, after checking the five variables that carry it agree (the
    reference Slurm set them to the same list)."""
    lists = {env.get(k) for k in GPU_VARS[:5]}
    assert len(lists) == 1, env
    return lists.pop().split(",")


def test_gpus_per_task_binds_each_task_to_its_own_gpus(cluster):
    """--gpus-per-task=1 with 4 tasks on one node, as the reference Slurm ran it: task i sees
    the step's i-th GPU in CUDA_VISIBLE_DEVICES, GPU_DEVICE_ORDINAL, ROCR_VISIBLE_DEVICES and
    SLURM_STEP_GPUS alike (0, 1, 2, 3 on an idle node), SLURM_GPUS_ON_NODE=4,
    SLURMD_TRES_BIND=gpu:per_task:1, and no SLURM_JOB_GPUS (srun made the job)."""
    rows = gpu_env_by_task(cluster, "-n4", "--gpus-per-task=1")
    assert sorted(rows) == [0, 1, 2, 3], rows
    seen = [own_gpus(rows[t]) for t in range(4)]
    assert all(len(g) == 1 for g in seen) and len({g[0] for g in seen}) == 4, rows
    assert [int(g[0]) for g in seen] == sorted(int(g[0]) for g in seen), rows
    for env in rows.values():
        assert env["SLURM_GPUS_ON_NODE"] == "4" and env["SLURMD_TRES_BIND"] == "gpu:per_task:1", env
        assert "SLURM_JOB_GPUS" not in env, env
    # Two GPUs each: the next two in order.
    rows = gpu_env_by_task(cluster, "-n2", "--gpus-per-task=2")
    first, second = own_gpus(rows[0]), own_gpus(rows[1])
    assert len(first) == len(second) == 2 and not set(first) & set(second), rows


def test_gpu_bind_gives_each_task_the_gpus_srun_documents(cluster):
    """--gpu-bind (srun(1)), each task's variables as the reference's tasks had them:
    single:N gives N tasks at a time one GPU of the step's in order, map_gpu / mask_gpu name
    the node's GPU indices by local task, none leaves the tasks no GPU list at all, and a node
    running one task of the step is not bound."""
    rows = gpu_env_by_task(cluster, "-n4", "--gpus=4", "--gpu-bind=single:1")
    seen = [own_gpus(rows[t]) for t in range(4)]
    assert len({g[0] for g in seen}) == 4 and all(len(g) == 1 for g in seen), rows
    assert all(e["SLURMD_TRES_BIND"] == "gpu:single:1" and e["SLURM_GPUS_ON_NODE"] == "4"
               for e in rows.values()), rows
    rows = gpu_env_by_task(cluster, "-n4", "--gpus-per-node=4", "--gpu-bind=single:2")
    seen = [own_gpus(rows[t]) for t in range(4)]
    assert seen[0] == seen[1] and seen[2] == seen[3] and seen[0] != seen[2], rows
    # The whole node's 8 GPUs, so the indices are known: the reference gave 1,0,1,0.
    rows = gpu_env_by_task(cluster, "-n4", "--gres=gpu:8", "--gpu-bind=map_gpu:1,0")
    assert [own_gpus(rows[t]) for t in range(4)] == [["1"], ["0"], ["1"], ["0"]], rows
    assert rows[0]["SLURMD_TRES_BIND"] == "gpu:map_gpu:1,0" and rows[0]["SLURM_GPUS_ON_NODE"] == "8"
    rows = gpu_env_by_task(cluster, "-n2", "--gres=gpu:8", "--gpu-bind=verbose,mask_gpu:0x3,0xc0")
    assert [own_gpus(rows[t]) for t in range(2)] == [["0", "1"], ["6", "7"]], rows
    # none (also over --gpus-per-task): only SLURM_GPUS_ON_NODE and SLURMD_TRES_BIND are left.
    rows = gpu_env_by_task(cluster, "-n4", "--gpus-per-task=1", "--gpu-bind=none")
    assert all(e == {"SLURM_GPUS_ON_NODE": "4", "SLURMD_TRES_BIND": "gpu:none"}
               for e in rows.values()), rows
    # One task: every step GPU, no SLURMD_TRES_BIND.
    rows = gpu_env_by_task(cluster, "-n1", "--gpus-per-node=2", "--gpu-bind=none")
    assert len(own_gpus(rows[0])) == 2 and "SLURMD_TRES_BIND" not in rows[0], rows


def test_gpu_bind_verbose_tells_each_task_its_gpus(cluster):
    """--gpu-bind=verbose,TYPE: before each bound task runs, its step daemon writes on the
    task's stderr what the reference Slurm 22.05's slurmstepd wrote (`srun -l -n2 --gpus=2
    --gpu-bind=verbose,single:1` there: `0: gpu-bind: usable_gres=0x1; bit_alloc=0x3;
    local_inx=0; global_list=0; local_list=0`), after the reference's error line (its daemon's
    name swapped) for a task whose map names no GPU of the step."""
    r = run(cluster, "srun", "-l", "-n2", "--gres=gpu:8", "--gpu-bind=verbose,map_gpu:1,9",
            "sh", "-c", "echo CVD=$CUDA_VISIBLE_DEVICES")
    out, err = text(r)
    assert r.returncode == 0, err
    assert sorted(out.splitlines()) == ["0: CVD=1", "1: CVD=0"], out
    lines = err.splitlines()
    errors = [line for line in lines if "Bind request" in line]
    assert sorted(line for line in lines if line not in errors) == [
        "0: gpu-bind: usable_gres=0x2; bit_alloc=0xFF; local_inx=0; global_list=1; local_list=1",
        "1: gpu-bind: usable_gres=0x1; bit_alloc=0xFF; local_inx=0; global_list=0; local_list=0"], err
    assert len(errors) == 1 and re.fullmatch(
        r"1: drover-stepd-\S+: error: Bind request gpu:verbose,map_gpu:1,9 does not specify any "
        r"devices within the allocation for task 1\. Binding to the first device in the "
        r"allocation instead\.", errors[0]), err
    assert lines.index(errors[0]) < lines.index(
        "1: gpu-bind: usable_gres=0x1; bit_alloc=0xFF; local_inx=0; global_list=0; local_list=0"), err
    # Without verbose only the error; one task on the node, or none: nothing at all.
    r = run(cluster, "srun", "-l", "-n2", "--gres=gpu:8", "--gpu-bind=single:1", "true")
    assert text(r)[1] == "", text(r)
    for bind in ("verbose,none", "VERBOSE,closest"):
        r = run(cluster, "srun", "-l", "-n1", "--gres=gpu:2", f"--gpu-bind={bind}", "true")
        assert (r.returncode, text(r)[1]) == (0, ""), text(r)
    r = run(cluster, "srun", "-l", "-n2", "--gres=gpu:2", "--gpu-bind=verbose,none", "true")
    assert (r.returncode, text(r)[1]) == (0, ""), text(r)
    # verbose after the type is ignored, as the reference's srun did with closest,verbose and
    # single:1,verbose: bound as the type, no line, SLURMD_TRES_BIND as given.
    rows = gpu_env_by_task(cluster, "-n2", "--gres=gpu:8", "--gpu-bind=closest,verbose")
    assert [own_gpus(rows[t]) for t in range(2)] == [[str(g) for g in range(8)]] * 2, rows
    assert rows[0]["SLURMD_TRES_BIND"] == "gpu:closest,verbose", rows
    rows = gpu_env_by_task(cluster, "-n2", "--gres=gpu:8", "--gpu-bind=single:1,verbose")
    assert [own_gpus(rows[t]) for t in range(2)] == [["0"], ["1"]], rows
    r = run(cluster, "srun", "-l", "-n2", "--gres=gpu:2", "--gpu-bind=closest,verbose", "true")
    assert (r.returncode, text(r)[1]) == (0, ""), text(r)


def test_ntasks_per_gpu_runs_k_tasks_on_each_gpu(cluster):
    """--ntasks-per-gpu=2 -n4 (srun(1), as the reference ran it): 2 GPUs, tasks 0-1 on the
    first, 2-3 on the second, each told SLURM_NTASKS_PER_TRES=2 as the reference's were."""
    r = run(cluster, "srun", "-N1", "--ntasks-per-gpu=2", "-n4", "-l", "printenv",
            "SLURM_NTASKS_PER_TRES")
    assert r.returncode == 0 and labelled(text(r)[0]) == {t: ["2"] for t in range(4)}, text(r)
    r = run(cluster, "srun", "-N1", "-n2", "--gpus=2", "printenv", "SLURM_NTASKS_PER_TRES")
    assert r.returncode != 0 and not r.stdout, text(r)  # not set without --ntasks-per-gpu
    rows = gpu_env_by_task(cluster, "--ntasks-per-gpu=2", "-n4")
    seen = [own_gpus(rows[t]) for t in range(4)]
    assert rows[0]["SLURM_GPUS_ON_NODE"] == "2", rows
    assert rows[0]["SLURMD_TRES_BIND"] == "gpu:single:2", rows  # as the reference's
    assert seen[0] == seen[1] and seen[2] == seen[3] and seen[0] != seen[2], rows
    assert all(len(g) == 1 for g in seen), rows


def test_batch_step_and_its_steps_gpu_variables(cluster):
    """sbatch --gres=gpu:2, as the reference's job showed: the batch step lists the job's
    GPUs in CUDA_VISIBLE_DEVICES, GPU_DEVICE_ORDINAL, ROCR_VISIBLE_DEVICES and SLURM_JOB_GPUS
    (no SLURM_STEP_GPUS, no SLURMD_TRES_BIND); a step binding one GPU per task lists the
    task's own in the four step variables while SLURM_JOB_GPUS keeps the job's; --gpu-bind=none
    leaves only SLURM_JOB_GPUS and SLURM_GPUS_ON_NODE."""
    out = shared_dir(cluster, "gpu-env") / "job.out"
    script = ("echo batch: $(" + GPU_VARS_CMD + "); "
              "srun -n2 --gpus-per-task=1 -l sh -c \"" + GPU_VARS_CMD.replace('"', '\\"') + "\"; "
              "echo none:; srun -n2 --gpu-bind=none -l sh -c \"" + GPU_VARS_CMD.replace('"', '\\"') + "\"")
    r = run(cluster, "sbatch", "--parsable", "-N1", "-n2", "--gres=gpu:2", "-o", str(out),
            "--wrap", script)
    assert r.returncode == 0, r.stderr
    job = int(r.stdout.decode().split(";")[0])
    wait_final(cluster, job)
    lines = out.read_text().splitlines()
    batch = dict(kv.split("=", 1) for kv in lines[0].split()[1:])
    gpus = batch["CUDA_VISIBLE_DEVICES"]
    assert batch == {"CUDA_VISIBLE_DEVICES": gpus, "GPU_DEVICE_ORDINAL": gpus,
                     "ROCR_VISIBLE_DEVICES": gpus, "ZE_AFFINITY_MASK": gpus, "SLURM_JOB_GPUS": gpus,
                     "SLURM_GPUS_ON_NODE": "2"}, lines
    split = lines.index("none:")
    bound = {k: dict(kv.split("=", 1) for kv in v[0].split())
             for k, v in labelled("\n".join(lines[1:split]) + "\n").items()}
    assert sorted(bound) == [0, 1], lines
    assert [own_gpus(bound[t]) for t in range(2)] == [[g] for g in gpus.split(",")], lines
    assert all(e["SLURM_JOB_GPUS"] == gpus and e["SLURMD_TRES_BIND"] == "gpu:per_task:1"
               for e in bound.values()), lines
    unbound = {k: dict(kv.split("=", 1) for kv in v[0].split())
               for k, v in labelled("\n".join(lines[split + 1:]) + "\n").items()}
    assert all(e == {"SLURM_JOB_GPUS": gpus, "SLURM_GPUS_ON_NODE": "2", "SLURMD_TRES_BIND": "gpu:none"}
               for e in unbound.values()) and len(unbound) == 2, lines


def test_sbatch_gpu_bind_reaches_the_jobs_steps(cluster):
    """sbatch --gpu-bind sets SLURM_GPU_BIND in the job (sbatch(1)), which srun inside it reads
    as its own --gpu-bind."""
    out = shared_dir(cluster, "gpu-bind") / "job.out"
    r = run(cluster, "sbatch", "--parsable", "-N1", "-n2", "--gpus-per-node=2",
            "--gpu-bind=single:1", "-o", str(out), "--wrap",
            "echo bind=$SLURM_GPU_BIND; srun -l sh -c 'echo $CUDA_VISIBLE_DEVICES'")
    assert r.returncode == 0, r.stderr
    job = int(r.stdout.decode().split(";")[0])
    wait_final(cluster, job)
    lines = out.read_text().splitlines()
    assert lines[0] == "bind=single:1", lines
    seen = {k: v[0] for k, v in labelled("\n".join(lines[1:]) + "\n").items()}
    assert sorted(seen) == [0, 1] and seen[0] != seen[1] and "," not in seen[0] + seen[1], lines


def test_sbatch_ntasks_per_gpu_binds_the_jobs_steps_without_exporting_a_binding(cluster):
    """sbatch -n4 --ntasks-per-gpu=2, as the reference's job (session 38): SLURM_NTASKS_PER_GPU
    only, no SLURM_GPUS for the GPUs it derived and no SLURM_GPU_BIND; srun inside reads the
    count and binds each task single:2; scontrol shows NtasksPerTRES=2 and no TresPerJob or
    TresBind."""
    out = shared_dir(cluster, "tasks-per-gpu") / "job.out"
    r = run(cluster, "sbatch", "--parsable", "-N1", "-n4", "--ntasks-per-gpu=2", "-o", str(out), "--wrap",
            "echo per=${SLURM_NTASKS_PER_GPU-unset} gpus=${SLURM_GPUS-unset} bind=${SLURM_GPU_BIND-unset}; "
            "srun -l printenv SLURMD_TRES_BIND")
    assert r.returncode == 0, r.stderr
    job = int(r.stdout.decode().split(";")[0])
    shown = cluster.cli("scontrol", "show", "job", str(job)).stdout
    assert "\n   NtasksPerTRES=2\n" in shown and "TresPerJob=" not in shown and "TresBind=" not in shown, shown
    wait_final(cluster, job)
    lines = out.read_text().splitlines()
    assert lines[0] == "per=2 gpus=unset bind=unset", lines
    assert labelled("\n".join(lines[1:]) + "\n") == {t: ["gpu:single:2"] for t in range(4)}, lines


def test_gpu_bind_refuses_a_type_srun_does_not_know(cluster):
    r = run(cluster, "srun", "--gpu-bind=fastest", "true")
    out, err = text(r)
    assert r.returncode == 255
    assert err.startswith("srun: error: Invalid --gpu-bind argument: gpu:fastest ("), err


# --- bad input ------------------------------------------------------------------------------

@pytest.mark.parametrize("args,code,message", [
    (["-t", "garbage", "true"], 255, "srun: error: Invalid --time specification\n"),
    (["-p", "nosuch", "true"], 1, "srun: error: Unable to allocate resources: Invalid partition name specified\n"),
    (["-N", "10", "true"], 1, "srun: error: Unable to allocate resources: Node count specification invalid\n"),
    ([], 1, "srun: fatal: No command given to execute.\n"),
])
def test_bad_options_as_slurm(cluster, args, code, message):
    r = run(cluster, "srun", *args)
    out, err = text(r)
    assert r.returncode == code, err
    assert err.endswith(message), err


def test_default_distribution_inside_an_allocation_is_cyclic_for_no_more_tasks_than_nodes(cluster):
    """As the reference's srun without -m (checked 2026-12-05): inside an allocation it did not
    make, its tasks get SLURM_DISTRIBUTION, cyclic where there are no more tasks than nodes and
    block otherwise, as sacct's Layout says; the steps of srun's own allocation are Block and
    their tasks get none."""
    def dist(*args):
        r = run(cluster, *args, "sh", "-c", 'echo "${SLURM_DISTRIBUTION:-none}"')
        out, err = text(r)
        assert r.returncode == 0, err
        return sorted(set(out.split()))
    assert dist("salloc", "-N2", "-n4", "srun", "-n2") == ["cyclic"]
    assert dist("salloc", "-N2", "-n4", "srun") == ["block"]
    assert dist("salloc", "-N1", "srun", "-n1") == ["cyclic"]
    assert dist("salloc", "-N2", "-n4", "srun", "-n2", "-m", "block") == ["block"]
    assert dist("srun", "-N2", "-n2") == ["none"]
    r = run(cluster, "salloc", "-N2", "-n4", "sh", "-c",
            'srun -n2 true; srun true; echo "job=$SLURM_JOB_ID"')
    out, err = text(r)
    assert r.returncode == 0, err
    job = re.search(r"job=(\d+)", out).group(1)
    r = cluster.cli("sacct", "-j", f"{job}.0,{job}.1", "-P", "-n", "-o", "JobID,Layout")
    assert r.stdout.splitlines() == [f"{job}.0|Cyclic", f"{job}.1|Block"], r.stdout
