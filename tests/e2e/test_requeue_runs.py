"""A requeued job runs again under the same job id and step ids; its restart count names the
run in every message about its steps (common/step_run.h). Here the race of a late message of
the previous run against the next run is made deterministic: after `scontrol requeue` the
next run runs on the same node, and drover-e2e-rawcall delivers what the old run could still
send (its supervisor's end report, to the controller) or receive (the controller's kill, at
the agent), naming run 0. Each must leave run 1 alone, which then ends with its own result."""

import os
import re
import time
from pathlib import Path

from cluster import agent_port, cli_port, rawcall, shared_dir, wait_for

NODE = "node1"


def first_line(result):
    assert result.returncode in (0, 1), result.stderr
    return result.stdout.partition("\n")[0]


def report_batch_end(cluster, job, run, exit_code, node=NODE):
    """The batch step's end report of run `run` (None: a supervisor older than the run number,
    whose reports name none), as its drover-stepd sends it: over the frame transport,
    acknowledged so that it stops retrying. Returns the first line of the answer."""
    run_field = "" if run is None else f" restart_count: {run}"
    return first_line(rawcall(cluster, f"127.0.0.1:{cli_port(cluster)}", "frame",
                              "AgentControl.StepEvent", request=f"""
step {{ job_id: {job} step_id: -5{run_field} }}
node: "{node}"
kind: FINISHED
exit_code: {exit_code}
"""))


def requeued_and_running_again(cluster, name):
    """A job on NODE that waits for its `go` file, requeued once and running its run 1 there
    (its supervisor started: the script printed its run). Returns (job id, go file, output)."""
    out_dir = shared_dir(cluster, name)
    go = out_dir / "go"
    out = out_dir / "job.out"
    script = (f'echo "run ${{SLURM_RESTART_COUNT:-0}}"; '
              f"while [ ! -e {go} ]; do sleep 0.1; done; exit 0")
    r = cluster.cli("sbatch", "--parsable", "-w", NODE, "-o", str(out), "--open-mode=append",
                    f"--wrap={script}")
    assert r.returncode == 0, r.stderr
    job = int(r.stdout.strip().split(";")[0])
    cluster.wait_job(job, "RUNNING")
    wait_for(lambda: out.exists() and "run 0" in out.read_text(), 30, what="run 0 to start")
    assert cluster.scontrol("requeue", str(job)).returncode == 0
    wait_for(lambda: out.exists() and "run 1" in out.read_text(), 60, what="run 1 to start")
    f = cluster.job_fields(job)
    assert f["JobState"] == "RUNNING" and f["Restarts"] == "1", f
    return job, go, out


def finishes_with_its_own_result(cluster, job, go, out):
    go.touch()
    f = cluster.wait_job(job, "COMPLETED", timeout=30)
    assert f["Restarts"] == "1", f
    assert f["ExitCode"] == "0:0", f
    # Between the runs, the step daemon's line for the requeue (as the reference's slurmstepd).
    assert re.fullmatch(rf"run 0\ndrover-stepd-{NODE}: error: \*\*\* JOB {job} ON {NODE} CANCELLED "
                        r"AT \S+ DUE TO JOB REQUEUE \*\*\*\nrun 1\n", out.read_text()), out.read_text()


def test_late_end_report_of_the_previous_run_does_not_end_the_next(cluster):
    job, go, out = requeued_and_running_again(cluster, "out-stale-report")
    # Run 0's supervisor reports its end late (exit 7).
    status = report_batch_end(cluster, job, run=0, exit_code=7)
    assert status == "OK", status
    # The reply came after the report was handled (and committed, had it changed anything).
    f = cluster.job_fields(job)
    assert f["JobState"] == "RUNNING", f
    assert f["ExitCode"] == "0:0", f
    finishes_with_its_own_result(cluster, job, go, out)


def test_batch_end_report_naming_no_run_counts_only_from_the_batch_host(cluster):
    """A report that names no run falls back on the node: the batch step's end reported from
    a node that is not the job's batch host (a stray old supervisor) is acknowledged and
    ignored; the job ends with its own result."""
    out_dir = shared_dir(cluster, "out-other-node")
    go, out = out_dir / "go", out_dir / "job.out"
    r = cluster.cli("sbatch", "--parsable", "-w", NODE, "-o", str(out),
                    f"--wrap=echo started; while [ ! -e {go} ]; do sleep 0.1; done; exit 0")
    assert r.returncode == 0, r.stderr
    job = int(r.stdout.strip().split(";")[0])
    cluster.wait_job(job, "RUNNING")
    wait_for(lambda: out.exists() and "started" in out.read_text(), 30, what="the job to start")
    assert report_batch_end(cluster, job, run=None, exit_code=7, node="node2") == "OK"
    f = cluster.job_fields(job)
    assert f["JobState"] == "RUNNING" and f["ExitCode"] == "0:0", f
    go.touch()
    f = cluster.wait_job(job, "COMPLETED", timeout=30)
    assert f["ExitCode"] == "0:0", f


def test_late_kill_of_the_previous_run_leaves_the_next_running(cluster):
    job, go, out = requeued_and_running_again(cluster, "out-stale-kill")
    record = Path(cluster.run_dir) / "spool" / NODE / "steps" / f"{job}.-5.rec"
    fields = record.read_text().split()
    assert fields[4] == "1", fields  # the agent keeps the step's run in its record
    supervisor = int(fields[2])
    # The controller's kill of run 0 reaches the node after run 1 started there.
    status = first_line(rawcall(cluster, f"127.0.0.1:{agent_port(cluster, NODE)}", "signal-step",
                                request=f"""
step {{ job_id: {job} step_id: -5 restart_count: 0 }}
signal: 9
kill: true
"""))
    assert status.startswith("NOT_FOUND") and "of run 0" in status, status
    time.sleep(1)  # a kill that went through ends the step (SIGTERM) well within this
    os.kill(supervisor, 0)  # still there
    f = cluster.job_fields(job)
    assert f["JobState"] == "RUNNING", f
    finishes_with_its_own_result(cluster, job, go, out)


def test_a_step_no_job_holds_any_more_is_killed_at_the_next_heartbeat(cluster):
    """An orphan (a run whose end the controller recorded without it: here a forged end report
    of the running step; in life an old run whose launch reached its node after the job was
    requeued elsewhere) is killed by its run number when its agent's heartbeat lists it, as
    Slurm kills the orphan steps a node reports."""
    out_dir = shared_dir(cluster, "out-orphan")
    out = out_dir / "job.out"
    script = "trap 'echo killed; exit 143' TERM; echo started; sleep 300 & wait"
    r = cluster.cli("sbatch", "--parsable", "-w", NODE, "-o", str(out), f"--wrap={script}")
    assert r.returncode == 0, r.stderr
    job = int(r.stdout.strip().split(";")[0])
    cluster.wait_job(job, "RUNNING")
    wait_for(lambda: out.exists() and "started" in out.read_text(), 30, what="the script to start")
    status = report_batch_end(cluster, job, run=0, exit_code=0)
    assert status == "OK", status
    assert cluster.job_fields(job)["JobState"] == "COMPLETED"
    # Heartbeats come every second here: the orphan's shell gets its SIGTERM within a few.
    wait_for(lambda: "killed" in out.read_text(), 15, what="the orphaned step to be killed")


def test_requeued_job_waits_the_requeue_wait_before_it_starts_again(cluster):
    """Slurm's requeued job may start again only cred_expire + 1 s after the requeue
    (slurm.conf(5) AuthInfo, 120 s by default): pending with reason BeginTime until then.
    Drover's jobs.requeue_wait, 0 in these tests' clusters, here 3 s after a reconfigure."""
    text = cluster.conf.read_text()
    assert "  requeue_wait: 0" in text, "local-cluster no longer writes --requeue-wait"
    cluster.conf.write_text(text.replace("  requeue_wait: 0", "  requeue_wait: 3", 1))
    try:
        assert cluster.scontrol("reconfigure").returncode == 0
        r = cluster.cli("sbatch", "--parsable", "-w", NODE, "--wrap=sleep 300")
        assert r.returncode == 0, r.stderr
        job = int(r.stdout.strip().split(";")[0])
        cluster.wait_job(job, "RUNNING")
        requeued_at = time.time()
        assert cluster.scontrol("requeue", str(job)).returncode == 0
        f = cluster.wait_job(job, "PENDING")
        assert f["Reason"] == "BeginTime" and f["Restarts"] == "1", f
        f = cluster.wait_job(job, "RUNNING", timeout=30)
        # Eligible at the requeue's second + 4: at least 3 s after it.
        assert time.time() - requeued_at >= 3, f
        assert cluster.cli("scancel", str(job)).returncode == 0
    finally:
        cluster.conf.write_text(text)
        assert cluster.scontrol("reconfigure").returncode == 0


def test_requeuehold_submits_anew_and_describes_the_hold(cluster):
    """As the reference's `scontrol requeuehold`: the job is submitted anew (SubmitTime is the
    requeue's, and so is the next run's sacct Submit), pending with Reason
    job_requeued_in_held_state in scontrol, "job requeued in held state" in squeue and JobHeldUser
    in sacct; the run that ended keeps its start in its REQUEUED record (sacct -D)."""
    r = cluster.cli("sbatch", "--parsable", "-w", NODE, "--wrap=sleep 300")
    assert r.returncode == 0, r.stderr
    job = int(r.stdout.strip().split(";")[0])
    first = cluster.wait_job(job, "RUNNING")
    time.sleep(1.1)  # SubmitTime has a resolution of one second
    assert cluster.scontrol("requeuehold", str(job)).returncode == 0
    f = cluster.wait_job(job, "PENDING")
    assert f["Reason"] == "job_requeued_in_held_state" and f["Restarts"] == "1", f
    assert f["SubmitTime"] > first["SubmitTime"], (first["SubmitTime"], f["SubmitTime"])
    q = cluster.cli("squeue", "-h", "-j", str(job), "-o", "%R")
    assert q.stdout == "(job requeued in held state)\n", q

    def runs():
        a = cluster.cli("sacct", "-D", "-X", "-n", "-P", "-j", str(job),
                        "-o", "State,Submit,Start,Reason")
        return [line.split("|") for line in a.stdout.splitlines()]
    wait_for(lambda: len(runs()) == 2, 15, what="both runs in sacct")
    ended, pending = runs()
    assert ended[0] == "REQUEUED" and ended[1] == first["SubmitTime"], ended
    assert ended[2] == first["StartTime"], (ended, first["StartTime"])
    assert pending == ["PENDING", f["SubmitTime"], "Unknown", "JobHeldUser"], pending
    # A hold replaces the description with its own reason; release ends it.
    assert cluster.scontrol("hold", str(job)).returncode == 0
    assert cluster.job_fields(job)["Reason"] == "JobHeldAdmin"
    assert cluster.cli("scancel", str(job)).returncode == 0


def test_requeued_job_is_completing_and_pending_until_its_processes_end(cluster):
    """As the reference's requeue of a job whose script outlives SIGTERM (checked 2026-12-05):
    COMPLETING in squeue while KillWait runs (`-t PD` does not list it), its run already REQUEUED
    in sacct, and pending for scontrol: a second requeue is "Job is pending execution". scancel
    then leaves that run REQUEUED and cancels the job it went back to (its CG flag stays until
    the processes end)."""
    out_dir = shared_dir(cluster, "requeue-completing")
    out = out_dir / "job.out"
    script = ('trap "echo TERM" TERM; echo started; '
              'for i in $(seq 600); do sleep 0.1; done')
    r = cluster.cli("sbatch", "--parsable", "-w", NODE, "-o", str(out), f"--wrap={script}")
    assert r.returncode == 0, r.stderr
    job = int(r.stdout.strip().split(";")[0])
    cluster.wait_job(job, "RUNNING")
    wait_for(lambda: out.exists() and "started" in out.read_text(), 30, what="the script")
    assert cluster.scontrol("requeue", str(job)).returncode == 0

    def listed(*args):
        return cluster.cli("squeue", "-h", "-j", str(job), "-o", "%T", *args).stdout.strip()
    assert listed() == "COMPLETING"
    assert listed("-t", "PD") == "" and listed("-t", "CG") == "COMPLETING"
    r = cluster.scontrol("requeue", str(job))
    assert (r.returncode, r.stderr) == (1, f"Job is pending execution for job {job}\n"), r.stderr
    run = cluster.cli("sacct", "-D", "-X", "-n", "-P", "-j", str(job), "-o", "State")
    assert run.stdout.splitlines() == ["REQUEUED"], run.stdout
    assert cluster.cli("scancel", str(job)).returncode == 0
    assert listed() == "COMPLETING"

    def runs():
        a = cluster.cli("sacct", "-D", "-X", "-n", "-P", "-j", str(job), "-o", "State")
        return a.stdout.splitlines()
    wait_for(lambda: runs() == ["REQUEUED", "CANCELLED by 0"], 30, what="the requeued run and the cancel")
    assert listed() == ""


def test_each_run_of_a_requeued_job_keeps_its_own_steps(cluster):
    """As the reference's sacct (checked 2026-12-05): with -D each run of a requeued job is
    listed with the steps it ran (the first run's batch step CANCELLED by the requeue, its step
    0 COMPLETED), and the next run with its own steps of the same ids; without -D only the
    last run and its steps."""
    script = 'srun -n1 true; [ -n "$SLURM_RESTART_COUNT" ] || sleep 300'
    r = cluster.cli("sbatch", "--parsable", "-w", NODE, "-o", "/dev/null", f"--wrap={script}")
    assert r.returncode == 0, r.stderr
    job = int(r.stdout.strip().split(";")[0])

    def rows(*args):
        a = cluster.cli("sacct", "-n", "-P", "-j", str(job), "-o", "JobID,State", *args)
        return a.stdout.splitlines()
    wait_for(lambda: f"{job}.0|COMPLETED" in rows(), 30, what="step 0 of the first run")
    assert cluster.scontrol("requeue", str(job)).returncode == 0
    cluster.wait_job(job, "COMPLETED", timeout=60)
    this_run = [f"{job}|COMPLETED", f"{job}.batch|COMPLETED", f"{job}.0|COMPLETED"]
    wait_for(lambda: rows("-D") == [f"{job}|REQUEUED", f"{job}.batch|CANCELLED",
                                    f"{job}.0|COMPLETED"] + this_run,
             30, what="both runs with their steps")
    assert rows() == this_run, rows()
