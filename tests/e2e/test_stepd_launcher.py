"""droverd's pre-forked supervisor launcher (drover-stepd --launcher, src/stepd/launcher.h),
end to end: each step's drover-stepd is forked by it yet is droverd's own child in its own
session, a killed launcher is replaced and the next job still runs, and an agent restart keeps
running supervisors (the old launcher goes with the old agent, the new agent starts its own)."""

import os
import signal
from pathlib import Path

import pytest

from cluster import wait_for
from conftest import run_cluster

FINAL = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY"}


@pytest.fixture(scope="module")
def cluster(request):
    yield from run_cluster(request, nodes=2, gpus_per_node=0, heartbeat=1, node_down=4)


def submit(cluster, *args):
    r = cluster.cli("sbatch", "--parsable", "-D", "/tmp", "-o", "/dev/null", *args, user="alice")
    assert r.returncode == 0, r.stderr
    return int(r.stdout.split(";")[0])


def job_fields(cluster, job_id):
    return cluster.job_fields(job_id)


def wait_state(cluster, job_id, states, timeout=30):
    return cluster.wait_job(job_id, states, timeout)


def stat(pid):
    """(state, ppid, session) of a process, None when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = text[text.rindex(")") + 2:].split()
    return fields[0], int(fields[1]), int(fields[3])


def cmdline(pid):
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
    except (FileNotFoundError, ProcessLookupError):
        return ""


def stdin_of(pid):
    try:
        return os.readlink(f"/proc/{pid}/fd/0")
    except OSError:
        return ""


def launcher_of(cluster, node):
    """pid of the drover-stepd --launcher whose parent is `node`'s droverd, or None. The
    supervisors it forks share its parent and command line; its stdin is droverd's socket,
    theirs /dev/null."""
    agent = cluster.pid(node)
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        s = stat(entry.name)
        if (s and s[0] != "Z" and s[1] == agent and cmdline(entry.name).endswith("--launcher")
                and stdin_of(entry.name).startswith("socket:")):
            return int(entry.name)
    return None


def supervisor_of(cluster, node, job_id):
    record = Path(cluster.run_dir) / "spool" / node / "steps" / f"{job_id}.-5.rec"
    wait_for(record.exists, 15, what=f"the step record of job {job_id}")
    return int(record.read_text().split()[2])


def alive(pid):
    s = stat(pid)
    return s is not None and s[0] != "Z"


def test_batch_steps_are_forked_by_the_launcher_as_droverds_children(cluster):
    launcher = wait_for(lambda: launcher_of(cluster, "node1"), 15, what="node1's launcher")
    job = submit(cluster, "-w", "node1", "--wrap=sleep 300")
    wait_state(cluster, job, "RUNNING")
    pid = supervisor_of(cluster, "node1", job)
    state, ppid, session = stat(pid)
    assert ppid == cluster.pid("node1"), "the supervisor is not droverd's child"
    assert session == pid, "the supervisor does not lead its own session"
    # Forked, not exec'd: it carries the launcher's command line (which names the spool dir).
    assert cmdline(pid) == cmdline(launcher), cmdline(pid)
    assert "--spool " + str(Path(cluster.run_dir) / "spool" / "node1") in cmdline(pid)
    # It holds none of the launcher's descriptors (the socket to droverd above all).
    launcher_socket = os.readlink(f"/proc/{launcher}/fd/0")
    held = [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")]
    assert launcher_socket not in held, held
    assert os.readlink(f"/proc/{pid}/fd/0") == "/dev/null"
    assert cluster.cli("scancel", str(job)).returncode == 0
    assert wait_state(cluster, job, FINAL)["JobState"] == "CANCELLED"
    wait_for(lambda: not alive(pid), 15, what="the supervisor to end")
    # Exit codes still come through the forked supervisor's report.
    failed = submit(cluster, "-w", "node1", "--wrap=exit 3")
    f = wait_state(cluster, failed, FINAL)
    assert (f["JobState"], f["ExitCode"]) == ("FAILED", "3:0"), f
    assert launcher_of(cluster, "node1") == launcher, "one launcher serves every step"


def huge_code(pid):
    """(start, end) of each anonymous executable mapping of `pid` held in transparent huge
    pages: drover-stepd's code that the launcher moved there (src/stepd/image_prefault.h)."""
    found, current = [], None
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        fields = line.split()
        if "-" in fields[0] and not fields[0].endswith(":"):
            current = fields if len(fields) == 5 and fields[1].startswith("r-x") else None
        elif current and fields[0] == "AnonHugePages:" and int(fields[1]) > 0:
            found.append(tuple(int(x, 16) for x in current[0].split("-")))
    return found


def huge_pages_to_be_had():
    """THP not switched off, and MADV_COLLAPSE (Linux 6.1) there to ask for them."""
    enabled = Path("/sys/kernel/mm/transparent_hugepage/enabled")
    major, minor = (int(x) for x in os.uname().release.split(".")[:2])
    return enabled.exists() and "[never]" not in enabled.read_text() and (major, minor) >= (6, 1)


def test_the_launchers_code_is_in_huge_pages_that_its_supervisors_start_with(cluster):
    if not huge_pages_to_be_had():
        pytest.skip("no transparent huge pages here: the launcher keeps its file-mapped code")
    launcher = wait_for(lambda: launcher_of(cluster, "node1"), 15, what="node1's launcher")
    moved = huge_code(launcher)
    assert moved, "the launcher's code is not in huge pages"
    job = submit(cluster, "-w", "node1", "--wrap=sleep 300")
    wait_state(cluster, job, "RUNNING")
    # The forked supervisor runs on the same huge pages, mapped from its first instruction.
    assert huge_code(supervisor_of(cluster, "node1", job)) == moved
    assert cluster.cli("scancel", str(job)).returncode == 0
    wait_state(cluster, job, FINAL)


def test_a_killed_launcher_is_replaced_and_the_next_job_runs(cluster):
    launcher = wait_for(lambda: launcher_of(cluster, "node1"), 15, what="node1's launcher")
    os.kill(launcher, signal.SIGKILL)
    job = submit(cluster, "-w", "node1", "--wrap=true")
    f = wait_state(cluster, job, FINAL)
    assert f["JobState"] == "COMPLETED", f
    replaced = wait_for(lambda: launcher_of(cluster, "node1"), 15, what="a new launcher")
    assert replaced != launcher
    # droverd reaped the killed one: no zombie left behind.
    assert stat(launcher) is None or stat(launcher)[1] != cluster.pid("node1")


def test_supervisors_outlive_an_agent_restart_and_the_new_agent_has_its_own_launcher(cluster):
    old_launcher = wait_for(lambda: launcher_of(cluster, "node2"), 15, what="node2's launcher")
    job = submit(cluster, "-w", "node2", "--wrap=sleep 4")
    wait_state(cluster, job, "RUNNING")
    pid = supervisor_of(cluster, "node2", job)
    cluster.kill("node2")
    # The launcher ends with its agent (it reads the end of droverd's socket); the supervisor
    # does not.
    wait_for(lambda: not alive(old_launcher), 10, what="the old launcher to exit")
    assert alive(pid), "the supervisor died with its agent"
    cluster.start()
    f = wait_state(cluster, job, FINAL, timeout=60)
    assert f["JobState"] == "COMPLETED", f
    new_launcher = wait_for(lambda: launcher_of(cluster, "node2"), 15, what="a new launcher")
    assert new_launcher != old_launcher
    job = submit(cluster, "-w", "node2", "--wrap=true")
    assert wait_state(cluster, job, FINAL)["JobState"] == "COMPLETED"
