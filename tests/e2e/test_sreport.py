"""sreport end to end: alice (account research) and bob (account vision) run batch jobs with
known CPU counts and durations on a real cluster; sreport, reading the controller's sums of
its job records (QueryUsage) and its nodes (GetNodes), reports what sacct says they used: per
account and user (AccountUtilizationByUser, UserUtilizationByAccount, TopUsage), by job size
(SizesByAccount; GID=, Partitions=, Nodes=, Jobs=), and the cluster's Allocated/Idle split
(Utilization), in parsable and fixed layouts, and from commands on stdin (interactive mode);
Planned is the time eligible jobs waited."""

import grp
import pwd
import re
import subprocess
import time
from datetime import datetime

import pytest

from cluster import ensure_users, wait_for
from conftest import run_cluster

USERS = ("alice", "bob")
# sreport runs with its wall clock CLOCK_AHEAD seconds ahead (the e2e clock shim, see sreport()):
# end=now, rounded to the nearest hour as Slurm's, then lies past the real now whatever minute
# the test runs in, and start=now-2hours at least an hour before it, so the jobs below, run
# within the last minutes, are inside the window.
CLOCK_AHEAD = 1800
WINDOW = ("start=now-2hours", "end=now")
# (user, account, CPUs, seconds)
JOBS = (("alice", "research", 4, 12), ("alice", "research", 1, 6), ("bob", "vision", 2, 9))


@pytest.fixture(scope="module")
def cluster(request):
    ensure_users(USERS)
    lifetime = run_cluster(request, nodes=1, gpus_per_node=0, heartbeat=1, node_down=4)
    c = next(lifetime)
    try:
        text = c.conf.read_text()
        line = ("    users: [alice, bob]    # users who may charge jobs to this account "
                "(--account=research)")
        assert line in text, "etc/cluster.conf lost its research account line"
        c.conf.write_text(text.replace(line, "    users: [alice, bob]\n  - name: vision\n"
                                             "    parent: root\n    users: [bob]"))
        r = c.scontrol("reconfigure")
        assert r.returncode == 0, r.stderr
        yield c
    finally:
        for _ in lifetime:   # stops the cluster (run_cluster's finally)
            pass


@pytest.fixture(scope="module")
def used(cluster):
    """Runs JOBS at once and returns {(account, user): CPU-seconds} as sacct reports them."""
    ids = []
    for user, account, cpus, secs in JOBS:
        r = cluster.cli("sbatch", "--parsable", "-A", account, "-c", str(cpus), "-o", "/dev/null",
                        f"--wrap=sleep {secs}", user=user)
        assert r.returncode == 0, r.stderr
        ids.append(r.stdout.strip())
    for job in ids:
        cluster.wait_job(job, {"COMPLETED"}, timeout=60)

    def recorded():
        r = cluster.cli("sacct", "-a", "-X", "-n", "-P", "-j", ",".join(ids),
                        "-o", "State,User,Account,NCPUS,ElapsedRaw")
        rows = r.stdout.splitlines()
        done = len(rows) == len(ids) and all(row.startswith("COMPLETED|") for row in rows)
        return done and rows
    rows = wait_for(recorded, 30, what="the jobs' accounting records")
    totals = {}
    for row, (user, account, cpus, secs) in zip(rows, JOBS):
        _, u, a, n, elapsed = row.split("|")
        assert (u, a, int(n)) == (user, account, cpus)
        assert secs <= int(elapsed) <= secs + 5
        totals[(a, u)] = totals.get((a, u), 0) + int(n) * int(elapsed)
    return totals


def sreport(cluster, *args, ok=True, stdin=None, ahead=CLOCK_AHEAD):
    """sreport ARGS with its wall clock `ahead` seconds ahead of the real one (the LD_PRELOAD
    shim tests/e2e/clock_offset.cpp), so where now falls in the hour is the test's choice."""
    shim = cluster.build / "tests" / "libdrover-e2e-clock-offset.so"
    assert shim.exists(), f"{shim} is missing"
    env = dict(cluster.env(), LD_PRELOAD=str(shim), DROVER_TEST_CLOCK_OFFSET=str(int(ahead)))
    r = subprocess.run([str(cluster.bin / "sreport"), *args], capture_output=True, text=True,
                       env=env, timeout=30, input=stdin, cwd=str(cluster.run_dir))
    if ok:
        assert r.returncode == 0, r.stderr
    return r


def parsable_rows(text):
    """The rows of -P output after its header block, as dicts by the header line's names."""
    lines = text.splitlines()
    assert lines[0] == "-" * 80 and lines[3] == "-" * 80, text
    header = lines[4].split("|")
    return [dict(zip(header, line.split("|"))) for line in lines[5:]]


def near(value, expected, tolerance):
    return abs(float(value) - expected) <= tolerance


def test_account_utilization_by_user_in_seconds_and_minutes(cluster, used):
    r = sreport(cluster, "-P", "-t", "seconds", "cluster", "AccountUtilizationByUser", *WINDOW)
    lines = r.stdout.splitlines()
    assert lines[1].startswith("Cluster/Account/User Utilization ")
    assert lines[2] == "Usage reported in CPU Seconds"
    rows = parsable_rows(r.stdout)
    got = {(row["Account"], row["Login"]): int(row["Used"]) for row in rows}
    alice, bob = used[("research", "alice")], used[("vision", "bob")]
    assert set(got) == {("root", ""), ("research", ""), ("research", "alice"), ("vision", ""),
                        ("vision", "bob")}
    # Job records hold whole seconds; the controller's end may trail the job by a second.
    assert near(got[("research", "alice")], alice, 5)
    assert near(got[("vision", "bob")], bob, 3)
    assert got[("research", "")] == got[("research", "alice")]
    assert got[("root", "")] == got[("research", "")] + got[("vision", "")]
    assert all(row["Cluster"] and row["Energy"] == "0" for row in rows)
    # Minutes (the default), within a minute.
    minutes = parsable_rows(sreport(cluster, "-P", "cluster", "AccountUtilizationByUser",
                                    *WINDOW).stdout)
    by = {(row["Account"], row["Login"]): int(row["Used"]) for row in minutes}
    assert near(by[("research", "alice")], alice / 60, 1)
    assert near(by[("root", "")], (alice + bob) / 60, 1)


def test_fixed_layout_and_filters(cluster, used):
    r = sreport(cluster, "cluster", "AccountUtilizationByUser", *WINDOW, "accounts=vision")
    lines = r.stdout.splitlines()
    assert lines[4] == "  Cluster         Account     Login     Proper Name     Used   Energy "
    assert lines[5] == "--------- --------------- --------- --------------- -------- -------- "
    assert [line.split()[1] for line in lines[6:]] == ["vision", "vision"]
    assert lines[7].split()[2] == "bob"
    only_alice = sreport(cluster, "-nP", "cluster", "AccountUtilizationByUser", *WINDOW,
                         "users=alice", "format=Account,Login").stdout
    assert only_alice == "research|alice\n"
    assert sreport(cluster, "-n", "cluster", "AccountUtilizationByUser", *WINDOW,
                   "clusters=elsewhere").stdout == ""


def test_user_reports_order_by_usage(cluster, used):
    rows = parsable_rows(sreport(cluster, "-P", "-t", "seconds", "cluster",
                                 "UserUtilizationByAccount", *WINDOW).stdout)
    assert [(row["Login"], row["Account"]) for row in rows] == [("alice", "research"),
                                                                ("bob", "vision")]
    top = sreport(cluster, "-P", "user", "TopUsage", *WINDOW, "TopCount=1").stdout
    assert top.splitlines()[1].startswith("Top 1 Users ")
    assert [row["Login"] for row in parsable_rows(top)] == ["alice"]


def test_job_sizes_by_account(cluster, used):
    rows = parsable_rows(sreport(cluster, "-P", "-t", "seconds", "job", "SizesByAccount", *WINDOW,
                                 "grouping=2,4", "flatview").stdout)
    by = {row["Account"]: row for row in rows}
    assert set(by) == {"research", "vision"}
    # alice: 1 CPU x 6 s in 0-1, 4 CPUs x 12 s in >= 4; bob: 2 CPUs x 9 s in 2-3.
    assert near(by["research"]["0-1 CPUs"], 6, 2) and near(by["research"][">= 4 CPUs"], 48, 5)
    assert by["research"]["2-3 CPUs"] == "0" and near(by["vision"]["2-3 CPUs"], 18, 3)
    counts = parsable_rows(sreport(cluster, "-P", "job", "SizesByAccount", *WINDOW,
                                   "printjobcount").stdout)
    assert [(row["Account"], row["0-49 CPUs"], row["% of cluster"]) for row in counts] == \
        [("root", "3", "100.00%")]


def test_job_report_selects_jobs_by_partition_node_and_id(cluster, used):
    """job SizesByAccount's Partitions=, Nodes= and Jobs= (man sreport) pass to the accounting
    query: the jobs' own partition and node select all of them, another partition none, one
    job id that job alone."""
    r = cluster.cli("sacct", "-a", "-X", "-n", "-P", "-S", "now-2hours", "-o", "JobID,Partition,NodeList")
    assert r.returncode == 0, r.stderr
    rows = [line.split("|") for line in r.stdout.splitlines()]
    first, partition, node = rows[0]

    def jobs(*conditions):
        out = sreport(cluster, "-P", "job", "SizesByAccount", *WINDOW, "printjobcount", *conditions)
        return sum(int(row["0-49 CPUs"]) for row in parsable_rows(out.stdout))

    every = jobs()
    assert every >= 3
    assert jobs(f"Partitions={partition}") == every and jobs(f"Nodes={node}") == every
    assert jobs("Partitions=nosuch") == 0
    assert jobs(f"Jobs={first}") == 1
    # Only the job reports take them: elsewhere they stay unknown conditions, as Slurm's.
    bad = sreport(cluster, "cluster", "Utilization", *WINDOW, "Partitions=x", ok=False)
    assert bad.returncode == 1 and " Unknown condition: Partitions=x" in bad.stderr


def rpc_counts(cluster):
    """sdiag's count per RPC message type."""
    r = cluster.cli("sdiag")
    assert r.returncode == 0, r.stderr
    table = r.stdout.split("Remote Procedure Call statistics by message type\n", 1)[1].split("\n\n")[0]
    return {m.group(1): int(m.group(2))
            for m in re.finditer(r"^\t(\S+)\s*\(\s*\d+\) count:(\d+)", table, re.M)}


def test_the_controller_sums_so_only_totals_cross_the_wire(cluster, used):
    """Every report asks QueryUsage (the controller's SQL sums), none the job records."""
    before = rpc_counts(cluster)
    for report in (("cluster", "AccountUtilizationByUser"), ("cluster", "Utilization"),
                   ("user", "TopUsage"), ("job", "SizesByAccount")):
        sreport(cluster, "-P", *report, *WINDOW)
    after = rpc_counts(cluster)
    assert after.get("REQUEST_QUERY_USAGE", 0) - before.get("REQUEST_QUERY_USAGE", 0) == 4, after
    assert after.get("REQUEST_QUERY_ACCOUNTING", 0) == before.get("REQUEST_QUERY_ACCOUNTING", 0)


def test_cluster_utilization(cluster, used):
    r = sreport(cluster, "-P", "-t", "seconds", "-T", "cpu", "cluster", "Utilization", *WINDOW,
                "format=Cluster,TresName,TresCount,Allocated,Down,PlannedDown,Idle,Planned,Reported")
    [row] = parsable_rows(r.stdout)
    assert row["TRES Name"] == "cpu" and row["TRES Count"] == "16"
    assert near(row["Allocated"], sum(used.values()), 8)
    assert row["Down"] == "0" and row["PLND Down"] == "0"
    reported = int(row["Reported"])
    assert reported % (16 * 3600) == 0, "Reported is the node's 16 CPUs times whole hours"
    assert int(row["Allocated"]) + int(row["Idle"]) + int(row["Planned"]) in (reported - 1, reported,
                                                                                reported + 1)


def test_end_now_is_rounded_to_the_nearest_hour_as_slurms(cluster):
    """end=now is rounded as any end, as the reference's sreport rounded it: to the minute
    (30 seconds up), then to the hour (30 minutes up), so the report stops at hh:00 until
    hh:29:30 and at the next hour from then on. sreport's clock is set to land now at each
    point of the next hour (a slow start only moves it later, which keeps each answer)."""
    real = int(time.time())
    hour = real - real % 3600 + 3600   # the next whole hour
    for into, end in ((10 * 60, hour), (28 * 60 + 50, hour), (29 * 60 + 31, hour + 3600),
                      (50 * 60, hour + 3600)):
        r = sreport(cluster, "cluster", "utilization", "start=now-3hours", "end=now",
                    ahead=hour + into - real)
        header = r.stdout.splitlines()[1]
        last = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(end - 1))
        assert header.endswith(" - " + last), (into, header)


def test_interactive_mode_and_errors(cluster, used):
    r = sreport(cluster, stdin="parsable2\ncluster utilization start=now-1hours end=now\nbogus\nquit\n",
                ok=False)
    assert r.returncode == 1
    assert "Cluster|Allocated|Down|PLND Down|Idle|Planned|Reported\n" in r.stdout
    assert r.stderr == "invalid keyword: bogus\n"
    bad = sreport(cluster, "cluster", "nosuch", ok=False)
    assert bad.returncode == 1 and bad.stderr.startswith("Not valid report nosuch\n")
    tres = sreport(cluster, "-T", "bogus", "cluster", "utilization", ok=False)
    assert tres.returncode == 1 and tres.stderr == "sreport: fatal: No valid TRES given\n"


def test_planned_is_the_time_eligible_jobs_waited(cluster, used):
    """alice takes all 16 CPUs; bob's 8-CPU job waits for them: Utilization's Planned is his
    8 CPUs times that wait (the earlier jobs started at once, within a second)."""
    big = cluster.cli("sbatch", "--parsable", "-A", "research", "-c", "16", "-o", "/dev/null",
                      "--wrap=sleep 8", user="alice")
    assert big.returncode == 0, big.stderr
    cluster.wait_job(big.stdout.strip(), {"RUNNING"}, timeout=30)
    small = cluster.cli("sbatch", "--parsable", "-A", "vision", "-c", "8", "-o", "/dev/null",
                        "--wrap=sleep 1", user="bob")
    assert small.returncode == 0, small.stderr
    job = small.stdout.strip()
    cluster.wait_job(job, {"COMPLETED"}, timeout=60)

    def waited():
        r = cluster.cli("sacct", "-a", "-X", "-n", "-P", "-j", job, "-o", "State,Eligible,Start")
        state, eligible, start = (r.stdout.strip().split("|") + ["", "", ""])[:3]
        if state != "COMPLETED":
            return None
        return (datetime.fromisoformat(start) - datetime.fromisoformat(eligible)).total_seconds()
    wait = wait_for(waited, 30, what=f"job {job}'s accounting record")
    assert wait >= 4, f"bob's job waited only {wait}s"
    [row] = parsable_rows(sreport(cluster, "-P", "-t", "seconds", "cluster", "Utilization",
                                  *WINDOW).stdout)
    assert near(row["Planned"], 8 * wait, 8 + 16), row


def test_job_report_selects_jobs_by_group(cluster, used):
    """job SizesByAccount's GID= (man sreport): the group ids the jobs ran under, by number or
    by name. The test's jobs ran with root's group (the harness switches only the uid); one
    more job of bob's, run under his own group, is the one GID=<bob's group> selects."""
    bob = pwd.getpwnam("bob").pw_gid
    assert bob != 0
    r = subprocess.run([str(cluster.bin / "sbatch"), "--parsable", "-A", "vision", "-o", "/dev/null",
                        "--wrap=sleep 2"], capture_output=True, text=True, env=cluster.env(),
                       timeout=30, user="bob", group=bob, cwd=str(cluster.run_dir))
    assert r.returncode == 0, r.stderr
    job = r.stdout.strip()
    cluster.wait_job(job, {"COMPLETED"}, timeout=60)

    def recorded():
        r = cluster.cli("sacct", "-a", "-X", "-n", "-P", "-j", job, "-o", "State,GID")
        return r.stdout.strip() == f"COMPLETED|{bob}"
    wait_for(recorded, 30, what=f"job {job}'s accounting record")

    def jobs(*conditions):
        out = sreport(cluster, "-P", "job", "SizesByAccount", *WINDOW, "printjobcount", *conditions)
        return sum(int(row["0-49 CPUs"]) for row in parsable_rows(out.stdout))

    every = jobs()
    assert every >= 5
    assert jobs(f"GID={bob}") == 1
    assert jobs(f"GID={grp.getgrgid(bob).gr_name}") == 1
    assert jobs("GID=0") == every - 1
    assert jobs(f"GID=0,{bob}") == every
    assert jobs("GID=4000000") == 0
    bad = sreport(cluster, "job", "SizesByAccount", *WINDOW, "GID=no-such-group", ok=False)
    assert bad.returncode == 1 and " Invalid group id: no-such-group" in bad.stderr
