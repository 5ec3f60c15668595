"""sacctmgr end to end: the real CLI lists the account tree of the running cluster's
cluster.conf as Slurm's sacctmgr would, what it shows is what sbatch and sshare use (the
default account a job is charged to, an account an admin adds with `scontrol reconfigure`, the
tree's order), changes are refused with where to make them, and commands can come on stdin
(interactive mode)."""

import subprocess

import pytest

from cluster import ensure_users, wait_for
from conftest import run_cluster

USERS = ("alice", "bob")


@pytest.fixture(scope="module")
def cluster(request):
    ensure_users(USERS)
    yield from run_cluster(request, nodes=1, gpus_per_node=0, heartbeat=1, node_down=4)


def sacctmgr(cluster, *args, user=None, ok=True):
    r = cluster.cli("sacctmgr", *args, user=user)
    if ok:
        assert r.returncode == 0, r.stderr
    return r


def charged_account(cluster, user, *args):
    r = cluster.cli("sbatch", "--parsable", "-o", "/dev/null", *args, "--wrap=true", user=user)
    assert r.returncode == 0, r.stderr
    job = r.stdout.strip()
    cluster.wait_job(job, {"COMPLETED"})
    return cluster.job_fields(job)["Account"]


def test_default_account_is_the_one_jobs_are_charged_to(cluster):
    listed = sacctmgr(cluster, "-nP", "show", "user", "alice", "format=defaultaccount",
                      user="alice").stdout
    assert listed == "research\n"
    assert charged_account(cluster, "alice") == "research"
    assocs = sacctmgr(cluster, "-nP", "show", "assoc", "user=alice", "format=account,user",
                      user="alice").stdout
    assert assocs == "research|alice\n"


def test_added_account_is_listed_used_and_ordered_as_sshare(cluster):
    text = cluster.conf.read_text()
    assert "    users: [alice, bob]    # users who" in text
    cluster.conf.write_text(text.replace(
        "    users: [alice, bob]    # users who may charge jobs to this account (--account=research)",
        "    users: [alice, bob]\n  - name: vision\n    parent: research\n    users: [bob]\n"
        "    shares: 3\n    priority: 20\n    description: computer vision"))
    r = cluster.scontrol("reconfigure")
    assert r.returncode == 0, r.stderr
    table = sacctmgr(cluster, "show", "assoc", "tree", "format=account,user,share,priority").stdout
    assert table.splitlines()[2:] == [
        "root                                    1            ",
        " root                      root         1            ",
        " research                               1            ",
        "  research                alice         1            ",
        "  research                  bob         1            ",
        "  vision                                3         20 ",
        "   vision                   bob         1         20 ",
    ]
    assert sacctmgr(cluster, "-nP", "show", "account", "vision").stdout == \
        "vision|computer vision|research\n"
    # What sacctmgr lists is what the controller took: bob may charge vision, alice may not.
    assert charged_account(cluster, "bob", "-A", "vision") == "vision"
    r = cluster.cli("sbatch", "-A", "vision", "--wrap=true", user="alice")
    assert r.returncode != 0 and "Invalid account" in r.stderr
    # sshare walks the same tree in the same order.
    shares = cluster.cli("sshare", "-a", "-nP", "-o", "account,user")
    assert shares.returncode == 0, shares.stderr
    listed = sacctmgr(cluster, "-nP", "show", "assoc", "tree", "format=account,user").stdout
    assert shares.stdout == listed
    # And sshare's ID column is sacctmgr's association ID (the tree's walk from 1).
    shares = cluster.cli("sshare", "-a", "-nP", "-o", "account,user,id")
    assert shares.returncode == 0, shares.stderr
    listed = sacctmgr(cluster, "-nP", "show", "assoc", "tree", "format=account,user,id").stdout
    assert shares.stdout == listed and shares.stdout.splitlines()[-1] == "   vision|bob|7", shares.stdout


def test_changes_are_refused_and_nothing_changes(cluster):
    before = cluster.conf.read_text()
    r = sacctmgr(cluster, "-i", "add", "account", "foo", ok=False)
    assert r.returncode == 1
    assert "cluster.conf" in r.stderr and "scontrol reconfigure" in r.stderr
    assert cluster.conf.read_text() == before
    assert "foo" not in sacctmgr(cluster, "-nP", "show", "account").stdout


def test_errors_as_slurm(cluster):
    r = sacctmgr(cluster, "show", "assoc", "format=bogus", ok=False)
    assert (r.returncode, r.stderr) == (1, "Unknown field 'bogus'\n")
    r = sacctmgr(cluster, "show", "assoc", "bogus=1", ok=False)
    assert (r.returncode, r.stderr) == (1, " Unknown condition: bogus=1\n")
    r = sacctmgr(cluster, "show", "bogus", ok=False)
    assert r.returncode == 1 and r.stderr.startswith("No valid entity in list command\n")
    r = cluster.cli("sacctmgr", "show", "assoc", conf=cluster.run_dir / "missing.conf")
    assert r.returncode == 1 and "sacctmgr: error:" in r.stderr and "missing.conf" in r.stderr


def test_commands_on_stdin(cluster):
    r = subprocess.run([str(cluster.bin / "sacctmgr"), "-nP"], input="show user alice\n!!\n"
                       "show qos format=name\nquit\nshow cluster\n", capture_output=True,
                       text=True, env=cluster.env(), timeout=30)
    assert r.returncode == 0, r.stderr
    # `!!` repeats the last command; nothing after quit runs.
    assert r.stdout == "alice|research|None\nalice|research|None\nnormal\n"
