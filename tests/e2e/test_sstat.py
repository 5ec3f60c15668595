"""sstat end to end: the usage so far of a running job's steps, asked by the controller of the
agents of the steps' nodes, which ask each step's supervisor on its usage socket. A batch job
of the unprivileged user alice holds 64 MiB in its batch step and in each task of a two-node
srun step while the test polls sstat; Slurm 22.05's texts for the errors (checked on the
reference cluster); bob sees none of alice's figures, root sees them all."""

import re
import subprocess

import pytest

from cluster import ensure_users, shared_dir, wait_for
from conftest import run_cluster

HOLD = "import time; b = b'x' * (64 << 20); time.sleep(300)"
MIB64_KB = 64 * 1024


@pytest.fixture(scope="module")
def cluster(request):
    ensure_users(("alice", "bob"))
    yield from run_cluster(request, nodes=2, gpus_per_node=0, heartbeat=1, node_down=4)


def kib(text):
    """sstat's sizes (2928K, 80M, 1.50G) in KiB."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([KMGT]?)", text)
    assert m, f"not a size: {text!r}"
    return float(m.group(1)) * 1024 ** "KMGT".index(m.group(2) or "K")


def sstat(cluster, *args, user="alice"):
    return cluster.cli("sstat", *args, user=user)


def rows(r):
    return [line.split("|") for line in r.stdout.splitlines()]


@pytest.fixture(scope="module")
def job(cluster):
    """alice's job: 64 MiB in its batch shell's python, and in both tasks of step 0 (-N2 -n2).
    Its id, once sstat shows every one of them holding it."""
    d = shared_dir(cluster, "sstat")
    script = d / "hold.sh"
    script.write_text("#!/bin/sh\n"
                      f'python3 -c "{HOLD}" &\n'
                      f'srun -N2 -n2 python3 -c "{HOLD}"\n'
                      "wait\n")
    script.chmod(0o755)
    r = cluster.cli("sbatch", "--parsable", "-N2", "-n2", "-o", "/dev/null", "-D", str(d),
                    str(script), user="alice")
    assert r.returncode == 0, r.stderr
    job_id = int(r.stdout.split(";")[0])

    def held():
        out = rows(sstat(cluster, "-j", str(job_id), "-a", "-n", "-P", "-o", "JobID,MaxRSS"))
        sizes = {row[0]: kib(row[1]) for row in out if len(row) == 2 and row[1]}
        ok = {f"{job_id}.batch", f"{job_id}.0"} <= set(sizes) and \
            all(v >= MIB64_KB for v in sizes.values())
        return ok and sizes
    wait_for(held, 60, what=f"job {job_id}'s steps to hold 64 MiB in sstat")
    yield job_id
    cluster.cli("scancel", str(job_id))


def test_srun_step_figures(cluster, job):
    fields = "JobID,MaxRSS,MaxRSSNode,MaxRSSTask,AveRSS,MaxVMSize,AveCPU,MinCPUNode,NTasks,Nodelist"
    r = sstat(cluster, "-j", str(job), "-P", "-o", fields)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    header, *data = rows(r)
    assert header == fields.split(",")
    assert len(data) == 1, r.stdout   # a bare job id: its lowest numbered step
    row = dict(zip(header, data[0]))
    assert row["JobID"] == f"{job}.0"
    assert row["NTasks"] == "2" and row["Nodelist"] == "node[1-2]", row
    assert row["MaxRSSNode"] in ("node1", "node2") and row["MaxRSSTask"] in ("0", "1"), row
    # Both tasks hold the 64 MiB, so the average does too; virtual size covers what is resident.
    assert kib(row["MaxRSS"]) >= MIB64_KB and kib(row["AveRSS"]) >= MIB64_KB, row
    assert kib(row["MaxVMSize"]) >= kib(row["MaxRSS"]), row
    assert re.fullmatch(r"\d\d:\d\d:\d\d", row["AveCPU"]), row
    assert row["MinCPUNode"] in ("node1", "node2"), row


def test_batch_step_and_allsteps(cluster, job):
    r = sstat(cluster, "-j", f"{job}.batch", "-n", "-P", "-o", "JobID,MaxRSS,NTasks,Nodelist,ReqCPUFreqMin")
    assert r.returncode == 0, r.stderr
    (row,) = rows(r)
    assert row[0] == f"{job}.batch" and kib(row[1]) >= MIB64_KB, row
    assert row[2:] == ["1", "node1", "0"], row
    # -a: the batch step, then the numbered steps.
    r = sstat(cluster, "-j", str(job), "-a", "-n", "-P", "-o", "JobID")
    assert r.stdout == f"{job}.batch\n{job}.0\n", r.stdout


def test_layouts(cluster, job):
    # The default fields: Slurm's header, one row.
    r = sstat(cluster, "-j", str(job))
    lines = r.stdout.splitlines()
    assert lines[0].startswith("JobID         MaxVMSize  MaxVMSizeNode  MaxVMSizeTask  AveVMSize"), lines[0]
    assert lines[0].rstrip().endswith("TRESUsageOutTot") and len(lines) == 3, r.stdout
    assert lines[1].startswith("------------ ---------- -------------- ") and lines[2].startswith(f"{job}.0 ")
    # -p ends every field with '|', -P separates them; -n drops the header.
    assert sstat(cluster, "-j", str(job), "-p", "-o", "JobID,NTasks").stdout == \
        f"JobID|NTasks|\n{job}.0|2|\n"
    assert sstat(cluster, "-j", str(job), "-P", "-n", "-o", "JobID,NTasks").stdout == f"{job}.0|2\n"
    # %WIDTH, right and left.
    assert sstat(cluster, "-j", str(job), "-n", "-o", "JobID%-10,NTasks%4").stdout == \
        f"{str(job) + '.0':<10}    2 \n"
    # --noconvert: bytes.
    raw = sstat(cluster, "-j", str(job), "-n", "-P", "--noconvert", "-o", "MaxRSS").stdout.strip()
    assert raw.isdigit() and int(raw) >= 64 << 20, raw
    # The TRES out minimums, which sacct leaves blank: the task that wrote least.
    r = sstat(cluster, "-j", str(job), "-n", "-P", "-o",
              "TRESUsageOutMin,TRESUsageOutMinNode,TRESUsageOutMinTask")
    assert re.fullmatch(r"energy=0,fs/disk=\d+\|energy=(node[12]),fs/disk=\1\|fs/disk=[01]\n",
                        r.stdout), r.stdout
    # -i: JobID, Nodelist and the pids of the step's processes.
    r = sstat(cluster, "-j", str(job), "-i", "-P", "-n")
    (row,) = rows(r)
    assert row[:2] == [f"{job}.0", "node[1-2]"], row
    assert len(row[2].split(",")) >= 2 and all(p.isdigit() for p in row[2].split(",")), row


def test_errors_are_slurms(cluster, job):
    r = sstat(cluster, "-j", "999999", "-o", "JobID")
    assert r.returncode == 0 and r.stdout == "JobID        \n------------ \n", r
    assert r.stderr == "sstat: error: couldn't get steps for job 999999\n"
    r = sstat(cluster, "-j", f"{job}.7", "-o", "JobID", "-n")
    assert r.returncode == 0 and r.stdout == ""
    assert r.stderr == f"sstat: error: StepId={job}.7 not found running.\n"
    # One bad item does not stop the others.
    r = sstat(cluster, "-j", f"999999,{job}.0", "-o", "JobID", "-n", "-P")
    assert r.stdout == f"{job}.0\n" and "couldn't get steps for job 999999" in r.stderr
    r = sstat(cluster, "-j", "abc")
    assert r.returncode == 1 and r.stderr == "sstat: fatal: Bad job/step specified: abc\n"
    r = sstat(cluster, "-j", str(job), "-o", "Bogus")
    assert r.returncode == 1 and r.stderr == 'sstat: error: Invalid field requested: "Bogus"\n'
    r = sstat(cluster)
    assert r.returncode == 1 and "You didn't give me any jobs to stat." in r.stderr
    r = sstat(cluster, "-j", str(job), "-u", "alice")
    assert r.returncode == 1 and r.stderr == "sstat: invalid option -- 'u'\n"


def test_pending_and_batch_only_jobs(cluster, job):
    held = cluster.cli("sbatch", "--parsable", "-H", "-o", "/dev/null", "-D", "/tmp",
                       "--wrap=true", user="alice")
    held_id = held.stdout.strip()
    r = sstat(cluster, "-j", held_id, "-n")
    assert r.returncode == 0 and r.stderr == f"sstat: error: No steps running for job {held_id}\n"
    cluster.cli("scancel", held_id)
    # Only its batch step runs: no row and no error, as Slurm's (its lowest numbered step).
    batch = cluster.cli("sbatch", "--parsable", "-o", "/dev/null", "-D", "/tmp", "-n1",
                        "--wrap=sleep 300", user="alice").stdout.strip()
    cluster.wait_job(batch, "RUNNING")
    r = sstat(cluster, "-j", batch, "-n", "-P", "-o", "JobID")
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    rows_a = wait_for(lambda: sstat(cluster, "-j", batch, "-a", "-n", "-P", "-o", "JobID").stdout,
                      15, what="the batch step in sstat -a")
    assert rows_a == f"{batch}.batch\n"
    cluster.cli("scancel", batch)
    cluster.wait_job(batch, {"CANCELLED", "COMPLETED"})
    r = sstat(cluster, "-j", batch, "-n")
    assert r.stderr == f"sstat: error: No steps running for job {batch}\n", r.stderr


def test_another_user_sees_no_figures(cluster, job):
    r = sstat(cluster, "-j", str(job), "-o", "JobID,MaxRSS", user="bob")
    assert r.returncode == 0 and r.stdout == "JobID            MaxRSS \n------------ ---------- \n", r.stdout
    assert r.stderr == (
        "sstat: error: slurm_job_step_stat: there was an error with the request to node1 "
        "rc = Invalid user id\n"
        f"sstat: error: problem getting step_layout for StepId={job}.0: Invalid user id\n"), r.stderr
    # root (an administrator) sees them.
    r = sstat(cluster, "-j", str(job), "-n", "-P", "-o", "JobID,MaxRSS", user="root")
    (row,) = rows(r)
    assert row[0] == f"{job}.0" and kib(row[1]) >= MIB64_KB, row
