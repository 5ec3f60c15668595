"""Array job ids as Slurm assigns them (docs: job_array.html; goldens 059, 075, 079, 089, 102,
109, 110, 116): an array consumes one job id A; its pending tasks have none of their own (squeue
A_[2-5%2] or A_i, %A and scontrol JobId= show A, sacct one record A_[...] with JobIDRaw A); a task
takes the next id when it starts (SLURM_JOB_ID, %j, sacct JobIDRaw, scontrol JobId=) and the last
task to leave the pending remainder takes A. Ids in commands (A, A_i, A_[i-j], a started task's
own id) keep working in scancel, squeue, sacct, scontrol and dependencies, and all of it survives
a kill -9 of the controller."""

import re

from cluster import wait_for

FINAL = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY"}


def submit(cluster, *args):
    r = cluster.cli("sbatch", "--parsable", *args)
    assert r.returncode == 0, r.stderr
    assert re.fullmatch(r"\d+\n", r.stdout), r.stdout
    return int(r.stdout)


def fields(cluster, job):
    return cluster.job_fields(job)


def wait_state(cluster, job, states, timeout=30):
    return cluster.wait_job(job, states, timeout)


def squeue(cluster, *args):
    r = cluster.cli("squeue", "-h", *args)
    assert r.returncode == 0, r.stderr
    return r.stdout.split("\n")[:-1]


def sacct(cluster, *args):
    r = cluster.cli("sacct", "-X", "-P", "-n", *args)
    assert r.returncode == 0, r.stderr
    return sorted(r.stdout.splitlines())


def cancel(cluster, *ids):
    r = cluster.cli("scancel", *map(str, ids))
    assert r.returncode == 0, r.stderr


def test_one_id_per_array_and_ids_as_tasks_start(cluster):
    blocker = submit(cluster, "-J", "blocker", "-N", "3", "--exclusive", "-t", "5",
                     "--wrap=sleep 300")
    wait_state(cluster, blocker, "RUNNING")
    out = cluster.run_dir / "arrids"
    out.mkdir(exist_ok=True)
    a = submit(cluster, "-J", "arr", "--array=0-5%2", "-t", "5", "-o", f"{out}/%A_%a-%j.out",
               "--wrap=echo $SLURM_JOB_ID $SLURM_JOBID $SLURM_ARRAY_JOB_ID $SLURM_ARRAY_TASK_ID;"
               " sleep 60")
    after = submit(cluster, "-H", "-J", "after", "--wrap=true")
    assert after == a + 1  # one id for the whole array (golden 059 and the ids after it)

    # Pending tasks show the array's id everywhere (goldens 075, 079).
    assert squeue(cluster, "-j", str(a), "-o", "%i") == [f"{a}_[0-5%2]"]
    assert squeue(cluster, "-r", "-j", str(a), "-o", "%i %A %F %K") == \
        [f"{a}_{t} {a} {a} {t}" for t in range(6)]
    f = fields(cluster, f"{a}_3")
    assert (f["JobId"], f["ArrayJobId"], f["ArrayTaskId"]) == (str(a), str(a), "3"), f
    # sacct: one record for the tasks that never started (golden 116).
    wait_for(lambda: sacct(cluster, "-j", str(a), "-o", "JobID,JobIDRaw,State,NodeList") ==
             [f"{a}_[0-5%2]|{a}|PENDING|None assigned"] or None, 15, what="the pending remainder record")

    # Started tasks take the next ids (golden 089: JobId=36 ArrayJobId=29 ArrayTaskId=0).
    cancel(cluster, blocker)
    t0 = wait_state(cluster, f"{a}_0", "RUNNING")
    t1 = wait_state(cluster, f"{a}_1", "RUNNING")
    n0, n1 = int(t0["JobId"]), int(t1["JobId"])
    assert {n0, n1} == {after + 1, after + 2}, (t0, t1)
    assert t0["ArrayJobId"] == str(a) and t0["ArrayTaskId"] == "0"
    log0 = out / f"{a}_0-{n0}.out"
    assert t0["StdOut"] == str(log0), t0
    wait_for(lambda: log0.exists() and log0.read_text() == f"{n0} {n0} {a} 0\n", 15,
             what=f"{log0} with the task's own id")
    assert squeue(cluster, "-j", str(n0), "-o", "%i %A %F") == [f"{a}_0 {n0} {a}"]
    assert set(squeue(cluster, "-j", str(a), "-o", "%i")) == {f"{a}_0", f"{a}_1", f"{a}_[2-5%2]"}

    def started_and_rest():
        rows = sacct(cluster, "-j", str(a), "-o", "JobID,JobIDRaw,State")
        want = sorted([f"{a}_0|{n0}|RUNNING", f"{a}_1|{n1}|RUNNING", f"{a}_[2-5%2]|{a}|PENDING"])
        return rows == want or None
    wait_for(started_and_rest, 15, what="sacct to list the started tasks and the remainder")
    assert sacct(cluster, "-j", str(n0), "-o", "JobID,JobIDRaw") == [f"{a}_0|{n0}"]
    assert sacct(cluster, "-j", f"{a}_1", "-o", "JobID,JobIDRaw") == [f"{a}_1|{n1}"]

    # scontrol on a pending task (A_i), on a started one by its own id.
    assert cluster.scontrol("hold", f"{a}_4").returncode == 0
    assert fields(cluster, f"{a}_4")["Reason"] == "JobHeldAdmin"
    assert cluster.scontrol("release", f"{a}_4").returncode == 0
    assert cluster.scontrol("update", f"jobid={a}_5", "TimeLimit=4").returncode == 0
    assert fields(cluster, f"{a}_5")["TimeLimit"] == "00:04:00"
    assert cluster.scontrol("update", f"jobid={n1}", "Comment=mine").returncode == 0
    assert fields(cluster, n1)["ArrayTaskId"] == "1"

    # scancel by a started task's own id frees a slot: task 2 takes the next id.
    cancel(cluster, n0)
    wait_state(cluster, n0, "CANCELLED")
    t2 = wait_state(cluster, f"{a}_2", "RUNNING")
    assert int(t2["JobId"]) == after + 3, t2
    # A_[i-j] and A cancel pending tasks; they never take an id.
    cancel(cluster, f"{a}_[3-4]")
    assert fields(cluster, f"{a}_3")["JobState"] == "CANCELLED"
    assert fields(cluster, f"{a}_3")["JobId"] == str(a)
    cancel(cluster, a)
    wait_state(cluster, f"{a}_5", "CANCELLED")
    wait_state(cluster, f"{a}_2", "CANCELLED")
    cancel(cluster, after)

    def final():
        rows = sacct(cluster, "-j", str(a), "-o", "JobID,JobIDRaw,State,NodeList")
        rest = [r for r in rows if "[" in r]
        # Golden 110: `CANCELLED by 0` (root cancelled it).
        return rest == [f"{a}_[0-5%2]|{a}|CANCELLED by 0|None assigned"] and len(rows) == 4 and rows
    rows = wait_for(final, 20, what="the remainder to end CANCELLED")
    raws = sorted(int(r.split("|")[1]) for r in rows)
    assert raws == [a, after + 1, after + 2, after + 3], rows
    # The next job's id follows the ids the tasks took.
    nxt = submit(cluster, "-H", "--wrap=true")
    assert nxt == after + 4
    cancel(cluster, nxt)


def test_last_task_takes_the_arrays_id_and_dependencies_follow(cluster):
    b = submit(cluster, "-H", "-J", "pair", "--array=0-1", "-t", "2", "--wrap=sleep 2")
    on_all = submit(cluster, f"--dependency=afterok:{b}", "--wrap=true")
    on_task = submit(cluster, f"--dependency=afterok:{b}_1", "--wrap=true")
    corr = submit(cluster, "--array=0-1", f"--dependency=aftercorr:{b}", "--wrap=true")
    assert fields(cluster, on_all)["Dependency"] == f"afterok:{b}_*(unfulfilled)"
    assert cluster.scontrol("release", str(b)).returncode == 0
    t0 = wait_state(cluster, f"{b}_0", FINAL, timeout=40)
    t1 = wait_state(cluster, f"{b}_1", FINAL, timeout=40)
    assert t0["JobState"] == t1["JobState"] == "COMPLETED", (t0, t1)
    # Both started in one pass: task 0 took the next id, task 1 (the last) the array's own.
    assert int(t0["JobId"]) > corr and t1["JobId"] == str(b), (t0, t1)
    on_n = submit(cluster, f"--dependency=afterok:{t0['JobId']}", "--wrap=true")
    for job in (on_all, on_task, on_n, f"{corr}_0", f"{corr}_1"):
        assert wait_state(cluster, job, FINAL, timeout=40)["JobState"] == "COMPLETED", job
    rows = wait_for(lambda: len(r := sacct(cluster, "-j", str(b), "-o", "JobID,JobIDRaw")) == 2
                    and r, 15, what="sacct to list both tasks")
    assert rows == sorted([f"{b}_0|{t0['JobId']}", f"{b}_1|{b}"]), rows
    # In task order as printed, although task 1 holds the lower id (as Slurm lists them).
    printed = cluster.cli("sacct", "-X", "-P", "-n", "-j", str(b), "-o", "JobID").stdout.split()
    assert printed == [f"{b}_0", f"{b}_1"], printed


def test_pending_tasks_rank_as_their_array(cluster):
    blocker = submit(cluster, "-J", "blocker", "-N", "3", "--exclusive", "-t", "5",
                     "--wrap=sleep 300")
    wait_state(cluster, blocker, "RUNNING")
    a = submit(cluster, "--array=0-1", "-N", "3", "--exclusive", "-t", "1", "--wrap=sleep 1")
    later = submit(cluster, "-N", "3", "--exclusive", "-t", "1", "--wrap=sleep 1")
    wait_for(lambda: fields(cluster, later).get("Reason") == "Priority", 15,
             what="the later job to wait behind the array")
    assert fields(cluster, f"{a}_0")["Reason"] == "Resources"
    cancel(cluster, blocker)
    first = wait_state(cluster, f"{a}_0", {"RUNNING"} | FINAL)
    assert fields(cluster, later)["JobState"] == "PENDING", first
    for job in (f"{a}_1", later):
        wait_state(cluster, job, FINAL, timeout=60)


def test_pending_tasks_counter_and_task_ids_survive_kill_9(cluster):
    blocker = submit(cluster, "-J", "blocker", "-N", "2", "--exclusive", "-t", "5",
                     "--wrap=sleep 300")
    wait_state(cluster, blocker, "RUNNING")
    a = submit(cluster, "-J", "surv", "--array=0-3%1", "--exclusive", "-t", "5",
               "--wrap=sleep 300")
    t0 = wait_state(cluster, f"{a}_0", "RUNNING")
    n0 = int(t0["JobId"])
    assert n0 == a + 1

    cluster.kill("droverctld")
    cluster.start()
    f = wait_for(lambda: fields(cluster, f"{a}_0") or None, 30,
                 what="the restarted controller to answer")
    assert (f["JobId"], f["JobState"]) == (str(n0), "RUNNING"), f
    assert set(squeue(cluster, "-j", str(a), "-o", "%i")) == {f"{a}_0", f"{a}_[1-3%1]"}
    f = fields(cluster, f"{a}_2")
    assert (f["JobId"], f["JobState"]) == (str(a), "PENDING"), f
    rows = wait_for(lambda: len(r := sacct(cluster, "-j", str(a), "-o", "JobID,JobIDRaw,State"))
                    == 2 and r, 15, what="sacct after the restart")
    assert rows == sorted([f"{a}_0|{n0}|RUNNING", f"{a}_[1-3%1]|{a}|PENDING"]), rows
    nxt = submit(cluster, "-H", "--wrap=true")
    assert nxt == n0 + 1  # the counter kept the id task 0 took

    cancel(cluster, n0)
    t1 = wait_state(cluster, f"{a}_1", "RUNNING")
    assert int(t1["JobId"]) == nxt + 1, t1
    cancel(cluster, a, blocker, nxt)
    wait_state(cluster, f"{a}_3", "CANCELLED")


def test_squeue_replies_that_grow_from_small_to_large_keep_the_controller_up(cluster):
    """The controller builds squeue's reply in memory it keeps between calls and grows to the
    largest reply (src/ctld/reply_block.h). A small reply first, then one many times larger
    (six held arrays of 1000 tasks, one row each with -r), then the large one again: a
    version that unmapped the grown-out block under the reply still being built crashed here."""
    assert len(squeue(cluster, "-o", "%i")) < 10
    arrays = [submit(cluster, "-H", "--array=0-999", "-o", "/dev/null", "--wrap=true")
              for _ in range(6)]
    ids = ",".join(str(a) for a in arrays)
    for _ in range(2):
        # The default columns: rows with strings, which the reply's arena must clean up.
        rows = squeue(cluster, "-r", "-j", ids)
        assert len(rows) == 6000, rows[:3]
        assert all(" PD " in row for row in rows), rows[:3]
    assert squeue(cluster, "-o", "%i", "-j", ids) == [f"{a}_[0-999]" for a in arrays]
    assert cluster.cli("scancel", *map(str, arrays)).returncode == 0
