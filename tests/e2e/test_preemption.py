"""Preemption (cluster.conf scheduler.preempt_type: partition_prio, Slurm's
PreemptType=preempt/partition_prio) end to end, against what the reference Slurm 22.05 did with
the same partitions side by side (2026-12-04, shared/slurm-reference with PreemptType and three
partitions over node03-04 added): a job of a higher-tier partition that cannot start ends the
running jobs of lower tiers it needs, as their partition's PreemptMode says. REQUEUE: the job
goes back to the queue (Restarts=1), its run recorded PREEMPTED in sacct, its output told
"DUE TO PREEMPTION"; CANCEL: it ends PREEMPTED; GraceTime: its steps get SIGTERM at once and it
runs on that long. The preemptor then starts on the nodes freed."""

import json
import re
import subprocess
import time
from datetime import datetime, timedelta

import pytest

from cluster import ensure_users, shared_dir, wait_for
from conftest import reconfigure_with, replaced_once, run_cluster

GRACE = 4

PARTITIONS = f"""  - name: low
    nodes: node[3-4]
    preempt_mode: requeue
  - name: lowc
    nodes: node[3-4]
    preempt_mode: cancel
    grace_time: {GRACE}
  - name: high
    nodes: node[3-4]
    priority_tier: 10
  - name: mid
    nodes: node[3-4]
    preempt_mode: "off"

# Scheduling.
"""


def with_preemption(text):
    """etc/cluster.conf's rendering with the four partitions above and preemption on."""
    return replaced_once(text, (("\n# Scheduling.\n", "\n" + PARTITIONS),
                                ("  preempt_type: none ", "  preempt_type: partition_prio "),
                                ('  preempt_mode: "off" ', "  preempt_mode: requeue ")))


@pytest.fixture(scope="module")
def cluster(request):
    ensure_users(("alice",))
    for c in run_cluster(request, nodes=4, gpus_per_node=0, heartbeat=1, node_down=4):
        reconfigure_with(c, with_preemption)
        yield c


@pytest.fixture(autouse=True)
def no_jobs_left(cluster):
    yield
    cluster.cli("scancel", "-u", "alice")
    wait_for(lambda: cluster.cli("squeue", "-h", "-u", "alice").stdout == "", 40,
             what="alice's jobs to end")


def sbatch(cluster, *args):
    r = cluster.cli("sbatch", "--parsable", *args, user="alice")
    assert r.returncode == 0, r.stderr
    return int(r.stdout.strip().split(";")[0])


def state(cluster, job):
    return cluster.job_fields(job).get("JobState")


def sacct_runs(cluster, job):
    r = cluster.cli("sacct", "-D", "-X", "-n", "-P", "-j", str(job), "-o", "JobID,State,ExitCode",
                    user="alice")
    assert r.returncode == 0, r.stderr
    return [line.split("|") for line in r.stdout.splitlines()]


def test_settings_are_shown_as_slurm_shows_them(cluster):
    def part(name):
        r = cluster.scontrol("show", "partition", "-o", name)
        assert r.returncode == 0, r.stderr
        return dict(m.groups() for m in re.finditer(r"(?:^|\s)([\w/:]+)=(\S*)", r.stdout))

    assert (part("low")["PreemptMode"], part("low")["GraceTime"]) == ("REQUEUE", "0")
    assert (part("lowc")["PreemptMode"], part("lowc")["GraceTime"]) == ("CANCEL", str(GRACE))
    assert part("mid")["PreemptMode"] == "OFF"
    assert part("gpu")["PreemptMode"] == "REQUEUE"  # the scheduler's, as the reference's
    r = cluster.sinfo("-h", "-o", "%P %M %p")
    assert "low REQUEUE 1" in r.stdout.splitlines(), r.stdout
    assert "high REQUEUE 10" in r.stdout.splitlines(), r.stdout
    show = cluster.scontrol("show", "config").stdout
    assert re.search(r"^PreemptMode += REQUEUE$", show, re.M), show
    assert re.search(r"^PreemptType += preempt/partition_prio$", show, re.M), show
    assert re.search(r"^PreemptExemptTime += 00:00:00$", show, re.M), show
    # Changed on the running controller, as the reference's scontrol did, until the next
    # reconfigure reads cluster.conf again.
    r = cluster.scontrol("update", "PartitionName=low", "PreemptMode=CANCEL", "GraceTime=7")
    assert (r.returncode, r.stderr) == (0, ""), r.stderr
    assert (part("low")["PreemptMode"], part("low")["GraceTime"]) == ("CANCEL", "7")
    r = cluster.scontrol("update", "PartitionName=low", "PreemptMode=bogus")
    assert (r.returncode, r.stderr) == (
        1, "scontrol: error: Invalid input: PreemptMode=bogus\nslurm_update error: No error\n")
    assert cluster.scontrol("reconfigure").returncode == 0
    assert (part("low")["PreemptMode"], part("low")["GraceTime"]) == ("REQUEUE", "0")


def test_requeue_mode_puts_the_job_back_and_the_preemptor_runs(cluster):
    out_dir = shared_dir(cluster, "requeue")
    low = sbatch(cluster, "-p", "low", "-N2", "--exclusive", "-o", f"{out_dir}/%j.out",
                 "--wrap", "echo run ${SLURM_RESTART_COUNT:-0}; sleep 300")
    cluster.wait_job(low, "RUNNING")
    wait_for(lambda: (out_dir / f"{low}.out").exists(), 15, what="the low job's output")
    high = sbatch(cluster, "-p", "high", "-N1", "--exclusive", "-o", "/dev/null", "--wrap", "sleep 300")
    f = cluster.wait_job(high, "RUNNING")
    assert f["NodeList"] in ("node3", "node4"), f
    g = cluster.job_fields(low)
    assert g["JobState"] == "PENDING" and g["Restarts"] == "1", g
    # Its run ended PREEMPTED, as the reference recorded it; the job's next run waits.
    runs = sacct_runs(cluster, low)
    assert runs[0] == [str(low), "PREEMPTED", "0:0"], runs
    assert runs[-1][1] == "PENDING", runs
    text = (out_dir / f"{low}.out").read_text()
    assert re.search(rf"^drover-stepd-node[34]: error: \*\*\* JOB {low} ON node[34] CANCELLED AT "
                     r"\S+ DUE TO PREEMPTION \*\*\*$", text, re.M), text
    log = (cluster.run_dir / "log" / "droverctld.log").read_text(errors="replace")
    assert (f"preempted JobId={low} has been requeued to reclaim resources for JobId={high}"
            in log), log[-2000:]
    # A job of the same tier never preempts: gpu's (tier 1) waits for the high job's node.
    same = sbatch(cluster, "-p", "gpu", "-w", f["NodeList"], "-o", "/dev/null", "--wrap", "true")
    wait_for(lambda: cluster.job_fields(same).get("Reason") in ("Resources", "Priority"), 15,
             what="the gpu job to wait")
    assert state(cluster, high) == "RUNNING"


def test_cancel_mode_with_grace_time_warns_the_steps_then_ends_the_job(cluster):
    out_dir = shared_dir(cluster, "grace")
    script = out_dir / "job.sh"
    # The first SIGTERM (the grace time's) is only noted; the kill's ends it. The test preempts
    # only once the task says its trap is set, and the loop counts in bash: under load a
    # SIGTERM came while `$(seq 300)` ran, killed seq with the task's process group and left
    # the loop nothing to do, so the step ended at once and its job with it.
    script.write_text("#!/bin/bash\n"
                      "srun -n1 bash -c 'trap \"echo step got TERM; trap - TERM\" TERM; "
                      "echo step ready; for ((i = 0; i < 300; i++)); do sleep 0.2; done' &\n"
                      "wait; wait\n")
    low = sbatch(cluster, "-p", "lowc", "-N2", "--exclusive", "-o", f"{out_dir}/%j.out", str(script))
    cluster.wait_job(low, "RUNNING")
    out = out_dir / f"{low}.out"
    wait_for(lambda: out.exists() and "step ready" in out.read_text(), 15, what="the step to start")
    submitted = time.time()
    high = sbatch(cluster, "-p", "high", "-N2", "--exclusive", "-o", "/dev/null", "--wrap", "sleep 300")
    wait_for(lambda: "step got TERM" in out.read_text(), 10, what="the step's SIGTERM")
    # Within its grace time it runs on, its end moved to the grace time's end; squeue and
    # scontrol show when it was preempted, as the reference's did.
    f = cluster.job_fields(low)
    assert f["JobState"] == "RUNNING", f
    assert f["PreemptTime"] != "None" and f["PreemptEligibleTime"] == f["StartTime"], f
    assert f["EndTime"] > f["PreemptTime"], f
    r = cluster.cli("squeue", "-h", "-j", str(low), "-O", "PreemptTime")
    assert r.stdout.strip() == f["PreemptTime"], r.stdout
    r = cluster.cli("squeue", "--json", "-j", str(low))
    preempted = int(datetime.fromisoformat(f["PreemptTime"]).timestamp())
    assert json.loads(r.stdout)["jobs"][0]["preempt_time"] == preempted, r.stdout
    assert state(cluster, high) == "PENDING"
    f = cluster.wait_job(low, "PREEMPTED", timeout=GRACE + 40)
    assert time.time() - submitted >= GRACE - 1
    cluster.wait_job(high, "RUNNING")
    runs = sacct_runs(cluster, low)
    assert [r[1] for r in runs] == ["PREEMPTED"], runs
    assert re.search(rf"\*\*\* JOB {low} ON node3 CANCELLED AT \S+ DUE TO PREEMPTION \*\*\*",
                     out.read_text()), out.read_text()


def test_a_node_lost_within_the_grace_time_ends_the_job_preempted(cluster):
    """A CANCEL-mode victim whose node fails while it runs out its grace time was being ended
    for its preemptor: it ends PREEMPTED, not requeued as a node failure would requeue it."""
    r = cluster.scontrol("update", "PartitionName=lowc", "GraceTime=120")
    assert r.returncode == 0, r.stderr
    try:
        low = sbatch(cluster, "-p", "lowc", "-N2", "--exclusive", "-o", "/dev/null", "--wrap", "sleep 300")
        cluster.wait_job(low, "RUNNING")
        high = sbatch(cluster, "-p", "high", "-N2", "--exclusive", "-o", "/dev/null", "--wrap", "sleep 300")
        wait_for(lambda: cluster.job_fields(low).get("PreemptTime") not in (None, "None"), 15,
                 what="the low job to be preempted")
        cluster.kill("node4")
        try:
            f = cluster.wait_job(low, {"PREEMPTED", "PENDING", "NODE_FAIL"}, timeout=30)
            assert (f["JobState"], f["Restarts"]) == ("PREEMPTED", "0"), f
            assert [r[1] for r in sacct_runs(cluster, low)] == ["PREEMPTED"]
        finally:
            cluster.start()
        # Back, node4 takes the preemptor (both nodes).
        cluster.wait_job(high, "RUNNING")
    finally:
        # local-cluster's start wrote cluster.conf afresh: this module's partitions again.
        reconfigure_with(cluster, lambda text: text if "  - name: lowc" in text else with_preemption(text))


def test_a_partition_with_preemption_off_is_left_alone(cluster):
    mid = sbatch(cluster, "-p", "mid", "-N2", "--exclusive", "-o", "/dev/null", "--wrap", "sleep 300")
    cluster.wait_job(mid, "RUNNING")
    high = sbatch(cluster, "-p", "high", "-N1", "--exclusive", "-o", "/dev/null", "--wrap", "true")
    wait_for(lambda: cluster.job_fields(high).get("Reason") == "Resources", 15,
             what="the high job to wait")
    time.sleep(1)  # a pass or two later, still nothing preempted
    assert state(cluster, mid) == "RUNNING"
    assert state(cluster, high) == "PENDING"
    # Neither a job of mode OFF nor one that has not started shows when it may be preempted.
    assert "PreemptEligibleTime" not in cluster.job_fields(mid)
    assert "PreemptEligibleTime" not in cluster.job_fields(high)


def test_an_ended_job_of_a_preemptable_partition_still_shows_the_line(cluster):
    # The reference's COMPLETED job of such a partition kept it (2026-12-04).
    done = sbatch(cluster, "-p", "low", "-o", "/dev/null", "--wrap", "true")
    f = cluster.wait_job(done, "COMPLETED")
    assert (f["PreemptEligibleTime"], f["PreemptTime"]) == (f["StartTime"], "None"), f


def test_a_job_within_the_exempt_time_is_not_preempted_yet(cluster):
    text = cluster.conf.read_text()
    assert "  preempt_exempt_time: 0 " in text, "etc/cluster.conf lost its preempt_exempt_time"
    cluster.conf.write_text(text.replace("  preempt_exempt_time: 0 ", '  preempt_exempt_time: "0:03" ', 1))
    try:
        assert cluster.scontrol("reconfigure").returncode == 0
        show = cluster.scontrol("show", "config").stdout
        assert re.search(r"^PreemptExemptTime += 00:00:03$", show, re.M), show
        low = sbatch(cluster, "-p", "low", "-N2", "--exclusive", "-o", "/dev/null", "--wrap", "sleep 300")
        f = cluster.wait_job(low, "RUNNING")
        # As the reference's: a preemptable job that started shows from when it may be
        # preempted, its start plus the exempt time, PreemptTime None until it is.
        start = datetime.fromisoformat(f["StartTime"])
        assert datetime.fromisoformat(f["PreemptEligibleTime"]) == start + timedelta(seconds=3), f
        assert f["PreemptTime"] == "None", f
        high = sbatch(cluster, "-p", "high", "-N1", "--exclusive", "-o", "/dev/null", "--wrap", "sleep 300")
        wait_for(lambda: cluster.job_fields(high).get("Reason") == "Resources", 15,
                 what="the high job to wait")
        assert state(cluster, low) == "RUNNING"  # its 3 seconds are not over
        # Once they are, a later pass (the controller's periodic one at the latest) preempts it.
        cluster.wait_job(high, "RUNNING", timeout=25)
        g = cluster.job_fields(low)
        assert g["Restarts"] == "1", g
    finally:
        cluster.conf.write_text(text)
        assert cluster.scontrol("reconfigure").returncode == 0


def test_srun_outside_a_job_is_cancelled_as_the_reference_was(cluster):
    # An allocation srun made itself cannot be requeued: even in a REQUEUE partition it ends
    # PREEMPTED, srun saying so as the reference's did (its exit 143, the tasks' SIGTERM).
    srun = subprocess.Popen([str(cluster.bin / "srun"), "-p", "low", "-N2", "--exclusive",
                             "sleep", "300"], env=cluster.env(), user="alice", cwd="/tmp",
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: cluster.cli("squeue", "-h", "-p", "low", "-t", "R", "-o", "%i").stdout.strip(),
                 15, what="srun's allocation to run")
        low = int(cluster.cli("squeue", "-h", "-p", "low", "-o", "%i").stdout.strip())
        sbatch(cluster, "-p", "high", "-N1", "--exclusive", "-o", "/dev/null", "--wrap", "sleep 300")
        _, err = srun.communicate(timeout=60)
    finally:
        if srun.poll() is None:
            srun.kill()
    assert srun.returncode == 143, err
    assert "srun: Job step aborted: Waiting up to 32 seconds for job step to finish." in err, err
    assert re.search(rf"\*\*\* STEP {low}\.0 ON node[34] CANCELLED AT \S+ DUE TO PREEMPTION \*\*\*",
                     err), err
    assert sacct_runs(cluster, low) == [[str(low), "PREEMPTED", "0:0"]]
