"""Less common paths of the batch CLIs (error paths and exit codes, held, failed, cancelled
and future jobs), one list run the same way against real Slurm (to capture what it printed,
into golden/edges/) and against Drover (test_edge_goldens.py compares).

Each case is (name, command template, check); `{run}`, `{held}`, `{failer}`, `{pdcanc}` and
`{later}` stand for the ids of the jobs the setup submitted, so a capture keeps the template
(`# $ ...`) and any cluster can replay it. `check` says what must match once masked:
"all" stdout and stderr, "err1" the first stderr line (a second line the docs list as a
difference), "keys" scontrol's key=value layout with its values (volatile ones masked), "out"
stdout only, "errlast" stdout and the last stderr line. The exit code always.

    python3 tests/e2e/edge_cases.py OUT_DIR BIN_DIR CONF_VAR CONF   # capture (as root)
"""

import os
import re
import subprocess
import sys
import time
from pathlib import Path

RUN_DIR = "/home/alice/edge-run"

# (name, command, wait for this state afterwards or None); ids learned from "Submitted ..."
SETUP = [
    ("arr", 'sbatch -J arr --array=0-3%1 -t 30 --wrap="sleep 600"', None),  # first: settled by the cases
    ("run", 'sbatch -J runner -t 30 --wrap="sleep 600"', "RUNNING"),
    ("held", "sbatch -H -J heldjob --wrap=true", "PENDING"),
    ("failer", 'sbatch -J failer --wrap="exit 2"', "FAILED"),
    ("pdcanc", "sbatch -H -J pdcanc --wrap=true", "PENDING"),
    ("later", "sbatch -J later --begin=now+2hours --wrap=true", "PENDING"),
]

CASES = [
    ("scancel-pending-held", "scancel {pdcanc}", "all"),
    ("show-held", "scontrol show job {held}", "keys"),
    ("show-failed", "scontrol show job {failer}", "keys"),
    ("show-cancelled-held", "scontrol show job {pdcanc}", "keys"),
    ("show-begin-later", "scontrol show job {later}", "keys"),
    ("show-throttled-task", "scontrol show job {arr}_3", "keys"),
    ("squeue-all-states", 'squeue -t all -j {run},{held},{failer},{pdcanc},{later} -o "%.8i %.10j %.2t %R"',
     "all"),
    ("hold-running", "scontrol hold {run}", "all"),
    ("squeue-held-running", 'squeue -j {run} -o "%i %T %r %Q"', "all"),
    ("release-running", "scontrol release {run}", "all"),
    ("release-finished", "scontrol release {failer}", "err1"),
    ("uhold-finished", "scontrol uhold {failer}", "err1"),
    ("update-unknown-key", "scontrol update jobid={held} bogus=1", "all"),
    ("scontrol-bad-keyword", "scontrol frobnicate", "all"),
    ("scontrol-bad-entity", "scontrol show bogus", "all"),
    ("scontrol-show-job-word", "scontrol show job abc", "all"),
    ("scontrol-interactive-bad", 'printf "frobnicate\\nshow bogus\\nquit\\n" | scontrol', "all"),
    ("squeue-bad-state", "squeue -t bogus", "all"),
    ("squeue-slurm-only-state", "squeue -t CONFIGURING,STOPPED", "all"),
    ("squeue-job-word", "squeue -j abc", "all"),
    ("squeue-unknown-user", "squeue -u nosuchuser", "all"),
    ("scancel-bad-state", "scancel -t bogus -u alice", "all"),
    ("scancel-unknown-user", "scancel -u nosuchuser", "all"),
    ("scancel-ctld", "scancel --ctld -n later -t PENDING; squeue -h -n later", "all"),
    ("sacct-bad-state", "sacct -s bogus", "all"),
    ("sacct-job-word", "sacct -j abc", "all"),
    ("sacct-bad-time", "sacct -S garbage", "all"),
    ("sacct-start-after-end", "sacct -X -S 2030-01-01 -E 2020-01-01", "all"),
    ("sacct-start-in-future", "sacct -X -S now+1days", "all"),
    ("sacct-unknown-user", "sacct -u nosuchuser", "all"),
    ("sacct-unknown-field", "sacct -o JobID,Bogus", "all"),
    ("sacct-delimiter", "sacct -X -P --delimiter=: -o JobName,State,ExitCode -j {failer}", "all"),
    # Unknown output fields: a warning and the known columns, exit 0 (session 15).
    ("squeue-unknown-field", "squeue -O JobID,Bogus -j {run}", "all"),
    ("sinfo-unknown-field", "sinfo -O Partition,Bogus", "all"),
    ("sinfo-unknown-letter", 'sinfo -o "%P %5Q"', "all"),
    ("sinfo-no-such-node", "sinfo -n nosuch", "all"),
    ("sacct-empty-format", 'sacct -X -o "" -j {failer}', "all"),
    # the reference's -v also prints plugin lines first: its last line is the case
    ("scancel-verbose-no-match", "scancel -v -u alice -n nosuchname", "errlast"),
    # An unknown user among known ones: the error, and the others' jobs (session 15).
    ("squeue-unknown-and-known-user", 'squeue -u nosuchuser,alice -j {run} -o "%j %u"', "all"),
    # scontrol show job's own reading of the id (session 38): JOB, JOB_TASK or JOB+OFFSET only;
    # a task or component the job does not have is "Job ID not found" on stdout
    ("show-job-array-expression", "scontrol show job {arr}_[1-2]", "all"),
    ("show-job-missing-task", "scontrol show job {arr}_7", "all"),
    ("show-job-task-of-no-array", "scontrol show job {held}_1", "all"),
    ("show-job-empty-task", "scontrol show job {held}_", "all"),
    ("show-job-step-id", "scontrol show job {held}.batch", "all"),
    ("show-job-trailing-space", "scontrol show job '{held} '", "all"),
    ("show-job-offset-0", "scontrol show job {held}+0", "keys"),
    ("show-job-offset-1", "scontrol show job {held}+1", "all"),
    ("show-job-leading-zero", "scontrol show job 0{held}", "keys"),
    # a user's suspend, top and hold of ids their job lacks (session 38): a refusal of the whole
    # request names the id as given ("<why> for job <id>"), an array task's answer "<id>: <why>"
    ("suspend-array-user", "scontrol suspend {arr}", "all"),
    ("suspend-missing-task-user", "scontrol suspend {arr}_7", "all"),
    ("top-array-task-user", "scontrol top {arr}_1", "all"),
    ("hold-missing-task", "scontrol hold {arr}_7", "all"),
    # sbatch's memory units (session 38): K, M, G, T, each with an optional B; no P
    ("sbatch-mem-unit-b", "sbatch -H -J memb --mem=10GB --wrap=true", "all"),
    ("squeue-mem-unit-b", "squeue -h -n memb -o %m", "all"),
    ("sbatch-mem-peta", "sbatch -H --mem=1P --wrap=true", "all"),
    ("sbatch-mem-per-cpu-peta", "sbatch -H --mem-per-cpu=1P --wrap=true", "all"),
    ("cleanup", "scancel -u alice", "all"),
]


def user_env(path, conf_var, conf):
    return ["env", "-i", "HOME=/home/alice", "USER=alice", "LOGNAME=alice", "SHELL=/bin/bash",
            f"PATH={path}", "LANG=C.UTF-8", "TZ=UTC", f"{conf_var}={conf}"]


def as_alice(cmd, path, conf_var, conf, timeout=60):
    r = subprocess.run(["runuser", "-u", "alice", "--", *user_env(path, conf_var, conf), "bash", "-c", cmd],
                       capture_output=True, text=True, timeout=timeout, cwd=RUN_DIR,
                       stdin=subprocess.DEVNULL)
    return r.returncode, r.stdout, r.stderr


def job_state(job, path, conf_var, conf):
    _, out, _ = as_alice(f"squeue -h -t all -j {job} -o %T", path, conf_var, conf)
    return out.split()[0] if out.split() else None


def run_all(path, conf_var, conf, record):
    """Submits SETUP, then runs CASES in order; record(name, template, check, rc, out, err)."""
    subprocess.run(["rm", "-rf", RUN_DIR], check=True)
    subprocess.run(["install", "-d", "-o", "alice", "-g", "alice", RUN_DIR], check=True)
    ids = {}
    for key, cmd, want in SETUP:
        rc, out, err = as_alice(cmd, path, conf_var, conf)
        m = re.search(r"Submitted batch job (\d+)", out)
        assert rc == 0 and m, f"{cmd}: {rc} {out} {err}"
        ids[key] = m.group(1)
        end = time.time() + 60
        while want and job_state(ids[key], path, conf_var, conf) != want and time.time() < end:
            time.sleep(0.3)
        assert not want or job_state(ids[key], path, conf_var, conf) == want, f"{cmd}: not {want}"
    # accounting is written behind the controller's back on both systems
    end = time.time() + 30
    while time.time() < end:
        _, out, _ = as_alice(f"sacct -n -X -j {ids['failer']} -o State", path, conf_var, conf)
        if "FAILED" in out:
            break
        time.sleep(0.5)
    for name, template, check in CASES:
        rc, out, err = as_alice(template.format(**ids), path, conf_var, conf)
        record(name, template, check, rc, out, err)
    return ids


def capture(out_dir, bin_dir, conf_var, conf):
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = f"{bin_dir}:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"
    n = [0]

    def record(name, template, check, rc, stdout, stderr):
        n[0] += 1
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        (out / f"{n[0]:02d}-{name}.txt").write_text(
            f"# $ {template}\n# user=alice exit={rc} date={stamp}\n# [stdout]\n{stdout}# [stderr]\n{stderr}")

    run_all(path, conf_var, conf, record)


if __name__ == "__main__":
    if len(sys.argv) != 5 or os.geteuid() != 0:
        sys.exit(__doc__)
    capture(*sys.argv[1:])
