"""Batch jobs through the real CLIs, end to end: sbatch (plain, --parsable, refusals, --wait,
arrays, hold), squeue (default view, filters, -r), scontrol (show job, hold/release, update),
scancel (pending, array task, unknown id) and sacct, against a controller and three agents on
loopback. The whole module is skipped while the controller does not serve SubmitJob yet
(the job RPCs land separately from the CLIs)."""

import json
import re
import subprocess

import pytest
import yaml

from cluster import shared_dir, wait_for


def _unsupported(r, method):
    return r.returncode != 0 and f"unknown method /drover.v1.Controller/{method}" in r.stderr


@pytest.fixture(scope="module")
def jobs(cluster):
    r = cluster.cli("sbatch", "--parsable", "-J", "probe", "--wrap=true")
    if _unsupported(r, "SubmitJob"):
        pytest.skip("the controller does not serve SubmitJob yet")
    assert r.returncode == 0, r.stderr
    return cluster


def submit(cluster, *args):
    r = cluster.cli("sbatch", "--parsable", *args)
    assert r.returncode == 0, r.stderr
    assert re.fullmatch(r"\d+(;\S+)?\n", r.stdout), r.stdout
    return int(r.stdout.split(";")[0])


def job_field(cluster, job_id, key):
    r = cluster.scontrol("show", "job", str(job_id))
    if r.returncode != 0:
        return None
    m = re.search(rf"(?:^|\s){re.escape(key)}=(\S*)", r.stdout)
    return m.group(1) if m else None


def wait_job_state(cluster, job_id, states, timeout=30):
    states = {states} if isinstance(states, str) else set(states)
    return wait_for(lambda: job_field(cluster, job_id, "JobState") in states
                    and job_field(cluster, job_id, "JobState"),
                    timeout, what=f"job {job_id} to reach {states}")


def test_sbatch_plain_and_parsable(jobs):
    r = jobs.cli("sbatch", "--wrap=echo hello")
    assert r.returncode == 0, r.stderr
    assert re.fullmatch(r"Submitted batch job \d+\n", r.stdout), r.stdout
    job_id = int(r.stdout.split()[-1])
    assert job_field(jobs, job_id, "JobId") == str(job_id)
    assert job_field(jobs, job_id, "JobName") == "wrap"
    wait_job_state(jobs, job_id, "COMPLETED")


def test_sbatch_refusals_exit_nonzero_with_slurms_text(jobs):
    r = jobs.cli("sbatch", "-p", "nosuch", "--wrap=true")
    assert r.returncode == 1
    assert "sbatch: error: Batch job submission failed: Invalid partition name specified" in r.stderr, r.stderr
    r = jobs.cli("sbatch", "--bogus-option", "--wrap=true")
    assert r.returncode != 0
    assert "sbatch:" in r.stderr
    r = jobs.cli("sbatch", "-t", "garbage", "--wrap=true")
    assert r.returncode != 0
    assert "sbatch: error: Invalid --time specification" in r.stderr, r.stderr
    # A script that opens but does not read (a directory): the reference's message, no crash.
    r = jobs.cli("sbatch", str(jobs.run_dir))
    assert (r.returncode, r.stderr) == (1, "sbatch: error: Batch script is empty!\n"), r


def test_sbatch_wait_returns_the_jobs_exit_code(jobs):
    r = jobs.cli("sbatch", "--wait", "--wrap=exit 3", timeout=60)
    assert r.returncode == 3, (r.stdout, r.stderr)
    assert r.stdout.startswith("Submitted batch job "), r.stdout
    # A signal ends it: 1, as the reference's `--wait` of `kill -9 $$`.
    r = jobs.cli("sbatch", "--wait", "-o", "/dev/null", "--wrap=kill -9 $$", timeout=60)
    assert r.returncode == 1, (r.returncode, r.stderr)


def test_held_job_in_squeue_then_released(jobs):
    job_id = submit(jobs, "-H", "-J", "held", "--wrap=true")
    r = jobs.cli("squeue", "-h", "-j", str(job_id), "-o", "%i %j %t %r")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [str(job_id), "held", "PD", "JobHeldUser"], r.stdout
    r = jobs.scontrol("release", str(job_id))
    assert r.returncode == 0, r.stderr
    wait_job_state(jobs, job_id, "COMPLETED")


def test_squeue_default_header_and_filters(jobs):
    job_id = submit(jobs, "-H", "-J", "sqtest", "-t", "5", "--wrap=true")
    r = jobs.cli("squeue")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)"
    assert any(line.split()[0] == str(job_id) for line in lines[1:]), r.stdout
    r = jobs.cli("squeue", "-h", "-n", "sqtest", "-o", "%j %l")
    assert r.stdout.split() == ["sqtest", "5:00"], r.stdout
    r = jobs.cli("squeue", "-h", "-t", "R", "-n", "sqtest")
    assert r.stdout == "", r.stdout
    # -q matches QOS names in any case and -L licenses (none asked for), as the reference's.
    for qos in ("normal", "NORMAL", "bogus,normal"):
        r = jobs.cli("squeue", "-h", "-n", "sqtest", "-q", qos, "-o", "%i %q")
        assert r.stdout.split() == [str(job_id), "normal"], (qos, r.stdout, r.stderr)
    for args in (["-q", "bogus"], ["-L", "foo"]):
        r = jobs.cli("squeue", "-n", "sqtest", *args)
        assert (r.returncode, r.stdout.splitlines()[1:]) == (0, []), (args, r.stdout)
    r = jobs.cli("squeue", "-j", "999999")
    assert r.returncode == 1
    assert "Invalid job id specified" in r.stderr
    jobs.cli("scancel", str(job_id))


def test_squeue_iterate_reports_until_stopped(jobs):
    """squeue -i N: a report every N seconds, each the date line, the header, the rows and an
    empty line (Slurm 22.05's layout); with -h only the rows and the empty line."""
    job_id = submit(jobs, "-H", "-J", "iter", "--wrap=true")
    date = re.compile(r"\w{3} \w{3} \d\d \d\d:\d\d:\d\d \d{4}")
    for args, reports_start in ((["-i", "1", "-n", "iter"], "date"), (["-i", "1", "-h", "-n", "iter"], "row")):
        reports = jobs.reports("squeue", *args)
        assert len(reports) == 2, reports
        for report in reports:
            if reports_start == "date":
                assert date.fullmatch(report[0]), report
                assert report[1].split()[0] == "JOBID", report
                rows = report[2:]
            else:
                rows = report
            assert [row.split()[0] for row in rows] == [str(job_id)], report
    r = jobs.cli("squeue", "-i", "0")
    assert r.returncode == 1 and "--iterate=0" in r.stderr, r.stderr
    jobs.cli("scancel", str(job_id))


def test_scontrol_update_job(jobs):
    job_id = submit(jobs, "-H", "-J", "upd", "-t", "5", "--wrap=true")
    r = jobs.scontrol("update", f"JobId={job_id}", "TimeLimit=7")
    assert r.returncode == 0, r.stderr
    assert job_field(jobs, job_id, "TimeLimit") == "00:07:00"
    r = jobs.scontrol("show", "job", "-o", str(job_id))
    assert r.returncode == 0 and r.stdout.count("\n") == 1, r.stdout
    jobs.cli("scancel", str(job_id))


def test_scancel_pending_and_unknown(jobs):
    job_id = submit(jobs, "-H", "--wrap=true")
    r = jobs.cli("scancel", str(job_id))
    assert r.returncode == 0 and r.stderr == "", r.stderr
    wait_job_state(jobs, job_id, "CANCELLED")
    # An unknown id is silent and exits 0, as Slurm; -v says why.
    r = jobs.cli("scancel", "999999")
    assert r.returncode == 0 and r.stderr == "", r.stderr
    r = jobs.cli("scancel", "-v", "999999")
    assert "scancel: error: Kill job error on job id 999999: Invalid job id specified" in r.stderr, r.stderr


def test_array_with_throttle_shows_compressed_and_expanded(jobs):
    job_id = submit(jobs, "-H", "--array=0-5%2", "-J", "arr", "--wrap=true")
    r = jobs.cli("squeue", "-h", "-j", str(job_id), "-o", "%i")
    assert r.stdout.split() == [f"{job_id}_[0-5%2]"], r.stdout
    r = jobs.cli("squeue", "-h", "-r", "-j", str(job_id), "-o", "%i")
    assert r.stdout.split() == [f"{job_id}_{t}" for t in range(6)], r.stdout
    r = jobs.cli("scancel", f"{job_id}_3")
    assert r.returncode == 0, r.stderr
    jobs.cli("scancel", str(job_id))


def test_sacct_lists_a_finished_job(jobs):
    job_id = submit(jobs, "-J", "acctjob", "--wrap=exit 2")
    wait_job_state(jobs, job_id, {"FAILED", "COMPLETED"})
    r = jobs.cli("sacct", "-j", str(job_id), "-X", "-P", "-n", "-o", "JobID,JobName,State,ExitCode")
    if _unsupported(r, "QueryAccounting"):
        pytest.skip("the controller does not serve QueryAccounting yet")
    assert r.returncode == 0, r.stderr

    def row():
        out = jobs.cli("sacct", "-j", str(job_id), "-X", "-P", "-n", "-o", "JobID,JobName,State,ExitCode")
        return out.stdout.strip() == f"{job_id}|acctjob|FAILED|2:0" and out.stdout

    wait_for(row, 15, what="sacct to show the failed job")


def test_sacct_names_are_the_controllers_to_look_up(jobs):
    """The static sacct looks no user or group name up: with glibc's NSS it died of SIGSEGV on
    -u and -g names /etc/passwd and /etc/group lack (libnss_systemd). The controller refuses
    those in the reference's words and turns a group name into its gid."""
    for opt, name, what in (("-u", "nosuchuser-drover", "user"), ("-g", "nosuchgroup-drover", "group")):
        r = jobs.cli("sacct", opt, name)
        assert (r.returncode, r.stdout, r.stderr) == (1, "", f"sacct: error: Invalid {what} id: {name}\n"), r
    job_id = submit(jobs, "-J", "rootjob", "--wrap=true")   # root's, group root
    def listed(group):
        r = jobs.cli("sacct", "-X", "-n", "-P", "-o", "JobID", "-j", str(job_id), "-g", group)
        assert r.returncode == 0, r.stderr
        return r.stdout.split()
    wait_for(lambda: listed("root") == [str(job_id)], 15, what="sacct -g root to list root's job")
    assert listed("daemon") == []


def test_scontrol_hold_uhold_release_and_suspend_resume(jobs):
    job_id = submit(jobs, "-H", "-J", "ctl", "--wrap=true")
    assert job_field(jobs, job_id, "Reason") == "JobHeldUser"
    r = jobs.scontrol("hold", str(job_id))  # root: an admin hold
    assert r.returncode == 0, r.stderr
    assert job_field(jobs, job_id, "Reason") == "JobHeldAdmin"
    r = jobs.scontrol("release", str(job_id))
    assert r.returncode == 0, r.stderr
    wait_job_state(jobs, job_id, "COMPLETED")

    running = submit(jobs, "-J", "susp", "--wrap=sleep 30")
    wait_job_state(jobs, running, "RUNNING")
    r = jobs.scontrol("suspend", str(running))
    assert r.returncode == 0, r.stderr
    wait_job_state(jobs, running, "SUSPENDED")
    r = jobs.cli("squeue", "-h", "-j", str(running), "-o", "%t")
    assert r.stdout.strip() == "S", r.stdout
    r = jobs.scontrol("resume", str(running))
    assert r.returncode == 0, r.stderr
    wait_job_state(jobs, running, "RUNNING")
    jobs.cli("scancel", str(running))
    wait_job_state(jobs, running, "CANCELLED")

    r = jobs.scontrol("hold", "999999")
    assert r.returncode == 1
    assert "Invalid job id specified" in r.stderr, r.stderr


def test_scontrol_show_job_unknown_and_squeue_name_user_filters(jobs):
    r = jobs.scontrol("show", "job", "999999")
    assert r.returncode == 1
    assert r.stderr == "slurm_load_jobs error: Invalid job id specified\n", r.stderr
    job_id = submit(jobs, "-H", "-J", "filt", "-p", "debug", "--wrap=true")
    r = jobs.cli("squeue", "-h", "-p", "debug", "-u", "root", "-o", "%i %P %u")
    assert f"{job_id} debug root" in r.stdout.splitlines(), r.stdout
    r = jobs.cli("squeue", "-h", "-p", "gpu", "-n", "filt")
    assert r.stdout == "", r.stdout
    jobs.cli("scancel", str(job_id))


def test_sbatch_output_pattern_and_script_file(jobs):
    script = jobs.run_dir / "job.sh"
    script.write_text("#!/bin/sh\n#SBATCH -J fromscript\n#SBATCH -o out-%x-%j.txt\necho hi from $SLURM_JOB_ID\n")
    job_id = submit(jobs, str(script))
    assert job_field(jobs, job_id, "JobName") == "fromscript"
    wait_job_state(jobs, job_id, "COMPLETED")
    out = jobs.run_dir / f"out-fromscript-{job_id}.txt"
    wait_for(lambda: out.exists() and out.read_text() == f"hi from {job_id}\n", 10,
             what=f"{out} to hold the job's output")


def test_sbatch_passes_the_scripts_arguments(jobs):
    """`sbatch script a b`: the script gets its arguments ($1, $2...), as Slurm's, and the job's
    Command= (squeue %o) is the script's path and the arguments, space-separated (the reference:
    `Command=/tmp/argt/s1.sh arg1 two words`)."""
    script = jobs.run_dir / "args.sh"
    script.write_text('#!/bin/sh\necho "args=$# [$1] [$2]"\n')
    r = jobs.cli("sbatch", "--parsable", "-o", "args-%j.out", str(script), "arg1", "two words")
    assert r.returncode == 0, r.stderr
    job_id = int(r.stdout.split(";")[0])
    assert jobs.cli("squeue", "-h", "-j", str(job_id), "-t", "all", "-o", "%o").stdout.strip() \
        in ("", f"{script} arg1 two words")
    wait_job_state(jobs, job_id, "COMPLETED")
    r = jobs.scontrol("show", "job", str(job_id))
    assert f"Command={script} arg1 two words\n" in r.stdout, r.stdout
    out = jobs.run_dir / f"args-{job_id}.out"
    wait_for(lambda: out.exists() and out.read_text() == "args=2 [arg1] [two words]\n", 10,
             what=f"{out} to show the arguments")


def test_scontrol_write_batch_script(jobs):
    """scontrol write batch_script, as the reference's printed it: the script as submitted into
    slurm-<id>.sh (or a named file, or stdout with "-"), created by the caller; the owner and
    root may read it, others get `Invalid user id`; an unknown id `Invalid job id specified`
    (Drover exits 1 on those, where the reference exited 0)."""
    work = shared_dir(jobs, "write-batch-script")
    text = "#!/bin/bash\n#SBATCH -J wbs\necho hi\n"
    (work / "s.sh").write_text(text)
    (work / "s.sh").chmod(0o644)
    r = jobs.cli("sbatch", "--parsable", "-H", str(work / "s.sh"), user="alice", cwd=work)
    assert r.returncode == 0, r.stderr
    job = int(r.stdout.split(";")[0])
    r = jobs.cli("sbatch", "--parsable", "-H", "--wrap=echo wrapped", user="alice", cwd=work)
    assert r.returncode == 0, r.stderr
    wrapped = int(r.stdout.split(";")[0])
    try:
        r = jobs.cli("scontrol", "write", "batch_script", str(job), user="alice", cwd=work)
        assert (r.returncode, r.stdout) == (0, f"batch script for job {job} written to slurm-{job}.sh\n"), r.stderr
        written = work / f"slurm-{job}.sh"
        assert written.read_text() == text and written.owner() == "alice"
        r = jobs.cli("scontrol", "write", "batch_script", str(job), "-", user="alice", cwd=work)
        assert (r.returncode, r.stdout) == (0, text), r.stderr
        r = jobs.cli("scontrol", "write", "batch_script", str(wrapped), "mine.sh", cwd=work)
        assert (r.returncode, r.stdout) == (0, f"batch script for job {wrapped} written to mine.sh\n"), r.stderr
        assert (work / "mine.sh").read_text() == (
            "#!/bin/sh\n# This script was created by sbatch --wrap.\n\necho wrapped\n")
        r = jobs.cli("scontrol", "write", "batch_script", str(job), "b.sh", user="bob", cwd=work)
        assert (r.returncode, r.stderr) == (1, "job script retrieval failed: Invalid user id\n")
        assert not (work / "b.sh").exists()
        r = jobs.cli("scontrol", "write", "batch_script", "999999", user="alice", cwd=work)
        assert (r.returncode, r.stderr) == (1, "job script retrieval failed: Invalid job id specified\n")
        # Only the leading number counts, as the reference's scontrol read 12_1, 12_[1-2] and
        # 12.0 as job 12 (no array); no number names no job.
        for suffixed in (f"{job}_1", f"{job}_[1-2]", f"{job}.0"):
            r = jobs.cli("scontrol", "write", "batch_script", suffixed, "-", user="alice", cwd=work)
            assert (r.returncode, r.stdout) == (0, text), (suffixed, r.stderr)
        r = jobs.cli("scontrol", "write", "batch_script", f"{job}_1", user="alice", cwd=work)
        assert r.stdout == f"batch script for job {job} written to slurm-{job}.sh\n", r.stderr
        r = jobs.cli("scontrol", "write", "batch_script", "abc", "-", user="alice", cwd=work)
        assert (r.returncode, r.stderr) == (1, "job script retrieval failed: Invalid job id specified\n")
        r = jobs.cli("scontrol", "write", "batch_script", str(job), "/nonexist/x.sh", user="alice", cwd=work)
        assert (r.returncode, r.stderr) == (
            1, "failed to open file `/nonexist/x.sh`: No such file or directory\n")
    finally:
        jobs.cli("scancel", str(job), str(wrapped))


def test_slurm_time_format_is_honoured_by_every_time_stamp(jobs, monkeypatch):
    """SLURM_TIME_FORMAT, as Slurm's commands read it: %s for scripts that parse times,
    `relative` for people (the reference's forms: tests/unit/common/slurm_time_format_test)."""
    import time
    job_id = submit(jobs, "-J", "tfmt", "--begin=now+7200", "--wrap=true")
    try:
        monkeypatch.setenv("SLURM_TIME_FORMAT", "%s")
        submit_time = job_field(jobs, job_id, "SubmitTime")
        assert submit_time.isdigit() and abs(int(submit_time) - time.time()) < 120, submit_time
        assert abs(int(job_field(jobs, job_id, "StartTime")) - (int(submit_time) + 7200)) <= 2
        r = jobs.cli("squeue", "-h", "-j", str(job_id), "-o", "%V|%S")
        assert r.stdout.strip() == f"{submit_time}|{job_field(jobs, job_id, 'StartTime')}", r.stdout
        r = jobs.cli("sacct", "-X", "-n", "-P", "-j", str(job_id), "-o", "Submit")
        assert r.stdout.strip() == submit_time, r.stdout + r.stderr
        monkeypatch.setenv("SLURM_TIME_FORMAT", "relative")
        r = jobs.cli("squeue", "-h", "-j", str(job_id), "-o", "%V")
        assert re.fullmatch(r"\d\d:\d\d:\d\d|Ystday \d\d:\d\d", r.stdout.strip()), r.stdout  # midnight
        monkeypatch.setenv("SLURM_TIME_FORMAT", "standard")
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", job_field(jobs, job_id, "SubmitTime"))
    finally:
        monkeypatch.delenv("SLURM_TIME_FORMAT", raising=False)
        jobs.cli("scancel", str(job_id))


def test_a_cancelled_running_job_shows_its_batch_steps_end(jobs):
    """As the reference: scontrol's ExitCode of a running job scancel ended is its batch step's
    (0:15, SIGTERM), while sacct's job row keeps 0:0 and the batch step's row has 0:15."""
    job_id = submit(jobs, "-o", "/dev/null", "--wrap=sleep 100")
    wait_job_state(jobs, job_id, "RUNNING")
    assert jobs.cli("scancel", str(job_id)).returncode == 0
    wait_job_state(jobs, job_id, "CANCELLED")
    assert job_field(jobs, job_id, "ExitCode") == "0:15"

    def rows():
        r = jobs.cli("sacct", "-j", str(job_id), "-n", "-P", "-o", "JobID,ExitCode")
        return sorted(r.stdout.split()) == sorted([f"{job_id}|0:0", f"{job_id}.batch|0:15"]) or None
    wait_for(rows, 15, what="sacct's job and batch rows")


def test_a_held_job_shows_its_begin_time_as_its_start(jobs):
    """As the reference: a held job whose --begin is ahead shows that time as StartTime (scontrol)
    and in squeue's %S, as the same job not held does."""
    job_id = submit(jobs, "-H", "--begin=now+3600", "--wrap=true")
    try:
        begin = job_field(jobs, job_id, "EligibleTime")
        wait_for(lambda: job_field(jobs, job_id, "StartTime") == begin or None, 15,
                 what="StartTime to be the --begin time")
        r = jobs.cli("squeue", "-h", "-j", str(job_id), "-o", "%S|%r")
        assert r.stdout.strip() == f"{begin}|JobHeldUser", r.stdout
    finally:
        jobs.cli("scancel", str(job_id))


def test_yaml_is_the_json_document(jobs):
    """squeue, sinfo and sacct --yaml: the --json document as YAML (any YAML reader gets the
    same tree), with the reference's header and end marker."""
    held = submit(jobs, "-H", "-J", "yaml: held", "--comment=it's \"quoted\"", "--wrap=true")
    done = submit(jobs, "-J", "yamldone", "--wrap=true")
    wait_job_state(jobs, done, "COMPLETED")
    wait_for(lambda: jobs.cli("sacct", "-j", str(done), "-X", "-n", "-P", "-o", "State").stdout.strip()
             == "COMPLETED", 15, what="sacct to record the finished job")
    for cmd in (["squeue", "-j", str(held)], ["sinfo"], ["sacct", "-j", str(done)]):
        as_json = jobs.cli(*cmd, "--json")
        as_yaml = jobs.cli(*cmd, "--yaml")
        assert as_yaml.returncode == 0, as_yaml.stderr
        assert as_yaml.stdout.startswith("%YAML 1.1\n--- !!map\n!!str meta: !!map\n"), as_yaml.stdout[:80]
        assert as_yaml.stdout.endswith("\n...\n")
        tree, expected = yaml.safe_load(as_yaml.stdout), json.loads(as_json.stdout)
        if cmd[0] == "squeue":  # every job, as --json; the held one with its name and comment
            tree["jobs"] = [j for j in tree["jobs"] if j["job_id"] == held]
            expected["jobs"] = [j for j in expected["jobs"] if j["job_id"] == held]
            assert (tree["jobs"][0]["name"], tree["jobs"][0]["comment"]) == ("yaml: held", "it's \"quoted\"")
        if cmd[0] == "sinfo":  # node usage may move between the two calls: the shape and names
            tree = [(n["name"], list(n)) for n in tree["nodes"]]
            expected = [(n["name"], list(n)) for n in expected["nodes"]]
        assert tree == expected, cmd
    jobs.cli("scancel", str(held))


def test_failed_steps_and_signals_show_as_the_references(jobs):
    """A batch job whose srun step failed is COMPLETED with DerivedExitCode 1:0 (scontrol -d,
    squeue -O DerivedEC as a wait status, sacct), and one a signal ended is FAILED with
    Reason=JobLaunchFailure (sacct's Reason None), as the reference's `srun false; true` and
    `kill -9 $$` jobs."""
    stepped = submit(jobs, "-o", "/dev/null", "--wrap=srun false; true")
    killed = submit(jobs, "-o", "/dev/null", "--wrap=kill -9 $$")
    wait_job_state(jobs, stepped, "COMPLETED")
    wait_job_state(jobs, killed, "FAILED")
    detail = jobs.scontrol("-d", "show", "job", str(stepped)).stdout
    assert re.search(r"^   DerivedExitCode=1:0$", detail, re.M), detail
    r = jobs.cli("squeue", "-h", "-t", "all", "-j", str(stepped), "-O", "DerivedEC:5,exit_code:5")
    assert r.stdout.split() == ["256", "0"], r.stdout
    assert job_field(jobs, killed, "Reason") == "JobLaunchFailure"
    assert job_field(jobs, killed, "ExitCode") == "0:9"
    r = jobs.cli("squeue", "-h", "-t", "all", "-j", str(killed), "-o", "%T %r")
    assert r.stdout.split() == ["FAILED", "JobLaunchFailure"], r.stdout
    rows = lambda: jobs.cli("sacct", "-X", "-n", "-P", "-j", f"{stepped},{killed}", "-o",
                            "JobID,State,ExitCode,DerivedExitCode,Reason").stdout.split()
    wait_for(lambda: sorted(rows()) == sorted([f"{stepped}|COMPLETED|0:0|1:0|None",
                                               f"{killed}|FAILED|0:9|0:0|None"]) or None,
             15, what=f"sacct rows, last {rows()}")


def test_a_held_job_cancelled_is_accounted_as_the_references(jobs):
    """sacct: Reason None and Priority 0, start and end the cancel (the reference's held job,
    cancelled); scontrol keeps Reason=JobHeldUser."""
    held = submit(jobs, "-H", "-o", "/dev/null", "--wrap=true")
    assert jobs.cli("scancel", str(held)).returncode == 0
    wait_job_state(jobs, held, "CANCELLED")
    assert job_field(jobs, held, "Reason") == "JobHeldUser"
    row = lambda: jobs.cli("sacct", "-X", "-n", "-P", "-j", str(held), "-o",
                           "State,Reason,Priority,Elapsed").stdout.strip()
    wait_for(lambda: row().startswith("CANCELLED") or None, 15, what="the cancelled record")
    assert row() == "CANCELLED by 0|None|0|00:00:00", row()


def test_sacct_shows_the_kept_script_and_environment(jobs, tmp_path):
    """controller.accounting_store_flags (Slurm's AccountingStoreFlags=job_script,job_env):
    sacct -B and --env-vars print what the job was submitted with, in the reference's blocks;
    without the flag, and for jobs submitted before it, NONE; both options need -j."""
    before = submit(jobs, "-o", "/dev/null", "--wrap=true")
    original = jobs.conf.read_text()
    assert "\ncontroller:\n" in original
    jobs.conf.write_text(original.replace("\ncontroller:\n",
                                          "\ncontroller:\n  accounting_store_flags: job_script,job_env\n", 1))
    try:
        assert jobs.scontrol("reconfigure").returncode == 0
        shown = jobs.scontrol("show", "config").stdout
        assert re.search(r"^AccountingStoreFlags\s+= job_env,job_script$", shown, re.M), shown
        script = tmp_path / "kept.sh"
        script.write_text("#!/bin/bash\n#SBATCH -J kept\necho hello\n")
        kept = int(subprocess.run([str(jobs.bin / "sbatch"), "--parsable", "-o", "/dev/null", str(script)],
                                  capture_output=True, text=True, check=True,
                                  env={**jobs.env(), "KEPT_MARK": "yes"}).stdout.split(";")[0])
        wait_job_state(jobs, kept, "COMPLETED")
        out = jobs.cli("sacct", "-B", "-j", str(kept)).stdout
        assert out == (f"Batch Script for {kept}\n" + "-" * 80 + "\n"
                       "#!/bin/bash\n#SBATCH -J kept\necho hello\n\n"), out
        env = jobs.cli("sacct", "--env-vars", "-j", str(kept)).stdout.splitlines()
        assert env[:2] == [f"Environment used for {kept} (must be batch to display)", "-" * 80], env
        assert "KEPT_MARK=yes" in env and env[-1] == "", env
        out = jobs.cli("sacct", "-B", "-j", str(before)).stdout
        assert out == f"Batch Script for {before}\n" + "-" * 80 + "\nNONE\n\n", out
    finally:
        jobs.conf.write_text(original)
        jobs.scontrol("reconfigure")
    r = jobs.cli("sacct", "-B")
    assert (r.returncode, r.stderr) == (1, "sacct: fatal: When requesting job scripts you must also "
                                           "request specific jobs with the '-j' option.\n")
    r = jobs.cli("sacct", "-B", "--env-vars", "-j", "1")
    assert (r.returncode, r.stderr) == (1, "sacct: fatal: Options --batch-script and --env-vars are "
                                           "mutually exclusive\n")
