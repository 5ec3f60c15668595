"""The batch CLIs' less common paths against what the reference Slurm 22.05 printed for the
same commands (golden/edges/, captured by edge_cases.py, README there): error messages and
exit codes of bad input, held, failed and cancelled-while-held jobs in scontrol and squeue,
hold of a running job, sacct's time window checks and --delimiter, scancel --ctld. One
cluster, the setup and the cases in the capture's order; each output masked (ids, times,
paths, node names) and compared as the case's check says."""

import re
from pathlib import Path

import pytest

import edge_cases as ec
import golden_norm as gn
from cluster import ensure_users
from conftest import run_cluster

EDGES = Path(__file__).resolve().parent / "golden" / "edges"
# scontrol show job values that depend on the scheduler's figures or the submitting host
VOLATILE = ("Priority", "LastSchedEval", "AllocNode:Sid", "NodeList", "BatchHost")


@pytest.fixture(scope="module")
def cluster(request):
    ensure_users(["alice"])
    yield from run_cluster(request, nodes=4, gpus_per_node=8, heartbeat=1, node_down=4)


def goldens():
    return {gn.parse_golden(p).name: gn.parse_golden(p) for p in sorted(EDGES.glob("[0-9][0-9]-*.txt"))}


@pytest.fixture(scope="module")
def replayed(cluster):
    got = {}
    path = f"{cluster.bin}:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"
    ec.run_all(path, "DROVER_CONF", str(cluster.conf),
               lambda name, template, check, rc, out, err: got.__setitem__(name, (check, rc, out, err)))
    return got


def masked(text):
    ctx = gn.Context(run_dir=ec.RUN_DIR, home="/home/alice", conf="", hosts=("vm", "localhost"))
    return gn.mask(text, ctx)


@pytest.mark.parametrize("name", [c[0] for c in ec.CASES])
def test_edge_case_matches_reference(replayed, name):
    want = goldens()[name]
    check, rc, out, err = replayed[name]
    assert rc == want.exit, f"{want.command}: exit {rc}, the reference {want.exit}\n{out}{err}"
    if check == "keys":
        diffs = gn.compare_keys(masked(want.stdout), masked(out), volatile=VOLATILE)
        assert not diffs, "\n".join(diffs)
        # the values the case is about, unmasked: a held job's priority is 0
        for key in ("Priority=0", "Reason=", "JobState="):
            w = re.findall(rf"\b{key}\S*", want.stdout)
            assert w == re.findall(rf"\b{key}\S*", out), f"{key}: want {w}\n{out}"
        return
    assert masked(out) == masked(want.stdout) or gn.compare_lines(masked(want.stdout), masked(out)) == [], \
        f"stdout:\n{out}\nthe reference's:\n{want.stdout}"
    if check == "err1":  # the reference's second line is a documented difference
        assert masked(err).splitlines()[:1] == masked(want.stderr).splitlines()[:1], err
        return
    if check == "errlast":  # lines above it are the reference's plugin chatter
        assert masked(err).splitlines()[-1:] == masked(want.stderr).splitlines()[-1:], err
        return
    if check == "all":
        diffs = gn.compare_lines(masked(want.stderr), masked(err))
        assert not diffs, f"stderr:\n{err}\nthe reference's:\n{want.stderr}\n" + "\n".join(diffs)
