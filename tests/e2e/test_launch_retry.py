"""A launch that the node's agent does not answer within the message timeout (a batch job's,
or one node's part of an srun step) is sent again (the same run: LaunchStep of one run and
step is idempotent on the agent, which answers a repeat with the running supervisor, or
ALREADY_EXISTS once that run ended, even after droverd restarted), so an agent that is busy
rather than gone does not fail the job or the step, and the script or tasks still run once.
The agent is made "busy" deterministically by stopping its droverd (SIGSTOP) for longer than
the timeout."""

import os
import signal
import subprocess
import time
from pathlib import Path

from cluster import agent_port, rawcall, shared_dir, wait_for

FINAL = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY"}


def one_node_with_a_2s_message_timeout(make_cluster, **kw):
    c = make_cluster(nodes=1, heartbeat=1, node_down=30, **kw)
    c.start()
    text = c.conf.read_text()
    assert "  message: 10" in text, "etc/cluster.conf lost its message timeout line"
    c.conf.write_text(text.replace("  message: 10", "  message: 2"))
    assert c.scontrol("reconfigure").returncode == 0
    return c


def submit_while_the_agent_is_stopped(c, name, stopped_for, meanwhile=lambda: None):
    """`sbatch --wrap='echo ran'` while node1's droverd is stopped for `stopped_for` seconds
    (then `meanwhile()`); returns the job's final fields and its output file."""
    out = shared_dir(c, name) / "job.out"
    agent = c.pid("node1")
    os.kill(agent, signal.SIGSTOP)
    try:
        r = c.cli("sbatch", "--parsable", "-o", str(out), "--open-mode=append", "--wrap=echo ran")
        assert r.returncode == 0, r.stderr
        job = int(r.stdout.strip().split(";")[0])
        time.sleep(stopped_for)
        meanwhile()
    finally:
        os.kill(agent, signal.SIGCONT)
    f = c.wait_job(job, FINAL, timeout=30)
    time.sleep(1)  # a second run of the script would have written by now
    return f, out


def test_launch_the_agent_answers_late_is_sent_again_and_runs_once(make_cluster):
    c = one_node_with_a_2s_message_timeout(make_cluster)
    # The first attempt times out after 2 s; the agent answers the next one.
    f, out = submit_while_the_agent_is_stopped(c, "out-retry", 3)
    assert f["JobState"] == "COMPLETED", f
    assert f["Restarts"] == "0", f
    assert out.read_text() == "ran\n"


def register_again(c, node):
    """AgentControl.Register for `node` as its droverd would send it after a restart (no steps
    running), while the real droverd is stopped: the controller reconciles the node's jobs."""
    request = (f'node_name: "{node}" address: "127.0.0.1" port: {agent_port(c, node)} '
               'resources { cpus: 16 sockets: 2 cores_per_socket: 8 threads_per_core: 1 '
               'real_memory_mb: 65536 } version: "e2e"')
    r = rawcall(c, f"127.0.0.1:{c.port_base}", "register", request=request, timeout=30)
    assert r.stdout.startswith("OK"), (r.stdout, r.stderr)


def test_a_registration_while_the_launch_is_retried_does_not_lose_the_job(make_cluster):
    """A node that registers again while a launch to it waits for an answer does not list the
    step yet: the launch's outcome decides, not the registration. (Before, a registration more
    than 3 s after the start declared the job lost and requeued it, while the retried launch
    went on to start the old run.)"""
    c = one_node_with_a_2s_message_timeout(make_cluster, gpus_per_node=0)
    # The first attempt timed out at 2 s, the second waits until 4 s: register in between,
    # past the 3 s a fresh start is given.
    f, out = submit_while_the_agent_is_stopped(c, "out-reregister", 3.4,
                                               meanwhile=lambda: register_again(c, "node1"))
    assert f["JobState"] == "COMPLETED", f
    assert f["Restarts"] == "0", f
    assert out.read_text() == "ran\n"


def test_an_srun_step_launch_the_agent_answers_late_is_sent_again_and_runs_once(make_cluster):
    c = one_node_with_a_2s_message_timeout(make_cluster, gpus_per_node=0)
    out = shared_dir(c, "out-srun-retry") / "ran"
    r = c.cli("sbatch", "--parsable", "-n1", "--wrap=sleep 120")
    assert r.returncode == 0, r.stderr
    job = int(r.stdout.strip().split(";")[0])
    c.wait_job(job, "RUNNING")
    agent = c.pid("node1")
    os.kill(agent, signal.SIGSTOP)
    try:
        srun = subprocess.Popen([str(c.bin / "srun"), f"--jobid={job}", "-n1", "sh", "-c",
                                 f"echo ran >> {out}; echo task-ran"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=c.env(), cwd=str(c.run_dir))
        # The step's first LaunchStep times out after 2 s; the agent answers the next one.
        time.sleep(3)
    finally:
        os.kill(agent, signal.SIGCONT)
    stdout, stderr = srun.communicate(timeout=30)
    assert srun.returncode == 0, (stdout, stderr)
    assert stdout == "task-ran\n", (stdout, stderr)
    assert "launch" not in stderr.lower(), stderr
    time.sleep(1)  # a second start of the step would have written by now
    assert out.read_text() == "ran\n"
    wait_for(lambda: f"{job}.0|COMPLETED" in c.cli("sacct", "-j", str(job), "-P", "-n", "-o",
                                                    "JobID,State").stdout.splitlines(),
             15, what="step 0 to be recorded COMPLETED")
    assert c.cli("scancel", str(job)).returncode == 0


def launch_again(c, node, job, run, out):
    """The batch launch of `job`'s run `run` on `node`, as the controller sends it again when
    its first attempt got no answer in time: a script that appends "ran" to `out`. Returns the
    first line of the answer ("OK", "ALREADY_EXISTS ...")."""
    request = f"""
step {{ job_id: {job} step_id: -5 restart_count: {run} }}
uid: {os.getuid()} gid: {os.getgid()} user: "root"
work_dir: "{out.parent}"
script: "#!/bin/sh\\necho ran\\n"
std_out: "{out}"
open_append: true
kill_wait_s: 1
num_tasks: 1
allocation {{ node: "{node}" cpus: 1 memory_mb: 100 tasks: 1 }}
environment {{ key: "PATH" value: "/usr/bin:/bin" }}
"""
    r = rawcall(c, f"127.0.0.1:{agent_port(c, node)}", "launch-step", request=request, timeout=30)
    assert r.returncode in (0, 1), (r.stdout, r.stderr)
    return r.stdout.partition("\n")[0]


def test_a_run_that_ended_before_droverd_restarted_is_not_launched_again(make_cluster):
    """The agent's memory of ended runs is kept in its spool dir: a launch retried after
    droverd restarted (the controller's first attempt reached the old droverd, which ran the
    job's script to its end) is answered ALREADY_EXISTS, and the script does not run again."""
    c = make_cluster(nodes=1, gpus_per_node=0, heartbeat=1, node_down=30)
    c.start()
    out = shared_dir(c, "out-ended-restart") / "job.out"
    r = c.cli("sbatch", "--parsable", "-o", str(out), "--open-mode=append", "--wrap=echo ran")
    assert r.returncode == 0, r.stderr
    job = int(r.stdout.strip().split(";")[0])
    assert c.wait_job(job, FINAL)["JobState"] == "COMPLETED"
    record = Path(c.run_dir) / "spool" / "node1" / "steps" / f"{job}.-5.rec"
    wait_for(lambda: not record.exists(), 15, what="the agent to forget the ended step")
    assert out.read_text() == "ran\n"

    c.kill("node1", signal.SIGTERM)
    c.start()
    c.wait_state("node1", "idle", timeout=15)
    status = launch_again(c, "node1", job, 0, out)
    assert status.startswith("ALREADY_EXISTS"), status
    time.sleep(1)  # a second run of the script would have written by now
    assert out.read_text() == "ran\n", "the ended run ran again after droverd restarted"
    # The same request for a run that did not end here does run (so the one above would
    # have): the refusal came from the memory of the ended run.
    assert launch_again(c, "node1", job, 1, out) == "OK"
    wait_for(lambda: out.read_text() == "ran\nran\n", 15, what="run 1 of the script")


def test_an_srun_step_right_after_the_agent_came_back_is_launched(make_cluster):
    """Launches to an agent that is down (refused connections) put the controller's channel to
    it in gRPC's reconnect backoff, which grew to minutes; once the agent is back and registered,
    the next step's launch must reach it: the backoff is capped at a second, and the launch
    waits for the channel (up to the message timeout) instead of failing at once. Without the
    cap, or without the wait, this srun failed."""
    c = one_node_with_a_2s_message_timeout(make_cluster, gpus_per_node=0)
    c.kill("node1", signal.SIGKILL)
    # Each refused launch lengthens the channel's backoff (1 s, then 1.6x each time).
    for _ in range(4):
        failed = c.cli("srun", "-N1", "true", timeout=60)
        assert failed.returncode != 0, "a step ran on a node whose agent was killed"
        time.sleep(1)
    c.start()
    c.wait_state("node1", "idle", timeout=15)
    r = c.cli("srun", "-N1", "echo", "ran", timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "ran\n"
