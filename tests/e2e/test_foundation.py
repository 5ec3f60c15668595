"""The foundation, end to end: a controller and three agents with their own munged and state
directory; sinfo and scontrol output; a killed agent goes DOWN within the configured timeout
and returns; admin node updates and their authorization; reconfigure adds a node; every
authentication failure is refused. Tests run in file order on one module-scoped cluster."""

import os
import re
import signal
import subprocess
import time

from cluster import wait_for


def test_sinfo_default_view(cluster):
    r = cluster.sinfo()
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST",
        "gpu*         up 1-00:00:00      3   idle node[1-3]",
        "debug        up      30:00      2   idle node[1-2]",
    ], r.stdout


def test_sinfo_rows_merge_across_partitions(cluster):
    """Without a column naming the partition, the rows of gpu and debug merge where their values
    print alike, each node counted once (the reference Slurm's `sinfo -o "%D %t"` printed one row
    over both partitions); a partition attribute (%l) still splits them; -N keeps a row per node
    and partition."""
    r = cluster.sinfo("-o", "%N %c %t")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["NODELIST CPUS STATE", "node[1-3] 16 idle"], r.stdout
    assert cluster.sinfo("-h", "-o", "%D %t").stdout == "3 idle\n"
    assert cluster.sinfo("-h", "-o", "%l %D").stdout == "1-00:00:00 3\n30:00 2\n"
    assert cluster.sinfo("-h", "-s", "-o", "%D %F").stdout == "3 0/3/0/3\n"
    r = cluster.sinfo("-h", "-N", "-o", "%N %t")
    assert r.stdout.splitlines() == ["node1 idle", "node1 idle", "node2 idle", "node2 idle",
                                     "node3 idle"], r.stdout


def test_sinfo_node_oriented(cluster):
    r = cluster.sinfo("-h", "-N", "-o", "%N %t %c %G")
    assert r.returncode == 0, r.stderr
    lines = sorted(set(r.stdout.split("\n")) - {""})
    assert lines == [f"node{i} idle 16 gpu:8" for i in (1, 2, 3)], r.stdout
    r = cluster.sinfo("-h", "-N", "-p", "gpu", "-o", "%N", "-S", "-N")
    assert r.stdout.split() == ["node3", "node2", "node1"], r.stdout


def test_sinfo_iterate_reports_until_stopped(cluster):
    """sinfo -i N: a report every N seconds, each the date line, the header, the rows and an
    empty line (as Slurm 22.05's); -h keeps only the rows; -l with -o is Slurm's fatal error."""
    date = re.compile(r"\w{3} \w{3} \d\d \d\d:\d\d:\d\d \d{4}")
    reports = cluster.reports("sinfo", "-i", "1", "-o", "%P %a")
    assert len(reports) == 2, reports
    for report in reports:
        assert date.fullmatch(report[0]), report
        assert report[1:] == ["PARTITION AVAIL", "gpu* up", "debug up"], report
    assert cluster.reports("sinfo", "--iterate=1", "-h", "-p", "debug", "-o", "%P") == [["debug"]] * 2
    r = cluster.sinfo("-i", "0")
    assert r.returncode == 1 and "sinfo: error: Error: invalid entry for --iterate=0" in r.stderr, r.stderr
    r = cluster.sinfo("-l", "-o", "%P")
    assert r.returncode == 1 and r.stderr.startswith("sinfo: fatal: Options -o(--format) and -l(--long)"), r.stderr


def test_sinfo_long_format_fields(cluster):
    r = cluster.sinfo("-h", "-N", "-O", "NodeList:10,StateCompact:6,CPUs:.4,Gres")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert sorted({line[:10].strip() for line in lines}) == ["node1", "node2", "node3"], r.stdout
    assert all(line[10:16] == "idle  " and line[16:20] == "  16" and line[20:].startswith("gpu:")
               for line in lines), r.stdout
    # An unknown name: left out with the reference's warning (its text says "job"), exit 0.
    r = cluster.sinfo("-h", "-O", "NodeList:12,Bogus")
    assert r.returncode == 0 and r.stderr == "sinfo: error: Invalid job format specification: Bogus\n", r.stderr
    assert r.stdout.splitlines()[0].startswith("node"), r.stdout


def test_scontrol_show_node(cluster):
    r = cluster.scontrol("show", "node", "node1")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert out.startswith("NodeName=node1 "), out
    for field in ("CPUTot=16", "Gres=gpu:8", "NodeAddr=127.0.0.1",
                  f"Port={cluster.port_base + 2}", "RealMemory=65536", "Sockets=2",
                  "CoresPerSocket=8", "ThreadsPerCore=1", "State=IDLE ",
                  "Partitions=gpu,debug", "CfgTRES=cpu=16,mem=64G,billing=16,gres/gpu=8"):
        assert field in out, f"{field!r} missing from:\n{out}"
    every = cluster.scontrol("show", "nodes")
    assert every.returncode == 0, every.stderr
    assert re.findall(r"^NodeName=(\S+)", every.stdout, re.M) == ["node1", "node2", "node3"]


def test_scontrol_ping_reports_controller(cluster):
    r = cluster.scontrol("ping")
    assert r.returncode == 0, r.stderr
    assert "UP" in r.stdout, r.stdout


def test_scontrol_show_of_what_drover_has_none_of_and_of_this_hosts_daemons(cluster):
    """As the reference printed them (2026-12-03): licenses, topology, frontend and the burst
    buffer and federation entities in its words and exit codes, any beginning it took; daemons
    and aliases from the host names the agents registered from (here all on this host)."""
    def show(*args):
        r = cluster.scontrol("show", *args)
        return r.returncode, r.stdout, r.stderr
    assert show("lic") == (0, "No licenses configured in Drover.\n", "")
    assert show("topo") == (0, "", "scontrol: error: No topology information available\n")
    assert show("topology", "node1") == \
        (0, "", "scontrol: error: Topology information contains no switch or node named node1\n")
    for entity in ("burst", "bbstat", "dwstat", "fed"):
        assert show(entity) == (0, "", ""), entity
    assert show("fr") == (0, "No nodes in the system\n", "")
    assert show("frontend", "x") == (1, "Node x not found\n", "")
    assert show("daemons") == (0, "droverctld droverd\n", "")
    assert show("daemons", "x") == (1, "", "too many arguments for keyword:show\n")
    assert show("a") == (0, "node1 node2 node3\n", "")
    assert show("aliases", "node1") == (0, "", "")
    assert show("b") == (1, "", "invalid entity:b for keyword:show \n")
    assert show("jobs", "1", "2") == (1, "", "too many arguments for keyword:show\n")
    # The reference's words for a command without its arguments, bare on stderr.
    for args, words in ((["show"], "too few arguments for keyword:show"),
                        (["hold"], "too few arguments for keyword:hold"),
                        (["update"], "too few arguments for update keyword"),
                        (["delete"], "too few arguments for delete keyword")):
        r = cluster.scontrol(*args)
        assert (r.returncode, r.stdout, r.stderr) == (1, "", words + "\n"), args


def test_setdebug_changes_the_running_controllers_log_level(cluster):
    """scontrol setdebug, as the reference's: Slurm's level names (any case) or 0-9; a bad one
    refused by scontrol; users refused by the controller; show config's SlurmctldDebug says the
    level in force, and the controller's log has debug lines only while it is debug or more."""
    def debug_level():
        lines = cluster.scontrol("show", "config").stdout.splitlines()
        return next(line.split("=", 1)[1].strip() for line in lines
                    if line.startswith("SlurmctldDebug "))
    log = cluster.run_dir / "log" / "droverctld.log"
    assert debug_level() == "info"
    r = cluster.scontrol("setdebug", "Debug2")
    assert (r.returncode, r.stdout, r.stderr) == (0, "", ""), r.stderr
    assert debug_level() == "debug2"
    before = log.stat().st_size
    assert cluster.cli("squeue").returncode == 0
    wait_for(lambda: "[debug]" in log.read_text()[before:] or "[trace]" in log.read_text()[before:],
             10, what="debug lines in the controller's log")
    # -1: back to the level the controller started at (the reference took it, rc 0).
    r = cluster.scontrol("setdebug", "-1")
    assert (r.returncode, r.stdout, r.stderr) == (0, "", ""), r.stderr
    assert debug_level() == "info"
    assert cluster.scontrol("setdebug", "debug").returncode == 0
    r = cluster.scontrol("setd", "3")
    assert r.returncode == 0, r.stderr
    assert debug_level() == "info"
    for bad in ("bogus", "10", "-x"):
        r = cluster.scontrol("setdebug", bad)
        assert (r.returncode, r.stderr) == (1, f"invalid debug level: {bad}\n"), r.stderr
    r = cluster.scontrol("setdebug")
    assert (r.returncode, r.stderr) == (1, "too few arguments for keyword:setdebug\n")
    r = cluster.cli("scontrol", "setdebug", "debug", user="alice")
    assert r.returncode == 1 and r.stderr.startswith("slurm_set_debug_level error: Access/permission denied"), r.stderr
    assert debug_level() == "info"


def test_scontrol_show_config_names_the_settings_as_slurm(cluster):
    r = cluster.scontrol("show", "config")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert re.fullmatch(r"Configuration data as of \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", lines[0]), lines
    settings = dict(line.split(" = ", 1) for line in lines[1:] if " = " in line)
    settings = {k.strip(): v for k, v in settings.items()}
    assert settings["SlurmdTimeout"] == "4 sec", settings   # the fixture's node_down
    assert settings["SLURM_CONF"] == str(cluster.conf), settings
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", settings["BOOT_TIME"]), settings
    assert lines[-2:] == ["", "Slurmctld(primary) at 127.0.0.1 is UP"], lines


def test_killed_agent_goes_down_within_timeout_and_returns(cluster):
    cluster.kill("node2", signal.SIGKILL)
    killed_at = time.monotonic()
    cluster.wait_state("node2", "down*", timeout=cluster.node_down + 10)
    elapsed = time.monotonic() - killed_at
    # the last heartbeat was at most one interval before the kill; the check runs every
    # node_down/5 s; allow a little for sinfo itself
    assert elapsed <= cluster.node_down + 3, f"DOWN after {elapsed:.1f}s"
    show = cluster.scontrol("show", "node", "node2").stdout
    assert "Reason=Not responding" in show, show
    # the others are untouched
    assert cluster.node_state("node1") == "idle"
    cluster.start()   # idempotent: starts only the missing agent
    cluster.wait_state("node2", "idle", timeout=15)
    assert "Reason=" not in cluster.scontrol("show", "node", "node2").stdout


def test_a_stalled_controller_blames_no_node_for_its_own_silence(cluster):
    """A controller stopped for longer than node_down (SIGSTOP here; swapping or a paused VM in
    life) heard no heartbeat meanwhile. Waking, it must not mark the nodes DOWN for that, nor
    requeue the jobs running there (a clean-clone run once lost a job to a 29 s VM pause)."""
    for node in ("node1", "node2", "node3"):
        cluster.wait_state(node, "idle", timeout=15)
    r = cluster.cli("sbatch", "--parsable", "-w", "node1", "-o", "/dev/null", "--wrap", "sleep 120")
    assert r.returncode == 0, r.stderr
    job = r.stdout.strip()
    cluster.wait_job(job, "RUNNING")
    ctld = cluster.pid("droverctld")
    os.kill(ctld, signal.SIGSTOP)
    try:
        time.sleep(cluster.node_down * 2)
    finally:
        os.kill(ctld, signal.SIGCONT)
    # A wrong verdict would come at the first timeout check after waking; watch past node_down.
    seen = set()
    end = time.monotonic() + cluster.node_down + 2
    while time.monotonic() < end:
        seen |= {cluster.node_state(node) for node in ("node1", "node2", "node3")}
        time.sleep(0.2)
    assert seen <= {"idle", "mix", "alloc"}, seen
    fields = cluster.job_fields(job)
    assert (fields["JobState"], fields["Restarts"]) == ("RUNNING", "0"), fields
    assert "stalled" in (cluster.run_dir / "log" / "droverctld.log").read_text()
    assert cluster.cli("scancel", job).returncode == 0
    cluster.wait_job(job, "CANCELLED")


def test_start_is_idempotent(cluster):
    pids = {n: cluster.pid(n) for n in ("droverctld", "munged", "node1", "node2", "node3")}
    r = cluster.start()
    assert "export DROVER_CONF=" in r.stdout and f"export PATH={cluster.bin}:" in r.stdout
    assert {n: cluster.pid(n) for n in pids} == pids
    st = cluster.status()
    assert st.returncode == 0, st.stdout
    assert st.stdout.count(": running (pid ") == 5, st.stdout


def test_admin_drain_needs_reason_then_resume(cluster):
    r = cluster.scontrol("update", "nodename=node3", "state=drain")
    assert r.returncode != 0
    assert "You must specify a reason when DOWNING or DRAINING a node. Request denied" in (
        r.stdout + r.stderr)
    r = cluster.scontrol("update", "nodename=node3", "state=drain", "reason=e2e maintenance")
    assert r.returncode == 0, r.stderr
    assert cluster.node_state("node3") == "drain"
    show = cluster.scontrol("show", "node", "node3").stdout
    assert "State=IDLE+DRAIN " in show, show
    assert re.search(r"Reason=e2e maintenance \[root@\d{4}-\d\d-\d\dT", show), show
    r = cluster.scontrol("update", "nodename=node3", "state=resume")
    assert r.returncode == 0, r.stderr
    assert cluster.node_state("node3") == "idle"


def test_non_admin_cannot_update_but_can_read(cluster):
    r = cluster.sinfo(user="nobody")
    assert r.returncode == 0, r.stderr
    r = cluster.scontrol("update", "nodename=node1", "state=drain", "reason=not mine",
                         user="nobody")
    assert r.returncode != 0
    assert "Access/permission denied" in r.stderr, r.stderr
    assert cluster.node_state("node1") == "idle"
    r = cluster.scontrol("reconfigure", user="nobody")
    assert r.returncode != 0
    assert "Access/permission denied" in r.stderr, r.stderr


def test_credential_from_another_munge_key_is_refused(cluster):
    other = cluster.run_dir / "other-munge"
    other.mkdir(mode=0o755)
    key = other / "munge.key"
    key.write_bytes(os.urandom(1024))
    key.chmod(0o600)
    sock = other / "munge.socket"
    subprocess.run(["munged", f"--socket={sock}", f"--key-file={key}",
                    f"--pid-file={other / 'munged.pid'}", f"--log-file={other / 'munged.log'}",
                    f"--seed-file={other / 'munge.seed'}", "--force"], check=True)
    try:
        wait_for(sock.exists, 10, what="second munged")
        conf2 = cluster.run_dir / "cluster-other-key.conf"
        conf2.write_text(cluster.conf.read_text().replace(
            f"munge_socket: {cluster.run_dir}/munge/munge.socket", f"munge_socket: {sock}"))
        r = cluster.sinfo(conf=conf2)
        assert r.returncode != 0
        assert "Access/permission denied" in r.stderr, r.stderr
        r = cluster.scontrol("update", "nodename=node1", "state=down", "reason=evil",
                             conf=conf2)
        assert r.returncode != 0
        assert cluster.node_state("node1") == "idle"
    finally:
        pid = int((other / "munged.pid").read_text())
        os.kill(pid, signal.SIGTERM)


def rawcall(cluster, mode):
    exe = cluster.build / "tests" / "drover-e2e-rawcall"
    r = subprocess.run([str(exe), f"127.0.0.1:{cluster.port_base}", mode,
                        str(cluster.run_dir / "munge" / "munge.socket")],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    return r.stdout.splitlines()


def test_missing_forged_replayed_and_rebound_credentials_are_refused(cluster):
    (none,) = rawcall(cluster, "none")
    assert none.startswith("PERMISSION_DENIED"), none
    (forged,) = rawcall(cluster, "forged")
    assert forged.startswith("PERMISSION_DENIED"), forged
    first, again = rawcall(cluster, "replay")
    assert first == "OK uid=0", first
    assert again.startswith("PERMISSION_DENIED"), again
    (rebound,) = rawcall(cluster, "rebind")
    assert rebound.startswith("PERMISSION_DENIED"), rebound


def test_reconfigure_adds_a_node(cluster):
    original = cluster.conf.read_text()
    cluster.conf.write_text(original + "bogus_key: 1\n")
    r = cluster.scontrol("reconfigure")
    assert r.returncode != 0
    assert re.search(re.escape(str(cluster.conf)) + r":\d+:\d+", r.stderr), r.stderr
    assert "bogus_key" in r.stderr, r.stderr
    cluster.conf.write_text(original)   # clients read the file too
    assert cluster.node_state("node1") == "idle"   # the old configuration stayed in force

    cluster.conf.write_text(cluster.render(nodes=4))
    r = cluster.scontrol("reconfigure")
    assert r.returncode == 0, r.stderr
    assert cluster.node_state("node4") == "unk*"
    cluster.start(nodes=4)
    cluster.wait_state("node4", "idle", timeout=15)
    assert cluster.node_state("node1") == "idle"
    r = cluster.sinfo()
    assert "gpu*         up 1-00:00:00      4   idle node[1-4]" in r.stdout, r.stdout


def test_agent_reporting_less_memory_drains_its_node(cluster):
    cluster.kill("node4", signal.SIGTERM)
    agent = cluster.spawn([str(cluster.bin / "droverd"), "-D", "-f", str(cluster.conf),
                           "--node-name", "node4", "--fake-resources", "--report-memory", "1000"],
                          "droverd-node4-short.out")
    try:
        cluster.wait_state("node4", "drain", timeout=15)
        show = cluster.scontrol("show", "node", "node4").stdout
        assert "Reason=Low RealMemory (reported:1000 < 100.00% of configured:65536)" in show, show
    finally:
        agent.terminate()
        agent.wait(10)


def test_admin_state_survives_controller_restart(cluster):
    r = cluster.scontrol("update", "nodename=node1", "state=drain", "reason=keep across restart")
    assert r.returncode == 0, r.stderr
    cluster.kill("droverctld", signal.SIGTERM)
    cluster.start(nodes=4)   # node4's agent was replaced by the test above: start it again
    show = cluster.scontrol("show", "node", "node1").stdout
    assert "Reason=keep across restart" in show, show
    assert cluster.node_state("node1") == "drain"
    assert cluster.scontrol("update", "nodename=node1", "state=resume").returncode == 0


def test_bad_config_refuses_to_start(cluster, tmp_path):
    bad = tmp_path / "bad.conf"
    bad.write_text("cluster_name: x\nnodes: 5\npartitions: []\n")
    r = subprocess.run([str(cluster.bin / "droverctld"), "-D", "-f", str(bad)],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 1
    assert re.search(re.escape(str(bad)) + r":\d+:\d+", r.stderr), r.stderr
