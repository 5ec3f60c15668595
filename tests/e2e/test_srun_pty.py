"""srun --pty end to end, driven through a real pseudo-terminal as a user at a terminal drives
it: srun runs as an unprivileged user in a session of its own whose controlling terminal is
the slave of a pty this test holds the master of (what `ssh login-node` gives a researcher).
Task 0 gets a terminal of srun's window size; an interactive shell takes typed commands and
srun exits with its code; a typed Ctrl-C interrupts the shell's foreground job, not srun; a
resize reaches the task; srun's terminal mode is restored; srun's own lines while it is raw
still return the carriage; other tasks' output goes nowhere; the same inside salloc; scancel
ends the shell's background jobs too; task 0's memory is accounted; a program that cannot
start fails the step."""

import fcntl
import os
import re
import select
import shutil
import signal
import struct
import subprocess
import termios
import time

import pytest

from cluster import wait_for

USER = "nobody"


def set_size(fd, rows, cols):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


class Terminal:
    """srun under a pseudo-terminal: write() types, expect() polls the screen."""

    def __init__(self, cluster, *args, rows=37, cols=111, program="srun"):
        self.master, self.slave = os.openpty()
        set_size(self.master, rows, cols)
        self.mode_before = termios.tcgetattr(self.slave)
        self.screen = b""

        def controlling_terminal():
            # A new session (start_new_session) takes the slave as its controlling terminal:
            # srun is then the terminal's foreground job, as in a login shell.
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        self.proc = subprocess.Popen(
            [str(cluster.bin / program), *args], stdin=self.slave, stdout=self.slave,
            stderr=self.slave, env=cluster.env(), cwd=str(cluster.run_dir), user=USER,
            start_new_session=True, preexec_fn=controlling_terminal)

    def write(self, data):
        os.write(self.master, data)

    def read_some(self, timeout):
        ready, _, _ = select.select([self.master], [], [], timeout)
        if ready:
            try:
                self.screen += os.read(self.master, 65536)
            except OSError:  # EIO: every holder of the slave is gone
                time.sleep(timeout)

    def expect(self, pattern, timeout=20):
        """Polls the output until `pattern` (bytes regex) shows up; returns the match."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            m = re.search(pattern, self.screen)
            if m:
                return m
            self.read_some(0.1)
        raise AssertionError(f"{pattern!r} not seen within {timeout}s; screen: {self.screen!r}")

    def wait(self, timeout=30):
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None and time.monotonic() < deadline:
            self.read_some(0.1)
        if self.proc.poll() is None:
            raise AssertionError(f"srun still runs after {timeout}s; screen: {self.screen!r}")
        self.read_some(0)
        return self.proc.returncode

    def mode(self):
        return termios.tcgetattr(self.slave)

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        os.close(self.master)
        os.close(self.slave)


@pytest.fixture
def terminal(cluster):
    made = []

    def start(*args, **kw):
        t = Terminal(cluster, *args, **kw)
        made.append(t)
        return t

    yield start
    for t in made:
        t.close()


def test_task_zero_gets_a_terminal_of_srun_window_size(terminal):
    t = terminal("-N1", "--pty", "sh", "-c", "tty; stty size; test -t 0 && echo TTY0; "
                 "echo vars=$SLURM_PTY_WIN_ROW,$SLURM_PTY_WIN_COL", rows=37, cols=111)
    assert t.wait() == 0, t.screen
    assert b"vars=37,111\r\n" in t.screen, t.screen  # Slurm's srun sets them too
    assert re.search(rb"/dev/pts/\d+\r\n", t.screen), t.screen
    assert b"37 111\r\n" in t.screen, t.screen
    assert b"TTY0" in t.screen, t.screen
    assert t.mode() == t.mode_before  # srun gave its terminal back as it found it


@pytest.mark.parametrize("shell", [["sh"], ["bash", "-i"]], ids=["sh", "bash-i"])
def test_interactive_shell_takes_typed_commands_and_srun_exits_with_its_code(terminal, shell):
    if not shutil.which(shell[0]):
        pytest.skip(f"no {shell[0]} on this host")
    t = terminal("-N1", "--pty", *shell)
    t.expect(rb"\$ ")  # the shell's prompt: it saw a terminal and is interactive
    # While the step runs srun's terminal is raw: the keys go to the task's terminal.
    mode = t.mode()
    assert not mode[3] & (termios.ICANON | termios.ECHO | termios.ISIG), mode
    t.write(b"echo hello-$((1+2))\n")
    t.expect(rb"hello-3\r\n")
    t.write(b"exit 3\n")
    assert t.wait() == 3, t.screen
    # As Slurm prints it, in the terminal's own mode again (CR LF).
    assert b"srun: error: node1: task 0: Exited with exit code 3\r\n" in t.screen, t.screen
    # The terminal is the shell's controlling terminal: job control works (bash says
    # "cannot set terminal process group ... no job control in this shell" otherwise).
    assert b"job control" not in t.screen, t.screen
    assert t.mode() == t.mode_before


def sleeping(user_uid, seconds):
    """pids of `sleep SECONDS` processes of the user (on this host: the cluster is local)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            if os.stat(f"/proc/{pid}").st_uid != user_uid:
                continue
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if f.read().split(b"\0")[:2] == [b"sleep", str(seconds).encode()]:
                    found.append(int(pid))
        except OSError:
            continue
    return found


def test_typed_ctrl_c_interrupts_the_foreground_job_in_the_terminal_not_srun(terminal):
    import pwd
    uid = pwd.getpwnam(USER).pw_uid
    t = terminal("-N1", "--pty", "sh")
    t.expect(rb"\$ ")
    t.write(b"sleep 37\n")
    deadline = time.monotonic() + 20
    while not sleeping(uid, 37):
        assert time.monotonic() < deadline, f"sleep never started; screen: {t.screen!r}"
        t.read_some(0.1)
    t.write(b"\x03")  # Ctrl-C as typed: byte 0x03, the task's terminal makes it SIGINT
    deadline = time.monotonic() + 10  # well before the sleep's own end
    while sleeping(uid, 37):
        assert time.monotonic() < deadline, f"Ctrl-C did not end the sleep; screen: {t.screen!r}"
        t.read_some(0.1)
    t.write(b"echo after-$((6*7))\n")  # the shell and the step live on
    t.expect(rb"after-42\r\n", timeout=15)
    assert b"srun: interrupt" not in t.screen, t.screen  # srun itself got no signal
    t.write(b"exit\n")
    assert t.wait() == 0, t.screen
    assert t.mode() == t.mode_before


def test_a_resize_of_srun_terminal_reaches_the_task(terminal):
    t = terminal("-N1", "--pty", "sh", rows=24, cols=80)
    t.expect(rb"\$ ")
    t.write(b"stty size\n")
    t.expect(rb"24 80\r\n")
    set_size(t.master, 50, 132)  # the kernel sends srun (the foreground job) SIGWINCH
    t.write(b"stty size\n")
    t.expect(rb"50 132\r\n")
    t.write(b"exit 0\n")
    assert t.wait() == 0, t.screen


@pytest.mark.parametrize("nodes", ["1", "2"])
def test_only_task_zero_output_with_two_tasks(terminal, nodes):
    t = terminal("-n2", "-N", nodes, "--pty", "sh", "-c", "echo out-$SLURM_PROCID")
    assert t.wait() == 0, t.screen
    assert b"out-0" in t.screen, t.screen
    assert b"out-1" not in t.screen, t.screen


def test_pty_without_a_terminal_still_gives_task_zero_one(cluster):
    """srun's stdin a pipe: no raw mode to set, task 0 still runs in a terminal and the
    piped bytes are typed into it; the end of input ends the shell (its EOF character)."""
    r = subprocess.run([str(cluster.bin / "srun"), "-N1", "--pty", "sh"],
                       input=b"test -t 0 && echo in-a-$((1+1))-terminal\n", capture_output=True,
                       env=cluster.env(), cwd=str(cluster.run_dir), user=USER, timeout=30)
    assert r.returncode == 0, r.stderr
    assert b"in-a-2-terminal\r\n" in r.stdout, r.stdout


def test_srun_sigint_still_forwards_to_the_task(terminal):
    """srun's own SIGINT handling stays: a SIGINT sent to srun (not typed) is forwarded."""
    t = terminal("-N1", "--pty", "sh", "-c", "trap 'echo got-INT; exit 5' INT; "
                 "test -t 0 && echo ready-in-a-terminal; while :; do sleep 0.1; done")
    t.expect(rb"ready-in-a-terminal")
    os.kill(t.proc.pid, signal.SIGINT)
    t.expect(rb"got-INT")
    assert t.wait() == 5, t.screen
    # srun's notices came while its terminal was raw, each line still ending in CR LF.
    assert re.search(rb"\r\nsrun: interrupt \(one more within 1 sec to abort\)\r\n"
                     rb"srun: StepId=\d+\.0 task 0: running\r\n", t.screen), t.screen
    assert t.mode() == t.mode_before


def test_srun_messages_while_its_terminal_is_raw_end_lines_with_cr_lf(terminal):
    """Task 1 ends badly while task 0 still holds the terminal raw: srun's line about it
    returns the carriage as in the terminal's own mode (raw mode does not turn "\n" into
    "\r\n", so each line would start where the last one ended)."""
    t = terminal("-n2", "-N1", "--pty", "sh", "-c",
                 'if [ "$SLURM_PROCID" = 1 ]; then exit 4; fi; '
                 'echo zero-waits; read line; echo zero-done')
    t.expect(rb"zero-waits\r\n")
    m = t.expect(rb"srun: error: node1: task 1: Exited with exit code 4(\r?)\n")
    mode = t.mode()
    assert not mode[3] & termios.ICANON, "srun's terminal should still be raw"
    assert m.group(1) == b"\r", t.screen
    t.write(b"go\r")  # raw: the task's terminal turns the Enter key's CR into its newline
    assert t.wait() == 4, t.screen
    assert b"zero-done\r\n" in t.screen, t.screen
    assert t.mode() == t.mode_before


def test_pty_inside_salloc(terminal):
    """The everyday form: an allocation, then an interactive step in it."""
    t = terminal("-N1", "srun", "--pty", "sh", "-c",
                 "test -t 0 && echo in-step-$SLURM_STEP_ID; stty size", rows=30, cols=90,
                 program="salloc")
    assert t.wait() == 0, t.screen
    assert b"in-step-0" in t.screen, t.screen
    assert b"30 90\r\n" in t.screen, t.screen
    assert t.mode() == t.mode_before


def test_scancel_ends_the_background_jobs_of_task_zero_shell(terminal, cluster):
    """An interactive shell puts `sleep &` in a process group of its own: scancel of the job
    still ends it (the step's signals reach task 0's whole session), not only the shell."""
    import pwd
    uid = pwd.getpwnam(USER).pw_uid
    left_before = set(sleeping(uid, 1001))  # by an earlier run that failed: not this one's
    t = terminal("-N1", "--pty", "bash", "-i")
    t.expect(rb"\$ ")
    t.write(b"sleep 1001 & echo job=$SLURM_JOB_ID\r")
    job = t.expect(rb"job=(\d+)\r\n").group(1).decode()
    deadline = time.monotonic() + 20
    while not (pids := [p for p in sleeping(uid, 1001) if p not in left_before]):
        assert time.monotonic() < deadline, f"sleep never started; screen: {t.screen!r}"
        t.read_some(0.1)
    assert len(pids) == 1, pids
    pid = pids[0]
    assert os.getpgid(pid) != os.getsid(pid), "the background job should lead its own group"
    r = cluster.cli("scancel", job)
    assert r.returncode == 0, r.stderr
    assert t.wait() != 0, t.screen
    wait_for(lambda: not os.path.exists(f"/proc/{pid}"), 15,
             what=f"the background sleep (pid {pid}) to end")
    assert t.mode() == t.mode_before


def test_max_rss_of_a_pty_task_is_recorded(terminal, cluster):
    """The memory task 0 held in its terminal is accounted: sacct's MaxRSS of the step is at
    least the 64 MiB a command in it held (a child of the task's shell)."""
    hold = "import time; block = b'x' * (64 << 20); time.sleep(2)"
    t = terminal("-N1", "--pty", "sh", "-c",
                 f'/usr/bin/python3 -c "{hold}"; echo job=$SLURM_JOB_ID')
    assert t.wait() == 0, t.screen
    job = re.search(rb"job=(\d+)\r\n", t.screen).group(1).decode()

    def max_rss():
        r = cluster.cli("sacct", "-n", "-P", "-j", f"{job}.0", "-o", "State,MaxRSS")
        rows = [line.split("|") for line in r.stdout.splitlines()]
        return rows and rows[0][0] == "COMPLETED" and rows[0][1]
    rss = wait_for(max_rss, 30, what=f"step {job}.0 COMPLETED in sacct")
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([KMGT]?)", rss)
    assert m, rss
    kib = float(m.group(1)) * 1024 ** "KMGT".index(m.group(2) or "K")
    assert kib >= 64 * 1024, rss


def test_a_command_that_cannot_start_in_the_terminal_fails_the_step(terminal):
    """Task 0's program does not exist: the error reaches srun's terminal, srun exits 2 as for
    a command that cannot start, and gives its terminal back."""
    t = terminal("-N1", "--pty", "/nonexistent/program")
    assert t.wait() == 2, t.screen
    assert b"/nonexistent/program" in t.screen, t.screen
    assert b"srun: error: node1: task 0: Exited with exit code 2\r\n" in t.screen, t.screen
    assert t.mode() == t.mode_before
