"""A whole Drover cluster for end-to-end tests: munged, droverctld and agents on loopback,
started with scripts/local-cluster in a private run directory on ports no other test uses.
CLIs are always run from <build>/bin by explicit path, never from PATH (Debian's Slurm
installs the same names in /usr/bin)."""

import os
import pwd
import random
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LOCAL_CLUSTER = REPO / "scripts" / "local-cluster"


def _ephemeral_low():
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


# Slurm's reference cluster (6817-6834) and its MariaDB (13306) sit below this range. Its top
# is where the kernel's ephemeral ports begin: a port found free there can be taken by any
# outgoing connection (a CLI's, an agent's) before the daemon binds it, and the daemon then
# fails to start with "address in use".
_PORT_LOW = 14000
_PORT_HIGH = max(_PORT_LOW + 4000, min(_ephemeral_low(), 60000))


def build_dir():
    d = Path(os.environ.get("DROVER_BUILD_DIR", REPO / "build")).resolve()
    if not (d / "bin" / "droverctld").exists():
        raise RuntimeError(f"{d}/bin/droverctld is missing; build first or set DROVER_BUILD_DIR")
    return d


def _ports_free(first, count):
    socks = []
    try:
        for port in range(first, first + count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            socks.append(s)
            s.bind(("127.0.0.1", port))
        return True
    except OSError:
        return False
    finally:
        for s in socks:
            s.close()


TEST_USERS = ("alice", "bob")


def ensure_users(names):
    """Creates the unprivileged test users that do not exist yet (tests run as root)."""
    for user in names:
        try:
            pwd.getpwnam(user)
        except KeyError:
            subprocess.run(["useradd", "-M", "-s", "/bin/sh", user], check=True)


def pick_port_base(count):
    """A run of `count` free ports. Random within a wide range, so parallel tests (ctest -j)
    almost never try the same run, and checked by binding each."""
    rng = random.Random(os.getpid() ^ time.monotonic_ns())
    for _ in range(200):
        base = rng.randrange(_PORT_LOW, _PORT_HIGH - count)
        if _ports_free(base, count):
            return base
    raise RuntimeError("no free port range found")


def shared_dir(cluster, name):
    """A directory in the cluster's run dir that every test user may write (sticky, as /tmp)."""
    d = Path(cluster.run_dir) / name
    d.mkdir(exist_ok=True)
    os.chmod(d, 0o1777)
    return d


def cli_port(cluster):
    """The controller's frame-transport port, as the cluster's cluster.conf names it."""
    for line in Path(cluster.conf).read_text().splitlines():
        m = re.match(r"\s*cli_port:\s*(\d+)", line)
        if m:
            return int(m.group(1))
    return cluster.port_base + 1


def agent_port(cluster, node):
    """local-cluster's port of nodeK's agent: port_base + 1 + K (the controller has port_base
    for gRPC and port_base + 1 for the CLIs)."""
    return cluster.port_base + 1 + int(node.removeprefix("node"))


def rawcall(cluster, target, mode, *args, request=None, timeout=60):
    """tests/e2e/raw_call.cpp (drover-e2e-rawcall) against HOST:PORT `target`, authenticated
    with the cluster's munged; `request` (protobuf text) on its stdin. Returns the process."""
    exe = cluster.build / "tests" / "drover-e2e-rawcall"
    return subprocess.run([str(exe), target, mode, str(cluster.run_dir / "munge" / "munge.socket"),
                           *args], input=request, capture_output=True, text=True, timeout=timeout)


def labelled(stdout):
    """{rank: [lines]} from the output of srun -l."""
    out = {}
    for line in stdout.splitlines():
        m = re.match(r"^\s*(\d+): (.*)$", line)
        assert m, f"unlabelled line {line!r}"
        out.setdefault(int(m.group(1)), []).append(m.group(2))
    return out


def wait_for(predicate, timeout, interval=0.2, what="condition"):
    """Polls predicate() until it returns something truthy; fails after `timeout` seconds
    with the last value seen."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = predicate()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}; last: {last!r}")


class Cluster:
    def __init__(self, nodes=3, gpus_per_node=8, heartbeat=1, node_down=4, spare_ports=4,
                 requeue_wait=0):
        self.build = build_dir()
        self.bin = self.build / "bin"
        # Not under pytest's tmp_path: that is private to root, and one test runs a CLI as an
        # unprivileged user, who must reach the config and the munge socket.
        self.run_dir = Path(tempfile.mkdtemp(prefix="drover-e2e-"))
        os.chmod(self.run_dir, 0o755)
        self.nodes = nodes
        self.gpus_per_node = gpus_per_node
        self.heartbeat = heartbeat
        self.node_down = node_down
        # Slurm's 120 s before a requeued job may start again would slow every test that
        # requeues; test_requeue_runs.py checks the wait itself.
        self.requeue_wait = requeue_wait
        self.port_base = pick_port_base(nodes + 2 + spare_ports)  # ctld gRPC + CLI ports
        self.conf = self.run_dir / "cluster.conf"
        self._extra = []  # processes started by the test itself (second munged, ...)

    # --- lifecycle -------------------------------------------------------------------------
    def _lc(self, command, nodes=None, check=True, env=None):
        args = [str(LOCAL_CLUSTER), command, "--run-dir", str(self.run_dir),
                "--nodes", str(nodes or self.nodes), "--gpus-per-node", str(self.gpus_per_node),
                "--build-dir", str(self.build), "--port-base", str(self.port_base),
                "--heartbeat", str(self.heartbeat), "--node-down", str(self.node_down),
                "--requeue-wait", str(self.requeue_wait), "--wait", "60"]
        res = subprocess.run(args, capture_output=True, text=True, timeout=120,
                             env=None if env is None else {**os.environ, **env})
        if check and res.returncode != 0:
            raise AssertionError(f"local-cluster {command} failed ({res.returncode}):\n"
                                 f"{res.stdout}\n{res.stderr}\n{self.logs()}")
        return res

    def start(self, nodes=None):
        if nodes:
            self.nodes = nodes
        # The two unprivileged users every test may submit as; a fresh machine has neither.
        ensure_users(TEST_USERS)
        return self._lc("start")

    def restart_controller(self, env=None):
        """Stops droverctld (SIGTERM) and starts it again, with `env` added to its environment
        (the agents and munged keep running, untouched)."""
        self.kill("droverctld", signal.SIGTERM)
        return self._lc("start", env=env)

    def render(self, nodes):
        """The cluster.conf local-cluster would write for `nodes` nodes."""
        return self._lc("render", nodes=nodes).stdout

    def stop(self, keep=None):
        """Stops every process by its recorded pid, then removes the run directory unless
        DROVER_E2E_KEEP is set (to read the logs after a failure)."""
        res = self._lc("stop", check=False)
        for p in self._extra:
            if p.poll() is None:
                p.kill()
                p.wait()
        if keep is None:
            keep = bool(os.environ.get("DROVER_E2E_KEEP"))
        if not keep:
            shutil.rmtree(self.run_dir, ignore_errors=True)
        return res

    def status(self):
        return self._lc("status", check=False)

    def logs(self, tail=40):
        out = []
        log_dir = self.run_dir / "log"
        if log_dir.is_dir():
            for f in sorted(log_dir.iterdir()):
                lines = f.read_text(errors="replace").splitlines()[-tail:]
                out.append(f"==> {f} <==\n" + "\n".join(lines))
        return "\n".join(out)

    # --- processes -------------------------------------------------------------------------
    def pid(self, name):
        """pid of 'droverctld', 'munged' or an agent ('node2')."""
        fname = name if name in ("droverctld", "munged") else f"droverd-{name}"
        return int((self.run_dir / "pids" / f"{fname}.pid").read_text().strip())

    def kill(self, name, sig=signal.SIGKILL):
        pid = self.pid(name)
        os.kill(pid, sig)
        # local-cluster's children are not ours to reap; wait until the pid is gone/zombie
        def gone():
            try:
                state = Path(f"/proc/{pid}/stat").read_text().split()[2]
                return state == "Z"
            except FileNotFoundError:
                return True
        wait_for(gone, 10, what=f"{name} (pid {pid}) to exit")

    def spawn(self, args, log_name, **kw):
        """A helper process owned by the test, killed at stop(); output to log/<log_name>."""
        (self.run_dir / "log").mkdir(exist_ok=True)
        with open(self.run_dir / "log" / log_name, "ab") as out:
            p = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL, **kw)
        self._extra.append(p)
        return p

    # --- CLIs ------------------------------------------------------------------------------
    def env(self, conf=None):
        env = dict(os.environ)
        env["DROVER_CONF"] = str(conf or self.conf)
        env["PATH"] = f"{self.bin}:{env.get('PATH', '')}"
        return env

    def cli(self, name, *args, conf=None, user=None, timeout=30, cwd=None, input=None):
        """Runs <build>/bin/<name> with DROVER_CONF set, in `cwd` (default the run directory),
        `input` on its stdin (else none: /dev/null); returns CompletedProcess (text)."""
        exe = self.bin / name
        if not exe.exists():
            raise AssertionError(f"{exe} is missing")
        return subprocess.run([str(exe), *args], capture_output=True, text=True,
                              env=self.env(conf), timeout=timeout, user=user,
                              cwd=str(cwd or self.run_dir), input=input or "")

    def reports(self, name, *args, count=2, timeout=15):
        """The first `count` reports of a CLI run with -i (squeue, sinfo), each a list of its
        lines: reports end with an empty line. The CLI is killed afterwards, and after
        `timeout` seconds whatever it printed (a CLI that prints nothing ends the read too)."""
        p = subprocess.Popen([str(self.bin / name), *args], stdout=subprocess.PIPE, text=True,
                             env=self.env(), cwd=str(self.run_dir))
        stop = threading.Timer(timeout, p.kill)
        stop.start()
        try:
            reports, current = [], []
            for line in p.stdout:
                if line == "\n":
                    reports.append(current)
                    current = []
                    if len(reports) == count:
                        break
                else:
                    current.append(line.rstrip("\n"))
        finally:
            stop.cancel()
            p.kill()
            p.wait()
        return reports

    def sinfo(self, *args, **kw):
        return self.cli("sinfo", *args, **kw)

    def scontrol(self, *args, **kw):
        return self.cli("scontrol", *args, **kw)

    def node_state(self, node):
        """sinfo's compact state of one node: 'idle', 'down*', 'drain', 'unk*' ..."""
        r = self.sinfo("-h", "-N", "-n", node, "-o", "%t")
        if r.returncode != 0:
            return None
        states = {line.strip() for line in r.stdout.splitlines() if line.strip()}
        return states.pop() if len(states) == 1 else None

    def wait_state(self, node, want, timeout):
        wants = {want} if isinstance(want, str) else set(want)
        return wait_for(lambda: self.node_state(node) in wants and self.node_state(node),
                        timeout, what=f"{node} to be {want}")

    def job_fields(self, job):
        """`scontrol show job -o JOB` as a dict of its key=value pairs (keys like CPUs/Task and
        AllocNode:Sid whole); {} when scontrol does not know the job."""
        r = self.scontrol("show", "job", "-o", str(job))
        if r.returncode != 0:
            return {}
        return dict(m.groups() for m in re.finditer(r"(?:^|\s)([\w/:]+)=(\S*)", r.stdout))

    def wait_job(self, job, states, timeout=30):
        """Polls the job until its JobState is `states` (a name or a set); returns its fields."""
        states = {states} if isinstance(states, str) else set(states)
        return wait_for(lambda: (f := self.job_fields(job)).get("JobState") in states and f,
                        timeout, what=f"job {job} to be {sorted(states)}")
