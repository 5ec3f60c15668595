"""sbatch --dependency end to end on real daemons and CLIs, against Slurm's documented semantics
(sbatch(1), --dependency): after (started or cancelled, +minutes), afterok, afternotok,
afterany, aftercorr (task i waits for task i), singleton, ',' (all) and '?' (any); the pending
reasons Dependency and DependencyNeverSatisfied (kill_invalid_depend off: such a job stays
pending until scancel); each item with its state in scontrol's Dependency=, squeue %E and
squeue --json (goldens 088, 073, 107); scontrol update Dependency=; a job id nobody knows
counts as met (the reference's), a malformed text is refused with "Job dependency problem";
sacct's Eligible time of a dependent job."""

import json
import re
from datetime import datetime

import pytest

from cluster import wait_for
from conftest import run_cluster

FINAL = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY"}
USER = "alice"


@pytest.fixture(scope="module")
def cluster(request):
    yield from run_cluster(request, nodes=2, gpus_per_node=2, heartbeat=1, node_down=4)


def submit(cluster, *args, user=USER):
    """sbatch --parsable as `user`, writable -D and no output file; returns the job id."""
    r = cluster.cli("sbatch", "--parsable", "-D", "/tmp", "-o", "/dev/null", "-t", "5", *args,
                    user=user)
    assert r.returncode == 0, r.stderr
    assert re.fullmatch(r"\d+(;\S+)?\n", r.stdout), r.stdout
    return int(r.stdout.split(";")[0])


def fields(cluster, job):
    return cluster.job_fields(job)


def wait_state(cluster, job, states, timeout=30):
    return cluster.wait_job(job, states, timeout)


def wait_reason(cluster, job, reason, timeout=30):
    return wait_for(lambda: (f := fields(cluster, job)).get("JobState") == "PENDING"
                    and f.get("Reason") == reason and f,
                    timeout, what=f"job {job} to be pending with {reason}")


def squeue(cluster, job, fmt, *extra):
    r = cluster.cli("squeue", "-h", *extra, "-j", str(job), "-o", fmt)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def squeue_json_dependency(cluster, job):
    r = cluster.cli("squeue", "--json", "-j", str(job))
    assert r.returncode == 0, r.stderr
    jobs = json.loads(r.stdout)["jobs"]
    assert len(jobs) == 1, jobs
    return jobs[0]["dependency"]


def sacct(cluster, job, fmt):
    r = cluster.cli("sacct", "-X", "-P", "-n", "-j", str(job), "-o", fmt)
    assert r.returncode == 0, r.stderr
    return [line.split("|") for line in r.stdout.splitlines() if line]


def ts(text):
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S")


def quiet_pass(cluster):
    """Runs a plain job to its end: afterwards the controller has run passes since whatever
    happened before, so a job still pending stays so by decision, not by delay."""
    j = submit(cluster, "--wrap=true")
    wait_state(cluster, j, FINAL)


def assert_never_satisfied(cluster, job, text):
    """Slurm's default (kill_invalid_depend off): pending with DependencyNeverSatisfied, each
    item shown with its state, until scancel."""
    f = wait_reason(cluster, job, "DependencyNeverSatisfied")
    assert f["Dependency"] == text, f
    assert squeue(cluster, job, "%r") == "DependencyNeverSatisfied"
    assert squeue(cluster, job, "%E") == text
    assert squeue_json_dependency(cluster, job) == text
    quiet_pass(cluster)
    f = fields(cluster, job)
    assert (f["JobState"], f["Reason"]) == ("PENDING", "DependencyNeverSatisfied"), f
    r = cluster.cli("scancel", str(job), user=USER)
    assert r.returncode == 0, r.stderr
    wait_state(cluster, job, "CANCELLED")


def test_afterok_waits_then_runs_and_eligible_follows_the_dependency(cluster):
    a = submit(cluster, "-J", "dep-a", "--wrap=sleep 2")
    b = submit(cluster, "-J", "dep-b", f"--dependency=afterok:{a}", "--wrap=true")
    f = wait_reason(cluster, b, "Dependency")
    assert f["Dependency"] == f"afterok:{a}(unfulfilled)", f
    assert squeue(cluster, b, "%r") == "Dependency"
    assert squeue(cluster, b, "%E") == f"afterok:{a}(unfulfilled)"
    assert squeue_json_dependency(cluster, b) == f"afterok:{a}(unfulfilled)"
    assert wait_state(cluster, a, FINAL)["JobState"] == "COMPLETED"
    assert wait_state(cluster, b, FINAL)["JobState"] == "COMPLETED"
    # Met: NULL everywhere, as Slurm (one string for scontrol and squeue).
    assert squeue(cluster, b, "%E", "-t", "all") == "(null)"  # finished: -t all shows it
    assert squeue_json_dependency(cluster, b) == ""
    # Eligible (sacct) is when the dependency was met: not before the target's end.
    [[a_end]] = wait_for(lambda: (r := sacct(cluster, a, "End")) and r[0][0] != "Unknown" and r,
                         15, what="sacct End of the target")
    [[submit_t, eligible, start]] = sacct(cluster, b, "Submit,Eligible,Start")
    assert ts(eligible) >= ts(a_end), (eligible, a_end)
    assert ts(eligible) > ts(submit_t) or ts(a_end) == ts(submit_t), (submit_t, eligible)
    assert ts(start) >= ts(eligible), (eligible, start)


def test_afterok_on_a_failed_job_is_never_satisfied(cluster):
    a = submit(cluster, "--wrap=exit 3")
    b = submit(cluster, f"--dependency=afterok:{a}", "--wrap=true")
    assert wait_state(cluster, a, FINAL)["JobState"] == "FAILED"
    assert_never_satisfied(cluster, b, f"afterok:{a}(failed)")


def test_afterok_on_a_cancelled_job_is_never_satisfied(cluster):
    a = submit(cluster, "--wrap=sleep 60")
    b = submit(cluster, f"--dependency=afterok:{a}", "--wrap=true")
    wait_reason(cluster, b, "Dependency")
    assert cluster.cli("scancel", str(a), user=USER).returncode == 0
    assert_never_satisfied(cluster, b, f"afterok:{a}(failed)")


def test_a_failed_dependency_stays_failed_when_the_target_is_requeued(cluster):
    # sbatch(1): once failed, the dependent job never runs, even if the target's next run ends
    # otherwise.
    a = submit(cluster, "--requeue", "--wrap=test -n \"$SLURM_RESTART_COUNT\" && "
               "test \"$SLURM_RESTART_COUNT\" -gt 0")
    b = submit(cluster, f"--dependency=afterok:{a}", "--wrap=true")
    assert wait_state(cluster, a, FINAL)["JobState"] == "FAILED"
    wait_reason(cluster, b, "DependencyNeverSatisfied")
    r = cluster.scontrol("requeue", str(a), user=USER)
    assert r.returncode == 0, r.stderr
    f = wait_for(lambda: (f := fields(cluster, a)).get("JobState") in FINAL
                 and f.get("Restarts") == "1" and f, 30, what="the second run to end")
    assert f["JobState"] == "COMPLETED", f
    assert_never_satisfied(cluster, b, f"afterok:{a}(failed)")


def test_afternotok_runs_after_a_failure(cluster):
    a = submit(cluster, "--wrap=sleep 1; exit 1")
    b = submit(cluster, f"--dependency=afternotok:{a}", "--wrap=true")
    f = wait_reason(cluster, b, "Dependency")
    assert f["Dependency"] == f"afternotok:{a}(unfulfilled)", f
    assert wait_state(cluster, a, FINAL)["JobState"] == "FAILED"
    assert wait_state(cluster, b, FINAL)["JobState"] == "COMPLETED"


def test_afternotok_on_a_completed_job_is_never_satisfied(cluster):
    a = submit(cluster, "--wrap=true")
    assert wait_state(cluster, a, FINAL)["JobState"] == "COMPLETED"
    b = submit(cluster, f"--dependency=afternotok:{a}", "--wrap=true")
    assert_never_satisfied(cluster, b, f"afternotok:{a}(failed)")


@pytest.mark.parametrize("script, end_state", [("sleep 1", "COMPLETED"),
                                               ("sleep 1; exit 2", "FAILED")])
def test_afterany_runs_after_any_end(cluster, script, end_state):
    a = submit(cluster, f"--wrap={script}")
    b = submit(cluster, f"--dependency=afterany:{a}", "--wrap=true")
    f = wait_reason(cluster, b, "Dependency")
    assert f["Dependency"] == f"afterany:{a}(unfulfilled)", f
    assert wait_state(cluster, a, FINAL)["JobState"] == end_state
    assert wait_state(cluster, b, FINAL)["JobState"] == "COMPLETED"
    [[a_end]] = sacct(cluster, a, "End")
    [[b_start]] = sacct(cluster, b, "Start")
    assert ts(b_start) >= ts(a_end)


def test_after_waits_for_the_start_only(cluster):
    a = submit(cluster, "-H", "--wrap=sleep 3")  # held: it cannot start until released
    b = submit(cluster, f"--dependency=after:{a}", "--wrap=true")
    f = wait_reason(cluster, b, "Dependency")
    assert f["Dependency"] == f"after:{a}(unfulfilled)", f
    quiet_pass(cluster)
    assert fields(cluster, b)["JobState"] == "PENDING"
    assert cluster.scontrol("release", str(a), user=USER).returncode == 0
    wait_state(cluster, a, "RUNNING")
    # b starts while a still runs: after needs a start, not an end.
    assert wait_state(cluster, b, FINAL)["JobState"] == "COMPLETED"
    [[b_start]] = sacct(cluster, b, "Start")
    a_end = wait_for(lambda: (r := sacct(cluster, a, "End")) and r[0][0] != "Unknown" and r[0][0],
                     30, what="the end of the target")
    assert ts(b_start) < ts(a_end), (b_start, a_end)


def test_after_a_cancelled_pending_job_is_satisfied(cluster):
    a = submit(cluster, "-H", "--wrap=true")
    b = submit(cluster, f"--dependency=after:{a}", "--wrap=true")
    wait_reason(cluster, b, "Dependency")
    assert cluster.cli("scancel", str(a), user=USER).returncode == 0
    assert wait_state(cluster, b, FINAL)["JobState"] == "COMPLETED"


def test_after_with_a_delay_waits_minutes_after_the_start(cluster):
    a = submit(cluster, "--wrap=sleep 2")
    b = submit(cluster, f"--dependency=after:{a}+1", "--wrap=true")
    f = wait_reason(cluster, b, "Dependency")
    assert f["Dependency"] == f"after:{a}+1(unfulfilled)", f
    assert wait_state(cluster, a, FINAL)["JobState"] == "COMPLETED"
    # Started and ended, but the minute after its start has not passed yet.
    assert fields(cluster, b)["JobState"] == "PENDING"
    assert wait_state(cluster, b, FINAL, timeout=90)["JobState"] == "COMPLETED"
    [[a_start]] = sacct(cluster, a, "Start")
    [[b_start]] = sacct(cluster, b, "Start")
    # On time: a timer at the delay's end runs the pass (not the next 10 s periodic one).
    assert 60 <= (ts(b_start) - ts(a_start)).total_seconds() <= 65, (a_start, b_start)


def test_aftercorr_pairs_array_tasks(cluster):
    # Task 0 ends at once, task 1 fails after 2 s, task 2 ends after 4 s.
    a = submit(cluster, "--array=0-2",
               "--wrap=sleep $((SLURM_ARRAY_TASK_ID*2)); test $SLURM_ARRAY_TASK_ID -ne 1")
    b = submit(cluster, "--array=0-2", f"--dependency=aftercorr:{a}", "--wrap=true")
    assert wait_state(cluster, f"{a}_2", FINAL)["JobState"] == "COMPLETED"
    assert wait_state(cluster, f"{b}_0", FINAL)["JobState"] == "COMPLETED"
    assert wait_state(cluster, f"{b}_2", FINAL)["JobState"] == "COMPLETED"
    # Task 0 of b did not wait for task 2 of a.
    [[b0_start]] = sacct(cluster, f"{b}_0", "Start")
    [[a2_end]] = sacct(cluster, f"{a}_2", "End")
    assert ts(b0_start) < ts(a2_end), (b0_start, a2_end)
    # Task 1 of a failed: task 1 of b can never run.
    assert fields(cluster, f"{a}_1")["JobState"] == "FAILED"
    f = wait_reason(cluster, f"{b}_1", "DependencyNeverSatisfied")
    # Slurm names a whole array as ID_* where it shows a dependency on it.
    assert f["Dependency"] == f"aftercorr:{a}_*(failed)", f
    assert squeue(cluster, f"{b}_1", "%r") == "DependencyNeverSatisfied"
    assert cluster.cli("scancel", f"{b}_1", user=USER).returncode == 0
    wait_state(cluster, f"{b}_1", "CANCELLED")


def test_singleton_runs_one_job_of_a_name_and_user_at_a_time(cluster):
    name = "dep-single"
    first = submit(cluster, "-J", name, "--dependency=singleton", "--wrap=sleep 2")
    wait_state(cluster, first, "RUNNING")
    second = submit(cluster, "-J", name, "--dependency=singleton", "--wrap=true")
    f = wait_reason(cluster, second, "Dependency")
    assert f["Dependency"] == "singleton(unfulfilled)", f
    # Another user's job of the same name does not count.
    other = submit(cluster, "-J", name, "--dependency=singleton", "--wrap=true", user="bob")
    assert wait_state(cluster, other, FINAL)["JobState"] == "COMPLETED"
    assert wait_state(cluster, second, FINAL)["JobState"] == "COMPLETED"
    [[first_end]] = sacct(cluster, first, "End")
    [[second_start]] = sacct(cluster, second, "Start")
    assert ts(second_start) >= ts(first_end), (first_end, second_start)


def test_comma_needs_every_item(cluster):
    a = submit(cluster, "--wrap=sleep 1")
    b = submit(cluster, "-H", "--wrap=true")
    c = submit(cluster, f"--dependency=afterok:{a},afterok:{b}", "--wrap=true")
    wait_state(cluster, a, "COMPLETED")
    # a's item is met and dropped from the display; b's still holds c back.
    f = wait_for(lambda: (f := fields(cluster, c)).get("Dependency") == f"afterok:{b}(unfulfilled)"
                 and f, 15, what="only b's item left")
    assert (f["JobState"], f["Reason"]) == ("PENDING", "Dependency"), f
    assert cluster.scontrol("release", str(b), user=USER).returncode == 0
    assert wait_state(cluster, c, FINAL)["JobState"] == "COMPLETED"


def test_comma_with_a_failed_item_is_never_satisfied(cluster):
    a = submit(cluster, "--wrap=exit 1")
    b = submit(cluster, "-H", "--wrap=true")
    c = submit(cluster, f"--dependency=afterok:{a},afterok:{b}", "--wrap=true")
    wait_state(cluster, a, "FAILED")
    f = wait_reason(cluster, c, "DependencyNeverSatisfied")
    assert f["Dependency"] == f"afterok:{a}(failed),afterok:{b}(unfulfilled)", f
    for j in (c, b):
        assert cluster.cli("scancel", str(j), user=USER).returncode == 0


def test_question_mark_needs_any_item(cluster):
    a = submit(cluster, "--wrap=exit 1")
    b = submit(cluster, "-H", "--wrap=true")
    c = submit(cluster, f"--dependency=afterok:{a}?afterok:{b}", "--wrap=true")
    wait_state(cluster, a, "FAILED")
    # One item can never be met but the other still can: plain Dependency.
    f = wait_for(lambda: (f := fields(cluster, c)).get("Dependency")
                 == f"afterok:{a}(failed)?afterok:{b}(unfulfilled)" and f,
                 15, what="both items with their state")
    assert (f["JobState"], f["Reason"]) == ("PENDING", "Dependency"), f
    assert cluster.scontrol("release", str(b), user=USER).returncode == 0
    assert wait_state(cluster, c, FINAL)["JobState"] == "COMPLETED"


def test_question_mark_with_every_item_failed_is_never_satisfied(cluster):
    a = submit(cluster, "--wrap=exit 1")
    b = submit(cluster, "--wrap=true")
    wait_state(cluster, a, "FAILED")
    wait_state(cluster, b, "COMPLETED")
    c = submit(cluster, f"--dependency=afterok:{a}?afternotok:{b}", "--wrap=true")
    assert_never_satisfied(cluster, c, f"afterok:{a}(failed)?afternotok:{b}(failed)")


def test_scontrol_update_changes_and_clears_a_dependency(cluster):
    a = submit(cluster, "-H", "--wrap=true")
    done = submit(cluster, "--wrap=true")
    wait_state(cluster, done, "COMPLETED")
    b = submit(cluster, f"--dependency=afterok:{a}", "--wrap=true")
    wait_reason(cluster, b, "Dependency")
    # Changed: afternotok on a completed job can never be met.
    r = cluster.scontrol("update", f"jobid={b}", f"Dependency=afternotok:{done}", user=USER)
    assert r.returncode == 0, r.stderr
    f = wait_reason(cluster, b, "DependencyNeverSatisfied")
    assert f["Dependency"] == f"afternotok:{done}(failed)", f
    # Changed again: afterok on the held job, which can still be met.
    r = cluster.scontrol("update", f"jobid={b}", f"Dependency=afterok:{a}", user=USER)
    assert r.returncode == 0, r.stderr
    f = wait_reason(cluster, b, "Dependency")
    assert f["Dependency"] == f"afterok:{a}(unfulfilled)", f
    # A malformed one is refused and changes nothing.
    r = cluster.scontrol("update", f"jobid={b}", "Dependency=afterok:x", user=USER)
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert r.stderr.strip() == f"Job dependency problem for job {b}", r.stderr
    assert fields(cluster, b)["Dependency"] == f"afterok:{a}(unfulfilled)"
    # Cleared: nothing holds it back.
    r = cluster.scontrol("update", f"jobid={b}", "Dependency=", user=USER)
    assert r.returncode == 0, r.stderr
    assert wait_state(cluster, b, FINAL)["JobState"] == "COMPLETED"
    assert fields(cluster, b)["Dependency"] == "(null)"
    assert cluster.cli("scancel", str(a), user=USER).returncode == 0


def test_a_job_id_nobody_knows_counts_as_met(cluster):
    """The reference (Slurm 22.05) took `afterok:99999999`, and `afterok:5` of a job long
    purged, and ran the job at once: nothing is left to wait for. Drover too, at submission."""
    last = submit(cluster, "-H", "--wrap=true")
    job = submit(cluster, f"--dependency=afterok:{last + 1000}", "--wrap=true")
    assert wait_state(cluster, job, FINAL)["JobState"] == "COMPLETED"
    assert cluster.cli("scancel", str(last), user=USER).returncode == 0


@pytest.mark.parametrize("spec", ["afterok", "afterok:", "afterok:x", "bogus:5",
                                  "afterok:5,afterany:6?afterok:7", "afterok:5+3"])
def test_malformed_dependency_is_refused(cluster, spec):
    r = cluster.cli("sbatch", "-D", "/tmp", "-o", "/dev/null", f"--dependency={spec}",
                    "--wrap=true", user=USER)
    assert r.returncode != 0, (spec, r.stdout)
    assert "Job dependency problem" in r.stderr, r.stderr
    assert r.stdout == ""
