"""pytest fixtures for end-to-end tests (Debian's /usr/bin/python3 -m pytest)."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cluster import Cluster  # noqa: E402


@pytest.fixture(scope="module")
def cluster(request):
    """Controller + 3 agents (node1..node3, 8 GPUs each) with a short heartbeat and
    node_down timeout, stopped by pid when the module's tests are done. After a failure the
    run directory (logs, state) is kept and its log tails printed."""
    c = Cluster(nodes=3, gpus_per_node=8, heartbeat=1, node_down=4)
    failed_before = request.session.testsfailed
    try:
        c.start()
        yield c
    finally:
        failed = request.session.testsfailed > failed_before
        if failed:
            print(f"\n[e2e] run directory kept: {c.run_dir}\n{c.logs()}")
        c.stop(keep=True if failed else None)


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
