"""The step daemon's line on a job's or step's stderr when it is cancelled or requeued, as the
reference Slurm 22.05's slurmstepd wrote them into the same files (2026-12-04,
shared/slurm-reference): `*** JOB 157 ON node01 CANCELLED AT <time> ***`, `... DUE TO JOB
REQUEUE ***`, and through srun `0: ... *** STEP 159.0 ON node01 CANCELLED AT <time> ***`
(the time limit's `DUE TO TIME LIMIT` is checked on the TIMEOUT job of test_golden_compare.py).
A signal (`scancel -f -s TERM`) writes none."""

import re

import pytest

from cluster import ensure_users, wait_for
from conftest import run_cluster

AT = r"CANCELLED AT \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d"


@pytest.fixture(scope="module")
def cluster(request):
    ensure_users(("alice",))
    yield from run_cluster(request, nodes=1, gpus_per_node=0, heartbeat=1, node_down=4)


def submit(cluster, out, *args):
    r = cluster.cli("sbatch", "--parsable", "-o", str(out), *args, user="alice", cwd="/tmp")
    assert r.returncode == 0, r.stderr
    return int(r.stdout.strip())


def started(path, text="started\n"):
    wait_for(lambda: path.exists() and path.read_text().startswith(text), 20,
             what=f"{path} to say it started")


def final(cluster, job):
    return cluster.wait_job(job, {"CANCELLED", "COMPLETED", "FAILED"}, timeout=40)


@pytest.fixture
def out_dir(cluster, request):
    """A directory alice may write (pytest's tmp_path is private to root)."""
    d = cluster.run_dir / request.node.name
    d.mkdir()
    d.chmod(0o777)
    return d


def test_cancel_requeue_and_signal(cluster, out_dir):
    tmp_path = out_dir
    cancelled = tmp_path / "cancelled.out"
    job = submit(cluster, cancelled, "--wrap=echo started; sleep 60")
    started(cancelled)
    assert cluster.cli("scancel", str(job), user="alice").returncode == 0
    final(cluster, job)
    wait_for(lambda: cancelled.read_text().count("\n") == 2, 10, what="the cancel line")
    assert re.fullmatch(rf"started\ndrover-stepd-node1: error: \*\*\* JOB {job} ON node1 {AT} "
                        r"\*\*\*\n", cancelled.read_text()), cancelled.read_text()

    requeued = tmp_path / "requeued.out"
    job = submit(cluster, requeued, "--open-mode=append", "--wrap=echo started; sleep 60")
    started(requeued)
    assert cluster.scontrol("requeue", str(job)).returncode == 0
    wait_for(lambda: "DUE TO JOB REQUEUE" in requeued.read_text(), 20, what="the requeue line")
    assert re.match(rf"started\ndrover-stepd-node1: error: \*\*\* JOB {job} ON node1 {AT} DUE TO "
                    r"JOB REQUEUE \*\*\*\n", requeued.read_text()), requeued.read_text()
    assert cluster.cli("scancel", str(job), user="alice").returncode == 0

    signalled = tmp_path / "signalled.out"
    job = submit(cluster, signalled, "--wrap=echo started; sleep 60")
    started(signalled)
    # -f: the batch shell too (a plain -s reaches the steps alone, as Slurm's)
    assert cluster.cli("scancel", "-f", "-s", "TERM", str(job), user="alice").returncode == 0
    final(cluster, job)
    assert signalled.read_text() == "started\n"


def test_step_cancel_through_srun(cluster, out_dir):
    out = out_dir / "step.out"
    job = submit(cluster, out, "--wrap=srun -l sh -c 'echo started; sleep 60'")
    started(out, "0: started\n")
    assert cluster.cli("scancel", f"{job}.0", user="alice").returncode == 0
    wait_for(lambda: "CANCELLED AT" in out.read_text(), 20, what="the step's cancel line")
    assert re.search(rf"^0: drover-stepd-node1: error: \*\*\* STEP {job}\.0 ON node1 {AT} \*\*\*$",
                     out.read_text(), re.M), out.read_text()
    final(cluster, job)
    # Killed at once, as the reference's step (0:9, srun's "task 0: Killed"), not SIGTERM first.
    assert "srun: error: node1: task 0: Killed" in out.read_text(), out.read_text()
    r = cluster.cli("sacct", "-n", "-P", "-j", f"{job}.0", "-o", "State,ExitCode")
    assert r.stdout.split("\n")[0].split("|")[1] == "0:9", r.stdout


def test_lines_written_after_the_notice_do_not_overwrite_it(cluster, out_dir):
    # The script goes on writing after the kill's SIGTERM, as srun does when its step ends: the
    # notice (written first, by a writer of the supervisor's) and those lines both stay whole.
    out = out_dir / "after.out"
    job = submit(cluster, out, "--wrap=trap 'sleep 0.5; echo trapped line one; echo trapped line two; exit 3' "
                 "TERM; echo started; sleep 60 & wait")
    started(out)
    assert cluster.cli("scancel", str(job), user="alice").returncode == 0
    final(cluster, job)
    wait_for(lambda: out.read_text().count("\n") == 4, 10, what="four lines")
    text = out.read_text()
    assert re.search(rf"^drover-stepd-node1: error: \*\*\* JOB {job} ON node1 {AT} \*\*\*$", text,
                     re.M), text
    assert "\ntrapped line one\ntrapped line two\n" in "\n" + text, text
