"""scontrol update PartitionName= end to end on a local cluster of 2 agents (partitions gpu,
the default, over both and debug over node1-2 with a 30 minute MaxTime), against what the
reference Slurm 22.05 answered side by side (2026-12-03, shared/slurm-reference): the four
states and what each does to new and queued jobs (sbatch's refusal, a list losing its drained
partition, PartitionDown/PartitionInactive, srun told the partition is down), MaxTime with a
waiting job, the default partition moved and taken away, the node list, a user's and bad
updates refused, and `scontrol reconfigure` reading cluster.conf's settings back."""

import re
import subprocess

import pytest

from cluster import ensure_users, wait_for
from conftest import run_cluster

REFUSED_DRAIN = ("sbatch: error: Batch job submission failed: Required partition not "
                 "available (inactive or drain)\n")


@pytest.fixture(scope="module")
def cluster(request):
    ensure_users(("alice",))
    yield from run_cluster(request, nodes=2, gpus_per_node=0, heartbeat=1, node_down=4)


def update(cluster, *specs, user=None):
    return cluster.scontrol("update", *specs, user=user)


def set_partition(cluster, *specs):
    r = update(cluster, "PartitionName=debug", *specs)
    assert (r.returncode, r.stderr) == (0, ""), r.stderr


def part(cluster, name="debug"):
    r = cluster.scontrol("show", "partition", "-o", name)
    assert r.returncode == 0, r.stderr
    return dict(m.groups() for m in re.finditer(r"(?:^|\s)([\w/:]+)=(\S*)", r.stdout))


def sbatch(cluster, *args):
    return cluster.cli("sbatch", "--parsable", "-o", "/dev/null", *args, user="alice")


def submitted(cluster, *args):
    r = sbatch(cluster, *args)
    assert r.returncode == 0, r.stderr
    return int(r.stdout.split(";")[0])


def squeue(cluster, job, fmt):
    return cluster.cli("squeue", "-h", "-j", str(job), "-o", fmt).stdout.strip()


def wait_reason(cluster, job, reason):
    wait_for(lambda: squeue(cluster, job, "%r") == reason, 15, what=f"job {job} to wait for {reason}")


@pytest.fixture(autouse=True)
def from_cluster_conf(cluster):
    """Each test starts from cluster.conf's partitions, and leaves no job behind."""
    yield
    cluster.cli("scancel", "-u", "alice")
    assert cluster.scontrol("reconfigure").returncode == 0


def test_states_and_what_they_do_to_jobs(cluster):
    r = update(cluster, "PartitionName=debug", "State=DOWN", user="alice")
    assert (r.returncode, r.stderr) == (1, "slurm_update error: Invalid user id\n")
    assert part(cluster)["State"] == "UP"

    # DOWN: jobs are taken and wait.
    set_partition(cluster, "State=DOWN")
    assert part(cluster)["State"] == "DOWN"
    assert cluster.sinfo("-h", "-p", "debug", "-o", "%a").stdout.strip() == "down"
    queued = submitted(cluster, "-p", "debug", "--wrap=true")
    wait_reason(cluster, queued, "PartitionDown")
    # Told so, then waiting; a signal revokes the allocation in the reference's words.
    for tool, sig, lines in (
            ("srun", "TERM", "srun: Partition in DOWN state\nsrun: job (\\d+) queued and waiting "
                             "for resources\nsrun: Job allocation \\1 has been revoked\n"
                             "srun: Force Terminated JobId=\\1\n"),
            ("salloc", "INT", "salloc: Partition in DOWN state\nsalloc: Pending job allocation "
                              "(\\d+)\nsalloc: job \\1 queued and waiting for resources\n"
                              "salloc: Job allocation \\1 has been revoked.\n"
                              "salloc: Job aborted due to signal\n")):
        r = subprocess.run(["timeout", "-s", sig, "3", str(cluster.bin / tool), "-p", "debug",
                            "true"], capture_output=True, text=True, env=cluster.env(),
                           cwd="/tmp", user="alice", timeout=30)
        assert re.fullmatch(lines, r.stderr), r.stderr

    # INACTIVE: none taken, none run; a list drops it.
    set_partition(cluster, "State=in")
    assert cluster.sinfo("-h", "-p", "debug", "-o", "%a").stdout.strip() == "inact"
    r = sbatch(cluster, "-p", "debug", "--wrap=true")
    assert (r.returncode, r.stdout, r.stderr) == (1, "", REFUSED_DRAIN)
    wait_reason(cluster, queued, "PartitionInactive")
    listed = submitted(cluster, "-H", "-p", "debug,gpu", "--wrap=true")
    assert squeue(cluster, listed, "%P") == "gpu"

    # DRAIN: none taken, the queued ones run.
    set_partition(cluster, "State=DRAIN")
    r = sbatch(cluster, "-p", "debug", "--wrap=true")
    assert (r.returncode, r.stderr) == (1, REFUSED_DRAIN)
    cluster.wait_job(queued, "COMPLETED")

    set_partition(cluster, "State=UP")
    cluster.wait_job(submitted(cluster, "-p", "debug", "--wrap=true"), "COMPLETED")


def test_limits_default_and_nodes_until_reconfigure(cluster):
    waiting = submitted(cluster, "-H", "-p", "debug", "-t", "20", "--wrap=true")
    set_partition(cluster, "MaxTime=5")
    assert part(cluster)["MaxTime"] == "00:05:00"
    assert cluster.sinfo("-h", "-p", "debug", "-o", "%l").stdout.strip() == "5:00"
    for over in (("-t", "10"), ()):  # its DefaultTime (10 minutes) is over it too
        r = sbatch(cluster, "-p", "debug", *over, "--wrap=true")
        assert r.returncode == 1 and "Requested time limit is invalid" in r.stderr, r.stderr
    assert cluster.scontrol("release", str(waiting)).returncode == 0
    wait_reason(cluster, waiting, "PartitionTimeLimit")

    # The default moves with Default=YES, and Default=NO leaves none.
    set_partition(cluster, "Default=yes")
    assert (part(cluster)["Default"], part(cluster, "gpu")["Default"]) == ("YES", "NO")
    assert squeue(cluster, submitted(cluster, "-H", "-t", "5", "--wrap=true"), "%P") == "debug"
    set_partition(cluster, "Default=NO")
    r = sbatch(cluster, "--wrap=true")
    assert (r.returncode, r.stderr) == (1, "sbatch: error: Batch job submission failed: No "
                                           "partition specified or system default partition\n")

    set_partition(cluster, "Nodes=node2")
    assert (part(cluster)["Nodes"], part(cluster)["TotalNodes"]) == ("node2", "1")
    r = update(cluster, "PartitionName=debug", "Nodes=node[2-9]")
    assert (r.returncode, r.stderr) == (1, "slurm_update error: Invalid node name specified\n")
    r = update(cluster, "PartitionName=nosuch", "State=UP")
    assert (r.returncode, r.stderr) == (1, "slurm_update error: Invalid partition name specified\n")
    r = update(cluster, "PartitionName=debug", "MaxTime=bogus")
    assert (r.returncode, r.stderr) == (1, "scontrol: error: Invalid input MaxTime=bogus\n"
                                           "slurm_update error: No error\n")
    r = update(cluster, "State=UP")
    assert r.returncode == 1 and r.stderr.startswith("No valid entity in update command\n"), r.stderr

    # cluster.conf's settings come back, as the reference's reconfigure brought slurm.conf's.
    assert cluster.scontrol("reconfigure").returncode == 0
    debug = part(cluster)
    assert (debug["MaxTime"], debug["Default"], debug["Nodes"]) == ("00:30:00", "NO", "node[1-2]")
    assert part(cluster, "gpu")["Default"] == "YES"


def test_create_and_delete(cluster):
    r = cluster.scontrol("create", "PartitionName=extra", "Nodes=node2", "MaxTime=20")
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    assert cluster.sinfo("-h", "-p", "extra", "-o", "%P %a %l %D %N").stdout == \
        "extra up 20:00 1 node2\n"
    extra = part(cluster, "extra")
    assert (extra["DefaultTime"], extra["Default"], extra["State"]) == ("NONE", "NO", "UP")
    r = cluster.scontrol("create", "PartitionName=extra")
    assert (r.returncode, r.stderr) == (1, "Error creating the partition: Invalid partition "
                                           "name specified\n")
    r = cluster.scontrol("create", "PartitionName=extra2", user="alice")
    assert (r.returncode, r.stderr) == (1, "Error creating the partition: Invalid user id\n")

    # A job there keeps it; once gone, the partition can go.
    job = submitted(cluster, "-H", "-p", "extra", "--wrap=true")
    r = cluster.scontrol("delete", "PartitionName=extra")
    assert (r.returncode, r.stderr) == (1, "delete_partition PartitionName=extra: Partition is "
                                           "in use\n")
    assert cluster.cli("scancel", str(job), user="alice").returncode == 0
    wait_for(lambda: not squeue(cluster, job, "%i"), 15, what=f"job {job} to leave the queue")
    r = cluster.scontrol("delete", "PartitionName=extra")
    assert (r.returncode, r.stderr) == (0, "")
    assert cluster.sinfo("-h", "-p", "extra").stdout == ""
    r = cluster.scontrol("delete", "Partition=extra")
    assert (r.returncode, r.stderr) == (1, "delete_partition Partition=extra: Invalid partition "
                                           "name specified\n")
    r = sbatch(cluster, "-p", "extra", "--wrap=true")
    assert r.returncode == 1 and "invalid partition specified: extra" in r.stderr, r.stderr
