"""srun --mpi=pmi2 end to end on a local cluster of 3 agents: each node's supervisor answers its
tasks' PMI requests (PMI-1 lines and PMI-2 frames on the socket PMI_FD names) and srun joins the
nodes' fences (src/pmi). Real clients only: mpich's libmpich (its PMI-1 client) in a C program
whose ranks allreduce and count their node's ranks through MPI's shared-memory communicator
(which MPICH builds from PMI_process_mapping), over block, cyclic, uneven and one-node layouts;
Slurm's own PMI-2 client library (libpmi2) putting, fencing and reading keys with ';' in them,
the process mapping, node attributes and its PMIX_Ring; MPI_Abort ending the whole step as Slurm's srun does;
srun --mpi=list and the types Drover does not serve."""

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from cluster import shared_dir

MPI_PROGRAM = r'''
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0, local = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &local);
  long mine = rank + 1, sum = 0;
  MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  printf("rank=%d size=%d node=%s local=%d sum=%ld pmi_rank=%s pmi_size=%s jobid=%s type=%s\n",
         rank, size, getenv("SLURMD_NODENAME"), local, sum, getenv("PMI_RANK"),
         getenv("PMI_SIZE"), getenv("PMI_JOBID"), getenv("SLURM_MPI_TYPE"));
  MPI_Comm_free(&node);
  MPI_Finalize();
  return 0;
}
'''

ABORT_PROGRAM = r'''
#include <mpi.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 1) MPI_Abort(MPI_COMM_WORLD, 7);
  sleep(60);
  MPI_Finalize();
  return 0;
}
'''

PMI2_PROGRAM = r'''
#include <slurm/pmi2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
  int spawned = 0, size = 0, rank = 0, appnum = 0;
  if (PMI2_Init(&spawned, &size, &rank, &appnum) != PMI2_SUCCESS) {
    fprintf(stderr, "PMI2_Init failed\n");
    return 2;
  }
  char jobid[64] = "", key[64], value[256], got[1024], map[1024] = "", leader[256] = "";
  int len = 0, found = 0, cards = 0;
  PMI2_Job_GetId(jobid, sizeof jobid);
  snprintf(key, sizeof key, "card-%d", rank);
  snprintf(value, sizeof value, "node=%s;rank=%d", getenv("SLURMD_NODENAME"), rank);
  if (PMI2_KVS_Put(key, value) != PMI2_SUCCESS) return 3;
  if (PMI2_KVS_Fence() != PMI2_SUCCESS) return 4;
  for (int r = 0; r < size; ++r) {
    snprintf(key, sizeof key, "card-%d", r);
    if (PMI2_KVS_Get(jobid, PMI2_ID_NULL, key, got, sizeof got, &len) == PMI2_SUCCESS &&
        strstr(got, "node=") == got && atoi(strstr(got, ";rank=") + 6) == r)
      ++cards;
  }
  PMI2_Info_GetJobAttr("PMI_process_mapping", map, sizeof map, &found);
  if (atoi(getenv("SLURM_LOCALID")) == 0) PMI2_Info_PutNodeAttr("leader", getenv("SLURMD_NODENAME"));
  PMI2_Info_GetNodeAttr("leader", leader, sizeof leader, &found, 1);
  if (PMI2_KVS_Fence() != PMI2_SUCCESS) return 5;
  char mine[64], left[64] = "", right[64] = "";
  int place = -1, places = -1;
  snprintf(mine, sizeof mine, "v%d", rank);
  if (PMIX_Ring(mine, &place, &places, left, right, sizeof left) != PMI2_SUCCESS) return 6;
  printf("rank=%d size=%d spawned=%d appnum=%d jobid=%s cards=%d leader=%s map=%s ring=%d/%d "
         "left=%s right=%s\n", rank, size, spawned, appnum, jobid, cards, leader, map, place,
         places, left, right);
  fflush(stdout);
  PMI2_Finalize();
  return 0;
}
'''

MPICC = shutil.which("mpicc")
needs_mpich = pytest.mark.skipif(MPICC is None, reason="mpich is not installed")


def build(cluster, name, source, *libs, compiler="mpicc"):
    d = shared_dir(cluster, "pmi")
    (d / f"{name}.c").write_text(source)
    subprocess.run([compiler, "-O1", "-o", str(d / name), str(d / f"{name}.c"), *libs],
                   check=True, capture_output=True)
    os.chmod(d / name, 0o755)
    return d


def srun(cluster, d, *args, timeout=90):
    """srun as an unprivileged user (nobody) in `d`."""
    return subprocess.run([str(cluster.bin / "srun"), *args], capture_output=True, text=True,
                          env=cluster.env(), timeout=timeout, cwd=str(d), user="nobody")


def rows(output):
    return [dict(kv.split("=", 1) for kv in line.split())
            for line in output.splitlines() if line.startswith("rank=")]


@needs_mpich
@pytest.mark.parametrize("layout,size,per_node", [
    (["-N2", "--ntasks-per-node=2"], 4, [2, 2]),      # block: (vector,(0,2,2))
    (["-N2", "--ntasks-per-node=2", "-m", "cyclic"], 4, [2, 2]),  # a triple per round
    (["-N3", "-n5"], 5, [1, 1, 3]),                   # 3+1+1, as the reference laid it out
    (["-N1", "-n3"], 3, [3]),                         # one node: fences without srun
])
def test_mpich_ranks_meet_through_the_pmi_of_srun_and_the_supervisors(cluster, layout, size,
                                                                       per_node):
    d = build(cluster, "allreduce", MPI_PROGRAM)
    r = srun(cluster, d, "--mpi=pmi2", *layout, "./allreduce")
    assert r.returncode == 0, (r.stdout, r.stderr)
    got = rows(r.stdout)
    assert sorted(int(x["rank"]) for x in got) == list(range(size)), r.stdout
    for x in got:
        assert x["size"] == str(size) and x["sum"] == str(size * (size + 1) // 2), x
        # Slurm's variables, as its pmi2 plugin sets them.
        assert x["pmi_rank"] == x["rank"] and x["pmi_size"] == str(size), x
        assert re.fullmatch(r"\d+\.0", x["jobid"]) and x["type"] == "pmi2", x
    # MPICH's shared-memory communicator holds the ranks its node has: it read them from
    # PMI_process_mapping.
    on_node = {}
    for x in got:
        on_node.setdefault(x["node"], []).append(int(x["rank"]))
    for x in got:
        assert int(x["local"]) == len(on_node[x["node"]]), (x, on_node)
    assert sorted(len(v) for v in on_node.values()) == per_node, on_node
    if "cyclic" in layout:
        assert all(len({r % 2 for r in ranks}) == 1 for ranks in on_node.values()), on_node


@pytest.mark.skipif(not Path("/usr/include/slurm/pmi2.h").exists(),
                    reason="Slurm's PMI-2 client library (libpmi2-0-dev) is not installed")
def test_slurms_own_pmi2_client_library_puts_fences_gets_and_rings(cluster):
    d = build(cluster, "pmi2check", PMI2_PROGRAM, "-lpmi2", compiler="cc")
    r = srun(cluster, d, "--mpi=pmi2", "-N2", "--ntasks-per-node=2", "./pmi2check")
    assert r.returncode == 0, (r.stdout, r.stderr)
    got = rows(r.stdout)
    assert sorted(int(x["rank"]) for x in got) == [0, 1, 2, 3], r.stdout
    for x in got:
        assert x["size"] == "4" and x["spawned"] == "0" and x["appnum"] == "0", x
        assert x["cards"] == "4", x                          # every rank's key, ';' kept
        assert x["map"] == "(vector,(0,2,2))", x
        assert x["leader"].startswith("node"), x
        assert re.fullmatch(r"\d+\.0", x["jobid"]), x
        # PMIX_Ring, Slurm's extension: places by rank, neighbours' values wrapping.
        r_ = int(x["rank"])
        assert x["ring"] == f"{r_}/4", x
        assert (x["left"], x["right"]) == (f"v{(r_ - 1) % 4}", f"v{(r_ + 1) % 4}"), x
    assert len({x["leader"] for x in got}) == 2, got          # one per node


@needs_mpich
def test_mpi_abort_ends_the_whole_step(cluster):
    d = build(cluster, "aborter", ABORT_PROGRAM)
    started = time.monotonic()
    r = srun(cluster, d, "--mpi=pmi2", "-N2", "-n3", "./aborter")
    elapsed = time.monotonic() - started
    # The other ranks sleep a minute: they were killed, as the reference's step.
    assert elapsed < 30, (elapsed, r.stderr)
    assert r.returncode != 0, r.stderr
    assert "srun: Job step aborted: Waiting up to 32 seconds for job step to finish." in r.stderr
    assert "application called MPI_Abort(MPI_COMM_WORLD, 7)" in r.stderr, r.stderr
    # srun had the controller cancel the step: each node's supervisor says so, as slurmstepd.
    assert re.search(r"drover-stepd-node\d: error: \*\*\* STEP \d+\.0 ON node\d CANCELLED AT ",
                     r.stderr), r.stderr
    assert re.search(r"srun: error: node\d: tasks? [0-9,-]+: Killed", r.stderr), r.stderr


def test_mpi_list_and_the_types_drover_does_not_serve(cluster):
    r = cluster.cli("srun", "--mpi=list")
    assert (r.returncode, r.stdout) == (0, "MPI plugin types are...\n\tnone\n\tpmi2\n"), r
    for unserved in ("pmix", "cray_shasta"):
        r = cluster.cli("srun", f"--mpi={unserved}", "-n1", "true")
        assert r.returncode == 1, r
        assert (f"srun: error: Invalid MPI type '{unserved}', --mpi=list for acceptable types"
                in r.stderr), r.stderr
    # Without --mpi, no PMI: nothing for a PMI client to find.
    r = cluster.cli("srun", "-n1", "env")
    assert r.returncode == 0, r.stderr
    assert "PMI_FD=" not in r.stdout and "SLURM_MPI_TYPE" not in r.stdout
    # SLURM_MPI_TYPE is srun's input variable for --mpi, below the command line.
    env = dict(cluster.env(), SLURM_MPI_TYPE="pmi2")
    r = subprocess.run([str(cluster.bin / "srun"), "-n1", "env"], capture_output=True, text=True,
                       env=env, timeout=30, cwd=str(cluster.run_dir))
    assert r.returncode == 0 and re.search(r"^PMI_FD=\d+$", r.stdout, re.M), (r.stdout, r.stderr)
    r = subprocess.run([str(cluster.bin / "srun"), "--mpi=none", "-n1", "env"], capture_output=True,
                       text=True, env=env, timeout=30, cwd=str(cluster.run_dir))
    assert r.returncode == 0 and "PMI_FD=" not in r.stdout, (r.stdout, r.stderr)


def test_mpi_default_of_cluster_conf_is_srun_s_type_when_none_is_given(cluster):
    """steps.mpi_default (Slurm's MpiDefault), read by srun from the cluster.conf it uses."""
    text = Path(cluster.conf).read_text()
    assert "\nsteps:" not in text
    conf = Path(cluster.run_dir) / "cluster-mpi-default.conf"
    conf.write_text(text + "\nsteps:\n  mpi_default: pmi2\n")
    r = cluster.cli("srun", "-n1", "env", conf=conf)
    assert r.returncode == 0 and re.search(r"^PMI_FD=\d+$", r.stdout, re.M), (r.stdout, r.stderr)
    r = cluster.cli("srun", "--mpi=none", "-n1", "env", conf=conf)
    assert r.returncode == 0 and "PMI_FD=" not in r.stdout, (r.stdout, r.stderr)
    r = cluster.cli("scontrol", "show", "config", conf=conf)
    assert re.search(r"^MpiDefault\s+= pmi2$", r.stdout, re.M), r.stdout
    r = cluster.cli("scontrol", "show", "config")
    assert re.search(r"^MpiDefault\s+= none$", r.stdout, re.M), r.stdout
    conf.write_text(text + "\nsteps:\n  mpi_default: pmix\n")
    r = cluster.cli("srun", "-n1", "true", conf=conf)
    assert r.returncode == 1 and "steps.mpi_default" in r.stderr, r.stderr
