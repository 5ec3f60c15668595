"""QOSes (cluster.conf `qos` and accounts' `qos`/`default_qos`; Slurm's sacctmgr QOS records
with AccountingStorageEnforce=qos) and preemption by QOS (scheduler.preempt_type: qos, Slurm's
PreemptType=preempt/qos), against what the reference Slurm 22.05 did side by side
(2026-12-04, shared/slurm-reference with QOSes high/low/vip added by sacctmgr): a QOS the
account may not use, or none of that name, is refused at submission and by scontrol update;
the QOS priority factor is the QOS's priority over the highest; sacct, squeue, sacctmgr show
what the reference showed; a pending job of a QOS that lists others in `preempt` ends their
running jobs as their QOS's preempt_mode says, and no one else's."""

import re
import time

import pytest

from cluster import ensure_users, shared_dir, wait_for
from conftest import reconfigure_with, replaced_once, run_cluster

QOS_TABLE = """qos:
  - {name: high, priority: 100, preempt: [scav]}
  - {name: scav, preempt_mode: cancel}
  - {name: vip, priority: 50}
  - {name: short, max_jobs_per_user: 1, max_submit_jobs_per_user: 3, max_wall: 5}
  - {name: small, max_tres_per_user: cpu=20}
  - {name: strict, max_wall: 5, deny_on_limit: yes}
  - {name: team, grp_jobs: 2, grp_submit_jobs: 5, grp_tres: "node=4,cpu=6,gpu=8", max_tres_per_job: node=2}
  - {name: acct, max_jobs_per_account: 1, max_submit_jobs_per_account: 2, max_tres_per_account: cpu=8}

# Accounts below"""


def with_qos(text):
    """etc/cluster.conf's rendering with the QOSes above, alice's account allowed all but vip,
    and preemption by QOS (requeue by default; scav's own mode is cancel)."""
    return replaced_once(text, (("# Accounts below", QOS_TABLE),
                                ("    users: [alice, bob] ",
                                 "    qos: [normal, HIGH, scav, short, small, strict, team, acct]\n"
                                 "    users: [alice, bob] "),
                                ("  preempt_type: none ", "  preempt_type: qos "),
                                ('  preempt_mode: "off" ', "  preempt_mode: requeue ")))


@pytest.fixture(scope="module")
def cluster(request):
    ensure_users(("alice", "bob"))
    for c in run_cluster(request, nodes=4, gpus_per_node=0, heartbeat=1, node_down=4):
        reconfigure_with(c, with_qos)
        yield c


@pytest.fixture(autouse=True)
def no_jobs_left(cluster):
    yield
    cluster.cli("scancel", "--state=PENDING")
    cluster.cli("scancel", "-u", "alice")
    cluster.cli("scancel", "-u", "root")
    wait_for(lambda: cluster.cli("squeue", "-h").stdout == "", 40, what="every job to end")


def sbatch(cluster, *args, user="alice"):
    r = cluster.cli("sbatch", "--parsable", *args, user=user)
    assert r.returncode == 0, r.stderr
    return int(r.stdout.strip().split(";")[0])


def fill(cluster, qos, count=4):
    """`count` whole-node jobs of that QOS, running."""
    jobs = [sbatch(cluster, "-q", qos, "-N1", "--exclusive", "-o", "/dev/null", "--wrap", "sleep 300")
            for _ in range(count)]
    for job in jobs:
        cluster.wait_job(job, "RUNNING")
    return jobs


def test_the_table_and_who_may_use_it_as_sacctmgr_lists_them(cluster):
    r = cluster.cli("sacctmgr", "-P", "show", "qos", "format=Name,Priority,GraceTime,Preempt,PreemptMode,ID")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "Name|Priority|GraceTime|Preempt|PreemptMode|ID",
        "normal|0|00:00:00||cluster|1",
        "high|100|00:00:00|scav|cluster|2",
        "scav|0|00:00:00||cancel|3",
        "vip|50|00:00:00||cluster|4",
        "short|0|00:00:00||cluster|5",
        "small|0|00:00:00||cluster|6",
        "strict|0|00:00:00||cluster|7",
        "team|0|00:00:00||cluster|8",
        "acct|0|00:00:00||cluster|9",
    ], r.stdout
    r = cluster.cli("sacctmgr", "-nP", "show", "qos", "short,small,strict",
                    "format=Name,Flags,MaxWall,MaxJobsPU,MaxSubmitPU,MaxTRESPU")
    assert r.stdout.splitlines() == ["short||00:05:00|1|3|", "small|||||cpu=20",
                                     "strict|DenyOnLimit|00:05:00|||"], r.stdout
    # The association's list sorted by name, as the reference's `high,low,normal,short`.
    r = cluster.cli("sacctmgr", "-P", "show", "assoc", "format=User,Account,QOS,DefaultQOS")
    assert "alice|research|acct,high,normal,scav,short,small,strict,team|" in r.stdout.splitlines(), r.stdout
    # The group and per-job limits, TRES by name as the reference listed them.
    r = cluster.cli("sacctmgr", "-nP", "show", "qos", "team",
                    "format=Name,GrpTRES,GrpJobs,GrpSubmit,MaxTRES")
    assert r.stdout == "team|cpu=6,gres/gpu=8,node=4|2|5|node=2\n", r.stdout
    r = cluster.cli("sacctmgr", "-nP", "show", "qos", "acct", "format=Name,MaxTRESPA,MaxJobsPA,MaxSubmitPA")
    assert r.stdout == "acct|cpu=8|1|2\n", r.stdout
    show = cluster.scontrol("show", "config").stdout
    assert re.search(r"^PreemptType += preempt/qos$", show, re.M), show


def test_submission_takes_a_qos_the_account_may_use_and_refuses_others(cluster):
    out_dir = shared_dir(cluster, "qos_env")
    # In any case, as the reference's `-q HIGH`; the job's environment and every view say high.
    job = sbatch(cluster, "-q", "HIGH", "-o", f"{out_dir}/%j.out", "--wrap", "echo qos=$SLURM_JOB_QOS")
    cluster.wait_job(job, "COMPLETED")
    assert (out_dir / f"{job}.out").read_text() == "qos=high\n"
    assert cluster.job_fields(job)["QOS"] == "high"
    r = cluster.cli("sacct", "-X", "-n", "-P", "-j", str(job), "-o", "QOS,QOSRAW", user="alice")
    assert r.stdout.splitlines() == ["high|2"], r.stdout + r.stderr
    # Without -q: the account's default, normal.
    held = sbatch(cluster, "-H", "--wrap", "true")
    r = cluster.cli("squeue", "-h", "-j", str(held), "-o", "%q")
    assert r.stdout.strip() == "normal", r.stdout
    # None of that name, or one the account may not use: the reference's refusal, no job.
    for name in ("bogus", "vip", "VIP"):
        r = cluster.cli("sbatch", "-q", name, "--wrap", "true", user="alice")
        assert (r.returncode, r.stdout, r.stderr) == (
            1, "", "sbatch: error: Batch job submission failed: Invalid qos specification\n"), name
    r = cluster.cli("srun", "-q", "vip", "true", user="alice")
    assert (r.returncode, r.stderr) == (
        1, "srun: error: Unable to allocate resources: Invalid qos specification\n"), r.stderr
    assert cluster.cli("squeue", "-h", "-u", "alice", "-o", "%i").stdout.split() == [str(held)]
    # Root may use any QOS (the reference's root set one the association lacked).
    mine = sbatch(cluster, "-H", "-q", "vip", "--wrap", "true", user=None)
    assert cluster.job_fields(mine)["QOS"] == "vip"


def test_scontrol_update_qos_as_the_reference(cluster):
    job = sbatch(cluster, "-H", "-q", "high", "--wrap", "true")

    def update(value, user="alice"):
        return cluster.scontrol("update", f"JobId={job}", f"QOS={value}", user=user)

    r = update("SCAV")
    assert (r.returncode, r.stderr) == (0, ""), r.stderr
    assert cluster.job_fields(job)["QOS"] == "scav"
    for value in ("bogus", "vip"):
        r = update(value)
        assert (r.returncode, r.stderr) == (1, f"Invalid qos specification for job {job}\n"), value
    assert cluster.job_fields(job)["QOS"] == "scav"
    assert update("bogus", user=None).returncode == 1
    r = update("vip", user=None)
    assert (r.returncode, r.stderr) == (0, ""), r.stderr
    assert cluster.job_fields(job)["QOS"] == "vip"
    # Empty: back to the account's default.
    assert update("").returncode == 0
    assert cluster.job_fields(job)["QOS"] == "normal"
    # Only while it waits, for root too.
    running = sbatch(cluster, "-o", "/dev/null", "--wrap", "sleep 300")
    cluster.wait_job(running, "RUNNING")
    for user in ("alice", None):
        r = cluster.scontrol("update", f"JobId={running}", "QOS=high", user=user)
        assert (r.returncode, r.stderr) == (1, f"Job is no longer pending execution for job {running}\n")


def test_the_qos_factor_orders_waiting_jobs_and_high_preempts_no_normal_job(cluster):
    fill(cluster, "normal")
    high = sbatch(cluster, "-q", "high", "-N1", "--exclusive", "-o", "/dev/null", "--wrap", "true")
    plain = sbatch(cluster, "-N1", "--exclusive", "-o", "/dev/null", "--wrap", "true")
    # vip by root's update (alice may not use it), so that all three are alice's.
    vip = sbatch(cluster, "-N1", "--exclusive", "-o", "/dev/null", "--wrap", "true")
    assert cluster.scontrol("update", f"JobId={vip}", "QOS=vip").returncode == 0
    # weight_qos 1000 x priority / the highest (100): high 1000, vip 500, normal 0.
    wait_for(lambda: cluster.job_fields(high).get("Reason") == "Resources", 15, what="high to wait")

    def factors():
        r = cluster.cli("sprio", "-h", "-o", "%i %Q")
        assert r.returncode == 0, r.stderr
        f = dict(line.split() for line in r.stdout.splitlines())
        return tuple(f.get(str(job)) for job in (high, vip, plain))

    # The update's pass (a few milliseconds later) computes vip's priority again.
    wait_for(lambda: factors() == ("1000", "500", "0"), 10, what="the QOS factors")
    order = cluster.cli("squeue", "-h", "-t", "PD", "-o", "%i").stdout.split()
    assert order == [str(high), str(vip), str(plain)], order
    # high preempts scav only: the normal jobs run on.
    time.sleep(1)
    r = cluster.cli("squeue", "-h", "-q", "normal", "-t", "R", "-o", "%i")
    assert len(r.stdout.split()) == 4, r.stdout


def test_a_high_job_preempts_a_scav_job_by_its_qos_mode(cluster):
    scav = fill(cluster, "scav")
    # A normal job lists no QOS to preempt: it waits.
    plain = sbatch(cluster, "-N1", "--exclusive", "-o", "/dev/null", "--wrap", "sleep 300")
    wait_for(lambda: cluster.job_fields(plain).get("Reason") == "Resources", 15, what="normal to wait")
    high = sbatch(cluster, "-q", "high", "-N1", "--exclusive", "-o", "/dev/null", "--wrap", "sleep 300")
    f = cluster.wait_job(high, "RUNNING")
    states = {job: cluster.job_fields(job).get("JobState") for job in scav}
    # scav's own mode is cancel (the scheduler's default, requeue, is not used): the youngest
    # scav job ends PREEMPTED; the others run on.
    assert sorted(states.values()) == ["PREEMPTED", "RUNNING", "RUNNING", "RUNNING"], states
    victim = next(job for job, s in states.items() if s == "PREEMPTED")
    assert cluster.job_fields(victim)["NodeList"] == f["NodeList"]
    log = (cluster.run_dir / "log" / "droverctld.log").read_text(errors="replace")
    assert f"preempted JobId={victim} has been killed to reclaim resources for JobId={high}" in log
    r = cluster.cli("sacct", "-X", "-n", "-P", "-j", str(victim), "-o", "State,QOS", user="alice")
    assert r.stdout.splitlines() == ["PREEMPTED|scav"], r.stdout
    assert cluster.job_fields(plain)["JobState"] == "PENDING"


def test_sacct_q_names_qos_of_the_table(cluster):
    job = sbatch(cluster, "-q", "high", "-o", "/dev/null", "--wrap", "true")
    cluster.wait_job(job, "COMPLETED")
    r = cluster.cli("sacct", "-X", "-n", "-P", "-q", "HIGH", "-o", "JobID", user="alice")
    assert str(job) in r.stdout.split(), r.stdout
    r = cluster.cli("sacct", "-X", "-n", "-P", "-q", "normal", "-o", "JobID", user="alice")
    assert str(job) not in r.stdout.split(), r.stdout
    r = cluster.cli("sacct", "-q", "bogus", user="alice")
    assert (r.returncode, r.stdout, r.stderr) == (
        1, "", "sacct: error: You gave a bad qos 'bogus'. Valid QOS's are "
               "normal,high,scav,vip,short,small,strict,team,acct\n"
               "sacct: fatal: problem processing qos list\n")


POLICY = ("Batch job submission failed: Job violates accounting/QOS policy (job submit limit, "
          "user's size and/or time limits)")


def reason(cluster, job):
    return cluster.cli("squeue", "-h", "-j", str(job), "-o", "%r").stdout.strip()


def one_running_one_held_back(cluster):
    """Two jobs of QOS short (MaxJobsPU=1): the first running, the second waiting for the limit."""
    first = sbatch(cluster, "-q", "short", "-t", "1", "-o", "/dev/null", "--wrap", "sleep 300")
    cluster.wait_job(first, "RUNNING")
    second = sbatch(cluster, "-q", "short", "-t", "1", "-o", "/dev/null", "--wrap", "sleep 300")
    wait_for(lambda: reason(cluster, second) == "QOSMaxJobsPerUserLimit", 15,
             what="the second job to wait for the QOS")
    return first, second


def test_per_user_limits_hold_jobs_back_with_the_references_reasons(cluster):
    # MaxJobsPU=1: the second waits QOSMaxJobsPerUserLimit until the first ends; bob's own.
    first, second = one_running_one_held_back(cluster)
    # sprio lists it, as the reference's listed its jobs held back by MaxJobsPU.
    assert str(second) in cluster.cli("sprio", "-h", "-o", "%i").stdout.split()
    bobs = sbatch(cluster, "-q", "short", "-t", "1", "-o", "/dev/null", "--wrap", "sleep 300", user="bob")
    cluster.wait_job(bobs, "RUNNING")
    # MaxSubmitJobsPU=3: the fourth of alice's jobs is refused, as the reference refused it.
    sbatch(cluster, "-q", "short", "-t", "1", "-o", "/dev/null", "--wrap", "true")
    r = cluster.cli("sbatch", "-q", "short", "-t", "1", "--wrap", "true", user="alice")
    assert (r.returncode, r.stdout, r.stderr) == (
        1, "", f"sbatch: error: QOSMaxSubmitJobPerUserLimit\nsbatch: error: {POLICY}\n")
    assert cluster.cli("scancel", str(first), user="alice").returncode == 0
    cluster.wait_job(second, "RUNNING")
    # MaxWall=5: a longer job (or one given the partition's default hour) waits for ever.
    cluster.cli("scancel", "-u", "alice")
    cluster.cli("scancel", "-u", "bob")
    wait_for(lambda: cluster.cli("squeue", "-h").stdout == "", 20, what="the jobs to end")
    long = sbatch(cluster, "-q", "short", "-o", "/dev/null", "--wrap", "true")
    wait_for(lambda: reason(cluster, long) == "QOSMaxWallDurationPerJobLimit", 15,
             what="the job to wait for MaxWall")
    # MaxTRESPU cpu=20: 16 running, 8 more wait QOSMaxCpuPerUserLimit; 4 more go.
    big = sbatch(cluster, "-q", "small", "-n", "16", "-o", "/dev/null", "--wrap", "sleep 300")
    cluster.wait_job(big, "RUNNING")
    more = sbatch(cluster, "-q", "small", "-n", "8", "-o", "/dev/null", "--wrap", "sleep 300")
    fits = sbatch(cluster, "-q", "small", "-n", "4", "-o", "/dev/null", "--wrap", "sleep 300")
    cluster.wait_job(fits, "RUNNING")
    assert reason(cluster, more) == "QOSMaxCpuPerUserLimit"
    # DenyOnLimit: over MaxWall is refused at submission.
    r = cluster.cli("sbatch", "-q", "strict", "-t", "10", "--wrap", "true", user="alice")
    assert (r.returncode, r.stderr) == (
        1, f"sbatch: error: QOSMaxWallDurationPerJobLimit\nsbatch: error: {POLICY}\n")
    ok = sbatch(cluster, "-q", "strict", "-t", "5", "-o", "/dev/null", "--wrap", "true")
    cluster.wait_job(ok, "COMPLETED")


def test_a_raised_limit_lets_held_back_jobs_start(cluster):
    _, second = one_running_one_held_back(cluster)
    raised = "{name: short, max_jobs_per_user: 2,"
    reconfigure_with(cluster, lambda text: text.replace("{name: short, max_jobs_per_user: 1,", raised))
    try:
        cluster.wait_job(second, "RUNNING")
    finally:
        reconfigure_with(cluster, lambda text: text.replace(raised, "{name: short, max_jobs_per_user: 1,"))


def test_a_limit_added_by_reconfigure_holds_back_jobs_already_queued(cluster):
    # One job on every node, so that its end frees them all for one pass.
    filler = sbatch(cluster, "-N4", "--exclusive", "-o", "/dev/null", "--wrap", "sleep 300")
    cluster.wait_job(filler, "RUNNING")
    queued = [sbatch(cluster, "-q", "strict", "-t", "1", "-N1", "--exclusive", "-o", "/dev/null",
                     "--wrap", "sleep 300") for _ in range(2)]
    for job in queued:
        wait_for(lambda: reason(cluster, job) in ("Resources", "Priority"), 15, what="it to queue")
    limited = "{name: strict, max_jobs_per_user: 1, max_wall: 5,"
    reconfigure_with(cluster, lambda text: text.replace("{name: strict, max_wall: 5,", limited))
    try:
        cluster.cli("scancel", str(filler))
        cluster.wait_job(queued[0], "RUNNING")
        wait_for(lambda: reason(cluster, queued[1]) == "QOSMaxJobsPerUserLimit", 15,
                 what="the second to wait for the new limit")
    finally:
        reconfigure_with(cluster, lambda text: text.replace(limited, "{name: strict, max_wall: 5,"))


def test_group_and_per_job_limits_hold_jobs_back_with_the_references_reasons(cluster):
    # QOS team: GrpJobs=2, GrpSubmitJobs=5 and GrpTRES cpu=6 count alice's and bob's jobs
    # together; MaxTRES
    # node=2 limits each job. Reasons and their order as the reference's (2026-12-04).
    team = ("-q", "team", "-o", "/dev/null", "--wrap", "sleep 300")
    a = sbatch(cluster, "-n4", *team)
    b = sbatch(cluster, "-n1", *team, user="bob")
    cluster.wait_job(a, "RUNNING")
    cluster.wait_job(b, "RUNNING")
    c = sbatch(cluster, "-n1", *team)
    wide = sbatch(cluster, "-N3", *team, user="bob")   # over MaxTRES too: GrpJobs shows first
    for job in (c, wide):
        wait_for(lambda: reason(cluster, job) == "QOSGrpJobsLimit", 15, what="GrpJobs to hold it")
    # bob's job ends: alice's waiting one takes its place under GrpJobs.
    assert cluster.cli("scancel", str(b), user="bob").returncode == 0
    cluster.wait_job(c, "RUNNING")
    assert reason(cluster, wide) == "QOSGrpJobsLimit"
    cluster.cli("scancel", str(c), user="alice")
    wait_for(lambda: reason(cluster, wide) == "QOSMaxNodePerJobLimit", 15,
             what="MaxTRES's node count to hold it")
    # 4 CPUs running (a): bob's 3 more would pass GrpTRES cpu=6.
    more = sbatch(cluster, "-n3", *team, user="bob")
    wait_for(lambda: reason(cluster, more) == "QOSGrpCpuLimit", 15, what="GrpTRES to hold it")
    fits = sbatch(cluster, "-n2", *team, user="bob")
    cluster.wait_job(fits, "RUNNING")
    # GrpSubmitJobs=5: a, wide, more and fits are there; one more of anyone's goes, then none.
    sbatch(cluster, "-n1", *team)
    r = cluster.cli("sbatch", "-q", "team", "--wrap", "true", user="bob")
    assert (r.returncode, r.stdout, r.stderr) == (
        1, "", f"sbatch: error: QOSGrpSubmitJobsLimit\nsbatch: error: {POLICY}\n")
    cluster.cli("scancel", "-u", "bob")


def test_per_account_limits_count_every_users_jobs_of_the_account(cluster):
    # QOS acct: MaxJobsPA=1, MaxSubmitJobsPA=2 over alice's and bob's jobs in research, with
    # the reference's reasons (no QOS prefix).
    acct = ("-q", "acct", "-o", "/dev/null", "--wrap", "sleep 300")
    a = sbatch(cluster, "-n1", *acct)
    cluster.wait_job(a, "RUNNING")
    b = sbatch(cluster, "-n1", *acct, user="bob")
    wait_for(lambda: reason(cluster, b) == "MaxJobsPerAccount", 15, what="MaxJobsPA to hold it")
    r = cluster.cli("sbatch", "-q", "acct", "--wrap", "true", user="alice")
    assert (r.returncode, r.stdout, r.stderr) == (
        1, "", f"sbatch: error: MaxSubmitJobsPerAccount\nsbatch: error: {POLICY}\n")
    assert cluster.cli("scancel", str(a), user="alice").returncode == 0
    cluster.wait_job(b, "RUNNING")
    cluster.cli("scancel", "-u", "bob")
