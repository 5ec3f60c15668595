"""A batch launch that the node's agent does not answer within the message timeout is sent
again (the same run: LaunchStep of one run is idempotent on the agent, which answers a repeat
with the running supervisor, or ALREADY_EXISTS once that run ended), so an agent that is busy
rather than gone does not fail the job, and the script still runs once. The agent is made
"busy" deterministically by stopping its droverd (SIGSTOP) for longer than the timeout."""

import os
import signal
import time
from pathlib import Path

FINAL = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY"}


def test_launch_the_agent_answers_late_is_sent_again_and_runs_once(make_cluster):
    c = make_cluster(nodes=1, heartbeat=1, node_down=30)
    c.start()
    text = c.conf.read_text()
    assert "  message: 10" in text, "etc/cluster.conf lost its message timeout line"
    c.conf.write_text(text.replace("  message: 10", "  message: 2"))
    assert c.scontrol("reconfigure").returncode == 0
    out_dir = Path(c.run_dir) / "out-retry"
    out_dir.mkdir()
    os.chmod(out_dir, 0o1777)
    out = out_dir / "job.out"

    agent = c.pid("node1")
    os.kill(agent, signal.SIGSTOP)
    try:
        r = c.cli("sbatch", "--parsable", "-o", str(out), "--open-mode=append", "--wrap=echo ran")
        assert r.returncode == 0, r.stderr
        job = int(r.stdout.strip().split(";")[0])
        # The first attempt times out after 2 s; the agent answers the next one.
        time.sleep(3)
    finally:
        os.kill(agent, signal.SIGCONT)
    f = c.wait_job(job, FINAL, timeout=30)
    assert f["JobState"] == "COMPLETED", f
    assert f["Restarts"] == "0", f
    time.sleep(1)  # a second run of the script would have written by now
    assert out.read_text() == "ran\n"
