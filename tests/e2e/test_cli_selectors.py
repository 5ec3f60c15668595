"""The selectors and scopes of scancel, squeue, scontrol update and sacct end to end (issue 3):
scancel by name, user, partition, state, node and array range, and its signal scopes (none,
--batch, --full: scancel(1)); squeue's user, account, node, state and id filters and -S sorting;
what `scontrol update` lets a user change on their own job and what only root may; sacct's
user, name, state, partition, node, window and step selectors. Jobs are submitted by alice and
bob (account research) on the three-node cluster of conftest.py."""

import os
import pwd
import re
import subprocess
import time

import pytest

from cluster import ensure_users, wait_for

USERS = ("alice", "bob")


@pytest.fixture(scope="module")
def c(cluster):
    ensure_users(USERS)
    return cluster


@pytest.fixture
def alice_dir(c, request):
    """A directory alice's jobs may write to."""
    d = c.run_dir / re.sub(r"\W", "_", request.node.name)[:50]
    d.mkdir()
    pw = pwd.getpwnam("alice")
    os.chown(d, pw.pw_uid, pw.pw_gid)
    return d


def submit(c, *args, user="alice"):
    r = c.cli("sbatch", "--parsable", "-o", "/dev/null", "-D", "/tmp", *args, user=user)
    assert r.returncode == 0, r.stderr
    return int(r.stdout.split(";")[0])


def show(c, job):
    return c.job_fields(job)


def wait_state(c, job, states, timeout=30):
    return c.wait_job(job, states, timeout)


def queued(c, *args, user=None):
    """Ids of the jobs squeue lists for `args`, in its order (%A: an array's tasks show the
    array's id)."""
    r = c.cli("squeue", "-h", "-o", "%A", *args, user=user)
    assert r.returncode == 0, r.stderr
    return [int(x) for x in r.stdout.split()]


def live(c, jobs):
    return {j for j in jobs if show(c, j).get("JobState") in ("PENDING", "RUNNING")}


# --- scancel ---------------------------------------------------------------------------------

def test_scancel_by_name_user_partition_and_state(c):
    keep = submit(c, "-H", "-J", "keep", "--wrap=true")
    drop = submit(c, "-H", "-J", "drop", "--wrap=true")
    debug = submit(c, "-H", "-J", "keep", "-p", "debug", "--wrap=true")
    bobs = submit(c, "-H", "-J", "keep", "--wrap=true", user="bob")
    mine = {keep, drop, debug, bobs}
    steps = [(["-n", "drop"], {drop}), (["-u", "bob"], {bobs}), (["-p", "debug"], {debug}),
             (["-u", "alice", "-t", "RUNNING"], set()), (["-u", "alice", "-t", "PD"], {keep})]
    for args, gone in steps:
        before = live(c, mine)
        r = c.cli("scancel", *args)
        assert r.returncode == 0, (args, r.stderr)
        wait_for(lambda: live(c, mine) == before - gone, 10, what=f"scancel {args}")


def test_scancel_interactive_asks_for_each_job(c):
    """-i: a prompt per job the call selects, as the reference's; only the confirmed ones go."""
    one = submit(c, "-H", "-J", "one", "--wrap=true")
    two = submit(c, "-H", "-J", "two", "--wrap=true")
    arr = submit(c, "-H", "-J", "arr", "--array=1-3", "--wrap=true")
    r = c.cli("scancel", "-i", str(one), str(two), f"{arr}_2", "999999", user="alice",
              input="maybe\nyes\nn\nY\n")
    assert r.returncode == 1, r.stderr
    assert r.stdout == (f"Cancel job_id={one} name=one partition=gpu [y/n]? " * 2
                        + f"Cancel job_id={two} name=two partition=gpu [y/n]? "
                        + f"Cancel job_id={arr}_2 name=arr partition=gpu [y/n]? "), r.stdout
    assert r.stderr == "scancel: error: Kill job error on job id 999999: Invalid job id specified\n"
    wait_state(c, one, "CANCELLED")
    r = c.cli("squeue", "-h", "-r", "-t", "PD", "-j", f"{two},{arr}", "-o", "%i")
    assert sorted(r.stdout.split()) == sorted([str(two), f"{arr}_1", f"{arr}_3"]), r.stdout
    # By filter; the end of input declines what is left, and nothing more is asked.
    r = c.cli("scancel", "-i", "-u", "alice", "-n", "two", user="alice", input="")
    assert (r.returncode, r.stdout) == (0, f"Cancel job_id={two} name=two partition=gpu [y/n]? \n")
    assert show(c, two)["JobState"] == "PENDING"
    c.cli("scancel", str(two), str(arr))


def test_scancel_me_is_the_callers_real_user(c):
    """--me is the uid scancel runs as, whatever $USER says (the harness keeps root's)."""
    alices = submit(c, "-H", "--wrap=true")
    bobs = submit(c, "-H", "--wrap=true", user="bob")
    r = c.cli("scancel", "--me", user="bob")
    assert r.returncode == 0, r.stderr
    wait_state(c, bobs, "CANCELLED")
    assert show(c, alices)["JobState"] == "PENDING"
    c.cli("scancel", str(alices))


def test_squeue_me_of_a_uid_passwd_lacks_is_no_crash(c):
    """--me goes by uid. Looking the name up, the static squeue died of SIGSEGV for a uid
    /etc/passwd lacks: glibc's NSS then loads libnss_systemd, which fails in a static process.
    The controller knows no such user either, and says so as for squeue -u."""
    r = c.cli("squeue", "--me", "-h", user=54321)
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "squeue: error: Invalid user: 54321\n\n"), r


def test_scancel_nodelist_cancels_only_jobs_on_those_nodes(c):
    on1 = submit(c, "-w", "node1", "--wrap=sleep 300")
    on2 = submit(c, "-w", "node2", "--wrap=sleep 300")
    wait_state(c, on1, "RUNNING")
    wait_state(c, on2, "RUNNING")
    assert c.cli("scancel", "-w", "node2").returncode == 0
    wait_state(c, on2, "CANCELLED")
    assert show(c, on1)["JobState"] == "RUNNING"
    c.cli("scancel", str(on1))
    wait_state(c, on1, "CANCELLED")


def test_scancel_array_task_range(c):
    arr = submit(c, "-H", "--array=0-5", "-J", "rng", "--wrap=true")
    r = c.cli("scancel", f"{arr}_[1-3]", user="alice")
    assert r.returncode == 0, r.stderr
    r = c.cli("squeue", "-h", "-r", "-t", "PD", "-j", str(arr), "-o", "%i")
    assert r.stdout.split() == [f"{arr}_0", f"{arr}_4", f"{arr}_5"], r.stdout
    c.cli("scancel", str(arr))


SIGNAL_SCRIPT = """#!/bin/bash
trap 'echo shell >> sig.out' USR1
bash -c 'trap "echo child >> sig.out" USR1; while :; do sleep 0.1; done' &
echo ready > ready.out
while :; do sleep 0.1; done
"""


def test_scancel_signal_reaches_steps_batch_shell_or_all_as_scancel_says(c, alice_dir):
    """scancel(1): without --batch/--full a signal goes to the numbered steps only (this job has
    none, so nothing); --batch to the batch shell alone; --full to the shell and its children.
    Signals are delivered in order, so once --batch's line is there, an earlier delivery would
    be too."""
    (alice_dir / "sig.sh").write_text(SIGNAL_SCRIPT)
    job = submit(c, "-D", str(alice_dir), str(alice_dir / "sig.sh"))
    wait_for((alice_dir / "ready.out").exists, 30, what="the job's traps")
    out = alice_dir / "sig.out"

    def lines():
        return sorted(out.read_text().split()) if out.exists() else []

    for args, want in [((), []), (("--batch",), ["shell"]),
                       (("--full",), ["child", "shell", "shell"])]:
        r = c.cli("scancel", "-s", "USR1", *args, str(job), user="alice")
        assert r.returncode == 0, r.stderr
        if want:
            wait_for(lambda: lines() == want, 15, what=f"{want} after scancel {args}")
    assert show(c, job)["JobState"] == "RUNNING"
    c.cli("scancel", str(job))
    wait_state(c, job, "CANCELLED")


# --- squeue ----------------------------------------------------------------------------------

def test_squeue_filters_and_sorting(c):
    a1 = submit(c, "-H", "-J", "sqa", "--wrap=true")
    a2 = submit(c, "-H", "-J", "sqb", "-p", "debug", "--wrap=true")
    b1 = submit(c, "-H", "-J", "sqa", "--wrap=true", user="bob")
    run = submit(c, "-w", "node3", "-J", "sqrun", "--wrap=sleep 300")
    wait_state(c, run, "RUNNING")
    ours = {a1, a2, b1, run}

    def sel(*args, user=None):
        return [j for j in queued(c, *args, user=user) if j in ours]

    assert set(sel("-u", "bob")) == {b1}
    assert set(sel("--me", user="bob")) == {b1}
    assert set(sel("-A", "research")) == ours
    assert set(sel("-w", "node3")) == {run}
    assert set(sel("-t", "R")) == {run}
    assert set(sel("-t", "PD", "-p", "debug")) == {a2}
    assert set(sel("-j", f"{a1},{b1}")) == {a1, b1}
    assert set(sel("-n", "sqa", "-u", "alice")) == {a1}
    assert sel("-S", "i") == sorted(ours)
    assert sel("-S", "-i") == sorted(ours, reverse=True)
    # By name, then by id descending within a name.
    name = {a1: "sqa", b1: "sqa", a2: "sqb", run: "sqrun"}
    assert sel("-S", "j,-i") == sorted(ours, key=lambda j: (name[j], -j))
    assert sel("--array-unique") == sel()  # taken, changing nothing, as the reference's
    # The last of -u and --me wins, as the reference's; SQUEUE_NAMES is --name.
    assert set(sel("--me", "-u", "bob", user="alice")) == {b1}
    assert set(sel("-u", "bob", "--me", user="alice")) == {a1, a2, run}
    r = subprocess.run([str(c.bin / "squeue"), "-h", "-o", "%i"], capture_output=True, text=True,
                       env={**c.env(), "SQUEUE_NAMES": "sqb"})
    assert [int(j) for j in r.stdout.split() if int(j) in ours] == [a2]

    # Errors as the reference's: an unknown node, no header, exit 1; a sort key that is none
    # (read from the last character): the header, then the error, exit 1; a format field
    # that is none: printed as written, a warning, exit 0.
    r = c.cli("squeue", "-w", "node99")
    assert (r.returncode, r.stdout, r.stderr) == (1, "", "squeue: error: Invalid node name node99\n")
    r = c.cli("squeue", "-S", "bogus")
    assert (r.returncode, r.stderr) == (1, "squeue: error: Invalid sort specification: s\n")
    assert r.stdout.split() == ["JOBID", "PARTITION", "NAME", "USER", "ST", "TIME", "NODES", "NODELIST(REASON)"]
    r = c.cli("squeue", "-j", str(a1), "-o", "%.8i %!")
    assert (r.returncode, r.stderr) == (0, "squeue: error: Invalid job format specification: !\n")
    assert r.stdout == f"   JOBID %!\n{a1:>8} %!\n"
    c.cli("scancel", *map(str, ours))


# --- scontrol update -------------------------------------------------------------------------

def test_scontrol_update_within_the_users_rights(c):
    job = submit(c, "-H", "-t", "30", "-J", "upd", "--wrap=true")
    other = submit(c, "-H", "-J", "upd2", "--wrap=true")

    def update(*kv, user="alice"):
        return c.scontrol("update", f"JobId={job}", *kv, user=user)

    assert update("TimeLimit=20").returncode == 0
    assert show(c, job)["TimeLimit"] == "00:20:00"
    # A user lengthens a pending job's limit up to the partition's MaxTime (gpu: 1 day), not
    # beyond, as the reference. Refusals as Slurm 22.05's scontrol prints them: "<why> for job
    # <id>"; another user's job is "Invalid user id" there (scancel's is permission denied).
    assert update("TimeLimit=25").returncode == 0
    assert update("TimeLimit=20").returncode == 0
    for kv, user, why in [(("TimeLimit=2-00:00:00",), "alice", "Access/permission denied"),
                          (("Nice=-5",), "alice", "Access/permission denied"),
                          (("TimeLimit=10",), "bob", "Invalid user id")]:
        r = update(*kv, user=user)
        assert (r.returncode, r.stderr) == (1, f"{why} for job {job}\n"), kv
    r = update("TimeLimit=garbage")
    assert (r.returncode, r.stderr) == (1, "scontrol: error: Invalid TimeLimit value\n"), r.stderr
    assert update("TimeLimit=40", user="root").returncode == 0
    assert update("Nice=10", "Partition=debug", "Comment=moved", "JobName=upd3").returncode == 0
    f = show(c, job)
    assert (f["TimeLimit"], f["Nice"], f["Partition"], f["JobName"]) == \
        ("00:40:00", "10", "debug", "upd3")
    # StartTime takes sbatch --begin's forms; the job then waits for it.
    assert update("StartTime=now+1hour").returncode == 0
    assert c.scontrol("release", str(job), user="alice").returncode == 0
    f = wait_for(lambda: (f := show(c, job)).get("Reason") == "BeginTime" and
                 f.get("StartTime") != "Unknown" and f, 10, what="Reason=BeginTime and its time")
    begin = time.mktime(time.strptime(f["StartTime"], "%Y-%m-%dT%H:%M:%S"))
    assert abs(begin - (time.time() + 3600)) < 120, f["StartTime"]
    # The reference's lines: where its reading stopped, then nothing sent.
    r = update("StartTime=soonish")
    assert (r.returncode, r.stderr) == \
        (1, "Invalid time specification (pos=0): soonish\nNo changes specified\n"), r.stderr
    r = update("StartTime=now+5m")
    assert (r.returncode, r.stderr) == \
        (1, "Invalid time specification (pos=4): now+5m\nNo changes specified\n"), r.stderr
    r = update("StartTime=")   # empty: the reference printed only its last line
    assert (r.returncode, r.stderr) == (1, "No changes specified\n"), r.stderr
    # top (same partition, account and QOS): root's, as Slurm without enable_user_top.
    assert update("Partition=gpu").returncode == 0
    r = c.scontrol("top", str(other), user="alice")
    assert (r.returncode, r.stderr) == \
        (1, f"Access/permission denied for job {other}\n"), r.stderr
    # The reference (2026-12-03): users may not top at all, and it named the list as given.
    r = c.scontrol("top", f"{job},{other}", user="alice")
    assert (r.returncode, r.stderr) == \
        (1, f"Access/permission denied for job {job},{other}\n"), r.stderr
    r = c.scontrol("release", str(other), user="bob")
    assert (r.returncode, r.stderr) == (1, f"Invalid user id for job {other}\n"), r.stderr
    # Requeue, suspend and resume of another user's job are refused outright, as the reference.
    for action in ("requeue", "requeuehold", "suspend", "resume"):
        r = c.scontrol(action, str(other), user="bob")
        assert (r.returncode, r.stderr) == \
            (1, f"Access/permission denied for job {other}\n"), (action, r.stderr)
    r = c.scontrol("hold", f"{other},999999", user="alice")
    assert (r.returncode, r.stderr) == (1, "Invalid job id specified for job 999999\n"), r.stderr
    assert c.scontrol("top", str(other)).returncode == 0
    # Both are held, so both show Priority=0 (as the reference's held jobs): top shows in Nice.
    assert int(show(c, other)["Nice"]) < int(show(c, job)["Nice"])
    c.cli("scancel", str(job), str(other))


def test_scontrol_update_what_a_pending_job_asks_for(c, alice_dir):
    """The keys the reference took from a job's owner, shown by scontrol and squeue -O, and
    the job then runs as updated."""
    job = submit(c, "-H", "-J", "asks", "--wrap=pwd; echo $SLURM_NTASKS $SLURM_CPUS_PER_TASK")

    def update(*kv):
        return c.scontrol("update", f"JobId={job}", *kv, user="alice")

    assert update("NumTasks=2", "CPUsPerTask=2", "MinMemoryCPU=500", "Gres=gpu:1", "TimeMin=5",
                  "Requeue=0", f"WorkDir={alice_dir}", "StdOut=out-%j.txt").returncode == 0
    f = show(c, job)
    assert (f["NumTasks"], f["CPUs/Task"], f["MinMemoryCPU"], f["TresPerNode"], f["TimeMin"],
            f["Requeue"], f["WorkDir"], f["StdOut"]) == \
        ("2", "2", "500M", "gres:gpu:1", "00:05:00", "0", str(alice_dir), f"{alice_dir}/out-{job}.txt")
    r = c.cli("squeue", "-h", "-j", str(job), "-O", "NumTasks:4,cpus-per-task:4,STDOUT:250,Requeue:3")
    assert r.stdout.split() == ["2", "2", f"{alice_dir}/out-%j.txt", "0"], r.stdout
    # Checked as at submission; scontrol reads memory as whole megabytes, as the reference.
    r = update("CPUsPerTask=999")
    assert (r.returncode, r.stderr) == (1, f"Requested node configuration is not available for job {job}\n")
    r = update("MinMemoryNode=2G")
    assert (r.returncode, r.stderr) == (1, "scontrol: error: Invalid MinMemoryNode value: 2G\n")
    r = update("StdErr=/tmp/x")
    assert (r.returncode, r.stderr) == (1, "Update of this parameter is not supported: StdErr=/tmp/x\n"
                                           "Request aborted\n")
    assert c.scontrol("release", str(job), user="alice").returncode == 0
    wait_state(c, job, "COMPLETED")
    out = alice_dir / f"out-{job}.txt"
    wait_for(out.exists, 10, what=str(out))
    assert out.read_text().split() == [str(alice_dir), "2", "2"]


def test_scontrol_update_where_a_pending_job_may_run_and_an_arrays_throttle(c):
    """ExcNodeList=, ReqNodeList=, Features= on a pending job (checked as at submission, shown
    by show job, obeyed by the scheduler) and ArrayTaskThrottle= on an array (squeue's %N)."""
    job = submit(c, "-H", "-J", "updnodes", "--wrap=sleep 60")

    def update(*kv):
        return c.scontrol("update", f"JobId={job}", *kv, user="alice")

    assert update("ExcNodeList=node[1-2]").returncode == 0
    assert show(c, job)["ExcNodeList"] == "node[1-2]"
    r = update("ExcNodeList=node9")
    assert (r.returncode, r.stderr) == (1, f"Invalid node name specified for job {job}\n")
    r = update("Features=nosuchfeature")
    assert (r.returncode, r.stderr) == (1, f"Invalid feature specification for job {job}\n")
    assert c.scontrol("release", str(job), user="alice").returncode == 0
    f = wait_for(lambda: (f := show(c, job))["JobState"] == "RUNNING" and f, 20,
                 what="the job to start")
    assert f["NodeList"] == "node3", f
    r = update("ReqNodeList=node1")
    assert (r.returncode, r.stderr) == \
        (1, f"Job is no longer pending execution for job {job}\n"), r.stderr
    c.cli("scancel", str(job))

    r = c.cli("sbatch", "--parsable", "-o", "/dev/null", "-D", "/tmp", "-H", "--array=0-5",
              "--wrap=true", user="alice")
    assert r.returncode == 0, r.stderr
    array = int(r.stdout.split(";")[0])
    assert c.scontrol("update", f"JobId={array}", "ArrayTaskThrottle=2", user="alice").returncode == 0
    # NumNodes= on a whole array whose tasks all wait (one folded record) is each task's, as
    # the reference took it; on a job id nobody knows scontrol says so itself (the reference:
    # "Could not load state information for job 99999: Invalid job id specified", exit 1).
    r = c.scontrol("update", f"JobId={array}", "NumNodes=2", user="alice")
    assert (r.returncode, r.stderr) == (0, ""), r.stderr
    assert show(c, f"{array}_3")["NumNodes"].startswith("2"), show(c, f"{array}_3")
    r = c.scontrol("update", "JobId=999999", "NumNodes=2", user="alice")
    assert (r.returncode, r.stderr) == (1, "scontrol: error: Could not load state information for "
                                           "job 999999: Invalid job id specified\n"), r.stderr
    r = c.cli("squeue", "-h", "-j", str(array), "-o", "%i")
    assert r.stdout.strip() == f"{array}_[0-5%2]", r.stdout
    c.cli("scancel", str(array))


def test_scontrol_update_of_an_array_answers_for_each_group_of_tasks(c):
    """scontrol update of an array whose tasks ended, run and wait: one line per group of
    tasks with the same answer, exit 1 once any task refused, as the reference Slurm 22.05
    printed them (`7098_0,2: Job has already finished`, `7098_1,3: Job is no longer pending
    execution`, `7098_4-6: No error`)."""
    r = c.cli("sbatch", "--parsable", "-o", "/dev/null", "-D", "/tmp", "--array=0-4%3",
              "--wrap=[ $SLURM_ARRAY_TASK_ID = 0 ] || sleep 120", user="alice")
    assert r.returncode == 0, r.stderr
    array = int(r.stdout.split(";")[0])

    def states():
        """The array's tasks still pending or running."""
        rows = c.cli("squeue", "-h", "-r", "-j", str(array), "-o", "%i %T").stdout.split("\n")
        return {k: v for k, v in (row.split() for row in rows if row) if v in ("PENDING", "RUNNING")}

    # Task 0 ends at once, 1-3 run (the throttle), 4 waits.
    want = {f"{array}_{t}": "RUNNING" for t in (1, 2, 3)} | {f"{array}_4": "PENDING"}
    wait_for(lambda: states() == want, 30, what="tasks 1-3 running, 0 ended, 4 pending")

    def update(*kv):
        return c.scontrol("update", f"JobId={array}", *kv, user="alice")

    # NumNodes= on the whole array once it is more than one record (tasks ran): the
    # reference's scontrol refused it itself and sent nothing, exit 1.
    r = update("NumNodes=2")
    assert (r.returncode, r.stdout, r.stderr) == \
        (1, "", "scontrol: error: Job resizing not supported for job arrays\n"), r.stderr
    assert show(c, f"{array}_4")["NumNodes"].startswith("1"), show(c, f"{array}_4")
    r = update("Partition=debug")
    assert (r.returncode, r.stdout, r.stderr) == (1, "", (
        f"{array}_0: Job has already finished\n"
        f"{array}_1-3: Job is no longer pending execution\n"
        f"{array}_4: No error\n")), r.stderr
    rows = c.cli("squeue", "-h", "-r", "-j", str(array), "-o", "%i %P").stdout.split()
    assert rows[rows.index(f"{array}_4") + 1] == "debug", rows
    assert rows[rows.index(f"{array}_1") + 1] == "gpu", rows
    # A key every open task takes; and the partition a running task is already in (the
    # reference took Partition=gpu there without a word).
    r = update("JobName=renamed", "Partition=gpu")
    assert (r.returncode, r.stderr) == (1, f"{array}_0: Job has already finished\n"
                                           f"{array}_1-4: No error\n"), r.stderr
    # Refused by every pending task, for its own reason; a running task keeps even the key it
    # could take (each task takes all of the update or none of it).
    r = update("Comment=x", "Partition=nosuch")
    assert (r.returncode, r.stderr) == (1, (
        f"{array}_0: Job has already finished\n"
        f"{array}_1-3: Job is no longer pending execution\n"
        f"{array}_4: Invalid partition name specified\n")), r.stderr
    # One task named: its own line.
    r = c.scontrol("update", f"JobId={array}_2", "Partition=debug", user="alice")
    assert (r.returncode, r.stderr) == (1, f"{array}_2: Job is no longer pending execution\n")
    c.cli("scancel", str(array))
    wait_for(lambda: not states(), 30, what="the array to end")
    r = update("JobName=again")
    assert (r.returncode, r.stderr) == (1, f"{array}_0-4: Job has already finished\n"), r.stderr
    # A job that is no array: the reference's "Job has already finished for job N".
    job = submit(c, "--wrap=true")
    wait_for(lambda: c.cli("squeue", "-h", "-j", str(job), "-o", "%T").stdout.strip()
             in ("", "COMPLETED"), 30, what="the job to end")
    r = c.scontrol("update", f"JobId={job}", "JobName=x", user="alice")
    assert (r.returncode, r.stderr) == (1, f"Job has already finished for job {job}\n"), r.stderr


# --- sacct -----------------------------------------------------------------------------------

def sacct(c, *args, user=None):
    r = c.cli("sacct", "-n", "-P", *args, user=user)
    assert r.returncode == 0, r.stderr
    return r.stdout.splitlines()


def test_sacct_selectors(c):
    ok = submit(c, "-J", "acA", "--wrap=true")
    bad = submit(c, "-J", "acB", "-p", "debug", "--wrap=exit 3")
    bobs = submit(c, "-J", "acC", "--wrap=true", user="bob")
    for j in (ok, bad, bobs):
        wait_state(c, j, {"COMPLETED", "FAILED"})
    names = ["--name", "acA,acB,acC", "-X", "-o", "JobName,State,ExitCode"]
    wait_for(lambda: len(sacct(c, *names)) == 3, 15, what="the three records")
    assert sorted(sacct(c, *names)) == ["acA|COMPLETED|0:0", "acB|FAILED|3:0", "acC|COMPLETED|0:0"]
    assert sacct(c, *names, "-u", "bob") == ["acC|COMPLETED|0:0"]
    # Another user's job named by id is listed (no PrivateData), as the reference's sacct did;
    # without -j a user sees their own.
    assert sacct(c, "-j", str(bobs), "-X", "-o", "JobName", user="alice") == ["acC"]
    assert sorted(sacct(c, *names, user="alice")) == ["acA|COMPLETED|0:0", "acB|FAILED|3:0"]
    # With -s and no -S the window is now, and with -S but no -E it ends where it starts
    # (sacct(1), DEFAULT TIME WINDOW; the reference's `-s CD -S now-1hour` listed nothing, with
    # `-E now` the jobs): ended jobs are asked for with both ends.
    assert sacct(c, *names, "-s", "F", "-S", "now-1hour", "-E", "now") == ["acB|FAILED|3:0"]
    assert sacct(c, *names, "-s", "F", "-S", "now-1hour") == []
    assert sacct(c, *names, "-r", "debug") == ["acB|FAILED|3:0"]
    node = sacct(c, "-j", str(ok), "-X", "-o", "NodeList")[0]
    assert "acA|COMPLETED|0:0" in sacct(c, *names, "-N", node)
    # A window that ends (now) before it starts: refused, as the reference's sacct refused it.
    r = c.cli("sacct", "-n", "-P", *names, "-S", "now+1hour")
    assert r.returncode == 1 and "requested is after end time" in r.stderr, r.stderr
    assert sorted(sacct(c, *names, "-S", "midnight", "-E", "now")) == \
        sorted(sacct(c, *names))
    # A user sees their own jobs only; a step selector gives that step alone.
    assert {line.split("|")[0] for line in sacct(c, *names, user="alice")} == {"acA", "acB"}
    assert sacct(c, "-j", f"{bad}.batch", "-o", "JobID,State,ExitCode") == \
        [f"{bad}.batch|FAILED|3:0"]
    # AssocID is the association's id as sshare shows it (the reference's numbering), QOSRAW
    # normal's 1; -x selects by it.
    r = c.cli("sshare", "-a", "-n", "-P", "-o", "Account,User,ID")
    assert r.returncode == 0, r.stderr
    ids = {tuple(f.strip() for f in line.split("|")[:2]): line.split("|")[2]
           for line in r.stdout.splitlines()}
    alices, bobs_id = ids[("research", "alice")], ids[("research", "bob")]
    assert sacct(c, "-j", str(ok), "-o", "AssocID,QOSRAW") == [f"{alices}|1", f"{alices}|"]
    assert sacct(c, *names, "-x", alices) == sacct(c, *names, "-u", "alice")
    assert sacct(c, *names, "--associations", f"{bobs_id},99") == ["acC|COMPLETED|0:0"]
    # -T: a running job's start cut to -S and its end to -E, Elapsed the time between, its
    # step rows alike (the reference's job 7040 with -T -S 03:25:30 -E 03:25:45).
    running = submit(c, "-J", "acT", "--wrap=sleep 60")
    wait_state(c, running, "RUNNING")
    time.sleep(3)  # so that the window below starts after the job did
    start, end = time.time() - 2, time.time() - 1
    window = [time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(t)) for t in (start, end)]
    rows = sacct(c, "-j", str(running), "-T", "-S", window[0], "-E", window[1], "-o", "Start,End,Elapsed")
    assert rows == [f"{window[0]}|{window[1]}|00:00:01"] * len(rows) and rows, rows
    untruncated = sacct(c, "-j", str(running), "-X", "-S", window[0], "-E", window[1], "-o", "Start")
    assert untruncated != [window[0]], untruncated
    c.cli("scancel", str(running))


# --- pending reasons from the partition -----------------------------------------------------

def test_partition_down_and_node_limit_reasons_follow_the_configuration(c):
    """A pending job whose partition goes DOWN waits with PartitionDown; one asking for more
    nodes than its partition's MaxNodes (lowered after it was submitted) with
    PartitionNodeLimit; both run once cluster.conf is restored."""
    original = c.conf.read_text()
    down = submit(c, "-H", "-p", "debug", "-J", "pdown", "--wrap=true")
    wide = submit(c, "-H", "-N", "2", "-J", "pwide", "--wrap=true")
    changed = original.replace("    max_nodes: UNLIMITED", "    max_nodes: 1", 1)
    start = changed.index("  - name: debug")
    changed = changed[:start] + changed[start:].replace("    state: UP", "    state: DOWN", 1)
    assert changed.count("state: DOWN") == 1 and "max_nodes: 1" in changed
    try:
        c.conf.write_text(changed)
        assert c.scontrol("reconfigure").returncode == 0
        assert c.scontrol("release", str(down), str(wide)).returncode == 0
        for job, reason in ((down, "PartitionDown"), (wide, "PartitionNodeLimit")):
            wait_for(lambda: show(c, job).get("Reason") == reason, 10, what=f"{job}: {reason}")
            r = c.cli("squeue", "-h", "-j", str(job), "-o", "%t %r")
            assert r.stdout.split() == ["PD", reason], r.stdout
    finally:
        c.conf.write_text(original)
        assert c.scontrol("reconfigure").returncode == 0
    wait_state(c, down, "COMPLETED")
    wait_state(c, wide, "COMPLETED")
