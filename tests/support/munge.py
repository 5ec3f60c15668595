"""A real munged for end-to-end tests and scripts.

    from munge import Munged
    m = Munged(tmpdir)        # fresh key, own socket; returns once the socket accepts
    env["DROVER_MUNGE_SOCKET"] = m.socket
    ...
    m.stop()                  # kills it by pid, removes its files

Also a context manager (`with Munged(tmpdir) as m:`). Runs munged daemonized (it forks and
writes its pid file); stop() signals exactly that pid. As root it needs --force.
"""

import errno
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

MUNGED = "/usr/sbin/munged"
MUNGEKEY = "/usr/sbin/mungekey"


class Munged:
    def __init__(self, tmpdir, start_timeout=10.0):
        # A directory of our own under tmpdir; munged wants every directory above its socket
        # to be searchable by all.
        os.makedirs(tmpdir, exist_ok=True)
        self.dir = tempfile.mkdtemp(prefix="munge-", dir=tmpdir)
        os.chmod(self.dir, 0o755)
        self.socket = os.path.join(self.dir, "munge.socket")
        self.key_file = os.path.join(self.dir, "munge.key")
        self.pid_file = os.path.join(self.dir, "munged.pid")
        self.log_file = os.path.join(self.dir, "munged.log")
        self.seed_file = os.path.join(self.dir, "munged.seed")
        self.pid = None
        self._make_key()
        self._start(start_timeout)

    def _make_key(self):
        if os.access(MUNGEKEY, os.X_OK):
            subprocess.run([MUNGEKEY, "-c", "-k", self.key_file], check=True)
        else:
            fd = os.open(self.key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(os.urandom(1024))

    def _start(self, timeout):
        cmd = [MUNGED, "--force",
               "--socket=" + self.socket, "--key-file=" + self.key_file,
               "--pid-file=" + self.pid_file, "--log-file=" + self.log_file,
               "--seed-file=" + self.seed_file]
        # munged daemonizes; its parent exits once the daemon is set up.
        done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if done.returncode != 0:
            raise RuntimeError("munged failed (exit %d): %s\n%s"
                               % (done.returncode, done.stderr.strip(), self._log()))
        deadline = time.monotonic() + timeout
        delay = 0.001
        while True:
            if self.pid is None:
                self.pid = self._read_pid()
            if self.pid is not None and self._accepts():
                return
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("munged did not accept on %s within %.0f s\n%s"
                                   % (self.socket, timeout, self._log()))
            time.sleep(delay)  # poll with backoff, not a fixed wait
            delay = min(delay * 2, 0.05)

    def _read_pid(self):
        try:
            with open(self.pid_file) as f:
                return int(f.read().strip())
        except (OSError, ValueError):
            return None

    def _accepts(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(self.socket)
            return True
        except OSError:
            return False
        finally:
            s.close()

    def _log(self):
        try:
            with open(self.log_file) as f:
                return f.read()
        except OSError:
            return "(no munged log)"

    def running(self):
        """True while the daemon lives; an exited one the init process has not reaped yet
        (a zombie) counts as stopped."""
        if self.pid is None:
            return False
        try:
            with open("/proc/%d/stat" % self.pid) as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return False
        return state not in ("Z", "X")

    def stop(self, timeout=10.0):
        if self.pid is not None:
            try:
                os.kill(self.pid, signal.SIGTERM)
            except OSError as e:
                if e.errno != errno.ESRCH:
                    raise
            # Not our child (it daemonized), so wait by probing the pid.
            deadline = time.monotonic() + timeout
            delay = 0.001
            while self.running() and time.monotonic() < deadline:
                time.sleep(delay)
                delay = min(delay * 2, 0.05)
            if self.running():
                os.kill(self.pid, signal.SIGKILL)
            self.pid = None
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
        return False


if __name__ == "__main__":
    # Self-check: start, encode/decode through the CLI tools when present, stop.
    with tempfile.TemporaryDirectory() as tmp:
        with Munged(tmp) as m:
            print("munged pid", m.pid, "socket", m.socket)
            if shutil.which("munge") and shutil.which("unmunge"):
                cred = subprocess.run(["munge", "-S", m.socket, "-s", "hello"], check=True,
                                      capture_output=True, text=True).stdout
                out = subprocess.run(["unmunge", "-S", m.socket], input=cred, check=True,
                                     capture_output=True, text=True).stdout
                assert "STATUS:          Success" in out, out
            pid = m.pid
        assert not os.path.exists(m.dir)
        print("stopped", pid)
