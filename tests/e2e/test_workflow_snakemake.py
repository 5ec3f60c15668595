"""A real workflow engine no one here wrote, end to end: Snakemake 7.21's `--slurm` executor
(Debian's `snakemake`) runs workflows as alice on a Drover cluster through the CLIs only. It
checks the account with `sacctmgr -n -s list user $USER format=account%20`, submits each rule
with `sbatch -J snakejob_<rule>_<n> -o .snakemake/slurm_logs/... --export=ALL -A -p -t --mem
--cpus-per-task -D --wrap=...` and reads the job id as the last word of sbatch's line, polls
`sacct -P -n --format=JobIdRaw,State -j ID` (falling back to `scontrol show jobid -dd`), runs the
rule inside the job as a step with `srun -n1 --cpu-bind=q`, and cancels with `scancel` on
Ctrl-C. The three workflows run at the same time to keep the module short."""

import pwd
import re
import shutil
import signal
import subprocess
import time

import pytest

from cluster import ensure_users, wait_for

pytestmark = pytest.mark.skipif(shutil.which("snakemake") is None,
                                reason="snakemake is not installed (scripts/install-deps installs it)")

USER = "alice"          # etc/cluster.conf: account research lists alice
ACCOUNT = "research"
PARTITION = "debug"

# Three parts in parallel (each with memory and a time limit), then one aggregation rule with
# two threads: it records what the job saw, so the test can check the allocation. Beside them
# an MPI rule over two nodes.
MAIN = """
SAMPLES = ["a", "b", "c"]

rule all:
    input: "summary.txt", "mpi.txt"

rule part:
    output: "parts/{s}.txt"
    resources: mem_mb=100, runtime=2
    shell: "echo part-{wildcards.s} $SLURM_JOB_ID > {output}"

rule summary:
    input: expand("parts/{s}.txt", s=SAMPLES)
    output: "summary.txt"
    threads: 2
    resources: mem_mb=200, runtime=3
    shell: "echo threads={threads} cpus=$SLURM_CPUS_PER_TASK job=$SLURM_JOB_ID step=$SLURM_STEP_ID > {output}; cat {input} >> {output}"

# An MPI rule: snakemake runs it in the batch script itself, and the rule calls srun.
rule mpi:
    output: "mpi.txt"
    resources: mpi="srun", tasks=2, nodes=2, mem_mb=500, runtime=2
    shell: "{resources.mpi} -n 2 printenv SLURMD_NODENAME | sort > {output}; echo $SLURM_JOB_ID $SLURM_NTASKS $SLURM_NNODES >> {output}"
"""

FAILING = """
rule all:
    input: "ok.txt", "bad.txt"

rule ok:
    output: "ok.txt"
    shell: "echo ok > {output}"

rule bad:
    output: "bad.txt"
    shell: "echo about to fail >&2; exit 3"
"""

SLOW = """
rule slow:
    output: "slow.txt"
    shell: "sleep 300; touch {output}"
"""

SUBMITTED = re.compile(r"Job (\d+) has been submitted with SLURM jobid (\d+)")


def workflow_dir(cluster, name, snakefile):
    """A directory of alice's holding the Snakefile; under the run dir, so stop() removes it."""
    d = cluster.run_dir / name
    d.mkdir()
    (d / "Snakefile").write_text(snakefile)
    shutil.chown(d, USER, USER)
    shutil.chown(d / "Snakefile", USER, USER)
    return d


def snakemake(cluster, wdir, *extra):
    """snakemake --slurm as alice in `wdir`, Drover's CLIs first on PATH (the jobs inherit it
    through --export=ALL, so srun inside them is Drover's too)."""
    env = cluster.env()
    env.update(USER=USER, LOGNAME=USER, HOME=str(wdir))
    # Debian's Slurm installs the same names in /usr/bin: every CLI snakemake calls must be ours.
    for cli in ("sbatch", "sacct", "sacctmgr", "scontrol", "scancel", "srun", "sinfo"):
        found = shutil.which(cli, path=env["PATH"])
        assert found == str(cluster.bin / cli), f"{cli} resolves to {found}, not Drover's"
    args = ["snakemake", "--slurm", "--jobs", "4", "--nocolor",
            "--default-resources", f"slurm_account={ACCOUNT}", f"slurm_partition={PARTITION}",
            # At most 1 a second is used as given (more becomes one every 33 s).
            "--max-status-checks-per-second", "1", "--latency-wait", "5", *extra]
    return subprocess.Popen(args, cwd=str(wdir), env=env, user=USER, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def finish(p, timeout):
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, _ = p.communicate()
        raise AssertionError(f"snakemake did not finish within {timeout}s:\n{out}")
    return p.returncode, out


def sacct(cluster, job_ids, fields):
    """{JobIDRaw: {field: value}} of the jobs and their steps, as root sees them."""
    r = cluster.cli("sacct", "-P", "-n", "-j", ",".join(job_ids), "-o", "JobIDRaw," + fields)
    assert r.returncode == 0, r.stderr
    names = fields.split(",")
    rows = {}
    for line in r.stdout.splitlines():
        cols = line.split("|")
        rows[cols[0]] = dict(zip(names, cols[1:]))
    return rows


@pytest.fixture(scope="module")
def runs(cluster):
    ensure_users([USER])
    main = workflow_dir(cluster, "wf-main", MAIN)
    failing = workflow_dir(cluster, "wf-failing", FAILING)
    slow = workflow_dir(cluster, "wf-slow", SLOW)
    procs = [snakemake(cluster, main), snakemake(cluster, failing)]
    try:
        # Ctrl-C while the rule's job runs: snakemake scancels it and exits. Its cancel walks
        # its list of active jobs without the lock its status thread holds while it takes the
        # list away to query each job's state (snakemake 7's slurm executor), so an interrupt
        # inside a status query cancels nothing: status checks every 10 s instead of every
        # second make that window a tenth as likely (a sanitized build's slower sacct hit it).
        p = snakemake(cluster, slow, "--max-status-checks-per-second", "0.1")
        procs.append(p)
        slow_out, m = "", None
        for line in p.stdout:
            slow_out += line
            if m := SUBMITTED.search(line):
                break
        assert m, slow_out
        slow_job = m.group(2)
        cluster.wait_job(slow_job, "RUNNING", timeout=30)
        p.send_signal(signal.SIGINT)
        rc, rest = finish(p, 60)
        result = {"slow": (rc, slow_out + rest, slow, slow_job)}
        result["failing"] = (*finish(procs[1], 120), failing)
        result["main"] = (*finish(procs[0], 180), main)
        return result
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()


def test_workflow_runs_to_completion(cluster, runs):
    rc, out, wdir = runs["main"]
    assert rc == 0, out
    submitted = dict(SUBMITTED.findall(out))   # snakemake's job number -> Drover job id
    assert len(submitted) == 5, out            # parts, summary, mpi; `all` runs locally
    job_ids = set(submitted.values())
    mpi = (wdir / "mpi.txt").read_text().splitlines()
    assert len(mpi) == 3 and mpi[0] != mpi[1], mpi  # one task on each of two nodes
    mpi_job, ntasks, nnodes = mpi[2].split()
    assert (ntasks, nnodes) == ("2", "2"), mpi
    parts = {}
    for s in "abc":
        text = (wdir / "parts" / f"{s}.txt").read_text().split()
        assert text[0] == f"part-{s}", text
        parts[s] = text[1]                     # SLURM_JOB_ID inside the rule
    summary = (wdir / "summary.txt").read_text().splitlines()
    m = re.fullmatch(r"threads=2 cpus=2 job=(\d+) step=0", summary[0])
    assert m, summary                          # --cpus-per-task=2, run as step 0 by srun
    assert summary[1:] == [f"part-{s} {parts[s]}" for s in "abc"], summary
    assert set(parts.values()) | {m.group(1), mpi_job} == job_ids, (parts, submitted)

    rows = sacct(cluster, sorted(job_ids), "JobName,State,ExitCode,Account,Partition,AllocCPUS,ReqMem,Timelimit")
    for jid in job_ids:
        job = rows[jid]
        assert job["State"] == "COMPLETED" and job["ExitCode"] == "0:0", (jid, job)
        assert (job["Account"], job["Partition"]) == (ACCOUNT, PARTITION), job
        # The batch script (snakemake's jobstep executor) and the rule's srun step.
        assert rows[f"{jid}.batch"]["State"] == "COMPLETED", rows
        assert rows[f"{jid}.0"]["State"] == "COMPLETED", rows
    summary_job = rows[m.group(1)]
    assert summary_job["JobName"].startswith("snakejob_summary_"), summary_job
    assert (summary_job["AllocCPUS"], summary_job["ReqMem"], summary_job["Timelimit"]) == \
        ("2", "200M", "00:03:00"), summary_job
    for s in "abc":
        part = rows[parts[s]]
        assert part["JobName"].startswith("snakejob_part_"), part
        assert (part["AllocCPUS"], part["ReqMem"], part["Timelimit"]) == ("1", "100M", "00:02:00"), part
    assert (rows[mpi_job]["AllocCPUS"], rows[f"{mpi_job}.0"]["JobName"]) == ("2", "printenv"), rows
    # Each job's output went where snakemake asked (-o .snakemake/slurm_logs/rule_<r>/%j.log).
    log = wdir / ".snakemake" / "slurm_logs" / "rule_summary" / f"{m.group(1)}.log"
    assert "rule summary:" in log.read_text(), log


def test_failing_rule_fails_the_workflow(cluster, runs):
    rc, out, wdir = runs["failing"]
    assert rc != 0, out
    submitted = {}
    for _, jid in SUBMITTED.findall(out):
        name = sacct(cluster, [jid], "JobName")[jid]["JobName"]
        submitted[name.split("_")[1]] = jid
    assert set(submitted) == {"ok", "bad"}, out
    bad = submitted["bad"]
    assert f"SLURM-job '{bad}' failed, SLURM status is: 'FAILED'" in out, out
    rows = sacct(cluster, [bad], "State,ExitCode")
    assert (rows[bad]["State"], rows[bad]["ExitCode"]) == ("FAILED", "1:0"), rows
    # The rule's step: snakemake inside it exits 1 when the shell command fails (exit 3).
    assert (rows[f"{bad}.0"]["State"], rows[f"{bad}.0"]["ExitCode"]) == ("FAILED", "1:0"), rows
    # The other rule was left to finish, as snakemake does without --keep-going.
    ok = submitted["ok"]
    assert sacct(cluster, [ok], "State")[ok]["State"] == "COMPLETED"
    assert (wdir / "ok.txt").read_text() == "ok\n"
    assert not (wdir / "bad.txt").exists()
    assert "about to fail" in (wdir / ".snakemake" / "slurm_logs" / "rule_bad" / f"{bad}.log").read_text()


def test_interrupt_cancels_the_running_job(cluster, runs):
    rc, out, wdir, job = runs["slow"]
    assert rc != 0, out
    assert "Terminating processes on user request" in out, out
    uid = pwd.getpwnam(USER).pw_uid
    state = wait_for(lambda: (s := sacct(cluster, [job], "State")[job]["State"]) != "RUNNING" and s,
                     15, what="the cancel to reach sacct")
    assert state == f"CANCELLED by {uid}", state
    assert not (wdir / "slow.txt").exists()
