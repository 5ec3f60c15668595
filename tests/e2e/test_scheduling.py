"""Scheduling on a small local cluster (2 nodes x 4 GPUs), end to end through the real CLIs:
EASY backfill starts a short job on idle GPUs without delaying the waiting big job, fair-share
orders users (alice and bob of account research in etc/cluster.conf), `squeue --start` times
come true on a quiet cluster, and squeue's %r shows Slurm's pending reasons. Jobs are
`sleep N` scripts with minute time limits (the controller's granularity); every wait polls."""

import json
import re
import time

import pytest

from cluster import ensure_users, wait_for
from conftest import run_cluster, short_priority_calc_period

USERS = ("alice", "bob")


@pytest.fixture(scope="module")
def cluster(request):
    """2 agents x 4 GPUs, so a 4-GPU job fills a node and an 8-GPU job the cluster."""
    ensure_users(USERS)
    for c in run_cluster(request, nodes=2, gpus_per_node=4, heartbeat=1, node_down=4):
        short_priority_calc_period(c)
        yield c


@pytest.fixture
def quiet(cluster):
    """The cluster with no jobs left over from an earlier test, before and after."""
    _drain(cluster)
    yield cluster
    _drain(cluster)


def _drain(cluster):
    r = cluster.cli("squeue", "-h", "-o", "%A")
    ids = r.stdout.split()
    if ids:
        cluster.cli("scancel", *ids)
    wait_for(lambda: cluster.cli("squeue", "-h", "-o", "%A").stdout.strip() == "", 20,
             what="the queue to empty")
    for node in ("node1", "node2"):
        cluster.wait_state(node, "idle", 15)


def submit(cluster, *args, user=None):
    r = cluster.cli("sbatch", "--parsable", *args, user=user)
    assert r.returncode == 0, r.stderr
    return int(r.stdout.split(";")[0])


def fields(cluster, job_id):
    r = cluster.scontrol("show", "job", "-o", str(job_id))
    if r.returncode != 0:
        return {}
    return dict(m.groups() for m in re.finditer(r"(?:^|\s)(\w+)=(\S*)", r.stdout))


def state(cluster, job_id):
    return fields(cluster, job_id).get("JobState")


def wait_state(cluster, job_id, want, timeout=20):
    wants = {want} if isinstance(want, str) else set(want)
    return wait_for(lambda: state(cluster, job_id) in wants and fields(cluster, job_id),
                    timeout, what=f"job {job_id} to be {want}")


def reason(cluster, job_id):
    r = cluster.cli("squeue", "-h", "-j", str(job_id), "-o", "%t %r")
    return r.stdout.split() if r.returncode == 0 else None


def wait_reason(cluster, job_id, want, timeout=10):
    return wait_for(lambda: reason(cluster, job_id) == ["PD", want], timeout,
                    what=f"job {job_id} pending with reason {want}")


def local_epoch(text):
    """Slurm's local ISO time (2026-11-30T15:04:05) as epoch seconds; None for N/A."""
    if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", text or ""):
        return None
    return time.mktime(time.strptime(text, "%Y-%m-%dT%H:%M:%S"))


def expected_start(cluster, job_id):
    """The expected start `squeue --start` reports for a pending job (epoch), else None."""
    r = cluster.cli("squeue", "--start", "-h", "-j", str(job_id), "-o", "%i %S")
    parts = r.stdout.split()
    if r.returncode != 0 or len(parts) != 2 or parts[0] != str(job_id):
        return None
    return local_epoch(parts[1])


def sleeper(seconds, limit_min, *extra):
    # Output to /dev/null: alice's and bob's jobs may not write into the root-owned run dir.
    return ["-t", str(limit_min), "-o", "/dev/null", *extra, f"--wrap=sleep {seconds}"]


# --- (a) EASY backfill ---------------------------------------------------------------------

def test_short_job_backfills_onto_idle_gpus_without_delaying_the_big_job(quiet):
    c = quiet
    # node1 full until +2 min, node2 half full until +1 min: 2 GPUs idle.
    a = submit(c, "-J", "fill1", "-N1", "--gres=gpu:4", *sleeper(300, 2))
    wait_state(c, a, "RUNNING")
    b = submit(c, "-J", "fill2", "-N1", "--gres=gpu:2", *sleeper(300, 1))
    wait_state(c, b, "RUNNING")
    # The big job needs all 8 GPUs: it waits for Resources with a reservation at A's end.
    big = submit(c, "-J", "big", "-N2", "--gres=gpu:4", *sleeper(1, 1))
    wait_reason(c, big, "Resources")
    a_end = local_epoch(fields(c, a)["EndTime"])
    reserved = wait_for(lambda: expected_start(c, big), 10, what="the big job's expected start")
    assert abs(reserved - a_end) <= 2, (reserved, a_end)

    # 2 idle GPUs, but 5 minutes would overlap the big job's reservation: it must wait.
    too_long = submit(c, "-J", "long", "-N1", "--gres=gpu:2", *sleeper(3, 5))
    # Ends (by its limit) before the reservation: backfilled at once, on node2's idle GPUs.
    short = submit(c, "-J", "short", "-N1", "--gres=gpu:2", *sleeper(3, 1))
    f = wait_state(c, short, "RUNNING", timeout=10)
    assert f["NodeList"] == "node2", f
    assert state(c, too_long) == "PENDING"
    assert reason(c, too_long)[0] == "PD"
    assert state(c, big) == "PENDING"
    after = expected_start(c, big)
    assert after is not None and after <= reserved + 1, (after, reserved)
    # The backfilled job runs to its natural end; the big job's start still holds.
    assert wait_state(c, short, "COMPLETED", timeout=15)["ExitCode"] == "0:0"
    assert state(c, too_long) == "PENDING"
    after = expected_start(c, big)
    assert after is not None and after <= reserved + 1, (after, reserved)

    # Accounting names the path that started each (Slurm's job flags, sacct Flags and -F): A on
    # its submission, the short job by backfill; the big one has not started.
    flags = _sacct_flags(c, a, short, big)
    assert flags == {a: "SchedSubmit,StartRecieved", short: "SchedBackfill,StartRecieved",
                     big: "StartRecieved"}, flags
    r = c.cli("sacct", "-X", "-n", "-P", "-o", "JobID", "-F", "schedbackfill",
              "-j", f"{a},{short},{big}")
    assert r.returncode == 0 and r.stdout.split() == [str(short)], (r.stdout, r.stderr)
    r = c.cli("sacct", "-X", "-j", str(short), "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["jobs"][0]["flags"] == ["CLEAR_SCHEDULING", "STARTED_ON_BACKFILL"]
    r = c.cli("sacct", "-F", "SchedMain,bogus")
    assert (r.returncode, r.stdout, r.stderr) == (
        1, "", "sacct: error: str_2_job_flags: Invalid job flag bogus\n")


def _sacct_flags(cluster, *ids):
    r = cluster.cli("sacct", "-X", "-n", "-P", "-o", "JobID,Flags", "-j", ",".join(map(str, ids)))
    assert r.returncode == 0, r.stderr
    return {int(line.split("|")[0]): line.split("|")[1] for line in r.stdout.splitlines()}


def test_a_released_job_starts_by_the_main_scheduler(quiet):
    c = quiet
    held = submit(c, "-H", *sleeper(0, 1))
    c.scontrol("release", str(held))
    wait_state(c, held, "COMPLETED")
    assert _sacct_flags(c, held) == {held: "SchedMain,StartRecieved"}


# --- (b) fair-share --------------------------------------------------------------------------

def test_fair_share_orders_users_by_usage(quiet):
    c = quiet
    # alice uses the whole cluster for a while; bob has no usage.
    heavy = submit(c, "-A", "research", "-J", "heavy", "-N2", "--gres=gpu:4",
                   *sleeper(3, 1), user="alice")
    wait_state(c, heavy, "COMPLETED", timeout=20)
    # Its usage counts from the next priority calculation (a second here), as in Slurm.
    wait_for(lambda: any(l.startswith("  research|alice|") and float(l.split("|")[4]) > 0
                         for l in c.cli("sshare", "-P", "-a").stdout.splitlines()), 10,
             what="alice's usage in sshare")
    # A root job holds the cluster while both users queue whole-cluster jobs, alice first.
    block = submit(c, "-J", "block", "-N2", "--gres=gpu:4", *sleeper(300, 1))
    wait_state(c, block, "RUNNING")
    ja = submit(c, "-A", "research", "-J", "ja", "-N2", "--gres=gpu:4", *sleeper(1, 1),
                user="alice")
    jb = submit(c, "-A", "research", "-J", "jb", "-N2", "--gres=gpu:4", *sleeper(1, 1),
                user="bob")
    for j in (ja, jb):
        wait_for(lambda j=j: (reason(c, j) or [""])[0] == "PD", 10, what=f"{j} pending")
    pa, pb = int(fields(c, ja)["Priority"]), int(fields(c, jb)["Priority"])
    # bob's job starts first when the cluster frees; alice's waits for it.
    c.cli("scancel", str(block))
    wait_state(c, jb, {"RUNNING", "COMPLETED"}, timeout=15)
    assert state(c, ja) == "PENDING"
    assert pb > pa, (pa, pb)


# --- (c) squeue --start comes true -------------------------------------------------------------

# droverctld arms a timer at the earliest future begin time, so a --begin job starts when its
# time comes, not at the next periodic pass (every 10 s).
BEGIN_SLACK_S = 2


def test_squeue_start_time_of_a_begin_time_job_is_its_begin(quiet):
    c = quiet
    begin = int(time.time()) + 3
    begin_text = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(begin))
    j = submit(c, "-J", "later", f"--begin={begin_text}", *sleeper(1, 1))
    wait_reason(c, j, "BeginTime")
    predicted = wait_for(lambda: expected_start(c, j), 10, what="an expected start")
    assert predicted == begin, (predicted, begin)
    f = wait_state(c, j, {"RUNNING", "COMPLETED"}, timeout=15)
    actual = local_epoch(f["StartTime"])
    assert begin <= actual <= predicted + BEGIN_SLACK_S, (actual, predicted)


def test_squeue_start_time_comes_true_behind_a_job_that_runs_to_its_limit(quiet):
    """The blocker runs past its 1-minute limit and is ended by it (the controller's time
    granularity is a minute, so this is the one test that waits that long)."""
    c = quiet
    blocker = submit(c, "-J", "blocker", "-N2", "--gres=gpu:4", *sleeper(300, 1))
    f = wait_state(c, blocker, "RUNNING")
    end = local_epoch(f["EndTime"])
    assert end - local_epoch(f["StartTime"]) == 60, f
    waiting = submit(c, "-J", "waiting", "-N1", "--gres=gpu:1", *sleeper(1, 1))
    wait_reason(c, waiting, "Resources")
    predicted = wait_for(lambda: expected_start(c, waiting), 10, what="an expected start")
    assert abs(predicted - end) <= 1, (predicted, end)
    f = wait_state(c, waiting, {"RUNNING", "COMPLETED"}, timeout=end - time.time() + 15)
    assert abs(local_epoch(f["StartTime"]) - predicted) <= 3, (f["StartTime"], predicted)
    assert state(c, blocker) == "TIMEOUT"


# --- (d) pending reasons ---------------------------------------------------------------------

def test_pending_reasons_in_squeue(quiet):
    c = quiet
    blocker = submit(c, "-J", "blocker", "-N2", "--gres=gpu:4", *sleeper(300, 1))
    wait_state(c, blocker, "RUNNING")
    first = submit(c, "-J", "first", "-N2", "--gres=gpu:4", *sleeper(1, 1))
    wait_reason(c, first, "Resources")
    second = submit(c, "-J", "second", "-N2", "--gres=gpu:4", *sleeper(1, 1))
    wait_reason(c, second, "Priority")
    # Both show expected starts: the top job's reservation, then an estimate after it.
    first_start = wait_for(lambda: expected_start(c, first), 10, what="first's start")
    second_start = wait_for(lambda: expected_start(c, second), 10, what="second's start")
    assert second_start >= first_start + 60, (first_start, second_start)
    dep = submit(c, "-J", "dep", f"--dependency=afterok:{blocker}", *sleeper(1, 1))
    wait_reason(c, dep, "Dependency")
    held = submit(c, "-J", "held", "-H", *sleeper(1, 1))
    wait_reason(c, held, "JobHeldUser")
    later = submit(c, "-J", "later", "--begin=now+600", *sleeper(1, 1))
    wait_reason(c, later, "BeginTime")


def test_partition_time_limit_reason(quiet):
    c = quiet
    # Over debug's 30 minutes is refused at submission (EnforcePartLimits=ALL, as the
    # reference cluster); an operator may still raise a pending job's limit past it.
    r = c.cli("sbatch", "-p", "debug", "-t", "60", "--wrap=true")
    assert r.returncode == 1
    assert "Requested time limit is invalid" in r.stderr, r.stderr
    j = submit(c, "-p", "debug", "-H", "-J", "toolong", *sleeper(1, 10))
    r = c.scontrol("update", f"JobId={j}", "TimeLimit=60")
    assert r.returncode == 0, r.stderr
    r = c.scontrol("release", str(j))
    assert r.returncode == 0, r.stderr
    wait_reason(c, j, "PartitionTimeLimit")


def test_required_node_a_job_ahead_waits_for(quiet):
    """The reference (2026-12-03): behind a job waiting for its -w node (Resources), a job
    naming the same node waits with `ReqNodeNotAvail, UnavailableNodes:node02`, not Priority."""
    c = quiet
    try:
        holder = submit(c, "-J", "holder", "-w", "node2", "--exclusive", *sleeper(300, 10))
        wait_state(c, holder, "RUNNING")
        ahead = submit(c, "-J", "ahead", "-w", "node2", "--exclusive", *sleeper(1, 10))
        wait_reason(c, ahead, "Resources")
        behind = submit(c, "-J", "behind", "-w", "node2", "-n1", "--nice=100", *sleeper(1, 10))
        wait_for(lambda: c.cli("squeue", "-h", "-j", str(behind), "-o", "%t|%r").stdout.strip()
                 == "PD|ReqNodeNotAvail, UnavailableNodes:node2", 10, what="the node named")
        assert fields(c, behind)["Reason"] == "ReqNodeNotAvail,_UnavailableNodes:node2"
        # The job ahead gone, the one behind waits for node2 like any other.
        assert c.cli("scancel", str(ahead)).returncode == 0
        wait_reason(c, behind, "Resources")
    finally:
        c.cli("scancel", "-u", "root")


def test_required_node_not_available_reason(quiet):
    """A drained node a job requires, and too few nodes up for a job's node count: the code
    and the words of the reference (2026-12-03, node04 drained): squeue's %r and %R show
    `ReqNodeNotAvail, UnavailableNodes:node04` and `Nodes required for job are DOWN, DRAINED or
    reserved for jobs in higher priority partitions`; scontrol the same with underscores;
    squeue --json's state_reason the code (ReqNodeNotAvail, Resources), its state_description
    the words; sacct's Reason the code."""
    c = quiet
    r = c.scontrol("update", "NodeName=node2", "State=DRAIN", "Reason=e2e")
    assert r.returncode == 0, r.stderr
    unavailable = "ReqNodeNotAvail, UnavailableNodes:node2"
    nodes_down = ("Nodes required for job are DOWN, DRAINED or reserved for jobs in higher "
                  "priority partitions")
    try:
        j = submit(c, "-J", "onnode2", "-w", "node2", *sleeper(1, 1))
        both = submit(c, "-J", "twonodes", "-N", "2", *sleeper(1, 1))

        def shown(job):
            return c.cli("squeue", "-h", "-j", str(job), "-o", "%t|%r|%R").stdout.strip()
        wait_for(lambda: shown(j) == f"PD|{unavailable}|({unavailable})", 10,
                 what="ReqNodeNotAvail, UnavailableNodes")
        wait_for(lambda: shown(both) == f"PD|{nodes_down}|({nodes_down})", 10,
                 what="the nodes-down words")
        assert fields(c, j)["Reason"] == unavailable.replace(" ", "_")
        jobs = {str(x["job_id"]): x for x in json.loads(c.cli("squeue", "--json").stdout)["jobs"]}
        assert (jobs[str(j)]["state_reason"], jobs[str(j)]["state_description"]) == \
            ("ReqNodeNotAvail", unavailable)
        assert (jobs[str(both)]["state_reason"], jobs[str(both)]["state_description"]) == \
            ("Resources", nodes_down)
        def acct():
            return c.cli("sacct", "-n", "-X", "-P", "-j", str(j), "-o", "State,Reason").stdout.strip()
        wait_for(lambda: acct() == "PENDING|ReqNodeNotAvail", 10, what="sacct's Reason")
        assert c.cli("scancel", str(j)).returncode == 0
        wait_for(lambda: re.fullmatch(r"CANCELLED by \d+\|ReqNodeNotAvail", acct()), 10,
                 what="sacct's Reason kept")
    finally:
        c.cli("scancel", "-u", "root")
        c.scontrol("update", "NodeName=node2", "State=RESUME")
