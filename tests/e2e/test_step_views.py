"""squeue -s/--steps and scontrol show step end to end: a batch job on 2 nodes runs two long
srun steps (one over both nodes, one with its own time limit and a GPU); squeue -s lists them
and the batch step in Slurm's step format, selects by step list, node and user, and names the
format codes steps do not have; scontrol show step prints Slurm's records (multi-line, -o, one
step) and Slurm's messages for an unknown step or job. The values that vary (times, the srun's
pid, the job id) are masked or computed."""

import re
import subprocess

from cluster import shared_dir, wait_for

HEADER = "         STEPID     NAME PARTITION     USER      TIME NODELIST"


def squeue(cluster, *args):
    return cluster.cli("squeue", *args)


def step_ids(cluster, job_id):
    r = squeue(cluster, "-s", "-h", "-j", str(job_id), "-o", "%i")
    return r.stdout.split() if r.returncode == 0 else []


def start_job(cluster, name):
    """A 2-node batch job whose script starts steps 0 and 1 and waits; returns its id once both
    steps run."""
    out_dir = shared_dir(cluster, name)
    # The second srun starts once the first one's step exists, so their ids are 0 and 1.
    script = ("#!/bin/sh\n"
              f"{cluster.bin}/srun -N2 -n2 -J sleeper sleep 300 &\n"
              f"until {cluster.bin}/squeue -s$SLURM_JOB_ID.0 -h -o %i | grep -q .; do sleep 0.1; done\n"
              f"{cluster.bin}/srun -N1 -n1 -t 5 --gres=gpu:1 -J gsleep sleep 300 &\n"
              "wait\n")
    r = subprocess.run([str(cluster.bin / "sbatch"), "--parsable", "-N2", "-J", "stepjob", "-t", "30",
                        "--gres=gpu:2", "-o", str(out_dir / "out")],
                       input=script.encode(), capture_output=True, env=cluster.env(), cwd=str(out_dir))
    assert r.returncode == 0, r.stderr
    job_id = int(r.stdout.decode().split(";")[0])
    wait_for(lambda: len(step_ids(cluster, job_id)) == 3, 30, what=f"job {job_id}'s two steps")
    return job_id


def test_squeue_and_scontrol_show_the_running_steps(cluster):
    job_id = start_job(cluster, "step-views")
    fields = cluster.job_fields(job_id)
    partition, nodes, batch_host = fields["Partition"], fields["NodeList"], fields["BatchHost"]
    assert re.fullmatch(r"node\[\d-\d\]", nodes), nodes
    user = squeue(cluster, "-h", "-j", str(job_id), "-o", "%u").stdout.strip()

    # The default step format, the batch step last in its job, times masked.
    r = squeue(cluster, "-s", "-j", str(job_id))
    assert r.returncode == 0 and r.stderr == "", r
    lines = r.stdout.splitlines()
    assert lines[0] == HEADER
    masked = [re.sub(r" +\d+:\d\d ", " T ", line) for line in lines[1:]]
    assert masked == [
        f"{job_id}.0".rjust(15) + "  sleeper" + partition.rjust(10) + user.rjust(9) + " T " + nodes,
        f"{job_id}.1".rjust(15) + "   gsleep" + partition.rjust(10) + user.rjust(9) + " T " + batch_host,
        f"{job_id}.batch".rjust(15) + "    batch" + partition.rjust(10) + user.rjust(9) + " T " + batch_host,
    ], r.stdout

    # The step codes: tasks, the step's own limit (UNLIMITED without srun -t), its --gres.
    r = squeue(cluster, "-s", "-h", "-j", str(job_id), "-o", "%i|%j|%A|%l|%b|%N")
    assert r.stdout.splitlines() == [
        f"{job_id}.0|sleeper|2|UNLIMITED|(null)|{nodes}",
        f"{job_id}.1|gsleep|1|5:00|gres:gpu:1|{batch_host}",
        f"{job_id}.batch|batch|1|UNLIMITED|(null)|{batch_host}",
    ], r.stdout

    # A step list (attached to -s, as Slurm wants), the batch step by name, a node, a user.
    r = squeue(cluster, f"--steps={job_id}.1,{job_id}.batch", "-h", "-o", "%i")
    assert r.stdout.split() == [f"{job_id}.1", f"{job_id}.batch"], r
    other = [n for n in cluster.scontrol("show", "hostnames", nodes).stdout.split() if n != batch_host][0]
    r = squeue(cluster, "-s", "-h", "-j", str(job_id), "-w", other, "-o", "%i")
    assert r.stdout.split() == [f"{job_id}.0"], r  # step 1 and the batch step are on the other node
    assert squeue(cluster, "-s", "-h", "-u", "nosuchuser0", "-o", "%i").stdout == ""
    assert squeue(cluster, "-s", "-h", "-u", user, "-o", "%i").stdout.split().count(f"{job_id}.batch") == 1

    # scontrol show step JOB.STEP: Slurm's record; the start time, the job's memory on the node
    # and srun's host and pid masked (srun's must be there: the batch step alone has none).
    r = cluster.scontrol("show", "step", f"{job_id}.1")
    assert r.returncode == 0, r
    uid = fields["UserId"].split("(")[1].rstrip(")")
    record = re.sub(r"SrunHost:Pid=[^(\s][^:\s]*:[1-9]\d*\n", "SrunHost:Pid=*\n", r.stdout)
    record = re.sub(r"StartTime=\S+", "StartTime=*", re.sub(r"mem=\d+M", "mem=*", record))
    assert record == (
        f"StepId={job_id}.1 UserId={uid} StartTime=* TimeLimit=00:05:00\n"
        f"   State=RUNNING Partition={partition} NodeList={batch_host}\n"
        "   Nodes=1 CPUs=1 Tasks=1 Name=gsleep Network=(null)\n"
        "   TRES=cpu=1,gres/gpu=1,mem=*,node=1\n"
        "   ResvPorts=(null)\n"
        # srun -N1 -n1 in a batch job: Cyclic, as the reference's (no more tasks than nodes).
        "   CPUFreqReq=Default Dist=Cyclic\n"
        "   SrunHost:Pid=*\n"
        "\n"), r.stdout

    # -o: one line per step of the job, the batch step first (Slurm's order).
    r = cluster.scontrol("-o", "show", "step", str(job_id))
    lines = r.stdout.splitlines()
    assert [line.split()[0] for line in lines] == [f"StepId={job_id}.batch", f"StepId={job_id}.0",
                                                   f"StepId={job_id}.1"], r.stdout
    assert lines[0].endswith(" TRES=(null) ResvPorts=(null) CPUFreqReq=Default SrunHost:Pid=(null):0")
    assert f" NodeList={nodes} Nodes=2 CPUs=2 Tasks=2 Name=sleeper " in lines[1]

    # Errors as Slurm's: a step the job does not have (stdout), a job that does not exist.
    r = cluster.scontrol("show", "step", f"{job_id}.7")
    assert (r.returncode, r.stdout, r.stderr) == (1, f"Job step {job_id}.7 not found\n", "")
    r = cluster.scontrol("show", "step", "999999")
    assert (r.returncode, r.stdout, r.stderr) == (1, "", "slurm_get_job_steps error: Invalid job id specified\n")
    r = cluster.scontrol("-Q", "show", "step", f"{job_id}.7")
    assert (r.returncode, r.stdout, r.stderr) == (1, "", "")

    # A step that ended leaves both views; the others stay.
    assert cluster.cli("scancel", f"{job_id}.0").returncode == 0
    wait_for(lambda: f"{job_id}.0" not in step_ids(cluster, job_id), 30, what="step 0 to end")
    assert step_ids(cluster, job_id) == [f"{job_id}.1", f"{job_id}.batch"]
    r = cluster.scontrol("show", "step", f"{job_id}.0")
    assert (r.returncode, r.stdout) == (1, f"Job step {job_id}.0 not found\n")

    assert cluster.cli("scancel", str(job_id)).returncode == 0
    wait_for(lambda: step_ids(cluster, job_id) == [], 30, what="the job's steps to end")
    r = cluster.scontrol("show", "step", str(job_id))
    assert (r.returncode, r.stdout) == (1, f"Job step {job_id}. not found\n"), r


def test_step_errors_and_format_codes_steps_lack(cluster):
    r = squeue(cluster, "-s123")
    assert (r.returncode, r.stdout, r.stderr) == (1, "", "squeue: error: Invalid job_step id: 123.??\n")
    r = squeue(cluster, "--steps=1.x")
    assert r.returncode == 1 and "Invalid job_step id: 1.x" in r.stderr, r
    # A job code steps do not have: printed as written, named on stderr, exit 0 (Slurm 22.05).
    r = squeue(cluster, "-s", "-o", "%.10i %t")
    assert r.returncode == 0, r
    assert r.stdout.splitlines()[0] == "    STEPID %t"
    assert r.stderr == "squeue: error: Invalid job step format specification: t\n"
    r = squeue(cluster, "-s", "-O", "StepID,Reason")
    assert r.returncode == 0 and r.stdout.splitlines()[0] == "STEPID".ljust(20), r
    assert r.stderr == "squeue: error: Invalid job step format specification: Reason\n"
    # No step anywhere: scontrol says so, squeue prints its header alone.
    wait_for(lambda: squeue(cluster, "-s", "-h").stdout == "", 30, what="no steps")
    r = cluster.scontrol("show", "step")
    assert (r.returncode, r.stdout) == (0, "No job steps in the system\n"), r
    r = squeue(cluster, "-s")
    assert (r.returncode, r.stdout) == (0, HEADER + "\n"), r
