"""Batch jobs through the controller, end to end: a job runs on an agent as the user who
submitted it and writes its output file, ends COMPLETED 0:0 or FAILED with its exit code, a
running job is cancelled (its node freed), and every job id acknowledged before a kill -9 of
the controller is still known after the restart (durable before acknowledged)."""

import subprocess
import re
import threading

from cluster import shared_dir, wait_for


def submit(cluster, *args, user=None):
    r = cluster.cli("sbatch", "--parsable", *args, user=user)
    assert r.returncode == 0, r.stderr
    assert re.fullmatch(r"\d+(;\S+)?\n", r.stdout), r.stdout
    return int(r.stdout.split(";")[0])


def job_fields(cluster, job_id):
    return cluster.job_fields(job_id)


def wait_final(cluster, job_id, timeout=30):
    final = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY"}
    return wait_for(lambda: (f := job_fields(cluster, job_id)).get("JobState") in final and f,
                    timeout, what=f"job {job_id} to end")


def test_job_runs_as_submitter_and_completes(cluster):
    out_dir = shared_dir(cluster, "out-user")
    out = out_dir / "whoami.out"
    job_id = submit(cluster, "-J", "whoami", "-o", str(out), "-D", str(out_dir),
                    "--wrap=id -un; echo done", user="nobody")
    f = wait_final(cluster, job_id)
    assert f["JobState"] == "COMPLETED", f
    assert f["ExitCode"] == "0:0", f
    assert f["UserId"].startswith("nobody("), f
    assert out.read_text().split() == ["nobody", "done"]
    assert out.stat().st_uid == 65534


def test_failing_job_ends_failed_with_its_exit_code(cluster):
    out_dir = shared_dir(cluster, "out-fail")
    job_id = submit(cluster, "-o", str(out_dir / "%j.out"), "--wrap=echo before; exit 7")
    f = wait_final(cluster, job_id)
    assert f["JobState"] == "FAILED", f
    assert f["ExitCode"] == "7:0", f
    assert (out_dir / f"{job_id}.out").read_text() == "before\n"


def test_reconfigure_leaves_running_jobs_untouched(cluster):
    out_dir = shared_dir(cluster, "out-reconf")
    out = out_dir / "reconf.out"
    job_id = submit(cluster, "-o", str(out), "--wrap=echo started; sleep 3; echo finished")
    wait_for(lambda: job_fields(cluster, job_id).get("JobState") == "RUNNING", 30,
             what=f"job {job_id} to run")
    r = cluster.scontrol("reconfigure")
    assert r.returncode == 0, r.stderr
    assert job_fields(cluster, job_id).get("JobState") == "RUNNING"
    f = wait_final(cluster, job_id)
    assert f["JobState"] == "COMPLETED", f
    assert out.read_text() == "started\nfinished\n"


def test_cancel_running_job_frees_its_node(cluster):
    out_dir = shared_dir(cluster, "out-cancel")
    job_id = submit(cluster, "-o", str(out_dir / "%j.out"), "--exclusive",
                    "--wrap=echo started; sleep 300")
    wait_for(lambda: job_fields(cluster, job_id).get("JobState") == "RUNNING", 30,
             what=f"job {job_id} to run")
    node = job_fields(cluster, job_id)["NodeList"]
    wait_for(lambda: cluster.node_state(node) == "alloc", 10, what=f"{node} to show alloc")
    wait_for(lambda: (out_dir / f"{job_id}.out").exists()
             and (out_dir / f"{job_id}.out").read_text() == "started\n", 15,
             what="the job's output")
    r = cluster.cli("scancel", str(job_id))
    assert r.returncode == 0, r.stderr
    f = wait_final(cluster, job_id)
    assert f["JobState"] == "CANCELLED", f
    wait_for(lambda: cluster.node_state(node) == "idle", 15, what=f"{node} to be idle again")


def test_acknowledged_jobs_survive_kill_9_of_the_controller(cluster):
    acknowledged = []
    lock = threading.Lock()

    def burst(n):
        for _ in range(n):
            r = cluster.cli("sbatch", "--parsable", "-J", "burst", "-t", "1",
                            "--wrap=sleep 1")
            if r.returncode == 0:
                with lock:
                    acknowledged.append(int(r.stdout.split(";")[0]))

    threads = [threading.Thread(target=burst, args=(10,)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(acknowledged) == 40
    assert len(set(acknowledged)) == 40
    cluster.kill("droverctld")
    cluster.start()

    def known():
        r = cluster.scontrol("show", "job", "-o")
        if r.returncode != 0:
            return None
        return {int(m) for m in re.findall(r"(?:^|\s)JobId=(\d+)", r.stdout)}

    seen = wait_for(known, 30, what="the restarted controller to answer")
    missing = sorted(set(acknowledged) - seen)
    assert not missing, f"acknowledged but lost after kill -9: {missing}"
    # They run to the end after the restart.
    for job_id in acknowledged[-3:]:
        f = wait_final(cluster, job_id, timeout=60)
        assert f["JobState"] == "COMPLETED", f


def rawcall(cluster, mode, *args):
    """The job RPCs over gRPC (the CLIs use the frame transport): same handlers, same answers."""
    exe = cluster.build / "tests" / "drover-e2e-rawcall"
    r = subprocess.run([str(exe), f"127.0.0.1:{cluster.port_base}", mode,
                        str(cluster.run_dir / "munge" / "munge.socket"), *args],
                       capture_output=True, text=True, timeout=30)
    return r.stdout.strip()


def test_job_rpcs_over_grpc(cluster):
    out_dir = shared_dir(cluster, "out-grpc")
    ok, job_id = rawcall(cluster, "submit", str(out_dir), "echo via-grpc > grpc.out; exit 3").split()
    assert ok == "OK", job_id
    wait_for(lambda: rawcall(cluster, "job", job_id) == "OK JOB_FAILED 3:0", 30,
             what="the gRPC-submitted job to fail with 3")
    assert (out_dir / "grpc.out").read_text() == "via-grpc\n"
    # The frame transport sees the same job.
    assert job_fields(cluster, int(job_id))["ExitCode"] == "3:0"
    ok, job_id = rawcall(cluster, "submit", str(out_dir), "sleep 300").split()
    wait_for(lambda: rawcall(cluster, "job", job_id) == "OK JOB_RUNNING 0:0", 30,
             what="the gRPC-submitted sleeper to run")
    assert rawcall(cluster, "cancel", job_id).startswith("OK")
    wait_for(lambda: rawcall(cluster, "job", job_id).startswith("OK JOB_CANCELLED"), 30,
             what="the sleeper to be cancelled")


def test_node_failure_requeues_the_job_elsewhere(cluster):
    out_dir = shared_dir(cluster, "out-nodefail")
    job_id = submit(cluster, "-o", str(out_dir / "%j.out"), "--open-mode=append",
                    "--wrap=echo run on $SLURMD_NODENAME; sleep 6")
    wait_for(lambda: job_fields(cluster, job_id).get("JobState") == "RUNNING", 30,
             what=f"job {job_id} to run")
    first = job_fields(cluster, job_id)["NodeList"]
    cluster.kill(first)
    try:
        wait_for(lambda: (f := job_fields(cluster, job_id)).get("JobState") == "RUNNING"
                 and f.get("NodeList") != first, 30, what=f"job {job_id} to run off {first}")
        f = wait_final(cluster, job_id, timeout=40)
        assert f["JobState"] == "COMPLETED", f
        assert f["Restarts"] == "1", f
    finally:
        cluster.start()
    wait_for(lambda: cluster.node_state(first) == "idle", 30, what=f"{first} back idle")
