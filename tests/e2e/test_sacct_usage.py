"""sacct's usage fields of srun steps end to end (Slurm's jobacct_gather figures, golden 117):
each task's peak memory, major faults, CPU time, CPU frequency and bytes read and written are
gathered by its node's supervisor, sent with the step's end and folded by the controller into
Max*/Min*/Ave* with the node and task that had them, and the TRESUsageIn*/Out* strings. Tasks
that end at once still have figures (sampled at start, final ones read from the zombie)."""

import re
import subprocess
from pathlib import Path

import pytest

from cluster import wait_for
from conftest import run_cluster

FIELDS = ("NTasks,MaxVMSize,MaxVMSizeNode,MaxVMSizeTask,AveVMSize,MaxRSS,MaxRSSNode,MaxRSSTask,"
          "AveRSS,MaxPages,MaxPagesNode,MaxPagesTask,AvePages,MinCPU,MinCPUNode,MinCPUTask,AveCPU,"
          "AveCPUFreq,MaxDiskRead,MaxDiskReadNode,MaxDiskReadTask,AveDiskRead,MaxDiskWrite,"
          "MaxDiskWriteNode,MaxDiskWriteTask,AveDiskWrite,TRESUsageInAve,TRESUsageInMax,"
          "TRESUsageInMaxNode,TRESUsageInMaxTask,TRESUsageInMin,TRESUsageInMinNode,"
          "TRESUsageInMinTask,TRESUsageInTot,TRESUsageOutAve,TRESUsageOutMax,TRESUsageOutMaxNode,"
          "TRESUsageOutMaxTask,TRESUsageOutTot")

# Task 1 reads a 6 MiB file, task 2 touches 80 MiB, task 3 writes 4 MiB and spins a CPU second.
TASK = r"""
import os, sys, time
rank = int(os.environ["SLURM_PROCID"])
print(rank, os.environ["SLURMD_NODENAME"], flush=True)
if rank == 1:
    with open(sys.argv[1], "rb") as f:
        while f.read(1 << 20):
            pass
if rank == 2:
    block = bytearray(80 << 20)
    for i in range(0, len(block), 4096):
        block[i] = 1
if rank == 3:
    with open(os.devnull, "wb") as f:
        for _ in range(4):
            f.write(b"x" * (1 << 20))
    end = time.process_time() + 1.0
    while time.process_time() < end:
        pass
"""


@pytest.fixture(scope="module")
def cluster(request):
    yield from run_cluster(request, nodes=2, gpus_per_node=0, heartbeat=1, node_down=4)


def srun(cluster, *args):
    r = subprocess.run([str(cluster.bin / "srun"), *args], capture_output=True, text=True,
                       env=cluster.env(), timeout=120, cwd=str(cluster.run_dir))
    assert r.returncode == 0, r.stderr
    return r


def last_job(cluster):
    r = cluster.cli("sacct", "-X", "-n", "-P", "-o", "JobIDRaw")
    return max(int(x) for x in r.stdout.split())


def step_usage(cluster, step):
    def row():
        r = cluster.cli("sacct", "-n", "-P", "-j", step, "-o", "State," + FIELDS)
        lines = r.stdout.splitlines()
        if not lines or lines[0].split("|")[0] != "COMPLETED":
            return None
        return dict(zip(FIELDS.split(","), lines[0].split("|")[1:]))
    return wait_for(row, 30, what=f"step {step} COMPLETED in sacct")


def kib(text):
    """sacct's sizes (2928K, 80M, 1.50G, 0.01M) in KiB."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([KMGT]?)", text)
    assert m, f"not a size: {text!r}"
    return float(m.group(1)) * 1024 ** "KMGT".index(m.group(2) or "K")


def tres(text):
    return dict(item.split("=", 1) for item in text.split(","))


def test_step_usage_names_the_task_and_node_that_had_each_peak(cluster):
    data = Path(cluster.run_dir) / "read-me"
    data.write_bytes(b"r" * (6 << 20))
    script = Path(cluster.run_dir) / "task.py"
    script.write_text(TASK)
    out = srun(cluster, "-N2", "-n4", "/usr/bin/python3", str(script), str(data)).stdout
    node_of = {int(r): n for r, n in (line.split() for line in out.splitlines())}
    job = last_job(cluster)
    u = step_usage(cluster, f"{job}.0")

    assert u["NTasks"] == "4"
    # Memory: task 2's 80 MiB block; virtual size at least its resident set.
    assert u["MaxRSSTask"] == "2" and u["MaxRSSNode"] == node_of[2], u
    assert kib(u["MaxRSS"]) >= 80 * 1024, u
    assert kib(u["MaxVMSize"]) >= kib(u["MaxRSS"]), u
    assert 0 < kib(u["AveRSS"]) < kib(u["MaxRSS"]), u
    assert 0 < kib(u["AveVMSize"]) <= kib(u["MaxVMSize"]), u
    assert u["MaxPagesNode"] in node_of.values() and u["MaxPagesTask"] in "0123"
    # Reads and writes (rchar/wchar): task 1's file, task 3's 4 MiB.
    assert u["MaxDiskReadTask"] == "1" and u["MaxDiskReadNode"] == node_of[1], u
    assert kib(u["MaxDiskRead"]) >= 6 * 1024, u
    assert u["MaxDiskWriteTask"] == "3" and kib(u["MaxDiskWrite"]) >= 4 * 1024, u
    assert 0 < kib(u["AveDiskRead"]) < kib(u["MaxDiskRead"]), u
    # CPU: task 3 spun a second, so it is not the minimum; TRES strings say who had the max.
    assert u["MinCPUTask"] != "3" and u["MinCPU"] == "00:00:00", u
    assert re.fullmatch(r"\d\d:\d\d:\d\d", u["AveCPU"]), u
    assert u["AveCPUFreq"] != "", u
    inmax, inmax_task = tres(u["TRESUsageInMax"]), tres(u["TRESUsageInMaxTask"])
    assert list(inmax) == ["cpu", "energy", "fs/disk", "mem", "pages", "vmem"], inmax
    assert inmax["cpu"] == "00:00:01" and inmax_task["cpu"] == "3", (inmax, inmax_task)
    assert inmax["mem"] == u["MaxRSS"] and inmax["vmem"] == u["MaxVMSize"], (inmax, u)
    assert inmax_task["mem"] == "2" and inmax_task["fs/disk"] == "1", inmax_task
    assert int(inmax["fs/disk"]) >= 6 << 20
    assert tres(u["TRESUsageInMaxNode"])["mem"] == node_of[2]
    assert tres(u["TRESUsageInMin"])["cpu"] == "00:00:00"
    assert tres(u["TRESUsageOutMaxTask"]) == {"fs/disk": "3"}, u
    assert tres(u["TRESUsageOutMaxNode"]) == {"energy": node_of[3], "fs/disk": node_of[3]}
    assert int(tres(u["TRESUsageOutMax"])["fs/disk"]) >= 4 << 20
    tot = tres(u["TRESUsageInTot"])
    assert int(tot["fs/disk"]) >= int(inmax["fs/disk"])


def test_tasks_that_end_at_once_still_have_figures(cluster):
    srun(cluster, "-N1", "-n2", "/bin/true")
    u = step_usage(cluster, f"{last_job(cluster)}.0")
    # Sampled when they started; I/O and CPU read from the zombie before it was reaped.
    assert kib(u["MaxVMSize"]) > 0 and kib(u["MaxRSS"]) > 0, u
    assert u["MaxVMSizeTask"] in ("0", "1") and u["MinCPUTask"] in ("0", "1"), u
    # The loader reads the program's libraries' headers: bytes, under 0.01M.
    assert re.fullmatch(r"0\.0\dM", u["MaxDiskRead"]), u
    assert int(tres(u["TRESUsageInMax"])["fs/disk"]) > 0, u
    assert u["TRESUsageInAve"].startswith("cpu=00:00:00,energy=0,fs/disk="), u


def test_sacct_l_prints_the_step_row_with_every_column(cluster):
    srun(cluster, "-N1", "-n1", "/bin/true")
    job = last_job(cluster)
    step_usage(cluster, f"{job}.0")
    r = cluster.cli("sacct", "-l", "-P", "-j", str(job))
    header, *rows = r.stdout.splitlines()
    step = next(row for row in rows if row.startswith(f"{job}.0|")).split("|")
    values = dict(zip(header.split("|"), step))
    assert len(step) == len(header.split("|"))
    for name in ("MaxVMSize", "MaxRSS", "MaxPages", "MinCPU", "AveCPU", "AveCPUFreq",
                 "MaxDiskRead", "MaxDiskWrite", "TRESUsageInAve", "TRESUsageOutTot"):
        assert values[name] != "", (name, values)
    assert values["ConsumedEnergy"] == "0"
