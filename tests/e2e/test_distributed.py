"""The real clients of srun, from inside batch jobs on a local cluster of agents:
(a) PyTorch DDP (CPU, gloo) started by `srun -N 2 --ntasks-per-node=2 python3 ddp.py`,
    initialised with init_method="env://" and no glue code (srun exports MASTER_ADDR,
    MASTER_PORT, RANK, WORLD_SIZE, LOCAL_RANK);
(b) the same training initialised from SLURM_* variables only (SLURM_PROCID, SLURM_NTASKS,
    the first node of SLURM_STEP_NODELIST as master, a port from SLURM_JOB_ID);
(c) MPI: mpich's `mpiexec -launcher slurm` (which calls our srun) runs a small C program across
    2 nodes x 2 ranks and checks an allreduce.
Every rank checks that all ranks hold identical parameters after a few steps."""

import re
import shutil
import subprocess

import pytest

from cluster import shared_dir, wait_for

PYTHON = "/usr/bin/python3"

TRAIN = r'''
import os, sys
import torch
import torch.distributed as dist


def init_from_slurm():
    """Only SLURM_* variables: rank, size, master = first node of the step, port from the job."""
    import socket, subprocess
    rank = int(os.environ["SLURM_PROCID"])
    world = int(os.environ["SLURM_NTASKS"])
    nodes = subprocess.run(["scontrol", "show", "hostnames", os.environ["SLURM_STEP_NODELIST"]],
                           capture_output=True, text=True, check=True).stdout.split()
    first = nodes[0]
    try:
        addr = socket.gethostbyname(first)
    except OSError:  # local cluster: node names are not in DNS; the node's NodeAddr is
        show = subprocess.run(["scontrol", "show", "node", first], capture_output=True,
                              text=True, check=True).stdout
        addr = [w.split("=", 1)[1] for w in show.split() if w.startswith("NodeAddr=")][0]
    port = 20000 + int(os.environ["SLURM_JOB_ID"]) % 20000
    dist.init_process_group("gloo", init_method=f"tcp://{addr}:{port}", rank=rank,
                            world_size=world)


if sys.argv[1] == "env":
    dist.init_process_group("gloo", init_method="env://")
else:
    init_from_slurm()

rank, world = dist.get_rank(), dist.get_world_size()
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(16, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
ddp = torch.nn.parallel.DistributedDataParallel(model)
opt = torch.optim.SGD(ddp.parameters(), lr=0.05)
for step in range(5):
    g = torch.Generator().manual_seed(1000 + 10 * rank + step)  # each rank its own data
    x, y = torch.randn(32, 16, generator=g), torch.randn(32, 1, generator=g)
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(ddp(x), y)
    loss.backward()
    opt.step()
flat = torch.cat([p.detach().flatten() for p in model.parameters()])
every = [torch.zeros_like(flat) for _ in range(world)]
dist.all_gather(every, flat)
same = all(torch.equal(t, every[0]) for t in every)
print(f"rank={rank} world={world} local={os.environ.get('SLURM_LOCALID')} "
      f"node={os.environ.get('SLURMD_NODENAME')} same={same} checksum={flat.sum().item():.6f}",
      flush=True)
dist.barrier()
dist.destroy_process_group()
sys.exit(0 if same else 1)
'''

MPI_PROGRAM = r'''
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The node this rank runs on, as its launcher (hydra_pmi_proxy, an srun task) was told:
   hydra hands the ranks mpiexec's own environment, so the rank's SLURMD_NODENAME is the
   batch host's; the proxy's is the node's. */
static void proxyNode(char* out, size_t size) {
  char path[64], buf[65536];
  snprintf(path, sizeof path, "/proc/%d/environ", (int)getppid());
  strncpy(out, "?", size);
  FILE* f = fopen(path, "r");
  if (!f) return;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  for (size_t i = 0; i < n; i += strlen(buf + i) + 1)
    if (strncmp(buf + i, "SLURMD_NODENAME=", 16) == 0) {
      strncpy(out, buf + i + 16, size - 1);
      out[size - 1] = 0;
    }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long mine = rank + 1, sum = 0;
  MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  char node[64];
  proxyNode(node, sizeof node);
  printf("rank %d of %d on %s sum %ld\n", rank, size, node, sum);
  MPI_Finalize();
  return sum == (long)size * (size + 1) / 2 ? 0 : 1;
}
'''


def job_fields(cluster, job_id):
    return cluster.job_fields(job_id)


def run_batch(cluster, directory, script, *options, timeout=180):
    out = directory / "job.out"
    r = subprocess.run([str(cluster.bin / "sbatch"), "--parsable", "-o", str(out), *options],
                       input=script.encode(), capture_output=True, env=cluster.env(),
                       cwd=str(directory))
    assert r.returncode == 0, r.stderr
    job_id = int(r.stdout.decode().split(";")[0])
    final = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY"}
    f = wait_for(lambda: (f := job_fields(cluster, job_id)).get("JobState") in final and f,
                 timeout, interval=0.5, what=f"job {job_id} to end")
    return job_id, f, out.read_text() if out.exists() else ""


def check_training(output, job_fields_):
    assert job_fields_["JobState"] == "COMPLETED", (job_fields_, output)
    rows = [dict(kv.split("=", 1) for kv in line.split())
            for line in output.splitlines() if line.startswith("rank=")]
    assert sorted(int(r["rank"]) for r in rows) == [0, 1, 2, 3], output
    assert all(r["world"] == "4" and r["same"] == "True" for r in rows), output
    assert len({r["checksum"] for r in rows}) == 1, output
    assert len({r["node"] for r in rows}) == 2, output
    assert sorted(r["local"] for r in rows) == ["0", "0", "1", "1"], output


@pytest.mark.parametrize("init", ["env", "slurm"])
def test_pytorch_ddp_over_two_nodes(cluster, init):
    d = shared_dir(cluster, f"ddp-{init}")
    (d / "ddp.py").write_text(TRAIN)
    # -c 2, not --ntasks-per-node=2, on the job: the controller launches the batch script
    # once per task of the first node (a defect outside srun); srun asks for the layout.
    script = (f"#!/bin/sh\n#SBATCH -N 2\n#SBATCH -c 2\n"
              f"srun -N 2 --ntasks-per-node=2 {PYTHON} ddp.py {init}\n")
    _, f, output = run_batch(cluster, d, script)
    check_training(output, f)


@pytest.mark.skipif(shutil.which("mpicc") is None or shutil.which("mpiexec.hydra") is None,
                    reason="mpich is not installed")
def test_mpich_mpiexec_launches_through_srun(cluster):
    d = shared_dir(cluster, "mpi")
    (d / "allreduce.c").write_text(MPI_PROGRAM)
    subprocess.run(["mpicc", "-O1", "-o", str(d / "allreduce"), str(d / "allreduce.c")],
                   check=True, capture_output=True)
    script = ("#!/bin/sh\n#SBATCH -N 2\n#SBATCH -c 2\n"
              "mpiexec.hydra -launcher slurm -n 4 -ppn 2 ./allreduce\n")
    _, f, output = run_batch(cluster, d, script)
    assert f["JobState"] == "COMPLETED", (f, output)
    rows = re.findall(r"rank (\d) of 4 on (\S+) sum (\d+)", output)
    assert sorted(int(r[0]) for r in rows) == [0, 1, 2, 3], output
    assert all(r[2] == "10" for r in rows), output
    assert len({r[1] for r in rows}) == 2, output
