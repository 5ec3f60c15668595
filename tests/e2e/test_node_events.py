"""Node events end to end: the controller records in accounting when a node is drained or
downed (scontrol, or an agent that stops answering) and when it is back in service; the real
sacctmgr lists those events (`show event`, with the reason and who set it) and the cluster's
own event, an event open across a controller restart stays one event, and sreport's cluster
Utilization counts the drained time as Down."""

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
    header = sacctmgr(cluster, "show", "event", "Nodes=node2").stdout.splitlines()[0].split()
    assert header == ["Cluster", "NodeName", "TimeStart", "TimeEnd", "State", "Reason", "User"]


def test_the_cluster_event_holds_its_nodes_and_tres(cluster):
    rows = events(cluster, "Event=Cluster", "format=Event,ClusterNodes,TRES,Reason,NodeName")
    assert rows, "no cluster event"
    assert rows[-1][:2] == ["Cluster", "node[1-2]"], rows
    assert rows[-1][2].startswith("cpu="), rows
    assert rows[-1][3:] == ["Cluster Registered TRES", ""], rows
    assert all(r[0] == "Node" for r in events(cluster, "Event=Node", "format=Event"))


def test_bad_conditions_are_refused(cluster):
    r = sacctmgr(cluster, "show", "event", "Event=Disk", ok=False)
    assert r.returncode == 1 and "Unknown event type" in r.stderr, r.stderr
    r = sacctmgr(cluster, "show", "event", "format=Colour", ok=False)
    assert r.returncode == 1 and "Unknown field 'Colour'" in r.stderr, r.stderr


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
