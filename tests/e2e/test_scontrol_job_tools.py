"""scontrol wait_job, notify, listpids and pidinfo end to end on a local cluster of 2 agents,
against what the reference Slurm 22.05 printed (2026-12-03, shared/slurm-reference): wait_job's
three answers; notify's refusals and its message reaching a salloc (running, and still waiting
for its start) and an srun holding its own allocation, as "salloc: MSG" / "srun: MSG";
listpids' table of alice's batch shell with its children and of an srun step's tasks, each pid
checked against /proc; pidinfo's job and end for a task's pid."""

import os
import queue
import re
import signal
import subprocess
import threading
import time

import pytest

from cluster import ensure_users, shared_dir, wait_for
from conftest import run_cluster

HEADER = "PID      JOBID    STEPID   LOCALID GLOBALID\n"


@pytest.fixture(scope="module")
def cluster(request):
    ensure_users(("alice", "bob"))
    yield from run_cluster(request, nodes=2, gpus_per_node=0, heartbeat=1, node_down=4)


def sbatch(cluster, *args, user="alice"):
    r = cluster.cli("sbatch", "--parsable", "-o", "/dev/null", *args, user=user)
    assert r.returncode == 0, r.stderr
    return int(r.stdout.split(";")[0])


class Client:
    """A salloc or srun run by alice in the background, its stderr read line by line."""

    def __init__(self, cluster, name, *args):
        self.proc = subprocess.Popen([str(cluster.bin / name), *args], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                                     env=cluster.env(), cwd="/tmp", user="alice")
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.seen = []

    def _read(self):
        for line in self.proc.stderr:
            self.lines.put(line)

    def wait_line(self, pattern, timeout=15):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.2)
            except queue.Empty:
                continue
            self.seen.append(line)
            if re.fullmatch(pattern, line.rstrip("\n")):
                return line
        raise AssertionError(f"no line like {pattern!r} within {timeout}s: {self.seen!r}")

    def stop(self):
        """SIGTERM (the client releases its allocation), SIGKILL if it does not end."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.proc.wait(timeout=10)


def job_of(cluster, name):
    """The id of alice's running job named `name`."""
    return int(wait_for(lambda: cluster.cli("squeue", "-h", "-u", "alice", "-n", name, "-t", "R",
                                            "-o", "%i").stdout.strip(), 20,
                        what=f"job {name} to run"))


def test_wait_job_answers_as_the_reference(cluster):
    running = sbatch(cluster, "--wrap", "sleep 300")
    held = sbatch(cluster, "-H", "--wrap", "sleep 300")
    try:
        cluster.wait_job(running, "RUNNING")
        r = cluster.scontrol("wait_job", str(running), user="alice")
        assert (r.returncode, r.stdout, r.stderr) == \
            (0, "", f"scontrol: Nodes are ready for job {running}\n")
        r = cluster.scontrol("wa", f"{running}_1")   # its leading digits, as the reference read it
        assert r.returncode == 0 and "ready" in r.stderr, r.stderr
        # The reference answered a pending job at once, without waiting for its start.
        r = cluster.scontrol("wait_job", str(held))
        assert (r.returncode, r.stderr) == (1, f"scontrol: Job {held} no longer running\n")
        for args, err in ((["999999"], "scontrol: Problem running job 999999\n"),
                          (["abc"], "Invalid job_id abc\n"),
                          ([], "too few arguments for keyword:wait_job\n"),
                          (["1", "2"], "too many arguments for keyword:wait_job\n")):
            r = cluster.scontrol("wait_job", *args)
            assert (r.returncode, r.stdout, r.stderr) == (1, "", err), args
    finally:
        cluster.cli("scancel", str(running), str(held))
    cluster.wait_job(running, "CANCELLED")
    r = cluster.scontrol("wait_job", str(running))
    assert (r.returncode, r.stderr) == (1, f"scontrol: Job {running} no longer running\n")


def test_notify_reaches_the_allocations_client(cluster):
    batch = sbatch(cluster, "--wrap", "sleep 300")
    salloc = Client(cluster, "salloc", "-N1", "-J", "notified", "sleep", "300")
    try:
        job = job_of(cluster, "notified")
        salloc.wait_line(rf"salloc: Granted job allocation {job}")
        r = cluster.scontrol("notify", str(batch), "hi", user="alice")
        assert (r.returncode, r.stderr) == \
            (1, "job notify failure: Requested operation is presently disabled\n")
        r = cluster.scontrol("notify", str(job), "hi", user="bob")
        assert (r.returncode, r.stderr) == (1, "job notify failure: Invalid user id\n")
        for args, err in ((["999999", "hi"], "job notify failure: Invalid job id specified\n"),
                          ([str(job)], "too few arguments for keyword:notify\n"),
                          (["abc", "hi"], "Invalid job_id abc\n")):
            r = cluster.scontrol("notify", *args, user="alice")
            assert (r.returncode, r.stdout, r.stderr) == (1, "", err), args
        r = cluster.scontrol("notify", str(job), "  spaced   words  ", "more", user="alice")
        assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
        salloc.wait_line(r"salloc:   spaced   words   more", timeout=10)
        r = cluster.scontrol("no", str(job), "from root")   # root may; "no" is enough
        assert r.returncode == 0, r.stderr
        salloc.wait_line(r"salloc: from root", timeout=10)
    finally:
        cluster.cli("scancel", str(batch))
        cluster.cli("scancel", "-n", "notified", user="alice")
        salloc.stop()
    cluster.wait_job(batch, "CANCELLED")
    r = cluster.scontrol("notify", str(batch), "late", user="alice")
    assert (r.returncode, r.stderr) == \
        (1, "job notify failure: Job/step already completing or completed\n")


def test_notify_reaches_srun_and_a_waiting_salloc(cluster):
    srun = Client(cluster, "srun", "-N1", "-J", "srun-notified", "sleep", "300")
    blocker = None
    waiting = None
    try:
        job = job_of(cluster, "srun-notified")
        assert cluster.scontrol("notify", str(job), "hi srun", user="alice").returncode == 0
        srun.wait_line(r"srun: hi srun", timeout=10)
        srun.stop()
        cluster.wait_job(job, {"CANCELLED", "COMPLETED", "FAILED"})
        # Every node busy: the salloc waits for its start, and hears the message meanwhile.
        blocker = sbatch(cluster, "-N2", "--exclusive", "--wrap", "sleep 300")
        cluster.wait_job(blocker, "RUNNING")
        waiting = Client(cluster, "salloc", "-N1", "-J", "waiting", "sleep", "300")
        line = waiting.wait_line(r"salloc: Pending job allocation \d+")
        pending = int(line.split()[-1])
        assert cluster.scontrol("notify", str(pending), "while you wait", user="alice").returncode == 0
        waiting.wait_line(r"salloc: while you wait", timeout=5)
        assert cluster.job_fields(pending).get("JobState") == "PENDING"
    finally:
        srun.stop()
        if blocker:
            cluster.cli("scancel", str(blocker))
        if waiting:
            cluster.cli("scancel", "-n", "waiting", user="alice")
            waiting.stop()


def test_srun_output_flows_while_the_controller_does_not_answer(cluster):
    """srun asks for notify's messages from the loop that also carries its tasks' output: a
    controller that does not answer (stopped here for 4 s, longer than two of srun's 2 s
    checks) must not hold that output up for the message timeout (5 s in these clusters)."""
    p = subprocess.Popen([str(cluster.bin / "srun"), "-N1", "-u", "-J", "ticker", "sh", "-c",
                          "for i in $(seq 120); do echo $i; sleep 0.1; done"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                         env=cluster.env(), cwd="/tmp", user="alice")
    arrivals = []
    threading.Thread(target=lambda: [arrivals.append(time.monotonic()) for _ in p.stdout],
                     daemon=True).start()
    ctld = cluster.pid("droverctld")
    try:
        wait_for(lambda: len(arrivals) >= 5, 30, what="the ticker's first lines")
        os.kill(ctld, signal.SIGSTOP)
        stopped = time.monotonic()
        time.sleep(4)
        os.kill(ctld, signal.SIGCONT)
        resumed = time.monotonic()
        time.sleep(0.5)
        during = [t for t in arrivals if stopped <= t <= resumed + 0.5]
        gaps = [b - a for a, b in zip(during, during[1:])]
        assert len(during) > 20 and max(gaps) < 1.5, (len(during), max(gaps, default=None))
    finally:
        os.kill(ctld, signal.SIGCONT)
        p.wait(timeout=30)


def ancestors(pid):
    """pid's parent chain, from /proc."""
    chain = []
    while pid > 1:
        with open(f"/proc/{pid}/stat") as f:
            pid = int(f.read().rsplit(")", 1)[1].split()[1])
        chain.append(pid)
    return chain


def table_rows(stdout):
    assert stdout.startswith(HEADER), stdout
    rows = []
    for line in stdout[len(HEADER):].splitlines():
        assert re.fullmatch(r"\d+ +\d+ +\S+ +\S+ +\S+ +", line), line
        rows.append(line.split())
    return rows


def test_listpids_and_pidinfo_of_a_running_job(cluster):
    d = shared_dir(cluster, "listpids")
    script = d / "job.sh"
    script.write_text("#!/bin/sh\nsleep 300 &\nsrun -n2 sleep 300\nwait\n")
    script.chmod(0o755)
    job = sbatch(cluster, "-w", "node1", "-n2", "-t", "10", "-D", str(d), str(script))
    try:
        def listed():
            r = cluster.scontrol("listpids", str(job), user="alice")
            return r.returncode == 0 and any(row[2] == "0" for row in table_rows(r.stdout)) and r
        r = wait_for(listed, 30, what=f"job {job}'s step 0 in listpids")
        rows = table_rows(r.stdout)
        assert all(int(row[1]) == job for row in rows), rows
        batch = [row for row in rows if row[2] == "batch"]
        step = [row for row in rows if row[2] == "0"]
        assert [row[2] for row in rows] == ["batch"] * len(batch) + ["0"] * len(step), rows
        # The batch shell first (local and global id 0), then its live descendants: the
        # background sleep and srun at least.
        shell = int(batch[0][0])
        assert batch[0][3:] == ["0", "0"], batch
        assert len(batch) >= 3 and all(row[3:] == ["-", "-"] for row in batch[1:]), batch
        for row in batch[1:]:
            assert shell in ancestors(int(row[0])), (row, shell)
        with open(f"/proc/{shell}/cmdline", "rb") as f:
            assert b"job" in f.read()
        # Step 0: its two tasks, local ids in rank order, each a sleep of alice's.
        assert [row[3:] for row in step] == [["0", "0"], ["1", "1"]], step
        for row in step:
            with open(f"/proc/{row[0]}/comm") as f:
                assert f.read().strip() == "sleep"
            assert os.stat(f"/proc/{row[0]}").st_uid == int(
                subprocess.check_output(["id", "-u", "alice"]).decode())

        # One step of it; the same table for bob (pids are public on the node, as Slurm's).
        r = cluster.scontrol("listpids", f"{job}.0")
        assert [row[:5] for row in table_rows(r.stdout)] == step
        r = cluster.scontrol("listpids", f"{job}.batch", user="bob")
        assert r.returncode == 0 and [row[2] for row in table_rows(r.stdout)] == ["batch"] * len(batch)
        r = cluster.scontrol("listpids", user="bob")   # every job on this host's first node
        assert r.returncode == 0 and len(table_rows(r.stdout)) >= len(rows)

        # Not on node2, or no such job: the reference's words, then the empty table.
        r = cluster.scontrol("listpids", str(job), "node2")
        assert (r.returncode, r.stdout, r.stderr) == \
            (1, HEADER, f"JobId={job} does not exist on node node2.\n")
        r = cluster.scontrol("listpids", f"{job}.7")
        assert (r.returncode, r.stdout, r.stderr) == \
            (1, HEADER, f"StepId={job}.7 does not exist on node node1.\n")
        r = cluster.scontrol("listpids", str(job), "nosuch")
        assert r.returncode == 1 and "Invalid node name specified: nosuch" in r.stderr
        r = cluster.scontrol("listpids", "abc")
        assert (r.returncode, r.stdout, r.stderr) == (1, "", "\"abc\" does not look like a jobid\n")
        r = cluster.scontrol("listpids", "1", "node1", "x")
        assert (r.returncode, r.stderr) == (1, "too many arguments for keyword:listpids\n")

        # pidinfo: the job of a task's process, its end and the seconds left (-t 10).
        r = cluster.scontrol("pidinfo", step[1][0], user="alice")
        assert r.returncode == 0, r.stderr
        m = re.fullmatch(rf"Slurm job id {job} ends at (\w{{3}} \w{{3}} [ \d]\d \d\d:\d\d:\d\d \d{{4}})\n"
                         r"slurm_get_rem_time is (\d+)\n", r.stdout)
        assert m, r.stdout
        assert 500 <= int(m.group(2)) <= 600, r.stdout
        for args, err in (([str(os.getpid())], "Failed to locate job for requested pid\n"),
                          (["abc"], "Failed to locate job for requested pid\n"),
                          ([], "missing argument for keyword:pidinfo\n"),
                          (["1", "2"], "too many arguments for keyword:pidinfo\n")):
            r = cluster.scontrol("pidinfo", *args)
            assert (r.returncode, r.stdout, r.stderr) == (1, "", err), args
    finally:
        cluster.cli("scancel", str(job))
    cluster.wait_job(job, "CANCELLED")
    r = cluster.scontrol("listpids")
    assert (r.returncode, r.stdout, r.stderr) == (1, HEADER, "No job steps exist on this node.\n")
