"""scontrol's interactive mode end to end: lines piped into the real scontrol (no command on its
command line) against a controller and three agents, each run by the same dispatcher as on the
command line. The expected prompts, echoes, messages and exit statuses are what the reference
Slurm 22.05's scontrol printed for the same lines piped in (2026-12-02, session 13)."""

import re
import subprocess

import pytest


@pytest.fixture(scope="module")
def jobs(cluster):
    return cluster


def submit(cluster, *args):
    r = cluster.cli("sbatch", "--parsable", *args)
    assert r.returncode == 0, r.stderr
    return int(r.stdout.split(";")[0])


def session(cluster, text, user=None):
    """scontrol with `text` on its stdin (a pipe, so it echoes each line after its prompt)."""
    return subprocess.run([str(cluster.bin / "scontrol")], input=text, capture_output=True, text=True,
                          env=cluster.env(), timeout=60, user=user, cwd=str(cluster.run_dir))


def test_piped_session_runs_each_line_then_quits(jobs):
    job = submit(jobs, "-H", "-J", "inter", "--wrap=true")
    r = session(jobs, f"show job 999999\n"
                      f"update jobid={job} comment=\"a b\"\n"
                      f"oneliner\n"
                      f"show job {job}\n"
                      f"ping\n"
                      f"show step 999999\n"
                      f"quit\n"
                      f"ping\n")
    # A line is echoed after its prompt; quit ends it: the last ping never runs.
    prompts = [line for line in r.stdout.splitlines() if line.startswith("scontrol: ")]
    assert prompts == ["scontrol: show job 999999", f"scontrol: update jobid={job} comment=\"a b\"",
                       "scontrol: oneliner", f"scontrol: show job {job}", "scontrol: ping",
                       "scontrol: show step 999999", "scontrol: quit"], r.stdout
    assert r.stdout.endswith("scontrol: quit\n"), r.stdout
    # Errors per line, on stderr, as on the command line.
    assert r.stderr == ("slurm_load_jobs error: Invalid job id specified\n"
                        "slurm_get_job_steps error: Invalid job id specified\n"), r.stderr
    # oneliner holds for the rest of the session: the job is one line. The quotes stay in the
    # comment, as the reference stored them (its interactive mode keeps a line's quotes).
    shown = [line for line in r.stdout.splitlines() if line.startswith(f"JobId={job} ")]
    assert len(shown) == 1 and ' Comment="a b" ' in shown[0], r.stdout
    assert r.stdout.count(" is UP\n") == 1, r.stdout
    # A line failed after ping: the session fails.
    assert r.returncode == 1
    jobs.cli("scancel", str(job))


def test_status_after_ping_repeat_and_end_of_input(jobs):
    # The reference: a failing line, then ping: exit 0; `!!` runs ping again; end of input
    # without quit prints a last prompt and a newline.
    r = session(jobs, "show job 999999\nping\n!!\n")
    assert r.returncode == 0, r.stderr
    assert r.stdout.count(" is UP\n") == 2, r.stdout
    assert r.stdout.endswith("scontrol: !!\n" + r.stdout.splitlines()[-2] + "\nscontrol: \n"), r.stdout
    # A failing line and nothing after it that sets the status: 1, the unknown keyword said
    # on its own line as on the command line.
    r = session(jobs, "nosuchcommand\nshow partition\nversion\n")
    assert r.returncode == 1
    assert "invalid keyword: nosuchcommand" in r.stderr, r.stderr
    assert "PartitionName=" in r.stdout, r.stdout
    # quit with an argument is refused, still the end, and fails the session.
    r = session(jobs, "ping\nquit now\nping\n")
    assert r.returncode == 1 and r.stderr == "too many arguments for keyword:quit\n", r.stderr
    assert r.stdout.count(" is UP\n") == 1, r.stdout


def test_quoted_node_reason_and_quiet(jobs):
    # `Reason="a b"` in interactive mode: the reference's node update drops the quotes.
    r = session(jobs, "update nodename=node3 state=drain reason=\"a b\"\nshow node node3\n"
                      "update nodename=node3 state=resume\nquiet\nshow job 999999\n")
    assert re.search(r"^   Reason=a b \[", r.stdout, re.M), r.stdout
    # quiet: the unknown job fails without a word.
    assert r.stderr == "" and r.returncode == 1, r.stderr
    assert jobs.node_state("node3") == "idle"


def test_settings_on_the_command_line_do_nothing(jobs):
    # The reference: `scontrol oneliner` (or quit) reads nothing and exits 0.
    for word in ("oneliner", "details", "quit", "exit"):
        r = subprocess.run([str(jobs.bin / "scontrol"), word], input="ping\n", capture_output=True,
                           text=True, env=jobs.env(), timeout=30)
        assert (r.returncode, r.stdout, r.stderr) == (0, "", ""), (word, r)
