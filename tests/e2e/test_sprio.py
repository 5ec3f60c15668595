"""sprio's ASSOC, JOBSIZE and TRES factors end to end (2 nodes x 16 CPUs x 4 GPUs): the
controller is reconfigured with PriorityWeightAssoc, PriorityWeightTRES and account priorities
(account vip, priority 100, for alice; research, priority 50); jobs kept pending by --begin
show the association factor relative to the highest priority, the job size factor as the mean
of the job's node and CPU shares, and each TRES's weighted share of its partition, as Slurm's
sprio -l prints them. SITE stays 0 (Slurm sets it only through a site_factor plugin).
Which pending jobs sprio lists follows Slurm's (golden 084): those the scheduler may start now
(waiting for priority or resources behind a job that holds the cluster), not held jobs, jobs
waiting on a dependency or their --begin, or array tasks over their %N throttle."""


import pytest

from cluster import ensure_users, wait_for
from conftest import run_cluster

USERS = ("alice", "bob")


@pytest.fixture(scope="module")
def cluster(request):
    ensure_users(USERS)
    yield from run_cluster(request, nodes=2, gpus_per_node=4, heartbeat=1, node_down=4)


def reconfigured(text):
    weights = "    weight_qos: 1000"
    assert weights in text and "    users: [alice, bob]" in text
    lines = []
    for line in text.splitlines():
        lines.append(line)
        if line.startswith(weights):
            lines += ["    weight_assoc: 1000", "    weight_tres: cpu=1000,gres/gpu=2000"]
        elif line.startswith("    users: [alice, bob]"):
            lines += ["    priority: 50", "  - name: vip", "    parent: root",
                      "    users: [alice]", "    priority: 100"]
    return "\n".join(lines) + "\n"


def submit(cluster, *args, user=None, wrap="true"):
    r = cluster.cli("sbatch", "--parsable", "-o", "/dev/null", "-t", "1", *args,
                    f"--wrap={wrap}", user=user)
    assert r.returncode == 0, r.stderr
    return int(r.stdout.split(";")[0])


def sprio_ids(cluster, *args):
    r = cluster.cli("sprio", "-h", "-o", "%.15i", *args)
    assert r.returncode == 0, r.stderr
    if r.stdout == "Unable to find jobs matching user/id(s) specified\n":  # -j: none listed
        return []
    return [int(x) for x in r.stdout.split()]


def hold_the_cluster(cluster):
    """A job on every CPU of both nodes, so the jobs after it stay pending."""
    job = submit(cluster, "--exclusive", "-N", "2", user="alice", wrap="sleep 300")
    wait_for(lambda: "JobState=RUNNING" in cluster.scontrol("show", "job", str(job)).stdout, 20,
             what="the blocker to run")
    return job


def rows(cluster, *args):
    r = cluster.cli("sprio", *args)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    header = lines[0].split()
    return header, [line.split() for line in lines[1:]]


def test_assoc_jobsize_and_tres_factors(cluster):
    c = cluster
    c.conf.write_text(reconfigured(c.conf.read_text()))
    r = c.scontrol("reconfigure")
    assert r.returncode == 0, r.stderr

    header, weights = rows(c, "-w", "-l")
    assert header[-1] == "TRES", header
    # -l's %.20T cuts the column at 20 characters, as Slurm's; a wider field shows it whole.
    assert weights[0][0] == "Weights" and weights[0][-1] == "cpu=1000,gres/gpu=20", weights
    header, weights = rows(c, "-w", "-o", "%.15i %.10B %30T")
    assert weights[0] == ["Weights", "1000", "cpu=1000,gres/gpu=2000"], weights
    # The short default adds ASSOC and TRES once they have weights: sprio(1)'s default, which
    # has no NICE (the reference's had none either).
    header, _ = rows(c)
    assert header == ["JOBID", "PARTITION", "PRIORITY", "SITE", "AGE", "ASSOC", "FAIRSHARE",
                      "JOBSIZE", "PARTITION", "QOS", "TRES"], header

    block = hold_the_cluster(c)
    alice = submit(c, "-A", "vip", "-n", "8", "--gpus=2", user="alice")
    bob = submit(c, "-A", "research", "-n", "8", "--gpus=4", "-N", "2", user="bob")
    header, body = rows(c, "-l")
    assert header == ["JOBID", "PARTITION", "USER", "PRIORITY", "SITE", "AGE", "ASSOC",
                      "FAIRSHARE", "JOBSIZE", "PARTITION", "QOS", "NICE", "TRES"], header
    by_id = {int(row[0]): dict(zip(header, row)) for row in body}
    a, b = by_id[alice], by_id[bob]
    _, wide = rows(c, "-o", "%.15i %40T")
    tres = {int(row[0]): row[1] for row in wide}
    a["TRES"], b["TRES"] = tres[alice], tres[bob]
    assert a["SITE"] == b["SITE"] == "0"
    # ASSOC: the account's priority over the highest (100): vip 1000, research 500.
    assert (a["ASSOC"], b["ASSOC"]) == ("1000", "500"), (a, b)
    # JOBSIZE: mean of the node share (1 of 2, 2 of 2) and the CPU share (8 of 32).
    assert (a["JOBSIZE"], b["JOBSIZE"]) == ("375", "625"), (a, b)
    # TRES: each TRES's share of the partition (32 CPUs, 8 GPUs) times its weight.
    assert a["TRES"] == "cpu=250,gres/gpu=500", a
    assert b["TRES"] == "cpu=250,gres/gpu=1000", b
    # The priority is the sum of every weighted factor (each rounded on its own), less nice.
    # (row["PARTITION"] is the factor: the later of the two PARTITION columns.)
    for row in (a, b):
        parts = sum(int(row[k]) for k in ("SITE", "AGE", "ASSOC", "FAIRSHARE", "JOBSIZE",
                                          "PARTITION", "QOS"))
        tres = sum(int(v.split("=")[1]) for v in row["TRES"].split(","))
        assert abs(int(row["PRIORITY"]) - (parts + tres - int(row["NICE"]))) <= 8, row
    # Normalised: -n shows the factors themselves.
    header, body = rows(c, "-n", "-j", str(alice), "-o", "%.15i %.10b %40t")
    assert body[0] == [str(alice), "1.0000000", "cpu=0.2500000,gres/gpu=0.2500000"], body
    c.cli("scancel", str(alice), str(bob), str(block))


def test_lists_only_jobs_the_scheduler_may_start(cluster):
    c = cluster
    block = hold_the_cluster(c)
    waiting = submit(c, "-n", "1", user="alice")
    held = submit(c, "-H", "-n", "1", user="alice")
    dep = submit(c, f"--dependency=afterok:{block}", "-n", "1", user="bob")
    later = submit(c, "--begin=now+1hour", "-n", "1", user="bob")
    array = submit(c, "--array=0-3%1", "-n", "1", user="bob")
    unthrottled = submit(c, "--array=0-2", "-n", "1", user="bob")
    # The array's one slot goes to its lowest task; the others wait for the throttle.
    listed = wait_for(lambda: (lambda ids: ids if len(ids) == 3 else None)(sprio_ids(c)), 20,
                      what="three jobs in sprio")
    assert waiting in listed, listed
    assert len(sprio_ids(c, "-j", str(array))) == 1, c.cli("sprio", "-j", str(array)).stdout
    # An array's waiting tasks are one record, one row, as the reference's sprio showed them.
    assert sprio_ids(c, "-j", str(unthrottled)) == [unthrottled], c.cli("sprio").stdout
    for job in (held, dep, later):
        assert sprio_ids(c, "-j", str(job)) == [], job
    # As the reference's: a user filter that lists nothing prints the header; a user nobody is
    # is named on stderr and the others' jobs listed, exit 0.
    nobody = c.cli("sprio", "-u", "root")
    assert nobody.returncode == 0, nobody.stderr
    assert len(nobody.stdout.splitlines()) == 1 and nobody.stdout.split()[0] == "JOBID", nobody
    assert nobody.stdout.split()[:3] == ["JOBID", "PARTITION", "USER"], nobody.stdout
    unknown = c.cli("sprio", "-h", "-o", "%i", "-u", "nosuchuser,alice")
    assert unknown.returncode == 0, unknown.stderr
    assert unknown.stderr == "sprio: error: Invalid user: nosuchuser\n\n", unknown.stderr
    assert waiting in [int(x) for x in unknown.stdout.split()], unknown.stdout
    # An unknown letter goes with the text after it, named on stderr, exit 0, as the
    # reference's `sprio -o "%i %Z %Y"` (JOBID PRIORITY).
    skipped = c.cli("sprio", "-j", str(waiting), "-o", "%i %Z %Y")
    assert (skipped.returncode, skipped.stderr) == \
        (0, "sprio: error: Invalid job format specification: Z\n"), skipped.stderr
    assert skipped.stdout.splitlines()[0] == "JOBID PRIORITY", skipped.stdout
    assert skipped.stdout.split()[2] == str(waiting), skipped.stdout
    # Released, the held job is listed.
    assert c.scontrol("release", str(held)).returncode == 0
    wait_for(lambda: held in sprio_ids(c), 10, what="the released job in sprio")
    c.cli("scancel", str(block), str(waiting), str(held), str(dep), str(later), str(array),
          str(unthrottled))
