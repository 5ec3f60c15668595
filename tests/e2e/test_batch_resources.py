"""sbatch's resource, placement and accounting option groups end to end (issue 3): each form
of asking for GPUs, CPUs, memory, tasks and nodes is checked in what the controller allocated
(`scontrol show job` TRES, NumNodes, NumCPUs) and in what the job itself sees (its
SLURM_*/CUDA_VISIBLE_DEVICES variables); -w/-x/-C steer placement; -A/-q/--nice/--comment are
recorded; SBATCH_* input variables sit between the command line and #SBATCH directives, as
Slurm documents. Jobs run as alice on the 4-node cluster of test_batch_options.py (16 CPUs,
64 GiB and 8 GPUs per node, etc/cluster.conf's DefMemPerCPU of 4000 MB)."""

import grp
import os
import pwd
import re

import pytest

from cluster import wait_for
# The cluster fixture, the `work` directory owned by alice and the job helpers are shared
# with the other sbatch option tests.
from test_batch_options import cluster, work, env_of, fields, sbatch, sh, wait_state  # noqa: F401

ENV_SCRIPT = "#!/bin/sh\nenv | grep -E '^(SLURM|CUDA_VISIBLE)' > env-$SLURM_JOB_ID.out\n"


def tres(job_fields):
    """`TRES=cpu=8,mem=16000M,node=1,billing=8,gres/gpu=2` as a dict of strings."""
    return dict(kv.split("=", 1) for kv in job_fields["TRES"].split(","))


def mem_mb(text):
    """Slurm's memory notation (`16000M`, `187.50G`) in MiB."""
    units = {"M": 1, "G": 1024, "T": 1024 * 1024}
    return round(float(text[:-1]) * units[text[-1]])


def run_env(cluster, work, *args, env_extra=None):
    """Submits ENV_SCRIPT with `args`, waits for it to complete and returns its scontrol
    fields (read while it ran: the allocation) and the environment it saw."""
    script = work / "env.sh"
    script.write_text(ENV_SCRIPT)
    job = sbatch(cluster, work, "-o", "/dev/null", *args, str(script), env_extra=env_extra)
    seen = wait_state(cluster, job, {"RUNNING", "COMPLETED"})
    done = wait_state(cluster, job, "COMPLETED")
    out = work / f"env-{job}.out"
    wait_for(out.exists, 10, what=str(out))
    return {**done, "TRES": seen["TRES"]}, env_of(out.read_text())


def gpus_seen(env):
    devices = env.get("CUDA_VISIBLE_DEVICES", "")
    return len(devices.split(",")) if devices else 0


# --- GPUs ------------------------------------------------------------------------------------

@pytest.mark.parametrize("args, total, on_batch_node", [
    (["--gres=gpu:1"], 1, 1),
    (["--gpus=2"], 2, 2),
    (["-N", "2", "--gpus-per-node=3"], 6, 3),
    (["-n", "2", "--gpus-per-task=2"], 4, 4),
    (["-N", "2", "-n", "2", "--gpus-per-task=1"], 2, 1),
])
def test_gpu_request_forms_allocate_and_expose_the_gpus(cluster, work, args, total,
                                                        on_batch_node):
    job, env = run_env(cluster, work, *args)
    assert tres(job)["gres/gpu"] == str(total), job["TRES"]
    assert gpus_seen(env) == on_batch_node, env.get("CUDA_VISIBLE_DEVICES")
    assert len(env["SLURM_JOB_GPUS"].split(",")) == on_batch_node


@pytest.mark.parametrize("args, variables", [
    (["--gpus=h100:2"], {}),  # a type no node has: refused as Slurm (golden 011)
    (["--gpus=2", "--cpus-per-gpu=2", "--mem-per-gpu=100"],
     {"SLURM_GPUS": "2", "SLURM_CPUS_PER_GPU": "2", "SLURM_MEM_PER_GPU": "100"}),
    (["-N", "2", "--gpus-per-node=1"], {"SLURM_GPUS_PER_NODE": "1"}),
    (["-n", "2", "--gpus-per-task=1"], {"SLURM_GPUS_PER_TASK": "1"}),
    (["-n", "2", "--gpus=2", "--gpu-bind=single:1"], {"SLURM_GPUS": "2", "SLURM_GPU_BIND": "single:1"}),
    # --ntasks-per-gpu: the reference's job exported only SLURM_NTASKS_PER_GPU, not the GPU count
    # it derived from -n nor the single:K binding its steps get (checked on it, session 38).
    (["-n", "4", "--ntasks-per-gpu=2"], {"SLURM_NTASKS_PER_GPU": "2"}),
])
def test_gpu_options_are_echoed_in_the_job_environment(cluster, work, args, variables):
    """sbatch(1) OUTPUT ENVIRONMENT VARIABLES: SLURM_GPUS, SLURM_GPUS_PER_NODE,
    SLURM_GPUS_PER_TASK, SLURM_CPUS_PER_GPU, SLURM_MEM_PER_GPU, SLURM_GPU_BIND and
    SLURM_NTASKS_PER_GPU, each only when its option was given."""
    if not variables:
        r = sh(cluster, f"sbatch {' '.join(args)} --wrap=true", work)
        assert r.returncode == 1
        assert r.stderr == ("sbatch: error: Batch job submission failed: "
                            "Requested node configuration is not available\n"), r.stderr
        return
    _, env = run_env(cluster, work, *args)
    echoed = {"SLURM_GPUS", "SLURM_GPUS_PER_NODE", "SLURM_GPUS_PER_TASK", "SLURM_CPUS_PER_GPU",
              "SLURM_MEM_PER_GPU", "SLURM_GPU_BIND", "SLURM_NTASKS_PER_GPU"}
    assert {k: v for k, v in env.items() if k in echoed} == variables


# --- CPUs, memory, tasks and nodes -------------------------------------------------------------

@pytest.mark.parametrize("args, cpus, mem, ntasks, tasks_per_node", [
    (["-n", "2", "-c", "3"], 6, 6 * 4000, "2", "2"),
    (["--gpus=2", "--cpus-per-gpu=4"], 8, 8 * 4000, None, "8"),
    (["-c", "4", "--mem-per-cpu=500"], 4, 2000, None, "1"),
    (["--gpus=2", "--mem-per-gpu=1500"], 1, 3000, None, "1"),
    (["-N", "2", "--ntasks-per-node=2", "--mem=1G"], 4, 2 * 1024, "4", "2(x2)"),
    (["--exclusive", "--mem=2G"], 16, 2 * 1024, None, "16"),
])
def test_cpu_memory_and_task_forms(cluster, work, args, cpus, mem, ntasks, tasks_per_node):
    """The task variables as real Slurm 22.05 set them for these requests (run on the reference
    cluster): SLURM_NTASKS only with -n or --ntasks-per-node; without -n, SLURM_TASKS_PER_NODE
    counts the tasks the node's CPUs hold."""
    job, env = run_env(cluster, work, *args)
    t = tres(job)
    assert (int(t["cpu"]), mem_mb(t["mem"])) == (cpus, mem), job["TRES"]
    assert env.get("SLURM_NTASKS") == ntasks
    assert env["SLURM_TASKS_PER_NODE"] == tasks_per_node


def sacct_memory(cluster, job):
    r = cluster.cli("sacct", "-n", "-P", "-X", "-j", str(job), "-o", "ReqMem,ReqTRES,AllocTRES")
    assert r.returncode == 0, r.stderr
    return r.stdout.strip().split("|")


def test_mem_zero_holds_the_whole_memory_of_its_node(cluster, work):
    """`--mem=0` (sbatch(1): "access to all of the memory on each node"), as the reference Slurm
    ran it: the job holds its node's 64G (scontrol TRES, sacct ReqMem/ReqTRES/AllocTRES),
    MinMemoryNode stays 0, the node is MIXED (CPUs are left), the job sees no
    SLURM_MEM_PER_NODE, and a job asking for memory on that node waits for it (Resources);
    held with -N 2 it asks for 2 x 64G. And sacct prints memory as the reference's did:
    --mem=1536 is 1.50G."""
    script = work / "env-sleep.sh"
    script.write_text(ENV_SCRIPT + "sleep 30\n")
    whole = sbatch(cluster, work, "--mem=0", "-w", "node1", "-o", "/dev/null", str(script))
    other = None
    try:
        f = wait_state(cluster, whole, "RUNNING")
        assert (tres(f)["mem"], f["MinMemoryNode"]) == ("64G", "0"), f
        # Its node is MIXED, not ALLOCATED, while CPUs are left, as the reference's was.
        r = cluster.cli("sinfo", "-h", "-N", "-n", "node1", "-o", "%T")
        assert set(r.stdout.split()) == {"mixed"}, r.stdout  # a line per partition
        other = sbatch(cluster, work, "--mem=1G", "-w", "node1", "-o", "/dev/null", "--wrap=true")
        wait_for(lambda: fields(cluster, other)["Reason"] == "Resources", 15,
                 what=f"job {other} waiting for node1's memory")
        out = work / f"env-{whole}.out"
        wait_for(out.exists, 10, what=str(out))
        env = env_of(out.read_text())
        assert "SLURM_MEM_PER_NODE" not in env and "SLURM_MEM_PER_CPU" not in env, env
        assert sacct_memory(cluster, whole) == ["64G"] + ["billing=1,cpu=1,mem=64G,node=1"] * 2
    finally:
        cluster.cli("scancel", str(whole), *([str(other)] if other else []))
    held = sbatch(cluster, work, "-H", "--mem=0", "-N", "2", "--wrap=true")
    try:
        assert tres(fields(cluster, held))["mem"] == "128G"
        assert sacct_memory(cluster, held)[:2] == ["128G", "billing=2,cpu=2,mem=128G,node=2"]
    finally:
        cluster.cli("scancel", str(held))
    job, _ = run_env(cluster, work, "--mem=1536")
    assert tres(job)["mem"] == "1.50G"
    assert sacct_memory(cluster, job["JobId"]) == ["1.50G"] + ["billing=1,cpu=1,mem=1.50G,node=1"] * 2


def test_node_range_takes_as_many_nodes_as_are_free(cluster, work):
    """`-N 1-2`: scontrol shows the range while the job waits; on an idle cluster it then runs
    on 2 nodes with one task each, as real Slurm 22.05 does (sbatch(1): "as many nodes as
    possible within the range specified and without delaying the initiation of the job")."""
    script = work / "env.sh"
    script.write_text(ENV_SCRIPT)
    job = sbatch(cluster, work, "-H", "-N", "1-2", "-o", "/dev/null", str(script))
    assert fields(cluster, job)["NumNodes"] == "1-2"
    assert cluster.scontrol("release", str(job)).returncode == 0
    done = wait_state(cluster, job, "COMPLETED")
    out = work / f"env-{job}.out"
    wait_for(out.exists, 10, what=str(out))
    env = env_of(out.read_text())
    assert (done["NumNodes"], done["NumTasks"]) == ("2", "2"), done
    assert (env["SLURM_JOB_NUM_NODES"], env["SLURM_TASKS_PER_NODE"]) == ("2", "1(x2)")
    assert "SLURM_NTASKS" not in env


# --- how tasks are laid out over the nodes -----------------------------------------------------

def sacct_cpus(cluster, step):
    """AllocCPUS of a job or step id, as sacct prints it."""
    r = cluster.cli("sacct", "-n", "-P", "-j", step, "-o", "JobID,AllocCPUS")
    rows = dict(line.split("|") for line in r.stdout.splitlines() if "|" in line)
    return rows.get(step)


@pytest.mark.parametrize("args, tasks_per_node, cpus_per_node, nodes", [
    # golden 041: `-N 2 -n 4 -c 2` on idle nodes; batch step AllocCPUS 6 (golden 109).
    (["-N", "2", "-n", "4", "-c", "2"], "3,1", "6,2", "node[1-2]"),
    (["-N", "3", "-n", "7"], "5,1(x2)", "5,1(x2)", "node[1-3]"),
    (["-n", "20"], "16,4", "16,4", "node[1-2]"),
    # -N min-max with -n: as many free nodes as the range allows, at most one per task.
    (["-N", "1-3", "-n", "2"], "1(x2)", "1(x2)", "node[1-2]"),
    (["-N", "1-4", "-n", "6"], "3,1(x3)", "3,1(x3)", "node[1-4]"),
    # ... and the nodes the range added take their tasks from the fullest (4,2 -> 2,2,1,1).
    (["-N", "1-4", "-n", "6", "-c", "4"], "2(x2),1(x2)", "8(x2),4(x2)", "node[1-4]"),
    (["-N", "1-4", "-n", "10", "-c", "4"], "4,3,2,1", "16,12,8,4", "node[1-4]"),
    (["-N", "3-4", "-n", "6", "-c", "4"], "3,1(x3)", "12,4(x3)", "node[1-4]"),
    # Whole nodes split -n evenly, the first taking the remainder.
    (["-N", "2", "-n", "5", "--exclusive"], "3,2", "16(x2)", "node[1-2]"),
])
def test_tasks_fill_the_first_nodes_as_slurm_lays_them_out(cluster, work, args, tasks_per_node,
                                                           cpus_per_node, nodes):
    """Each layout is what real Slurm 22.05 gave the same request on the reference cluster's
    idle 16-CPU nodes: the first nodes as full as they can be, one task left for each later
    node, CPUs following the tasks; the job's record, its environment and the batch step's
    accounting agree."""
    job, env = run_env(cluster, work, *args)
    ntasks = args[args.index("-n") + 1]
    assert job["NodeList"] == nodes, job["NodeList"]
    assert (env["SLURM_TASKS_PER_NODE"], env["SLURM_JOB_CPUS_PER_NODE"]) == \
        (tasks_per_node, cpus_per_node)
    first_cpus = cpus_per_node.split(",")[0].split("(")[0]
    assert env["SLURM_CPUS_ON_NODE"] == first_cpus
    assert env["SLURM_NTASKS"] == ntasks == job["NumTasks"]
    per_node = [int(c) for part in cpus_per_node.split(",")
                for c in ([part.split("(")[0]] * (int(part.split("(x")[1][:-1]) if "(x" in part
                                                  else 1))]
    assert int(job["NumCPUs"]) == sum(per_node) == int(tres(job)["cpu"]), job["TRES"]
    assert wait_for(lambda: sacct_cpus(cluster, f"{job['JobId']}.batch"), 10,
                    what="the batch step in sacct") == first_cpus


def test_fewer_tasks_than_nodes_sets_the_node_count_with_slurms_warning(cluster, work):
    """`-N 3 -n 2`: real Slurm's sbatch warns "sbatch: Warning: can't run 2 processes on 3
    nodes, setting nnodes to 2" and the job gets 2 nodes of one task each (checked on the
    reference cluster)."""
    (work / "env.sh").write_text(ENV_SCRIPT)
    r = sh(cluster, "sbatch --parsable -o /dev/null -N 3 -n 2 env.sh", work)
    assert r.returncode == 0, r.stderr
    assert r.stderr == "sbatch: Warning: can't run 2 processes on 3 nodes, setting nnodes to 2\n"
    job = int(r.stdout.strip())
    done = wait_state(cluster, job, "COMPLETED")
    assert done["NumNodes"] == "2", done["NumNodes"]
    out = work / f"env-{job}.out"
    wait_for(out.exists, 10, what=str(out))
    env = env_of(out.read_text())
    assert (env["SLURM_NNODES"], env["SLURM_TASKS_PER_NODE"]) == ("2", "1(x2)")


def test_busy_first_node_holds_fewer_tasks(cluster, work):
    """With 12 of node1's 16 CPUs taken, `-N 2 -n 4 -c 2` fits 2 tasks there: 2+2 (Slurm laid
    an array task out so, golden 042), never more than the node holds."""
    blocker = sbatch(cluster, work, "-w", "node1", "-c", "12", "-o", "/dev/null", "--wrap=sleep 30")
    wait_state(cluster, blocker, "RUNNING")
    try:
        job, env = run_env(cluster, work, "-N", "2", "-n", "4", "-c", "2", "-w", "node[1-2]")
        assert (env["SLURM_TASKS_PER_NODE"], env["SLURM_JOB_CPUS_PER_NODE"]) == ("2(x2)", "4(x2)")
    finally:
        cluster.cli("scancel", str(blocker))
        wait_state(cluster, blocker, {"CANCELLED", "COMPLETED"})


def test_nodes_holding_less_than_an_even_share_still_serve(cluster, work):
    """Checked on the reference Slurm: with node1 holding one free CPU, `-N 4 -n 6` starts at
    once laid out 1,3,1,1 (no node need hold ceil(6/4) tasks); with node3 also holding only 6,
    `-N 3 -n 30` passes node3 over, as the last node must take 13 tasks: node[1-2,4] at
    1,16,13."""
    blockers = [sbatch(cluster, work, "-w", "node1", "-c", "15", "-o", "/dev/null",
                       "--wrap=sleep 60")]
    try:
        wait_state(cluster, blockers[0], "RUNNING")
        job, env = run_env(cluster, work, "-N", "4", "-n", "6")
        assert job["NodeList"] == "node[1-4]", job["NodeList"]
        assert (env["SLURM_TASKS_PER_NODE"], env["SLURM_JOB_CPUS_PER_NODE"]) == \
            ("1,3,1(x2)", "1,3,1(x2)")
        blockers.append(sbatch(cluster, work, "-w", "node3", "-c", "10", "-o", "/dev/null",
                               "--wrap=sleep 60"))
        wait_state(cluster, blockers[1], "RUNNING")
        job, env = run_env(cluster, work, "-N", "3", "-n", "30")
        assert job["NodeList"] == "node[1-2,4]", job["NodeList"]
        assert env["SLURM_TASKS_PER_NODE"] == "1,16,13", env["SLURM_TASKS_PER_NODE"]
    finally:
        cluster.cli("scancel", *map(str, blockers))
        for b in blockers:
            wait_state(cluster, b, {"CANCELLED", "COMPLETED"})


def test_without_a_node_count_tasks_take_the_fewest_nodes_that_hold_them(cluster, work):
    """The reference Slurm ran `-n 20` on four half-busy 16-CPU nodes at once on node[01-03],
    SLURM_TASKS_PER_NODE=8(x2),4: no two nodes held it, three did."""
    blockers = [sbatch(cluster, work, "-w", f"node{n}", "-c", "8", "-o", "/dev/null",
                       "--wrap=sleep 60") for n in range(1, 5)]
    try:
        for b in blockers:
            wait_state(cluster, b, "RUNNING")
        job, env = run_env(cluster, work, "-n", "20")
        assert job["NodeList"] == "node[1-3]", job["NodeList"]
        assert (env["SLURM_TASKS_PER_NODE"], env["SLURM_JOB_CPUS_PER_NODE"]) == \
            ("8(x2),4", "8(x2),4")
    finally:
        cluster.cli("scancel", *map(str, blockers))
        for b in blockers:
            wait_state(cluster, b, {"CANCELLED", "COMPLETED"})


@pytest.mark.parametrize("args, step_tasks, per_node", [
    # srun runs SLURM_NTASKS over the allocation's CPUs at its own -c (1: srun does not take
    # SLURM_CPUS_PER_TASK), so 3+1 inside `-N 2 -n 4` ...
    (["-N", "2", "-n", "4"], "3,1", {"node1": 3, "node2": 1}),
    # ... and 2+2 inside `-N 2 -n 4 -c 2` (CPUs 6,2), as golden 041's srun -l env shows.
    (["-N", "2", "-n", "4", "-c", "2"], "2(x2)", {"node1": 2, "node2": 2}),
])
def test_srun_inside_a_laid_out_allocation(cluster, work, args, step_tasks, per_node):
    script = work / "steps.sh"
    script.write_text("#!/bin/bash\nsrun -l printenv SLURMD_NODENAME SLURM_STEP_TASKS_PER_NODE"
                      " > srun-$SLURM_JOB_ID.out\n")
    job = sbatch(cluster, work, "-o", "/dev/null", *args, str(script))
    assert wait_state(cluster, job, "COMPLETED")["JobState"] == "COMPLETED"
    lines = (work / f"srun-{job}.out").read_text().split()
    names = [v for v in lines if v.startswith("node")]
    assert {n: names.count(n) for n in set(names)} == per_node, lines
    assert set(v for v in lines if v[0].isdigit() and not v.endswith(":")) == {step_tasks}, lines


# --- placement -------------------------------------------------------------------------------

@pytest.mark.parametrize("args, nodelist", [
    (["-w", "node3"], "node3"),
    (["-N", "2", "--nodelist=node[2,4]"], "node[2,4]"),
    (["-x", "node[1-3]"], "node4"),
    (["-N", "3", "--exclude=node2"], "node[1,3-4]"),
])
def test_nodelist_and_exclude_choose_the_nodes(cluster, work, args, nodelist):
    job, env = run_env(cluster, work, *args)
    assert job["NodeList"] == nodelist and env["SLURM_JOB_NODELIST"] == nodelist


@pytest.fixture
def featured(cluster):
    """Every node tagged `ib` (features of the one node block); restored afterwards."""
    original = cluster.conf.read_text()
    assert "    features: []" in original
    cluster.conf.write_text(original.replace("    features: []", "    features: [ib, h100]"))
    assert cluster.scontrol("reconfigure").returncode == 0
    yield
    cluster.conf.write_text(original)
    assert cluster.scontrol("reconfigure").returncode == 0


@pytest.mark.parametrize("constraint", ["ib", "ib&h100", "h100|ib"])
def test_constraint_runs_on_nodes_with_the_features(cluster, work, featured, constraint):
    job, _ = run_env(cluster, work, "-C", constraint)
    assert job["Features"] == constraint


def test_unknown_feature_is_refused_and_leaves_no_job(cluster, work, featured):
    """Slurm checks every feature named, also in an `|` list."""
    before = cluster.cli("squeue", "-h", "-t", "all", "-o", "%i").stdout.split()
    r = sh(cluster, "sbatch -C 'ib|nvme' --wrap=true", work)
    assert r.returncode == 1
    assert r.stderr == ("sbatch: error: Batch job submission failed: "
                        "Invalid feature specification\n"), r.stderr
    assert cluster.cli("squeue", "-h", "-t", "all", "-o", "%i").stdout.split() == before


def test_prefer_is_shown_until_a_start_uses_it(cluster, work, featured):
    """As the reference's --prefer (2026-12-03): its own `Prefer=` line while the job waits,
    squeue's Prefer field; a start on nodes that have the features makes them the job's
    Features and clears the preference; features no node has are refused."""
    held = sbatch(cluster, work, "-H", "--prefer=ib", "-o", "/dev/null", "--wrap=true")
    show = cluster.scontrol("show", "job", str(held)).stdout
    assert re.search(r"^   Features=\(null\) DelayBoot=00:00:00\n   Prefer=ib$", show, re.M), show
    r = cluster.cli("squeue", "-h", "-j", str(held), "-O", "Feature:10,Prefer:10")
    assert r.stdout.split() == ["(null)", "ib"], r
    assert cluster.scontrol("release", str(held)).returncode == 0
    done = cluster.wait_job(held, ["COMPLETED"], 30)
    assert done["Features"] == "ib"
    assert "Prefer=" not in cluster.scontrol("show", "job", str(held)).stdout
    acct = cluster.cli("sacct", "-n", "-P", "-X", "-j", str(held), "-o", "Constraints")
    assert acct.stdout.split() == ["ib"], acct

    r = sh(cluster, "sbatch --prefer=nvme --wrap=true", work)
    assert (r.returncode, r.stdout) == (1, "")
    assert r.stderr == ("sbatch: error: Batch job submission failed: "
                        "Invalid preferred feature specification\n"), r.stderr


# --- what is recorded ---------------------------------------------------------------------

def test_account_qos_nice_and_comment_are_recorded(cluster, work):
    job = sbatch(cluster, work, "-H", "-A", "research", "-q", "normal", "--nice=50",
                 "--comment=nightly eval run", "-o", "/dev/null", "--wrap=true")
    f = fields(cluster, job)
    assert (f["Account"], f["QOS"], f["Nice"]) == ("research", "normal", "50")
    show = cluster.scontrol("show", "job", str(job)).stdout
    assert re.search(r"^   Comment=nightly eval run$", show, re.M), show
    r = cluster.cli("squeue", "-h", "-j", str(job), "-o", "%a|%q|%y|%k")
    assert r.stdout.strip() == "research|normal|50|nightly eval run"
    cluster.cli("scancel", str(job))


def test_unknown_account_is_refused(cluster, work):
    r = sh(cluster, "sbatch -A nosuchaccount --wrap=true", work)
    assert r.returncode == 1
    assert "Invalid account or account/partition combination specified" in r.stderr


# --- input variables: command line > SBATCH_* > #SBATCH ----------------------------------

def test_input_variables_sit_between_command_line_and_directives(cluster, work):
    script = work / "directives.sh"
    script.write_text("#!/bin/sh\n#SBATCH -p gpu\n#SBATCH -t 10\n#SBATCH -J fromdirective\n"
                      "#SBATCH -A research\ntrue\n")
    env = {"SBATCH_PARTITION": "debug", "SBATCH_TIMELIMIT": "5", "SBATCH_ACCOUNT": "research",
           "SBATCH_JOB_NAME": "fromenv"}
    job = sbatch(cluster, work, "-H", "-t", "7", "-o", "/dev/null", str(script), env_extra=env)
    f = fields(cluster, job)
    assert (f["Partition"], f["TimeLimit"], f["JobName"], f["Account"]) == \
        ("debug", "00:07:00", "fromenv", "research")
    cluster.cli("scancel", str(job))

    # Without the variables the directives apply.
    job = sbatch(cluster, work, "-H", "-o", "/dev/null", str(script))
    f = fields(cluster, job)
    assert (f["Partition"], f["TimeLimit"], f["JobName"]) == ("gpu", "00:10:00", "fromdirective")
    cluster.cli("scancel", str(job))


def test_bad_input_variable_is_an_error_naming_the_option(cluster, work):
    """A bad SBATCH_TIMELIMIT reads as a bad --time (golden 012: exit 255)."""
    r = sh(cluster, "sbatch --wrap=true", work, {"SBATCH_TIMELIMIT": "soon"})
    assert (r.returncode, r.stderr) == (255, "sbatch: error: Invalid --time specification\n")


# --- what the reference refuses, and values it takes ----------------------------------------

@pytest.mark.parametrize("args, code, stderr", [
    ("--gpus-per-task=1",
     1, "sbatch: error: Failed to validate job spec. --gpus-per-task used without either --gpus "
        "or -n/--ntasks is not allowed.\n"
        "sbatch: error: Invalid generic resource (gres) specification\n"),
    ("--mem-per-gpu=100M",
     1, "sbatch: error: Requested mem_per_tres=gres:gpu:100 but did not request any GPU.\n"
        "sbatch: error: Invalid generic resource (gres) specification\n"),
    ("--gpus=3 --gpus-per-node=2",
     1, "sbatch: error: Failed to validate job spec, --gpus is not multiple of "
        "--gres=gpu/--gpus-per-node\n"
        "sbatch: error: Invalid generic resource (gres) specification\n"),
    ("--uid=bob", 255, "sbatch: error: --uid only permitted by root user\n"),
    ("--gid=users", 255, "sbatch: error: --gid only permitted by root user\n"),
    ("--reboot", 1, "sbatch: error: rebooting of nodes is only allowed for admins\n"
                    "sbatch: error: Batch job submission failed: Access/permission denied\n"),
    ("--licenses=matlab:1", 1, "sbatch: error: Batch job submission failed: "
                               "Invalid license specification\n"),
], ids=["gpus-per-task", "mem-per-gpu", "gpus-per-node", "uid", "gid", "reboot", "licenses"])
def test_refused_requests_leave_no_job(cluster, work, args, code, stderr):
    """Each as sbatch 22.05 answered alice (2026-12-03)."""
    before = cluster.cli("squeue", "-h", "-t", "all", "-o", "%i").stdout.split()
    r = sh(cluster, f"sbatch {args} --wrap=true", work)
    assert (r.returncode, r.stderr) == (code, stderr)
    assert cluster.cli("squeue", "-h", "-t", "all", "-o", "%i").stdout.split() == before


def test_values_the_reference_takes(cluster, work):
    """`-t 1-` is a day, `%0` no array throttle, `--gres=gpu:0` no GPU, `--nice` reads as
    strtol does ("abc" 0, "5abc" 5): the reference ran each of them."""
    job = sbatch(cluster, work, "-H", "-t", "1-", "--nice=5abc", "--wrap=true")
    f = fields(cluster, job)
    assert (f["TimeLimit"], f["Nice"]) == ("1-00:00:00", "5")
    cluster.cli("scancel", str(job))
    assert fields(cluster, sbatch(cluster, work, "-H", "--nice=abc", "--wrap=true"))["Nice"] == "0"

    array = sbatch(cluster, work, "--array=0-2%0", "-o", "/dev/null", "--wrap=sleep 2")
    wait_for(lambda: len(cluster.cli("squeue", "-h", "-t", "R", "-j", str(array), "-o", "%i")
                         .stdout.split()) == 3, 20, what="all three tasks running at once")

    done, env = run_env(cluster, work, "--gres=gpu:0")
    assert "gres/gpu" not in done["TRES"]
    assert gpus_seen(env) == 0
    r = cluster.cli("squeue", "-h", "-t", "all", "-j", str(done["JobId"]), "-o", "%b")
    assert r.stdout.strip() == "gres:gpu:0"


@pytest.mark.skipif(os.geteuid() != 0, reason="--uid is root's")
def test_root_submits_for_a_user_with_uid_and_gid(cluster, work):
    """The job is alice's: it runs as her, in her primary group, or in the --gid one, and is
    listed and accounted as hers. A name nobody has is refused by the controller."""
    script = "id -un; id -gn"
    runs = {}
    for extra in ([], ["--gid=users"]):
        r = cluster.cli("sbatch", "--parsable", "--uid=alice", *extra, "-o", f"{work}/id-%j.out",
                        f"--wrap={script}", cwd=work)
        assert r.returncode == 0, r.stderr
        runs[tuple(extra)] = int(r.stdout.strip())
    for extra, job in runs.items():
        wait_state(cluster, job, "COMPLETED")
        out = work / f"id-{job}.out"
        wait_for(out.exists, 10, what=str(out))
        group = "users" if extra else grp.getgrgid(pwd.getpwnam("alice").pw_gid).gr_name
        assert out.read_text().split() == ["alice", group]
        assert cluster.cli("squeue", "-h", "-t", "all", "-j", str(job), "-o", "%u").stdout.strip() == "alice"
    r = cluster.cli("sbatch", "--uid=nosuchuser", "--wrap=true", cwd=work)
    assert (r.returncode, r.stderr) == (1, "sbatch: error: Batch job submission failed: Invalid user id\n")


def test_per_tres_requests_are_shown_as_the_reference_shows_them(cluster, work):
    """scontrol's CpusPerTres=, MemPerTres=, TresBind=, TresPerJob=, TresPerTask= lines and
    squeue's -O fields of the same, as the reference's for the same request."""
    job = sbatch(cluster, work, "-H", "-n", "2", "--gpus=2", "--gpus-per-task=1", "--cpus-per-gpu=2",
                 "--mem-per-gpu=1G", "--gpu-bind=closest", "--wrap=true")
    show = cluster.scontrol("show", "job", str(job)).stdout
    for line in ("CpusPerTres=gres:gpu:2", "MemPerTres=gres:gpu:1024", "TresBind=gpu:closest",
                 "TresPerJob=gres:gpu:2", "TresPerTask=gres:gpu:1"):
        assert re.search(rf"^   {line}$", show, re.M), (line, show)
    r = cluster.cli("squeue", "-h", "-j", str(job), "-O",
                    "cpus-per-tres,mem-per-tres,tres-bind,tres-per-job,tres-per-task,tres-per-node")
    assert r.stdout.split() == ["gres:gpu:2", "gres:gpu:1024", "gpu:closest", "gres:gpu:2",
                                "gres:gpu:1", "N/A"], r.stdout
    cluster.cli("scancel", str(job))
