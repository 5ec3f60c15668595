"""Node events end to end: the controller records in accounting when a node is drained or
downed (scontrol, or an agent that stops answering) and when it is back in service; the real
sacctmgr lists those events (`show event`, with the reason and who set it) and the cluster's
own event, an event open across a controller restart stays one event, and sreport's cluster
Utilization counts the drained time as Down."""

import datetime
import os
import pwd
import subprocess
import time

import pytest

from cluster import wait_for
from conftest import run_cluster

# sreport runs with its clock ahead (tests/e2e/clock_offset.cpp, as test_sreport.py), so that
# end=now, rounded to the hour as Slurm's, lies past the real now and the window holds the test.
CLOCK_AHEAD = 1800


@pytest.fixture(scope="module")
def cluster(request):
    yield from run_cluster(request, nodes=2, gpus_per_node=0, heartbeat=1, node_down=4)


def sacctmgr(cluster, *args, ok=True):
    r = cluster.cli("sacctmgr", *args)
    if ok:
        assert r.returncode == 0, r.stderr
    return r


def events(cluster, *conditions):
    """`sacctmgr -nP show event CONDITIONS` as lists of fields."""
    out = sacctmgr(cluster, "-nP", "show", "event", *conditions).stdout
    return [line.split("|") for line in out.splitlines()]


def update(cluster, node, *args):
    r = cluster.scontrol("update", f"NodeName={node}", *args)
    assert r.returncode == 0, r.stderr


def test_a_drained_node_has_an_event_with_its_reason_and_user(cluster):
    cluster.wait_state("node2", "idle", 30)
    update(cluster, "node2", "State=DRAIN", "Reason=disk check")
    fmt = "format=NodeName,State,Reason,User,End"
    rows = wait_for(lambda: events(cluster, "Nodes=node2", fmt) or None, 10,
                    what="node2's event")
    assert rows == [["node2", "DRAIN", "disk check", "root(0)", "Unknown"]], rows
    # Open events in a state: States= without Start=.
    assert ["node2"] in events(cluster, "States=DRAIN", "format=NodeName")
    time.sleep(3)
    update(cluster, "node2", "State=RESUME")
    rows = wait_for(lambda: (r := events(cluster, "Nodes=node2", fmt)) and r[0][4] != "Unknown"
                    and r, 10, what="node2's event to end")
    assert len(rows) == 1 and rows[0][:4] == ["node2", "DRAIN", "disk check", "root(0)"], rows
    assert events(cluster, "States=DRAIN", "Nodes=node2") == []
    duration = events(cluster, "Nodes=node2", "format=Duration")[0][0]
    h, m, s = (int(x) for x in duration.split(":"))
    assert 3 <= h * 3600 + m * 60 + s <= 15, duration
    # The default table: Slurm's columns.
    lines = sacctmgr(cluster, "show", "event", "Nodes=node2").stdout.splitlines()
    assert lines[0].split() == ["Cluster", "NodeName", "TimeStart", "TimeEnd", "State", "Reason", "User"]
    # NodeName left-justified, as the reference's ("    oracle node02          2026-...").
    assert lines[0][10:27] == " NodeName        " and lines[2][10:27] == " node2           ", lines


def test_a_node_drained_while_it_runs_a_job_has_its_event_when_the_job_ends(cluster):
    """The reference recorded no event while the drained node still ran its job; the DRAIN
    event started when the job ended, by the controller's user (its SlurmUser, slurm)."""
    cluster.wait_state("node2", "idle", 30)
    r = cluster.cli("sbatch", "--parsable", "-w", "node2", "-o", "/dev/null", "--wrap", "sleep 60")
    assert r.returncode == 0, r.stderr
    job = r.stdout.strip()
    cluster.wait_job(job, "RUNNING")
    update(cluster, "node2", "State=DRAIN", "Reason=busy drain")
    cluster.wait_state("node2", "drng", 10)
    time.sleep(2)
    assert events(cluster, "Nodes=node2", "States=DRAIN") == [], "an event while the job runs"
    cancelled = time.time()
    assert cluster.cli("scancel", job).returncode == 0
    fmt = "format=NodeName,State,Reason,User,End,Start"
    rows = wait_for(lambda: events(cluster, "Nodes=node2", "States=DRAIN", fmt) or None, 30,
                    what="node2's drained event")
    controller_user = pwd.getpwuid(os.getuid())   # droverctld runs as the test's user
    assert [r[:5] for r in rows] == [["node2", "DRAIN", "busy drain",
                                      f"{controller_user.pw_name}({controller_user.pw_uid})", "Unknown"]], rows
    start = datetime.datetime.strptime(rows[0][5], "%Y-%m-%dT%H:%M:%S").timestamp()
    assert start >= int(cancelled), f"the event started at {rows[0][5]}, before the job ended"
    # A drained idle node is in IDLE and DRAIN (StateRaw 514), not in DOWN, as the reference.
    assert events(cluster, "Nodes=node2", "States=idl", "format=NodeName") == [["node2"]]
    assert events(cluster, "Nodes=node2", "States=down") == []
    update(cluster, "node2", "State=RESUME")
    cluster.wait_state("node2", "idle", 30)


def test_the_cluster_event_holds_its_nodes_and_tres(cluster):
    rows = events(cluster, "Event=Cluster", "format=Event,ClusterNodes,TRES,Reason,NodeName")
    assert rows, "no cluster event"
    assert rows[-1][:2] == ["Cluster", "node[1-2]"], rows
    # By name with billing and every TRES the cluster has, memory in G, as the reference's.
    tres = rows[-1][2]
    assert tres.startswith("billing=") and ",energy=0,fs/disk=0," in tres and ",node=2,pages=0,vmem=0" in tres, rows
    assert rows[-1][2].split(",")[1].startswith("cpu="), rows
    assert rows[-1][3:] == ["Cluster Registered TRES", ""], rows
    assert all(r[0] == "Node" for r in events(cluster, "Event=Node", "format=Event"))


def test_bad_conditions_are_refused(cluster):
    # The reference's texts: the value lowered, two spaces before "Valid".
    r = sacctmgr(cluster, "show", "event", "Event=Disk", ok=False)
    assert r.returncode == 1 and r.stderr == " Unknown event type: 'disk'  Valid events are Cluster and Node.\n", r.stderr
    r = sacctmgr(cluster, "show", "event", "format=Colour", ok=False)
    assert r.returncode == 1 and r.stderr == "Unknown field 'colour'\n", r.stderr
    r = sacctmgr(cluster, "show", "event", "States=drng", ok=False)
    assert r.returncode == 1 and r.stderr.startswith("Invalid state: drng\nValid node states are: DRAIN "), r.stderr


def test_a_time_that_does_not_read_keeps_the_default_window(cluster):
    # As the reference's: where its reading stopped on stderr, then the default window's rows.
    default = events(cluster, "Event=Cluster", "format=Event,TimeStart")
    assert default, "no cluster event"
    r = sacctmgr(cluster, "-nP", "show", "event", "Event=Cluster", "format=Event,TimeStart",
                 "Start=2026-13-45", "End=garbage")
    assert r.stderr == ("Invalid time specification (pos=5): 2026-13-45\n"
                        "Invalid time specification (pos=0): garbage\n"), r.stderr
    assert [line.split("|") for line in r.stdout.splitlines()] == default


def test_an_event_open_across_a_controller_restart_stays_one_event(cluster):
    update(cluster, "node1", "State=DOWN", "Reason=maintenance")
    fmt = "format=NodeName,State,Reason,Start,End"
    first = wait_for(lambda: events(cluster, "Nodes=node1", "States=DOWN", fmt) or None, 10,
                     what="node1's event")
    assert len(first) == 1 and first[0][:3] == ["node1", "DOWN", "maintenance"], first
    cluster.kill("droverctld")
    cluster.start()
    again = wait_for(lambda: sacctmgr(cluster, "-nP", "show", "event", "Nodes=node1", fmt,
                                      ok=False).stdout.splitlines() or None, 30,
                     what="the restarted controller to answer")
    assert [line.split("|") for line in again] == first, again
    update(cluster, "node1", "State=RESUME")
    rows = wait_for(lambda: (r := events(cluster, "Nodes=node1", fmt)) and r[0][4] != "Unknown"
                    and r, 10, what="node1's event to end")
    assert len(rows) == 1 and rows[0][3] == first[0][3], rows


def test_an_agent_that_stops_answering_is_a_down_event_until_it_is_back(cluster):
    cluster.wait_state("node2", "idle", 30)
    cluster.kill("node2")
    cluster.wait_state("node2", "down*", 30)
    fmt = "format=NodeName,State,Reason,User,End"
    rows = wait_for(lambda: events(cluster, "Nodes=node2", "States=DOWN", fmt) or None, 10,
                    what="node2's down event")
    assert rows[0][:3] == ["node2", "DOWN", "Not responding"] and rows[0][4] == "Unknown", rows
    cluster.start()
    cluster.wait_state("node2", "idle", 30)
    wait_for(lambda: events(cluster, "Nodes=node2", "States=DOWN") == [], 10,
             what="node2's down event to end")


def test_sreport_counts_the_drained_time_as_down(cluster):
    shim = cluster.build / "tests" / "libdrover-e2e-clock-offset.so"
    assert shim.exists(), f"{shim} is missing"
    env = dict(cluster.env(), LD_PRELOAD=str(shim), DROVER_TEST_CLOCK_OFFSET=str(CLOCK_AHEAD))
    r = subprocess.run([str(cluster.bin / "sreport"), "-nP", "-t", "seconds", "cluster",
                        "Utilization", "start=now-2hours", "end=now",
                        "format=Allocated,Down,PlannedDown,Idle,Planned,Reported"],
                       capture_output=True, text=True, env=env, timeout=30)
    assert r.returncode == 0, r.stderr
    allocated, down, planned_down, idle, planned, reported = (
        int(x) for x in r.stdout.strip().split("|"))
    # node2 drained about 3 s and node1 down a few more (earlier tests), node2 silent about
    # 4-10 s: at least one CPU's 3 s.
    assert down >= 3, r.stdout
    assert planned_down == 0
    assert abs(allocated + down + idle + planned - reported) <= 3, r.stdout
