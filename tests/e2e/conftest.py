"""pytest fixtures for end-to-end tests (Debian's /usr/bin/python3 -m pytest)."""

import signal
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

# The CLIs run as from a terminal's session: SIGHUP at its default. Started under nohup the
# tests would pass its SIG_IGN on through exec, and salloc's SIGHUP to its command on a revoked
# allocation would then be lost, as the reference's is (it waits for the command, 2026-12-05).
# ctest resets it already; a pytest run by hand does not.
signal.signal(signal.SIGHUP, signal.SIG_DFL)

from cluster import Cluster  # noqa: E402


def run_cluster(request, **shape):
    """Body of a module-scoped cluster fixture (`yield from run_cluster(request, ...)`): starts
    a Cluster of `shape`, yields it, and stops it by pid when the module's tests are done.
    After a failure the run directory (logs, state) is kept and its log tails printed."""
    c = Cluster(**shape)
    failed_before = request.session.testsfailed
    try:
        c.start()
        yield c
    finally:
        failed = request.session.testsfailed > failed_before
        if failed:
            print(f"\n[e2e] run directory kept: {c.run_dir}\n{c.logs()}")
        c.stop(keep=True if failed else None)


def replaced_once(text, replacements):
    """`text` (a cluster.conf rendering) with each (old, new) pair's first `old` made `new`;
    fails naming what etc/cluster.conf no longer has."""
    for old, new in replacements:
        assert old in text, f"etc/cluster.conf lost {old!r}"
        text = text.replace(old, new, 1)
    return text


def reconfigure_with(cluster, edit):
    """Rewrites the cluster's cluster.conf as edit(text) and has the controller read it again."""
    cluster.conf.write_text(edit(cluster.conf.read_text()))
    r = cluster.scontrol("reconfigure")
    assert r.returncode == 0, r.stderr


def short_priority_calc_period(cluster, period='"0:01"'):
    """Usage reaches fair share every scheduler.priority.calc_period (Slurm's
    PriorityCalcPeriod, 5 minutes by default); tests of fair-share ordering shorten it to a
    second so they need not wait."""
    text = cluster.conf.read_text()
    assert "    calc_period: 5" in text, "etc/cluster.conf lost its calc_period line"
    cluster.conf.write_text(text.replace("    calc_period: 5", f"    calc_period: {period}"))
    assert cluster.scontrol("reconfigure").returncode == 0


@pytest.fixture(scope="module")
def cluster(request):
    """Controller + 3 agents (node1..node3, 8 GPUs each) with a short heartbeat and
    node_down timeout."""
    yield from run_cluster(request, nodes=3, gpus_per_node=8, heartbeat=1, node_down=4)


@pytest.fixture
def make_cluster():
    """Factory for extra clusters in one test; each is stopped at the end."""
    made = []

    def make(**kw):
        c = Cluster(**kw)
        made.append(c)
        return c

    yield make
    for c in made:
        c.stop()
