"""A slow user directory (LDAP, SSSD) holds up only the calls that wait for its answers.

The controller runs with an LD_PRELOAD shim (tests/e2e/slow_names.cpp) that makes every
getpwnam_r and getgrnam_r of a name starting with "slowpoke" take SLOW_S seconds. The names an
RPC carries are looked up on the controller's lookup threads before its handler runs on the
state thread (src/ctld/name_stage.h): while one lookup hangs, squeue, sinfo and sbatch from other
users are answered at once, and the call that named the slow user gets its answer when the
directory gives one."""

import subprocess
import time

import pytest

from cluster import wait_for
from conftest import run_cluster

SLOW_S = 6


@pytest.fixture(scope="module")
def c(request):
    for cluster in run_cluster(request, nodes=2, gpus_per_node=2):
        cluster.slow_log = cluster.run_dir / "slow-lookups.log"
        cluster.restart_controller(env={
            "LD_PRELOAD": str(cluster.build / "tests" / "libdrover-e2e-slow-names.so"),
            "DROVER_TEST_SLOW_NAME_PREFIX": "slowpoke",
            "DROVER_TEST_SLOW_NAME_MS": str(SLOW_S * 1000),
            "DROVER_TEST_SLOW_NAME_LOG": str(cluster.slow_log),
        })
        yield cluster


def slow_lookups(c):
    return c.slow_log.read_text().split() if c.slow_log.exists() else []


def start_cli(c, *args):
    return subprocess.Popen([str(c.bin / args[0]), *args[1:]], env=c.env(), cwd=str(c.run_dir),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_other_calls_are_answered_while_a_lookup_hangs(c):
    sacct = start_cli(c, "sacct", "-u", "slowpoke1", "-n", "-X")
    try:
        wait_for(lambda: "slowpoke1" in slow_lookups(c), 15, what="sacct's name lookup to start")
        started = time.monotonic()
        for args, user in ((("squeue",), None), (("sinfo",), None),
                           (("sbatch", "-o", "/dev/null", "--wrap=true"), "alice")):
            r = c.cli(*args, user=user, timeout=SLOW_S * 4)
            assert r.returncode == 0, (args, r.stderr)
        took = time.monotonic() - started
        assert took < SLOW_S / 2, f"squeue, sinfo and sbatch took {took:.1f}s beside a hung lookup"
        assert sacct.poll() is None, "sacct was answered before its lookup could have ended"
        out, err = sacct.communicate(timeout=SLOW_S * 4)
    finally:
        if sacct.poll() is None:
            sacct.kill()
            sacct.wait()
    assert (sacct.returncode, out, err) == (1, "", "sacct: error: Invalid user id: slowpoke1\n"), (out, err)

    # That nobody is slowpoke1 is kept for a while: asking again needs no lookup.
    started = time.monotonic()
    r = c.cli("sacct", "-u", "slowpoke1", "-n", "-X", timeout=SLOW_S * 4)
    assert r.returncode == 1 and "Invalid user id: slowpoke1" in r.stderr, r.stderr
    assert time.monotonic() - started < SLOW_S / 2
    assert slow_lookups(c).count("slowpoke1") == 1


def test_each_command_gets_its_answer_after_the_lookup(c):
    """squeue -u, scancel -u and sacct -g name users and groups the slow directory has not
    heard of: each waits for the lookup, then says what the reference says."""
    started = time.monotonic()
    procs = {
        "squeue": start_cli(c, "squeue", "-h", "-u", "slowpoke2"),
        "scancel": start_cli(c, "scancel", "-u", "slowpoke3"),
        "sacct": start_cli(c, "sacct", "-g", "slowpoke4", "-n", "-X"),
    }
    results = {name: (p.communicate(timeout=SLOW_S * 4), p.returncode) for name, p in procs.items()}
    # The three lookups ran side by side on the controller's lookup threads.
    assert time.monotonic() - started < SLOW_S * 2.5
    assert results["squeue"] == (("", "squeue: error: Invalid user: slowpoke2\n\n"), 0), results
    (_, err), rc = results["scancel"]
    assert rc == 1 and "Invalid user name: slowpoke3" in err, results
    (_, err), rc = results["sacct"]
    assert rc == 1 and "Invalid group id: slowpoke4" in err, results
    assert {"slowpoke2", "slowpoke3", "slowpoke4"} <= set(slow_lookups(c))
