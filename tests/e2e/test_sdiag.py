"""sdiag end to end: the controller counts the jobs alice submits, starts and ends (one
completes, one fails, one is cancelled) and every RPC by method and user; sdiag prints them in
the reference's layout (tests/unit/cli/golden/sdiag/); `sdiag -r` is refused to alice as the
reference refuses it (exit 255) and starts root's counters again from a new "Data since";
--help, --usage, unknown options and -M as the reference's sdiag."""

import re
import time
from pathlib import Path

import pytest

from cluster import ensure_users, wait_for
from conftest import run_cluster

GOLDEN = Path(__file__).resolve().parents[1] / "unit" / "cli" / "golden" / "sdiag"


@pytest.fixture(scope="module")
def cluster(request):
    ensure_users(("alice",))
    yield from run_cluster(request, nodes=1, gpus_per_node=0, heartbeat=1, node_down=4)


def golden(name):
    """A capture and its exit code."""
    text = (GOLDEN / name).read_text()
    body, _, code = text.rpartition("exit=")
    return body, int(code)


def sdiag(cluster, *args, user=None):
    r = cluster.cli("sdiag", *args, user=user)
    assert r.returncode == 0, r.stderr
    return r.stdout


def counters(report):
    """The "Label: value" lines of a report as a dict (first occurrence of each label), and
    the header's "Data since" (no colon there)."""
    out = {}
    since = re.search(r"^Data since\s+(\S.*)$", report, re.M)
    if since:
        out["Data since"] = since.group(1)
    for line in report.splitlines():
        m = re.match(r"^\t?([A-Za-z][^:(]*(?:\([^)]*\))?[^:]*):\s+(\S.*)$", line)
        if m and m.group(1) not in out:
            out[m.group(1).strip()] = m.group(2)
    return out


def table(report, title):
    """The rows of an RPC table: {name: (id, count, ave_time, total_time)}."""
    rows = {}
    lines = report.split(title + "\n", 1)[1].split("\n\n", 1)[0].splitlines()
    for line in lines:
        m = re.fullmatch(r"\t(\S+)\s*\(\s*(\d+)\) count:(\d+)\s+ave_time:(\d+)\s+total_time:(\d+)",
                         line)
        assert m, repr(line)
        rows[m.group(1)] = tuple(int(x) for x in m.groups()[1:])
    return rows


def epoch(value):
    """'Wed Dec 02 01:38:41 2026 (1796175521)' -> 1796175521."""
    m = re.fullmatch(r"\w{3} \w{3} \d\d \d\d:\d\d:\d\d \d{4} \((\d+)\)", value)
    assert m, value
    return int(m.group(1))


def shape(report):
    """The report with every value masked and the lines that depend on values (means, rate,
    RPC rows) left out: what must equal the reference's."""
    out = []
    for line in report.splitlines():
        if re.match(r"\t(Mean cycle|Mean depth cycle|Cycles per minute):", line):
            continue
        if re.match(r"\t\S+\s*\(\s*\d+\) count:", line):
            continue
        line = re.sub(r"\w{3} \w{3} \d\d \d\d:\d\d:\d\d \d{4} \(\d+\)", "<time>", line)
        out.append(re.sub(r"\d+", "N", line))
    return out


def submit(cluster, *args, wrap):
    r = cluster.cli("sbatch", "--parsable", "-o", "/dev/null", *args, f"--wrap={wrap}",
                    user="alice")
    assert r.returncode == 0, r.stderr
    return int(r.stdout.strip().split(";")[0])


def test_counts_jobs_and_rpcs_and_resets(cluster):
    c = cluster
    # Start from zero whatever the cluster did while it came up.
    r = c.cli("sdiag", "-r")
    assert (r.returncode, r.stdout) == (0, "Reset scheduling statistics\n"), r.stderr

    ok = submit(c, wrap="true")
    bad = submit(c, wrap="exit 3")
    long = submit(c, wrap="sleep 300")
    c.wait_job(ok, "COMPLETED")
    c.wait_job(bad, "FAILED")
    c.wait_job(long, "RUNNING")
    assert c.cli("scancel", str(long), user="alice").returncode == 0
    c.wait_job(long, "CANCELLED")

    # A cancelled job's end is counted when its step reports, maybe after squeue shows it.
    def ended():
        got = counters(sdiag(c))
        return sum(int(got[k]) for k in ("Jobs completed", "Jobs canceled", "Jobs failed")) >= 3
    wait_for(ended, 20, what="sdiag to count three ended jobs")
    report = sdiag(c)
    got = counters(report)
    assert got["Jobs submitted"] == "3", report
    assert got["Jobs started"] == "3", report
    assert got["Jobs completed"] == "1", report
    assert got["Jobs canceled"] == "1", report
    assert got["Jobs failed"] == "1", report
    assert got["Jobs pending"] == "0" and got["Jobs running"] == "0", report
    assert int(got["Server thread count"]) >= 1, report  # this very call
    assert int(got["Total cycles"]) >= 1, report          # passes ran for the jobs
    types = table(report, "Remote Procedure Call statistics by message type")
    submits = types["REQUEST_SUBMIT_JOB"]
    assert submits[0] == 2006 and submits[1] >= 3, types
    assert submits[2] == submits[3] // submits[1], types
    assert types["REQUEST_CANCEL_JOBS"][1] >= 1, types
    assert types["MESSAGE_STEP_EVENT"][1] >= 2, types   # the batch steps' ends
    counts = [row[1] for row in types.values()]
    assert counts == sorted(counts, reverse=True), report
    users = table(report, "Remote Procedure Call statistics by user")
    uid = int(c.cli("scontrol", "show", "job", str(ok)).stdout.split("UserId=alice(")[1]
              .split(")")[0])
    assert users["alice"][0] == uid and users["alice"][1] >= 4, users
    assert report.endswith("Pending RPC statistics\n\tNo pending RPCs\n"), report

    # The layout is the reference's, value for value masked.
    ref, _ = golden("sdiag-root.txt")
    assert shape(report) == shape(ref)

    # Anyone may look; only root (and operators) may reset, as Slurm's sdiag.
    as_alice = sdiag(c, user="alice")
    assert counters(as_alice)["Jobs submitted"] == "3"
    refused = c.cli("sdiag", "-r", user="alice")
    want, code = golden("sdiag-reset-alice.txt")
    assert (refused.returncode, refused.stderr, refused.stdout) == (code, want, ""), refused
    assert counters(sdiag(c))["Jobs submitted"] == "3"

    since = epoch(got["Data since"])
    time.sleep(1.1)
    r = c.cli("sdiag", "-r")
    want, code = golden("sdiag-reset-root.txt")
    assert (r.returncode, r.stdout) == (code, want), r.stderr
    after = sdiag(c)
    got = counters(after)
    assert epoch(got["Data since"]) > since, after
    for label in ("Jobs submitted", "Jobs started", "Jobs completed", "Jobs canceled",
                  "Jobs failed"):
        assert got[label] == "0", after
    types = table(after, "Remote Procedure Call statistics by message type")
    assert "REQUEST_SUBMIT_JOB" not in types, after
    # The reset's own call is the first one counted after it, as in the reference's capture.
    assert types["REQUEST_GET_STATISTICS"][1] == 1, after
    assert "alice" not in table(after, "Remote Procedure Call statistics by user"), after


def test_backfill_counts_a_job_started_past_a_blocked_one(cluster):
    """On the 16-CPU node a 12-CPU job runs; an 8-CPU job waits for it (Resources) and a short
    2-CPU job starts past it: Drover's backfill, which sdiag counts as Slurm's backfill
    scheduler's (its cycles, the job, the means once a cycle ran)."""
    c = cluster
    assert c.cli("sdiag", "-r").returncode == 0
    running = submit(c, "-c", "12", "-t", "10", wrap="sleep 300")
    c.wait_job(running, "RUNNING")
    blocked = submit(c, "-c", "8", "-t", "10", wrap="true")
    short = submit(c, "-c", "2", "-t", "1", wrap="sleep 300")
    try:
        c.wait_job(short, "RUNNING")
        assert c.job_fields(blocked)["JobState"] == "PENDING"
        report = sdiag(c)
        block = counters(report.split("Backfilling stats\n", 1)[1].split("\n\n", 1)[0])
        assert block["Total backfilled jobs (since last slurm start)"] == "1", report
        assert block["Total backfilled jobs (since last stats cycle start)"] == "1", report
        assert int(block["Total cycles"]) >= 1, report
        assert int(block["Last depth cycle (try sched)"]) <= int(block["Last depth cycle"]), report
        assert abs(epoch(block["Last cycle when"]) - time.time()) < 60, report
        assert int(block["Max cycle"]) >= int(block["Mean cycle"]) > 0, report
        assert "Mean table size" in block, report
    finally:
        c.cli("scancel", str(running), str(blocked), str(short))
        for job in (running, blocked, short):
            c.wait_job(job, {"CANCELLED", "COMPLETED"})


def test_sort_options(cluster):
    for option, key in (("-i", 0), ("-t", 3), ("-T", 2)):
        report = sdiag(cluster, option)
        rows = list(table(report, "Remote Procedure Call statistics by message type").values())
        values = [row[key] for row in rows]
        assert values == sorted(values, reverse=(key != 0)), (option, report)


def test_options_as_the_reference(cluster):
    c = cluster
    for args, name in ((["--help"], "sdiag-help.txt"), (["--usage"], "sdiag-usage.txt")):
        r = c.cli("sdiag", *args)
        want, code = golden(name)
        assert (r.returncode, r.stdout) == (code, want), r.stderr
    for args, name in ((["--bogus"], "sdiag-bogus.txt"), (["--json"], "sdiag-json.txt")):
        r = c.cli("sdiag", *args)
        want, code = golden(name)
        assert (r.returncode, r.stderr, r.stdout) == (code, want, ""), r
    r = c.cli("sdiag", "-V")
    assert r.returncode == 0 and r.stdout.startswith("drover "), r  # Drover names itself
    # -a is the default report.
    assert shape(sdiag(c, "-a")) == shape(sdiag(c))
    # -M: this cluster only, as the other CLIs refuse others.
    name = re.search(r"^cluster_name:\s*(\S+)", c.conf.read_text(), re.M).group(1)
    assert "Jobs submitted:" in sdiag(c, "-M", name)
    r = c.cli("sdiag", "-M", "elsewhere")
    assert r.returncode == 1, r
    assert r.stderr == "sdiag: error: --clusters is not supported: Drover runs one cluster\n"


def test_unreachable_controller_is_an_error_not_a_hang(cluster):
    text = cluster.conf.read_text()
    assert re.search(r"^\s*cli_port:\s*\d+", text, re.M), text
    closed = cluster.run_dir / "cluster-closed-port.conf"
    closed.write_text(re.sub(r"(?m)^(\s*cli_port:\s*)\d+", r"\g<1>1", text))
    r = cluster.cli("sdiag", conf=closed)
    assert r.returncode == 255, r
    assert r.stderr == ("slurm_get_statistics: Unable to contact slurm controller "
                        "(connect failure)\n"), r.stderr
