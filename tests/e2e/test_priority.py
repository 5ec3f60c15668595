"""sprio and sshare on a small local cluster (2 nodes x 4 GPUs, account research with alice and
bob as in etc/cluster.conf), end to end through the real CLIs: the weights line, the fair-share
tree before and after alice used the cluster, the factors of pending jobs (bob's job, whose user
has no usage, outranks alice's by fair share), the filters (-j, -u, -o, -h), sshare -o, and usage that a
restarted controller still remembers (usage.db)."""

import pwd
import re
import time

import pytest

from cluster import ensure_users, wait_for
from conftest import run_cluster, short_priority_calc_period

USERS = ("alice", "bob")


@pytest.fixture(scope="module")
def cluster(request):
    ensure_users(USERS)
    for c in run_cluster(request, nodes=2, gpus_per_node=4, heartbeat=1, node_down=4):
        short_priority_calc_period(c)
        yield c


def submit(cluster, *args, user=None):
    r = cluster.cli("sbatch", "--parsable", *args, user=user)
    assert r.returncode == 0, r.stderr
    return int(r.stdout.split(";")[0])


def job_state(cluster, job_id):
    r = cluster.cli("scontrol", "show", "job", "-o", str(job_id))
    m = re.search(r"JobState=(\S+)", r.stdout)
    return m.group(1) if m else None


def wait_state(cluster, job_id, want, timeout=20):
    wants = {want} if isinstance(want, str) else set(want)
    return wait_for(lambda: job_state(cluster, job_id) in wants, timeout,
                    what=f"job {job_id} to be {want}")


def sleeper(seconds, *extra):
    return ["-t", "1", "-o", "/dev/null", *extra, f"--wrap=sleep {seconds}"]


def shares(cluster, *args, user=None):
    """sshare -P rows as {(account, user): {column: value}}, account without its indent."""
    r = cluster.cli("sshare", "-P", *args, user=user)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    header = lines[0].split("|")
    out = {}
    for line in lines[1:]:
        row = dict(zip(header, line.split("|")))
        out[(row["Account"].strip(), row["User"])] = row
    return out


def sprio_rows(cluster, *args):
    r = cluster.cli("sprio", *args)
    assert r.returncode == 0, r.stderr
    return r.stdout.splitlines()


def test_weights_line_shows_the_configured_weights(cluster):
    lines = sprio_rows(cluster, "-w")
    assert lines[0].split() == ["JOBID", "PARTITION", "PRIORITY", "SITE", "AGE", "FAIRSHARE",
                                "JOBSIZE", "PARTITION", "QOS"], lines
    assert lines[1].split() == ["Weights", "1", "1000", "10000", "1000", "1000", "1000"], lines


def test_sshare_users_by_name_or_uid(cluster):
    """As the reference's sshare -u: a uid stands for its user (1001 was alice there); a uid
    nobody has is `Invalid user id: N` on stderr, exit 1, no table; a name nobody has selects
    nothing, silently."""
    alice = pwd.getpwnam("alice").pw_uid
    assert ("research", "alice") in shares(cluster, "-u", str(alice))
    assert ("research", "alice") in shares(cluster, "-u", "nosuchuser,alice")
    assert not any(user for _, user in shares(cluster, "-u", "nosuchuser"))
    unknown = 4000000000
    while True:
        try:
            pwd.getpwuid(unknown)
            unknown += 1
        except KeyError:
            break
    r = cluster.cli("sshare", "-a", "-u", f"alice,{unknown}")
    assert (r.returncode, r.stdout, r.stderr) == (1, "", f"Invalid user id: {unknown}\n"), r


def test_sshare_format_chooses_columns(cluster):
    """sshare -o: fields by (the beginning of) their names, widths and sides as Slurm's, the
    cluster's name from cluster.conf; an unknown field is Slurm's error; --helpformat."""
    r = cluster.cli("sshare", "-a", "-l", "-o", "acc%-12,User%6,clus,fair")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[:2] == ["Account        User    Cluster  FairShare ",
                         "------------ ------ ---------- ---------- "], lines
    name = re.search(r"^cluster_name:\s*(\S+)", open(cluster.conf).read(), re.M).group(1)
    assert f"  research    alice {name:>10}   1.000000 " in lines, lines
    r = cluster.cli("sshare", "-P", "-o", "User,RawShares", user="bob")
    assert r.stdout.splitlines()[0] == "User|RawShares" and "bob|1" in r.stdout.splitlines(), r.stdout
    r = cluster.cli("sshare", "-o", "Account,bogus")
    assert r.returncode == 1 and r.stderr == 'sshare: error: Invalid field requested: "bogus"\n', r.stderr
    r = cluster.cli("sshare", "--helpformat")
    assert r.returncode == 0 and r.stdout.split()[:3] == ["Account", "Cluster", "EffectvUsage"], r.stdout
    # ID, the association's id, as the reference Slurm printed `sshare -a -o Account,User,ID`
    # over the same tree.
    r = cluster.cli("sshare", "-a", "-o", "Account,User,ID")
    assert (r.returncode, r.stdout) == (0, "Account                    User     ID \n"
                                           "-------------------- ---------- ------ \n"
                                           "root                                 1 \n"
                                           " root                      root      2 \n"
                                           " research                            3 \n"
                                           "  research                alice      4 \n"
                                           "  research                  bob      5 \n"), r.stdout


def test_fair_share_tree_then_usage_then_priorities(cluster):
    c = cluster
    before = shares(c, "-a")
    assert list(before)[:5] == [("root", ""), ("root", "root"), ("research", ""),
                                ("research", "alice"), ("research", "bob")], before
    assert before[("research", "alice")]["RawUsage"] == "0"
    assert before[("research", "alice")]["FairShare"] == "1.000000"
    # Without -a a user sees the accounts and only their own association.
    own = shares(c, user="bob")
    assert ("research", "bob") in own and ("research", "alice") not in own, own

    heavy = submit(c, "-A", "research", "-J", "heavy", "-N2", "--gres=gpu:4", *sleeper(3),
                   user="alice")
    wait_state(c, heavy, "COMPLETED", timeout=30)
    # CPU-seconds of a ~3 s run on 2 nodes, from the first priority calculation after it.
    after = wait_for(lambda: (lambda s: s if int(s[("research", "alice")]["RawUsage"]) >= 2
                              else None)(shares(c, "-a")), 10, what="alice's usage in sshare")
    alice, bob = after[("research", "alice")], after[("research", "bob")]
    assert float(alice["FairShare"]) < 1.0, alice
    assert bob["RawUsage"] == "0" and bob["FairShare"] == "1.000000", bob
    assert float(after[("research", "")]["EffectvUsage"]) > 0.0

    # Both users queue behind a job that holds the cluster; bob's ranks above alice's.
    block = submit(c, "-J", "block", "-N2", "--gres=gpu:4", *sleeper(300))
    wait_state(c, block, "RUNNING")
    ja = submit(c, "-A", "research", "-J", "ja", "-N2", "--gres=gpu:4", *sleeper(1), user="alice")
    jb = submit(c, "-A", "research", "-J", "jb", "-N2", "--gres=gpu:4", *sleeper(1), user="bob")
    rows = wait_for(lambda: (lambda r: r if len(r) == 3 else None)(sprio_rows(c, "-l")), 10,
                    what="two pending jobs in sprio -l")
    header = rows[0].split()
    assert header == ["JOBID", "PARTITION", "USER", "PRIORITY", "SITE", "AGE", "ASSOC",
                      "FAIRSHARE", "JOBSIZE", "PARTITION", "QOS", "NICE", "TRES"], header
    by_id = {int(r.split()[0]): r.split() for r in rows[1:]}  # TRES is blank
    fa, fb = int(by_id[ja][7]), int(by_id[jb][7])
    assert by_id[ja][2] == "alice" and by_id[jb][2] == "bob"
    assert fb == 10000 and fa < fb, (fa, fb)
    assert int(by_id[jb][3]) > int(by_id[ja][3])
    # Filters and formats.
    assert [r.split()[0] for r in sprio_rows(c, f"-j{ja}")[1:]] == [str(ja)]
    assert [r.split()[0] for r in sprio_rows(c, "-u", "bob")[1:]] == [str(jb)]
    assert sprio_rows(c, "-h", "-o", "%i %F", "-S", "-F") == [f"{jb} {fb}", f"{ja} {fa}"]
    normal = sprio_rows(c, "-n", "-h", "-j", str(jb))  # JOBID PARTITION PRIORITY AGE FAIRSHARE
    assert normal[0].split()[4] == "1.0000000", normal
    missing = c.cli("sprio", "-j", "999999")
    assert missing.returncode == 0, missing.stderr
    assert missing.stdout == "Unable to find jobs matching user/id(s) specified\n", missing.stdout

    c.cli("scancel", str(block), str(ja), str(jb))
    wait_for(lambda: c.cli("squeue", "-h").stdout.strip() == "", 30, what="the queue to empty")

    # The controller remembers alice's usage across a restart. Read once it holds still, as
    # Slurm's RawUsage is as of its last priority calculation. (Clean-clone runs twice read 8
    # here and 5 after the restart: a run that had ended but was not yet charged by a pass was
    # counted up to the calculation's time, not to its end; it now counts to its end.)
    def settled():
        first = shares(c, "-a")[("research", "alice")]["RawUsage"]
        time.sleep(0.5)
        return first if shares(c, "-a")[("research", "alice")]["RawUsage"] == first else None
    used = float(wait_for(settled, 15, what="alice's usage to hold still"))
    c.kill("droverctld")
    c.start()
    again = wait_for(lambda: (lambda r: r if r.returncode == 0 else None)(
        c.cli("sshare", "-P", "-a")), 30, what="the restarted controller")
    row = [l for l in again.stdout.splitlines() if l.startswith("  research|alice|")][0]
    # RawUsage is printed truncated, and it decays (7-day half-life) by a hair meanwhile.
    assert float(row.split("|")[4]) >= used - 1, row
