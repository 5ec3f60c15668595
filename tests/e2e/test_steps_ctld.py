"""The controller's side of srun/salloc, driven without srun: an interactive allocation
(SubmitJob batch=false), AwaitAllocation, CreateStep with per-task output patterns on 2 nodes x
2 tasks, the tasks' environment (Slurm's step variables and PyTorch's), scancel JOB.STEP, and
CompleteAllocation, checked in sacct. The RPCs go over the frame transport through
drover-e2e-rawcall with the request in protobuf text format."""

import re
import subprocess
import time
from pathlib import Path

from cluster import cli_port, shared_dir, wait_for


def rpc(cluster, method, request_text, timeout=60):
    exe = cluster.build / "tests" / "drover-e2e-rawcall"
    r = subprocess.run([str(exe), f"127.0.0.1:{cli_port(cluster)}", "frame",
                        str(cluster.run_dir / "munge" / "munge.socket"), method],
                       input=request_text, capture_output=True, text=True, timeout=timeout)
    assert r.returncode in (0, 1), r.stderr
    first, _, rest = r.stdout.partition("\n")
    return first, rest


def ok(cluster, method, request_text):
    status, body = rpc(cluster, method, request_text)
    assert status == "OK", f"{method}: {status}"
    return body


def field(body, name):
    """First top-level-or-nested `name: value` in a text-format reply."""
    m = re.search(rf"^\s*{name}: (.+)$", body, re.M)
    return m.group(1).strip().strip('"') if m else None


def submit_allocation(cluster, nodes, work_dir, minutes=10, exclusive=False):
    # Two tasks on every node: --ntasks-per-node keeps the layout even (-n alone would fill
    # the first node, 3+1 for two nodes, as Slurm does).
    body = ok(cluster, "SubmitJob", f"""
spec {{
  name: "alloc"
  exclusive: {"true" if exclusive else "false"}
  batch: false
  min_nodes: {nodes}
  ntasks: {2 * nodes}
  ntasks_per_node: 2
  time_limit_min: {minutes}
  work_dir: "{work_dir}"
  environment {{ key: "PATH" value: "/usr/bin:/bin" }}
}}""")
    return int(field(body, "job_id"))


def await_allocation(cluster, job_id, timeout_ms):
    body = ok(cluster, "AwaitAllocation", f"job_id: {job_id} timeout_ms: {timeout_ms}")
    return field(body, "state") or "JOB_PENDING", body


def create_step(cluster, job_id, work_dir, command, std_out="", extra=""):
    argv = "".join(f' argv: "{a}"' for a in command)
    out = f'std_out: "{std_out}"' if std_out else ""
    return rpc(cluster, "CreateStep", f"""
spec {{ job_id: {job_id} {argv} {out} work_dir: "{work_dir}" {extra} }}""")


def sacct_states(cluster, job_id):
    r = cluster.cli("sacct", "-j", str(job_id), "-P", "-n", "-o", "JobID,State,ExitCode,NTasks")
    rows = {}
    for line in r.stdout.splitlines():
        parts = line.split("|")
        if len(parts) >= 2:
            rows[parts[0]] = parts[1:]
    return rows


def env_of(path):
    out = {}
    for line in Path(path).read_text().splitlines():
        k, sep, v = line.partition("=")
        if sep:
            out[k] = v
    return out


def test_allocation_steps_environment_and_accounting(cluster):
    work = shared_dir(cluster, "steps-ctld")
    job_id = submit_allocation(cluster, 2, work)
    state, body = await_allocation(cluster, job_id, 30000)
    assert state == "JOB_RUNNING", body
    assert field(body, "batch") is None  # BatchFlag=0: the field is false, so not printed

    # Step 0: block layout, one stdout file per task from the %t pattern.
    status, body = create_step(cluster, job_id, work, ["sh", "-c", "env; sleep 0.2"],
                               std_out="block.%t")
    assert status == "OK", body
    assert field(body, "step_id") is None  # 0 is the default value
    assert field(body, "ntasks") == "4"
    assert field(body, "nodelist") == "node[1-2]"
    files = [work / f"block.{t}" for t in range(4)]
    wait_for(lambda: all(f.exists() and "SLURM_PROCID" in f.read_text() for f in files), 30,
             what="four task outputs")
    envs = [env_of(f) for f in files]
    for rank, env in enumerate(envs):
        assert env["SLURM_PROCID"] == str(rank)
        assert env["RANK"] == str(rank)
        assert env["SLURM_LOCALID"] == str(rank % 2)
        assert env["LOCAL_RANK"] == str(rank % 2)
        assert env["SLURM_NODEID"] == str(rank // 2)
        assert env["GROUP_RANK"] == str(rank // 2)
        assert env["SLURMD_NODENAME"] == f"node{rank // 2 + 1}"
        assert env["SLURM_JOB_ID"] == str(job_id)
        assert env["SLURM_STEP_ID"] == "0"
        assert env["SLURM_STEP_NODELIST"] == "node[1-2]"
        assert env["SLURM_STEP_NUM_TASKS"] == "4"
        assert env["SLURM_STEP_TASKS_PER_NODE"] == "2(x2)"
        assert env["SLURM_NTASKS"] == "4"
        assert env["WORLD_SIZE"] == "4"
        assert env["LOCAL_WORLD_SIZE"] == "2"
        assert env["MASTER_ADDR"] == "127.0.0.1"  # node1's agent address
        assert 20000 <= int(env["MASTER_PORT"]) <= 29999
        assert env["MASTER_PORT"] == str(20000 + (job_id * 8 + 0) % 10000)
    wait_for(lambda: sacct_states(cluster, job_id).get(f"{job_id}.0", [""])[0] == "COMPLETED",
             30, what="step 0 to be COMPLETED in sacct")

    # Step 1: cyclic ranks alternate between the nodes.
    status, body = create_step(cluster, job_id, work, ["sh", "-c", "env"], std_out="cyclic.%t",
                               extra='distribution: "cyclic"')
    assert status == "OK", body
    assert field(body, "step_id") == "1"
    files = [work / f"cyclic.{t}" for t in range(4)]
    wait_for(lambda: all(f.exists() and "SLURM_PROCID" in f.read_text() for f in files), 30,
             what="four cyclic task outputs")
    for rank, f in enumerate(files):
        env = env_of(f)
        assert env["SLURMD_NODENAME"] == f"node{rank % 2 + 1}", f
        assert env["SLURM_STEP_ID"] == "1"
        assert env["SLURM_DISTRIBUTION"] == "cyclic"

    # Step 2 runs until scancel JOB.STEP ends it alone.
    status, body = create_step(cluster, job_id, work, ["sh", "-c", "touch started.2; sleep 300"],
                               extra="min_nodes: 1")
    assert status == "OK", body
    # (A signal that reaches a supervisor before it blocked its signals kills it unreported:
    # droverd spawns it with an empty signal mask. Wait until the task runs.)
    wait_for(lambda: (work / "started.2").exists(), 30, what="step 2 to start")
    r = cluster.cli("scancel", f"{job_id}.2")
    assert r.returncode == 0, r.stderr
    wait_for(lambda: sacct_states(cluster, job_id).get(f"{job_id}.2", [""])[0] == "CANCELLED",
             30, what="step 2 to be CANCELLED")
    state, _ = await_allocation(cluster, job_id, 0)
    assert state == "JOB_RUNNING"
    # A step that is gone, or never was, is an error even without -v (the reference's `scancel
    # 99999.0`: "Kill job error on job step id 99999.0: Invalid job id specified", exit 1).
    r = cluster.cli("scancel", "999999.0")
    assert (r.returncode, r.stderr) == \
        (1, "scancel: error: Kill job error on job step id 999999.0: Invalid job id specified\n")
    # Ended while its job runs: the reference named the job alone and exited 225 (2017 & 0xff),
    # as for a step the running job never had.
    for gone in (2, 7):
        r = cluster.cli("scancel", f"{job_id}.{gone}")
        assert (r.returncode, r.stderr) == (225, "scancel: error: Kill job error on job step id "
                                                 f"{job_id}: Invalid job id specified\n")
    held = cluster.cli("sbatch", "--parsable", "-H", "-o", "/dev/null", "--wrap=true")
    assert held.returncode == 0, held.stderr
    r = cluster.cli("scancel", f"{held.stdout.strip()}.0")  # a pending job's step: silent
    assert (r.returncode, r.stderr) == (0, ""), r.stderr
    assert cluster.cli("scancel", held.stdout.strip()).returncode == 0

    # Refusals in Slurm's words.
    status, _ = create_step(cluster, job_id, work, ["true"], extra="ntasks: 1000")
    assert status.startswith("3 More processors requested than permitted"), status
    status, _ = create_step(cluster, 999999, work, ["true"])
    assert status.startswith("5 Invalid job id specified"), status

    ok(cluster, "CompleteAllocation", f"job_id: {job_id}")
    rows = sacct_states(cluster, job_id)
    assert rows[str(job_id)][0] == "COMPLETED", rows
    assert rows[f"{job_id}.0"][:3] == ["COMPLETED", "0:0", "4"], rows
    assert rows[f"{job_id}.1"][0] == "COMPLETED", rows
    status, _ = create_step(cluster, job_id, work, ["true"])
    assert "Job/step already completing or completed" in status, status


def test_await_times_out_while_pending_then_answers_at_start(cluster):
    work = shared_dir(cluster, "steps-await")
    first = submit_allocation(cluster, 3, work, exclusive=True)  # the whole cluster
    assert await_allocation(cluster, first, 30000)[0] == "JOB_RUNNING"
    second = submit_allocation(cluster, 2, work)
    t0 = time.monotonic()
    state, body = await_allocation(cluster, second, 400)
    assert state == "JOB_PENDING", body
    assert time.monotonic() - t0 >= 0.35

    # A waiter answered by the start, long before its timeout.
    exe = cluster.build / "tests" / "drover-e2e-rawcall"
    waiter = subprocess.Popen([str(exe), f"127.0.0.1:{cli_port(cluster)}", "frame",
                               str(cluster.run_dir / "munge" / "munge.socket"), "AwaitAllocation"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    waiter.stdin.write(f"job_id: {second} timeout_ms: 60000")
    waiter.stdin.close()
    time.sleep(0.5)
    t0 = time.monotonic()
    ok(cluster, "CompleteAllocation", f"job_id: {first} exit_code: 3")
    out = waiter.stdout.read()
    waiter.wait(timeout=30)
    assert time.monotonic() - t0 < 20
    assert "state: JOB_RUNNING" in out, out
    assert sacct_states(cluster, first)[str(first)][:2] == ["FAILED", "3:0"]

    # scancel ends an allocation at once: there is no batch step to wait for.
    r = cluster.cli("scancel", str(second))
    assert r.returncode == 0, r.stderr
    state, _ = await_allocation(cluster, second, 0)
    assert state == "JOB_CANCELLED"
