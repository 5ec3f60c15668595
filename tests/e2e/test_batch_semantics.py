"""Slurm semantics of the batch path, end to end on real daemons and CLIs: a cancelled running
job is CANCELLED+COMPLETING (squeue CG) at once and CANCELLED in sacct (goldens 101, 105, 115);
a job its node lost is requeued when it may be, else NODE_FAIL; sbatch --test-only names the
processors and the partition; squeue --json carries the keys dashboards read (golden 073)."""

import json
import os
import re
import signal
import time
from pathlib import Path

import pytest

from cluster import shared_dir, wait_for

FINAL = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY"}


def submit(cluster, *args, user=None):
    r = cluster.cli("sbatch", "--parsable", *args, user=user)
    assert r.returncode == 0, r.stderr
    assert re.fullmatch(r"\d+(;\S+)?\n", r.stdout), r.stdout
    return int(r.stdout.split(";")[0])


def job_fields(cluster, job_id):
    return cluster.job_fields(job_id)


def wait_state(cluster, job_id, states, timeout=30):
    return cluster.wait_job(job_id, states, timeout)


def sacct_row(cluster, job_id, fields="JobID,State,ExitCode,Elapsed"):
    r = cluster.cli("sacct", "-X", "-P", "-n", "-j", str(job_id), "-o", fields)
    assert r.returncode == 0, r.stderr
    rows = [line.split("|") for line in r.stdout.splitlines() if line]
    return rows[0] if rows else None


def test_cancel_of_a_running_job_is_cancelled_at_once(cluster):
    out_dir = shared_dir(cluster, "out-cancel-cg")
    job_id = submit(cluster, "-o", str(out_dir / "%j.out"), "--wrap=echo started; sleep 300")
    wait_state(cluster, job_id, "RUNNING")
    wait_for(lambda: (out_dir / f"{job_id}.out").exists(), 15, what="the job's output")
    r = cluster.cli("scancel", str(job_id))
    assert r.returncode == 0, r.stderr
    # Right after scancel: never RUNNING again; CG (COMPLETING) until the step reports, then CA.
    r = cluster.cli("squeue", "-h", "-t", "all", "-j", str(job_id), "-o", "%t")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() in ("CG", "CA"), r.stdout
    f = wait_state(cluster, job_id, "CANCELLED")
    assert f["ExitCode"] == "0:15", f  # the batch step's end (SIGTERM), as the reference's
    uid = os.getuid()
    row = wait_for(lambda: (row := sacct_row(cluster, job_id)) and row[1].startswith("CANCELLED")
                   and row, 15, what="sacct to show the cancel")
    assert row[1] == f"CANCELLED by {uid}", row


def _descendants(pid):
    children = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
        children.setdefault(int(fields[1]), []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        for c in children.get(p, []):
            out.append(c)
            todo.append(c)
    return out


def _kill_supervisor(cluster, node, job_id):
    """SIGKILL the batch step's drover-stepd of `job_id` on `node` and every task under it,
    so nothing reports the step's end: the node has simply lost the job."""
    record = Path(cluster.run_dir) / "spool" / node / "steps" / f"{job_id}.-5.rec"
    pid = int(record.read_text().split()[2])
    os.kill(pid, signal.SIGSTOP)
    for child in _descendants(pid):
        try:
            os.kill(child, signal.SIGKILL)
        except ProcessLookupError:
            pass
    os.kill(pid, signal.SIGKILL)


def test_jobs_lost_by_their_node_are_requeued_or_node_fail(cluster):
    out_dir = shared_dir(cluster, "out-lost")
    # The second run (SLURM_RESTART_COUNT=1) ends at once.
    script = ('if [ "${SLURM_RESTART_COUNT:-0}" != 0 ]; then echo rerun; exit 0; fi; '
              "echo first; sleep 300")
    node = "node3"
    requeued = submit(cluster, "-w", node, "-o", str(out_dir / "%j.out"), "--open-mode=append",
                      f"--wrap={script}")
    failed = submit(cluster, "-w", node, "--no-requeue", "-o", str(out_dir / "%j.out"),
                    "--wrap=sleep 300")
    kept = submit(cluster, "-w", node, "-o", str(out_dir / "%j.out"), "--wrap=sleep 300")
    for j in (requeued, failed, kept):
        wait_state(cluster, j, "RUNNING")
    time.sleep(3.5)  # past the controller's launch grace
    # The agent goes away while two of its three supervisors die with their tasks; when it
    # registers again it reports only the third.
    cluster.kill(node)
    try:
        for j in (requeued, failed):
            _kill_supervisor(cluster, node, j)
    finally:
        cluster.start()
    f = wait_state(cluster, failed, "NODE_FAIL")
    assert f["Restarts"] == "0", f
    f = wait_state(cluster, requeued, "COMPLETED", timeout=60)
    assert f["Restarts"] == "1", f
    assert (out_dir / f"{requeued}.out").read_text() == "first\nrerun\n"
    # The job the node still runs is untouched.
    assert job_fields(cluster, kept)["JobState"] == "RUNNING"
    assert cluster.cli("scancel", str(kept)).returncode == 0
    wait_state(cluster, kept, "CANCELLED")


def test_test_only_names_processors_nodes_and_partition(cluster):
    r = cluster.cli("sbatch", "--test-only", "-p", "debug", "-N", "1", "-n", "3", "-c", "2",
                    "--wrap=true")
    assert r.returncode == 0, r.stderr
    assert re.fullmatch(r"sbatch: Job \d+ to start at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d using 6 "
                        r"processors on nodes node\d in partition debug\n", r.stderr), r.stderr
    r = cluster.cli("sbatch", "--test-only", "--wrap=true")
    assert r.returncode == 0, r.stderr
    assert re.fullmatch(r"sbatch: Job \d+ to start at \S+ using 1 processors on nodes node\d "
                        r"in partition gpu\n", r.stderr), r.stderr


def _golden_json_keys():
    golden = Path(__file__).resolve().parents[1] / "unit" / "cli" / "golden" / "073-squeue-json.txt"
    body = golden.read_text().split("# [stdout]\n", 1)[1].split("# [stderr]")[0]
    jobs = json.loads(body)["jobs"]
    running = next(j for j in jobs if j["job_state"] == "RUNNING")
    pending = next(j for j in jobs if j["job_state"] == "PENDING")
    return list(running.keys()), list(pending.keys())


def test_squeue_json_has_slurms_keys(cluster):
    out_dir = shared_dir(cluster, "out-json")
    running = submit(cluster, "-J", "jsonrun", "--gres=gpu:2", "-o", str(out_dir / "%j.out"),
                     "--wrap=sleep 300")
    held = submit(cluster, "-J", "jsonheld", "-H", "--wrap=true")
    wait_state(cluster, running, "RUNNING")
    r = cluster.cli("squeue", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert list(doc.keys()) == ["meta", "errors", "jobs"]
    jobs = {j["job_id"]: j for j in doc["jobs"]}
    run_keys, pend_keys = _golden_json_keys()
    assert list(jobs[running].keys()) == run_keys
    assert list(jobs[held].keys()) == pend_keys
    j = jobs[running]
    assert j["job_state"] == "RUNNING" and j["name"] == "jsonrun"
    conf = Path(cluster.conf).read_text()
    assert j["cluster"] == re.search(r"^cluster_name:\s*(\S+)", conf, re.M).group(1)
    assert j["batch_host"] == j["nodes"] and j["node_count"] == 1
    assert len(j["gres_detail"]) == 1 and j["gres_detail"][0].startswith("gpu:2(IDX:")
    # The node's side of it: sinfo -O GresUsed names the two GPU indices the job holds.
    r = cluster.cli("sinfo", "-h", "-N", "-n", j["nodes"], "-O", "GresUsed:40")
    assert re.fullmatch(r"gpu(:\w+)?:2\(IDX:\d+(-\d+|,\d+)\)", r.stdout.split()[0]), r.stdout
    assert "gres/gpu=2" in j["tres_alloc_str"]
    assert j["standard_output"] == str(out_dir / "%j.out")
    assert jobs[held]["state_reason"] == "JobHeldUser"
    for j in (running, held):
        assert cluster.cli("scancel", str(j)).returncode == 0
    wait_state(cluster, running, "CANCELLED")


def _memory_cgroups():
    root = Path("/sys/fs/cgroup")
    for d in (root, root / "unified"):
        c = d / "cgroup.controllers"
        if c.exists() and "memory" in c.read_text():
            return True
    return (root / "memory" / "memory.limit_in_bytes").exists() and os.geteuid() == 0


def test_job_past_its_memory_is_out_of_memory(cluster):
    if not _memory_cgroups():
        pytest.skip("no memory cgroup on this machine (docs/cli-compatibility.md)")
    out_dir = shared_dir(cluster, "out-oom")
    job_id = submit(cluster, "--mem=50M", "-o", str(out_dir / "%j.out"),
                    "--wrap=/usr/bin/python3 -c 'b = bytearray(200 * 1024 * 1024)'")
    f = wait_state(cluster, job_id, FINAL, timeout=60)
    assert f["JobState"] == "OUT_OF_MEMORY", f
    assert f["ExitCode"] == "0:125", f
    row = wait_for(lambda: (row := sacct_row(cluster, job_id)) and row[1] == "OUT_OF_MEMORY"
                   and row, 15, what="sacct to show OUT_OF_MEMORY")
    assert row[2] == "0:125", row
    # Within its memory, the same job completes.
    ok = submit(cluster, "--mem=50M", "-o", str(out_dir / "%j.out"),
                "--wrap=/usr/bin/python3 -c 'b = bytearray(10 * 1024 * 1024)'")
    assert wait_state(cluster, ok, FINAL, timeout=60)["JobState"] == "COMPLETED"


def test_sacct_reason_is_the_last_wait_that_was_not_the_jobs_turn(cluster):
    """As the reference's accounting (Slurm's state_reason_prev_db): a held job released and run
    keeps JobHeldUser in sacct's Reason, one that waited for its --begin BeginTime, one that
    never waited None; a job whose launch failed says JobLaunchFailure, as issue 3 asks (the
    reference's said None)."""
    held = submit(cluster, "-H", "-o", "/dev/null", "--wrap=true")
    later = submit(cluster, "--begin=now+2", "-o", "/dev/null", "--wrap=true")
    failed = submit(cluster, "-o", "/nonexistent/dir/out", "--wrap=true")
    assert cluster.scontrol("release", str(held)).returncode == 0
    for job in (held, later):
        assert wait_state(cluster, job, FINAL, timeout=30)["JobState"] == "COMPLETED"
    assert wait_state(cluster, failed, FINAL, timeout=30)["Reason"] == "JobLaunchFailure"
    fields = "JobID,State,Reason"
    plain = submit(cluster, "-o", "/dev/null", "--wrap=true")
    assert wait_state(cluster, plain, FINAL, timeout=30)["JobState"] == "COMPLETED"
    expected = {held: "JobHeldUser", later: "BeginTime", failed: "JobLaunchFailure", plain: "None"}
    for job, reason in expected.items():
        row = wait_for(lambda: (row := sacct_row(cluster, job, fields)) and row[1] != "PENDING"
                       and row[1] != "RUNNING" and row, 15, what=f"sacct to show job {job} ended")
        assert row[2] == reason, (job, row)
