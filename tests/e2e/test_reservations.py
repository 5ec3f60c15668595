"""Advance reservations end to end (2 agents): root creates a reservation on node1 for alice for
the next hour; bob's job that fits only there stays pending while alice's job with
--reservation runs there and bob's job without it runs on node2; show/update/delete with
Slurm's messages; a MAINT reservation gives "ReqNodeNotAvail, Reserved for maintenance"; the
reservation survives a controller kill -9; after the delete bob's job starts. Then: scontrol show
job / squeue %v name a job's reservation; sinfo -T lists reservations; a running job is ended TIMEOUT when its reservation
ends (ResvOverRun 0); a DAILY reservation moves to the next day when an occurrence ends; what
Drover does not support is refused with a message naming it. Every wait polls."""

import re

import pytest

from cluster import ensure_users, wait_for
from conftest import run_cluster

USERS = ("alice", "bob")


@pytest.fixture(scope="module")
def cluster(request):
    ensure_users(USERS)
    yield from run_cluster(request, nodes=2, gpus_per_node=4, heartbeat=1, node_down=4)


def sbatch(cluster, *args, user=None):
    # Output to /dev/null: alice's and bob's jobs may not write into the root-owned run dir.
    return cluster.cli("sbatch", "--parsable", "-o", "/dev/null", *args, user=user)


def submit(cluster, *args, user=None):
    r = sbatch(cluster, *args, user=user)
    assert r.returncode == 0, r.stderr
    return int(r.stdout.split(";")[0])


def job(cluster, job_id):
    """(state code, node list, reason) from squeue, None once the job is gone."""
    r = cluster.cli("squeue", "-h", "-j", str(job_id), "-o", "%t|%N|%r")
    if r.returncode != 0 or not r.stdout.strip():
        return None
    return tuple(r.stdout.strip().split("|"))


def wait_job(cluster, job_id, state, reason=None, timeout=20):
    def ok():
        j = job(cluster, job_id)
        return j if j and j[0] == state and (reason is None or j[2] == reason) else None
    return wait_for(ok, timeout, what=f"job {job_id} {state} {reason or ''}")


def show(cluster, *name):
    return cluster.scontrol("show", "reservation", *name)


def record(cluster, name):
    r = show(cluster, name)
    assert r.returncode == 0, r.stdout + r.stderr
    return dict(re.findall(r"(\w+)=(\S*)", r.stdout))


def test_reservation_lifecycle(cluster):
    c = cluster
    r = show(c)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "No reservations in the system\n"

    # Only root and operators create reservations.
    r = c.scontrol("create", "reservation", "ReservationName=lab", "StartTime=now", "Duration=60",
                   "Nodes=node1", "Users=alice", user="bob")
    assert r.returncode == 1
    assert r.stderr.startswith("Error creating the reservation: Access/permission denied"), r.stderr
    r = c.scontrol("create", "reservation", "ReservationName=lab", "StartTime=now", "Duration=60",
                   "Nodes=node9", "Users=alice")
    assert r.returncode == 1
    assert r.stderr.startswith("Error creating the reservation: Invalid node name specified")
    r = c.scontrol("create", "reservation", "ReservationName=lab", "StartTime=now", "Duration=60",
                   "Nodes=node1", "Users=alice")
    assert (r.returncode, r.stdout) == (0, "Reservation created: lab\n"), r.stderr
    r = c.scontrol("create", "reservation", "ReservationName=other", "StartTime=now+10minutes",
                   "Duration=60", "Nodes=node1", "Users=bob")
    assert r.returncode == 1
    assert "Requested reservation overlaps with another reservation" in r.stderr

    f = record(c, "lab")
    assert f["ReservationName"] == "lab"
    assert f["Duration"] == "01:00:00"
    assert (f["Nodes"], f["NodeCnt"], f["Users"], f["State"]) == ("node1", "1", "alice", "ACTIVE")
    assert f["Flags"] == "SPEC_NODES"
    assert r"MaxStartDelay=(null)" in show(c, "lab").stdout
    r = show(c, "nosuch")
    assert r.returncode == 1 and r.stdout == "Reservation nosuch not found\n"
    # sinfo -T lists it as Slurm's does (-o does not apply there).
    r = c.sinfo("-T", "-o", "%P", user="bob")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "RESV_NAME     STATE           START_TIME             END_TIME     DURATION  NODELIST", lines
    assert re.fullmatch(r"lab          ACTIVE  (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d  ){2}   01:00:00  node1", lines[1]), lines

    # Submissions into it: only its users; unknown names are invalid.
    r = sbatch(c, "-t", "5", "--reservation=lab", "--wrap=sleep 1", user="bob")
    assert r.returncode == 1
    assert r.stderr.strip() == "sbatch: error: Batch job submission failed: " \
                               "Access denied to requested reservation", r.stderr
    r = sbatch(c, "-t", "5", "--reservation=nosuch", "--wrap=sleep 1", user="alice")
    assert r.returncode == 1
    assert "Requested reservation is invalid" in r.stderr

    # bob's job that fits only on node1 waits; alice's runs there; bob's other job on node2.
    blocked = submit(c, "-t", "5", "-w", "node1", "--wrap=sleep 300", user="bob")
    inside = submit(c, "-t", "5", "--reservation=lab", "--wrap=sleep 300", user="alice")
    outside = submit(c, "-t", "5", "--wrap=sleep 300", user="bob")
    assert wait_job(c, inside, "R")[1] == "node1"
    assert wait_job(c, outside, "R")[1] == "node2"
    wait_job(c, blocked, "PD", "Resources")

    # Update: add bob; the record shows it.
    r = c.scontrol("update", "ReservationName=lab", "Users+=bob")
    assert (r.returncode, r.stdout) == (0, "Reservation updated.\n"), r.stderr
    assert record(c, "lab")["Users"] == "alice,bob"
    r = c.scontrol("update", "ReservationName=nosuch", "Duration=30")
    assert r.returncode == 1
    assert r.stderr.startswith("Error updating the reservation: Requested reservation is invalid")

    # A maintenance reservation on node2: bob's job that needs node2 for 5 minutes waits with
    # Slurm's maintenance reason (node2 is busy with bob's job, so IGNORE_JOBS).
    r = c.scontrol("create", "res", "ReservationName=maint", "StartTime=now", "Duration=30",
                   "Nodes=node2", "Users=root", "Flags=MAINT,IGNORE_JOBS")
    assert r.returncode == 0, r.stderr
    assert record(c, "maint")["Flags"] == "MAINT,IGNORE_JOBS,SPEC_NODES"
    c.cli("scancel", str(outside))
    maint_blocked = submit(c, "-t", "5", "-w", "node2", "--wrap=sleep 300", user="bob")
    wait_job(c, maint_blocked, "PD", "ReqNodeNotAvail, Reserved for maintenance")
    r = c.scontrol("delete", "ReservationName=maint")
    assert r.returncode == 0, r.stderr
    wait_job(c, maint_blocked, "R")

    # The controller killed with SIGKILL comes back with the reservation.
    c.kill("droverctld")
    c.start()
    wait_for(lambda: show(c, "lab").returncode == 0, 30, what="the reservation after a restart")
    assert record(c, "lab")["Users"] == "alice,bob"

    # With alice's job gone the reservation still keeps bob's plain job off node1 ...
    c.cli("scancel", str(inside))
    # One squeue per poll: the job may leave squeue's default states between two calls.
    wait_for(lambda: (j := job(c, inside)) is None or j[0] not in ("R", "CG"), 20,
             what="alice's job to end")
    wait_job(c, blocked, "PD")
    # ... until it is deleted.
    r = c.scontrol("delete", "reservation", "lab")
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    assert wait_job(c, blocked, "R")[1] == "node1"
    r = c.scontrol("delete", "reservation", "lab")
    assert r.returncode == 1
    assert r.stderr.startswith("delete_reservation reservation lab: Requested reservation is invalid")
    assert show(c).stdout == "No reservations in the system\n"
    c.cli("scancel", str(blocked), str(maint_blocked))


def show_job(cluster, job_id):
    r = cluster.scontrol("show", "job", str(job_id))
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_job_reservation_shown_and_ended_with_it(cluster):
    c = cluster
    r = c.scontrol("create", "reservation", "ReservationName=short", "StartTime=now",
                   "Duration=10", "Nodes=node1", "Users=alice")
    assert r.returncode == 0, r.stderr
    inside = submit(c, "-t", "5", "--reservation=short", "--wrap=sleep 300", user="alice")
    plain = submit(c, "-t", "5", "-w", "node2", "--wrap=sleep 300", user="alice")
    wait_job(c, inside, "R")
    wait_job(c, plain, "R")

    # scontrol prints Reservation= after the Partition line, only for a job that has one.
    lines = [line.strip() for line in show_job(c, inside).splitlines()]
    at = next(i for i, line in enumerate(lines) if line.startswith("Partition="))
    assert lines[at + 1] == "Reservation=short", lines
    assert "Reservation=" not in show_job(c, plain)
    r = c.cli("squeue", "-h", "-j", f"{inside},{plain}", "-o", "%i %v")
    assert r.returncode == 0, r.stderr
    assert sorted(r.stdout.split("\n")[:2]) == sorted([f"{inside} short", f"{plain} (null)"]), r.stdout
    r = c.cli("squeue", "-j", str(inside), "-O", "jobid,reservation")
    assert r.returncode == 0, r.stderr
    header, row = r.stdout.splitlines()
    assert header.split() == ["JOBID", "RESERVATION"] and row.split() == [str(inside), "short"]
    # squeue -R: the jobs of that reservation only.
    r = c.cli("squeue", "-h", "-R", "short", "-j", f"{inside},{plain}", "-o", "%i")
    assert r.stdout.split() == [str(inside)], r.stdout + r.stderr
    # scancel -R acts on that reservation's jobs only (SIGCONT: both keep running).
    r = c.cli("scancel", "-v", "-s", "CONT", "-R", "short")
    assert r.returncode == 0 and str(inside) in r.stderr and str(plain) not in r.stderr, r.stderr
    r = c.cli("scancel", "-v", "-R", "nosuch")
    assert r.stderr.endswith("including: reservation=nosuch \n"), r.stderr
    assert job(c, inside)[0] == "R" and job(c, plain)[0] == "R"

    # The admin ends the reservation early: its running job is ended TIMEOUT at that moment
    # (ResvOverRun=0); the job outside it runs on.
    r = c.scontrol("update", "ReservationName=short", "EndTime=now+2")
    assert r.returncode == 0, r.stderr
    def ended():
        m = re.search(r"JobState=(\S+)", show_job(c, inside))
        return m.group(1) if m and m.group(1) == "TIMEOUT" else None
    wait_for(ended, 20, what=f"job {inside} ended TIMEOUT with its reservation")
    wait_for(lambda: show(c, "short").returncode == 1, 10, what="the reservation to be gone")
    assert job(c, plain)[0] == "R"
    c.cli("scancel", str(plain))


def test_daily_reservation_moves_to_the_next_day(cluster):
    c = cluster
    r = c.scontrol("create", "reservation", "ReservationName=standup", "StartTime=now",
                   "EndTime=now+3", "Nodes=node2", "Users=alice", "Flags=DAILY,IGNORE_JOBS")
    assert r.returncode == 0, r.stderr
    first = record(c, "standup")
    assert first["Flags"] == "IGNORE_JOBS,DAILY,SPEC_NODES" and first["State"] == "ACTIVE", first

    def moved():
        f = record(c, "standup")
        return f if f["StartTime"] != first["StartTime"] else None
    f = wait_for(moved, 20, what="the DAILY reservation's next occurrence")
    day = 24 * 3600
    import datetime
    def stamp(text):
        return datetime.datetime.fromisoformat(text).timestamp()
    assert stamp(f["StartTime"]) - stamp(first["StartTime"]) == day, (first, f)
    assert stamp(f["EndTime"]) - stamp(first["EndTime"]) == day, (first, f)
    assert f["State"] == "INACTIVE"
    # Flags-= / Flags+= remove and add single flags.
    r = c.scontrol("update", "ReservationName=standup", "Flags-=IGNORE_JOBS")
    assert r.returncode == 0, r.stderr
    assert record(c, "standup")["Flags"] == "DAILY,SPEC_NODES"
    # Two recurrences at once, or an occurrence longer than its period, are refused.
    r = c.scontrol("update", "ReservationName=standup", "Flags+=WEEKLY")
    assert r.returncode == 1 and "at most one of HOURLY, DAILY, WEEKLY" in r.stderr, r.stderr
    r = c.scontrol("create", "reservation", "ReservationName=long", "StartTime=now+1day",
                   "Duration=2:00:00", "Nodes=node1", "Users=alice", "Flags=HOURLY")
    assert r.returncode == 1 and "Invalid time specified" in r.stderr, r.stderr
    # A time that does not read: the reference's lines, and nothing created or changed.
    r = c.scontrol("create", "reservation", "ReservationName=bad", "starttime=garbage",
                   "Duration=10", "Nodes=node1", "Users=alice")
    assert (r.returncode, r.stderr) == (1, "Invalid time specification (pos=0): garbage\n"
            "scontrol: error: Invalid start time starttime=garbage.  No reservation created.\n")
    r = c.scontrol("update", "ReservationName=standup", "EndTime=now+5q")
    assert (r.returncode, r.stderr) == (1, "Invalid time specification (pos=4): now+5q\n"
            "scontrol: error: Invalid end time EndTime=now+5q.  No reservation update.\n"
            "slurm_update error: Invalid time specified\n")
    assert "bad" not in c.scontrol("show", "reservation").stdout
    r = c.scontrol("delete", "ReservationName=standup")
    assert r.returncode == 0, r.stderr


def test_unsupported_reservation_options_are_named(cluster):
    for word in ("CoreCnt=4", "Licenses=matlab:2"):
        r = cluster.scontrol("create", "reservation", "ReservationName=x", "StartTime=now",
                             "Duration=10", "Nodes=node1", "Users=alice", word)
        assert r.returncode == 1
        assert f"{word.split('=')[0]}= is not supported by Drover reservations" in r.stderr, r.stderr


def test_create_and_delete_name_their_entity(cluster):
    """The reference's words for a create or delete naming no entity, or more than one word
    after a delete's (it deleted nothing)."""
    expect = {
        ("create",): "too few arguments for create keyword\n",
        ("create", "bogus"): "scontrol: error: Invalid creation entity: bogus\n",
        ("create", "StartTime=now", "Duration=10", "Nodes=node1", "Users=alice"):
            "scontrol: error: Invalid creation entity: StartTime=now\n",
        ("delete",): "too few arguments for delete keyword\n",
        ("delete", "bogus"): "scontrol: error: Proper format is 'delete <ENTITY>=<ID>' or "
                             "'delete <ENTITY> <ID>'\n",
        ("delete", "bogus=1"): "Invalid deletion entity: bogus=1\n",
        ("delete", "ReservationName=keep", "x=1"): "Invalid deletion entity: ReservationName=keep\n",
    }
    r = cluster.scontrol("create", "reservation", "ReservationName=keep", "StartTime=now+1day",
                         "Duration=10", "Nodes=node1", "Users=alice")
    assert r.returncode == 0, r.stderr
    try:
        for words, err in expect.items():
            r = cluster.scontrol(*words)
            assert (r.returncode, r.stdout, r.stderr) == (1, "", err), words
        assert "ReservationName=keep " in cluster.scontrol("show", "reservation").stdout
    finally:
        cluster.scontrol("delete", "ReservationName=keep")
