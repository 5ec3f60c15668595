"""sbatch option groups end to end, checked against what real Slurm did (the reference
folder's golden files): the batch environment (golden 041-045), --begin, --open-mode,
--signal (B: and not), -o/-e/-i patterns in an array job, --mail-*, --export, --chdir, an
output file that cannot be opened, the refusals of golden 007-019 (Slurm's text and exit code,
no job left behind), and the states not covered elsewhere (COMPLETING, NODE_FAIL, REQUEUED).
Jobs run as the unprivileged user alice (account research in etc/cluster.conf). Time limits
are whole minutes in the controller, so the --signal tests use -t 1 with the signal at @55."""

import os
import pwd
import re
import subprocess
import time
from pathlib import Path

import pytest

import golden_norm as gn
from cluster import Cluster, wait_for

# The reference outputs, copied from ../shared/slurm-reference/golden (see golden/README.md).
GOLDEN_DIR = Path(os.environ.get("DROVER_GOLDEN_DIR", Path(__file__).resolve().parent / "golden"))
USER = "alice"
FINAL = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY"}


def golden(name):
    """The golden file named NNN-<name>.txt, parsed; skips the test when the folder is absent."""
    hits = sorted(GOLDEN_DIR.glob(f"[0-9][0-9][0-9]-{name}.txt"))
    if not hits:
        pytest.skip(f"reference output {name} not found in {GOLDEN_DIR}")
    return gn.parse_golden(hits[0])


@pytest.fixture(scope="module")
def cluster(request):
    """4 nodes of the reference's shape (16 CPUs, 64 GiB, 8 GPUs), short node-down timeout."""
    try:
        pwd.getpwnam(USER)
    except KeyError:
        subprocess.run(["useradd", "-m", "-s", "/bin/bash", USER], check=True)
    c = Cluster(nodes=4, gpus_per_node=8, heartbeat=1, node_down=4)
    failed_before = request.session.testsfailed
    try:
        c.start()
        yield c
    finally:
        failed = request.session.testsfailed > failed_before
        if failed:
            print(f"\n[e2e] run directory kept: {c.run_dir}\n{c.logs()}")
        c.stop(keep=True if failed else None)


@pytest.fixture
def work(cluster, request):
    """A directory of the test's own, owned by alice (jobs write their files there)."""
    d = cluster.run_dir / re.sub(r"\W", "_", request.node.name)[:60]
    d.mkdir()
    pw = pwd.getpwnam(USER)
    os.chown(d, pw.pw_uid, pw.pw_gid)
    return d


def sh(cluster, cmd, cwd, env_extra=None, timeout=30):
    """A shell command line as alice, with golden.sh's fixed environment (+ env_extra)."""
    pw = pwd.getpwnam(USER)
    env = {"HOME": pw.pw_dir, "USER": USER, "LOGNAME": USER, "SHELL": "/bin/bash",
           "PATH": f"{cluster.bin}:/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "TZ": "UTC",
           "DROVER_CONF": str(cluster.conf), **(env_extra or {})}
    args = ["runuser", "-u", USER, "--", "env", "-i", *[f"{k}={v}" for k, v in env.items()],
            "bash", "-c", cmd]
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, cwd=cwd,
                          stdin=subprocess.DEVNULL)


def sbatch(cluster, work, *args, env_extra=None):
    quoted = " ".join(_q(a) for a in args)
    r = sh(cluster, f"sbatch --parsable {quoted}", work, env_extra)
    assert r.returncode == 0, r.stderr
    return int(r.stdout.strip().split(";")[0])


def _q(s):
    return "'" + str(s).replace("'", "'\\''") + "'"


def fields(cluster, job):
    return cluster.job_fields(job)


def wait_state(cluster, job, states, timeout=30):
    return cluster.wait_job(job, states, timeout)


def squeue_state(cluster, job):
    r = cluster.cli("squeue", "-h", "-t", "all", "-j", str(job), "-o", "%t %r")
    return r.stdout.split() if r.returncode == 0 else []


def read_when(path, predicate=bool, timeout=15):
    def ready():
        return path.exists() and predicate(text := path.read_text()) and text
    return wait_for(ready, timeout, what=f"{path}")


def env_of(text):
    return dict(line.split("=", 1) for line in text.splitlines() if re.match(r"^\w+=", line))


# --- the batch environment ----------------------------------------------------------------------

# Names Slurm sets that Drover sets differently on purpose (docs/cli-compatibility.md).
ENV_OURS_ONLY = {"DROVER_CONF": "Drover's configuration variable (SLURM_CONF is set too)"}


def _slurm_names(text):
    return {n for n in env_of(text) if re.match(r"^(SLURM|CUDA|GPU)", n)}


def test_batch_environment_has_every_variable_slurm_sets(cluster, work):
    """golden 034/036/043/044 (env.sh with and without --gres=gpu:2), 035/045 (`env | sort`),
    031/041 (directives: -N 2 -n 4 -c 2 --gres=gpu:2 --mem=1G) and 042 (--array=0-1)."""
    env_sh = work / "env.sh"
    env_sh.write_text("#!/bin/bash\nenv | grep -E '^(SLURM|CUDA|GPU)' | sort\n")
    full = sbatch(cluster, work, "-J", "envfull", "-o", "env-full-%j.out", "--wrap=env | sort")
    nogpu = sbatch(cluster, work, "-J", "envjob", "-o", "env-nogpu-%j.out", str(env_sh))
    gpu = sbatch(cluster, work, "-J", "envjob", "--gres=gpu:2", "-o", "env-gpu-%j.out",
                 str(env_sh))
    layout = ["-J", "direct", "-N", "2", "-n", "4", "-c", "2", "--gres=gpu:2", "--mem=1G",
              "-t", "5"]
    direct = sbatch(cluster, work, *layout, "-o", "direct-%j.out", str(env_sh))
    arr = sbatch(cluster, work, *layout, "--array=0-1", "-o", "arr-%A-%a.out", str(env_sh))
    for job in (full, nogpu, gpu, direct, f"{arr}_0", f"{arr}_1"):
        assert wait_state(cluster, job, FINAL)["JobState"] == "COMPLETED"

    cases = [  # (our output, golden, text of the golden's batch part)
        (f"env-full-{full}.out", "batch-env-full"), (f"env-nogpu-{nogpu}.out", "batch-env-nogpu"),
        (f"env-gpu-{gpu}.out", "batch-env-gpu2"), (f"direct-{direct}.out", "batch-output-directives"),
        (f"arr-{arr}-1.out", "batch-output-directives-array")]
    problems = []
    for ours_name, gname in cases:
        g = golden(gname)
        want_text = g.stdout.split("=== srun")[0]
        if gname == "batch-output-directives-array":   # the first file shown is task 1's
            want_text = want_text.split("\n", 1)[1]
        want = env_of(want_text)
        have = env_of(read_when(work / ours_name))
        names = set(want) if gname == "batch-env-full" else _slurm_names(want_text)
        missing = sorted(names - set(have))
        extra = sorted((set(have) if gname == "batch-env-full" else _slurm_names("\n".join(
            f"{k}={v}" for k, v in have.items()))) - set(want) - set(ENV_OURS_ONLY))
        if missing or extra:
            problems.append(f"{ours_name} vs {g.path.name}: missing {missing}, not in Slurm's {extra}")
    assert not problems, "\n".join(problems)

    # Values that do not depend on placement, as Slurm printed them.
    e = env_of((work / f"env-gpu-{gpu}.out").read_text())
    assert e["SLURM_JOB_NAME"] == "envjob" and e["SLURM_JOB_ID"] == str(gpu) == e["SLURM_JOBID"]
    assert e["SLURM_NNODES"] == e["SLURM_JOB_NUM_NODES"] == "1"
    assert e["SLURM_CPUS_ON_NODE"] == e["SLURM_JOB_CPUS_PER_NODE"] == "1"
    assert e["SLURM_TASKS_PER_NODE"] == "1" and e["SLURM_JOB_PARTITION"] == "gpu"
    assert e["SLURM_JOB_USER"] == USER and e["SLURM_JOB_ACCOUNT"] == "research"
    assert e["SLURM_MEM_PER_CPU"] == "4000" and e["SLURM_GPUS_ON_NODE"] == "2"
    assert len(e["CUDA_VISIBLE_DEVICES"].split(",")) == 2
    assert e["CUDA_VISIBLE_DEVICES"] == e["GPU_DEVICE_ORDINAL"] == e["SLURM_JOB_GPUS"]
    assert e["SLURM_SUBMIT_DIR"] == str(work) and e["SLURMD_NODENAME"] == e["SLURM_NODELIST"]
    d = env_of((work / f"direct-{direct}.out").read_text())
    assert d["SLURM_NTASKS"] == d["SLURM_NPROCS"] == "4" and d["SLURM_CPUS_PER_TASK"] == "2"
    assert d["SLURM_NNODES"] == "2" and d["SLURM_MEM_PER_NODE"] == "1024"
    per_node = d["SLURM_TASKS_PER_NODE"]
    assert per_node in ("2(x2)", "3,1"), per_node  # Slurm gave both shapes (golden 041, 042)
    cpus = {"2(x2)": "4(x2)", "3,1": "6,2"}[per_node]
    assert d["SLURM_JOB_CPUS_PER_NODE"] == cpus
    assert d["SLURM_CPUS_ON_NODE"] == cpus.split(",")[0].split("(")[0]
    a = env_of((work / f"arr-{arr}-1.out").read_text())
    assert (a["SLURM_ARRAY_JOB_ID"], a["SLURM_ARRAY_TASK_ID"], a["SLURM_ARRAY_TASK_COUNT"],
            a["SLURM_ARRAY_TASK_MIN"], a["SLURM_ARRAY_TASK_MAX"], a["SLURM_ARRAY_TASK_STEP"]) == \
        (str(arr), "1", "2", "0", "1", "1")
    f = env_of((work / f"env-full-{full}.out").read_text())
    assert f["ENVIRONMENT"] == "BATCH" and f["TMPDIR"] == "/tmp" and f["PWD"] == str(work)
    assert f["HOME"] == pwd.getpwnam(USER).pw_dir and f["USER"] == USER


# --- --begin, --open-mode, --chdir, --export, --mail ------------------------------------------

def test_begin_pends_with_reason_begintime_then_starts_on_time(cluster, work):
    begin = int(time.time()) + 3
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(begin))
    job = sbatch(cluster, work, f"--begin={stamp}", "-o", "/dev/null", "--wrap=date +%s > begin.out")
    assert squeue_state(cluster, job) == ["PD", "BeginTime"]
    assert fields(cluster, job)["StartTime"] == stamp
    assert wait_state(cluster, job, FINAL, 15)["JobState"] == "COMPLETED"
    started = int((work / "begin.out").read_text())
    assert begin <= started <= begin + 5, (begin, started)  # slack for a loaded 2-core host


def test_deadline_ends_what_cannot_finish_and_cuts_a_time_min(cluster, work):
    """--deadline as the reference ran it: `-t 10` with 5 minutes left never starts (DEADLINE,
    Reason DeadLine, sacct 1:0); with `--time-min=2` it starts, its limit cut to 4 minutes; a
    deadline already past is refused; Deadline= is root's to update."""
    late = sbatch(cluster, work, "--deadline=now+5minutes", "-t", "10", "-o", "/dev/null",
                  "--wrap=sleep 60")
    cut = sbatch(cluster, work, "--deadline=now+5minutes", "-t", "10", "--time-min=2",
                 "-o", "/dev/null", "--wrap=sleep 60")
    ended = wait_state(cluster, late, {"DEADLINE"}, 15)
    assert ended["Reason"] == "DeadLine" and ended["StartTime"] == ended["EndTime"]
    assert ended["ExitCode"] == "0:1"  # and sacct's 1:0, as the reference's
    assert ended["Deadline"] != "N/A"
    assert squeue_state(cluster, late) == ["DL", "DeadLine"]
    acct = cluster.cli("sacct", "-X", "-P", "-n", "-j", str(late), "-o", "State,ExitCode")
    assert acct.stdout.split() == ["DEADLINE|1:0"], acct.stdout + acct.stderr

    started = wait_state(cluster, cut, {"RUNNING"}, 15)
    # The whole minutes left at its start: 5 at once, 4 (as the reference's) a moment later.
    stamp = lambda t: time.mktime(time.strptime(t, "%Y-%m-%dT%H:%M:%S"))
    left = int(stamp(started["Deadline"]) - stamp(started["StartTime"])) // 60
    assert left in (4, 5) and started["TimeMin"] == "00:02:00"
    assert started["TimeLimit"] == f"00:{left:02d}:00"
    shown = cluster.cli("squeue", "-h", "-j", str(cut), "-O", "Deadline:25,TimeLimit")
    assert shown.stdout.split() == [started["Deadline"], f"{left}:00"], shown.stdout

    past = sh(cluster, "sbatch --deadline=2020-01-01 --wrap=true", work)
    assert past.returncode == 1
    assert past.stderr == ("sbatch: error: Batch job submission failed: Requested time limit is "
                           "invalid (missing or exceeds some limit)\n")
    denied = sh(cluster, f"scontrol update JobId={cut} Deadline=now+2hours", work)
    assert (denied.returncode, denied.stderr) == (1, f"Access/permission denied for job {cut}\n")
    cluster.cli("scancel", str(cut))
    wait_state(cluster, cut, FINAL)


def test_open_mode_append_keeps_and_truncate_replaces(cluster, work):
    for mode, want in (("append", "old\nnew\n"), ("truncate", "new\n")):
        out = work / f"{mode}.out"
        out.write_text("old\n")
        os.chown(out, *(lambda p: (p.pw_uid, p.pw_gid))(pwd.getpwnam(USER)))
        job = sbatch(cluster, work, f"--open-mode={mode}", "-o", str(out), "--wrap=echo new")
        assert wait_state(cluster, job, FINAL)["JobState"] == "COMPLETED"
        assert out.read_text() == want, mode


def test_gpu_freq_is_recorded_and_exported_as_the_reference(cluster, work):
    """As the reference's (2026-12-03): `sbatch --gpu-freq=high` shows TresFreq=gpu:high and
    squeue's TRES_FREQ, the batch job sees SLURM_GPU_FREQ=high, an srun step's tasks
    SLURMD_TRES_FREQ=gpu:<its own>; a value Slurm does not know is refused, exit 255. Drover
    sets no GPU clock."""
    job = sbatch(cluster, work, "--gpu-freq=high", "-o", "out-%j.txt", "--wrap",
                 "env | grep FREQ | sort; srun -n1 --gpu-freq=medium env | grep FREQ | sort")
    done = wait_state(cluster, job, FINAL)
    assert done["JobState"] == "COMPLETED", done
    out = read_when(work / f"out-{job}.txt").split()
    assert out == ["SLURM_GPU_FREQ=high", "SLURMD_TRES_FREQ=gpu:medium", "SLURM_GPU_FREQ=high"], out
    show = cluster.scontrol("show", "job", str(job)).stdout
    assert re.search(r"^   TresFreq=gpu:high$", show, re.M), show
    r = cluster.cli("squeue", "-h", "-t", "all", "-j", str(job), "-O", "tres-freq:12")
    assert r.stdout.strip() == "gpu:high", r
    r = sh(cluster, "sbatch --gpu-freq=HIGH --wrap=true", work)
    assert (r.returncode, r.stdout, r.stderr) == (
        255, "", "sbatch: error: Invalid --gpu-freq argument: gpu:HIGH\n")


def test_chdir_export_and_mail(cluster, work):
    sub = work / "sub"
    sub.mkdir()
    os.chown(sub, *(lambda p: (p.pw_uid, p.pw_gid))(pwd.getpwnam(USER)))
    env = {"FOO": "from-submit", "OTHER": "x"}
    script = "pwd; echo FOO=${FOO-unset}; echo BAR=${BAR-unset}; echo OTHER=${OTHER-unset}; " \
             "echo ID=${SLURM_JOB_ID-unset}; echo LOGNAME=${LOGNAME-unset}; " \
             "echo HOME=${HOME-unset}; echo EXPORT=${SLURM_EXPORT_ENV-unset}; " \
             "echo GET=${SLURM_GET_USER_ENV-unset}; echo LS=$(command -v ls)"
    home = pwd.getpwnam(USER).pw_dir
    # A given --export is named in SLURM_EXPORT_ENV, and the node lays the job's variables over
    # the user's login environment (SLURM_GET_USER_ENV=1; `su - alice`): with NONE or a list,
    # HOME, LOGNAME and a PATH come from there, as the reference's jobs had them.
    cases = [("default", [], {"FOO": "from-submit", "EXPORT": "unset", "GET": "unset"}),
             ("all", ["--export=ALL"], {"FOO": "from-submit", "OTHER": "x", "EXPORT": "ALL",
                                        "GET": "1"}),
             ("none", ["--export=NONE"], {"FOO": "unset", "OTHER": "unset", "LOGNAME": USER,
                                          "HOME": home, "EXPORT": "NONE", "GET": "1"}),
             ("list", ["--export=FOO,BAR=set-here"], {"FOO": "from-submit", "BAR": "set-here",
                                                      "OTHER": "unset", "LOGNAME": USER,
                                                      "HOME": home, "GET": "1",
                                                      "EXPORT": "FOO,BAR=set-here"}),
             # As written, NONE included: the reference's SLURM_EXPORT_ENV=NONE,FOO=bar.
             ("nonelist", ["--export=NONE,BAR=b"], {"FOO": "unset", "BAR": "b",
                                                     "EXPORT": "NONE,BAR=b", "GET": "1"})]
    jobs = {}
    for name, opts, _ in cases:
        jobs[name] = sbatch(cluster, work, "-D", "sub", *opts, "-o", f"{name}.out",
                            f"--wrap={script}", env_extra=env)
    for name, _, want in cases:
        assert wait_state(cluster, jobs[name], FINAL)["JobState"] == "COMPLETED"
        lines = (sub / f"{name}.out").read_text().splitlines()  # -o relative to --chdir
        assert lines[0] == str(sub), (name, lines)
        got = dict(line.split("=", 1) for line in lines[1:])
        assert got["ID"] == str(jobs[name]), (name, got)
        for k, v in want.items():
            assert got[k] == v, (name, k, got)
        assert got["LS"].endswith("/ls"), (name, got)  # a PATH, from the login shell for NONE
    # --mail-type/--mail-user are accepted; no mail system is configured.
    r = sh(cluster, "sbatch -v --mail-type=END,FAIL --mail-user=alice@example.org -o /dev/null "
                    "--wrap=true", work)
    assert r.returncode == 0 and re.search(r"Submitted batch job \d+", r.stdout), r.stderr
    assert "mail" in r.stderr.lower(), r.stderr


# --- --signal --------------------------------------------------------------------------------

# The shell ends its child and waits for it before it exits: the child's own USR1 line must be
# written before the step ends and its process group is killed. The child traps TERM so that a
# TERM from the shell arriving before it has run its USR1 trap cannot end it silently (bash runs
# pending traps in signal-number order: USR1 first). Seconds since boot, not the wall clock,
# which this VM has been seen to step by a minute in the middle of a test.
SIGNAL_SCRIPT = """#!/bin/bash
trap 'echo "shell USR1 $(cut -d. -f1 /proc/uptime)"; kill $child 2>/dev/null; wait $child; exit 0' USR1
bash -c 'trap "echo child USR1; exit 0" USR1; trap "exit 0" TERM; sleep 100 & wait' &
child=$!
echo "start $(cut -d. -f1 /proc/uptime)"
wait $child
sleep 100 & wait
"""


def test_signal_is_delivered_before_the_time_limit(cluster, work):
    """-t 1 with the signal 55 s before it: about 5 s after the start. With B: the batch shell
    alone gets it; without, the job's processes do (see docs/cli-compatibility.md)."""
    script = work / "sig.sh"
    script.write_text(SIGNAL_SCRIPT)
    batch_only = sbatch(cluster, work, "-t", "1", "--signal=B:USR1@55", "-o", "b.out", str(script))
    every = sbatch(cluster, work, "-t", "1", "--signal=USR1@55", "-o", "all.out", str(script))
    for job, out in ((batch_only, "b.out"), (every, "all.out")):
        f = wait_state(cluster, job, FINAL, 40)
        assert f["JobState"] == "COMPLETED", (out, f)
    b = (work / "b.out").read_text()
    start = int(re.search(r"start (\d+)", b).group(1))
    at = int(re.search(r"shell USR1 (\d+)", b).group(1))
    assert 2 <= at - start <= 12, b   # 60 s limit - 55 s
    assert "child USR1" not in b, b
    assert "child USR1" in (work / "all.out").read_text()


# --- output patterns ------------------------------------------------------------------------

def test_output_error_input_patterns_in_an_array_job(cluster, work):
    for t in (1, 2):
        (work / f"in-{t}.txt").write_text(f"input of task {t}\n")
    job = sbatch(cluster, work, "-J", "pat", "--array=1-2", "-o", "o-%A-%a-%4a-%j-%x-%u-%N-%%.txt",
                 "-e", "e-%A_%a.txt", "-i", "in-%a.txt", "--wrap=cat; echo to-stderr >&2")
    for t in (1, 2):
        f = wait_state(cluster, f"{job}_{t}", FINAL)
        assert f["JobState"] == "COMPLETED", f
        task_id, node = f["JobId"], f["NodeList"]
        out = work / f"o-{job}-{t}-{t:04d}-{task_id}-pat-{USER}-{node}-%.txt"
        assert out.read_text() == f"input of task {t}\n", sorted(p.name for p in work.iterdir())
        assert (work / f"e-{job}_{t}.txt").read_text() == "to-stderr\n"
        assert out.stat().st_uid == pwd.getpwnam(USER).pw_uid
        assert f["StdOut"] == str(out) and f["StdIn"] == str(work / f"in-{t}.txt")


def test_output_file_that_cannot_be_opened_fails_the_job_with_a_reason(cluster, work):
    job = sbatch(cluster, work, "-J", "noout", "-o", "/nonexistent-dir/out.txt", "--wrap=true")
    f = wait_state(cluster, job, FINAL)
    assert f["JobState"] == "FAILED", f
    r = cluster.scontrol("show", "job", str(job))
    assert re.search(r"Reason=\S+", r.stdout) and "Reason=None" not in r.stdout, r.stdout
    assert "/nonexistent-dir/out.txt" in r.stdout

    def acct():
        a = cluster.cli("sacct", "-X", "-P", "-n", "-j", str(job), "-o", "State,ExitCode,Reason")
        return a.stdout.strip() if a.stdout.startswith("FAILED") else None
    row = wait_for(acct, 15, what="sacct to show the failure")
    assert row.split("|")[2] not in ("", "None"), row
    # The reference's exit code: the job 0:53, its batch step CANCELLED 0:53.
    assert f["ExitCode"] == "0:53" and row.split("|")[1] == "0:53", (f["ExitCode"], row)
    steps = cluster.cli("sacct", "-P", "-n", "-j", f"{job}.batch", "-o", "JobID,State,ExitCode")
    assert steps.stdout.split() == [f"{job}.batch|CANCELLED|0:53"], steps.stdout


# --- refusals: Slurm's text and exit code, and no job behind ----------------------------------

ERRORS = ["err-unknown-partition", "err-gres-unknown-name", "err-gres-too-many",
          "err-time-garbage", "err-too-many-nodes", "err-mem-too-large", "err-unknown-account",
          "err-empty-script", "err-no-shebang", "sbatch-debug-overlimit"]


def _all_jobs(cluster):
    r = cluster.cli("squeue", "-h", "-t", "all", "-o", "%A")
    assert r.returncode == 0, r.stderr
    return set(r.stdout.split())


@pytest.mark.parametrize("name", ERRORS)
def test_refusal_as_slurm_and_no_job_left(cluster, work, name):
    g = golden(name)
    before = _all_jobs(cluster)
    r = sh(cluster, g.command, work)
    assert (r.returncode, r.stdout, r.stderr) == (g.exit, g.stdout, g.stderr), g.path.name
    assert _all_jobs(cluster) == before


# Client-side refusals not in the golden files; text and exit codes of Debian's Slurm 22.05.8
# sbatch (parsing fails before it contacts a controller).
CLIENT_ERRORS = [
    (["--bogus-option"], 255, "sbatch: unrecognized option '--bogus-option'\n"
                              'Try "sbatch --help" for more information\n'),
    (["-N", "abc"], 255, 'sbatch: error: "abc" is not a valid node count\n'),
    (["--gres=gpu:2:x"], 1, "sbatch: error: Invalid generic resource (gres) specification\n"),
    (["--begin=nonsense"], 255,
     "Invalid time specification (pos=0): nonsense\nsbatch: error: Invalid --begin specification\n"),
    (["--begin=now+5m"], 255,
     "Invalid time specification (pos=4): now+5m\nsbatch: error: Invalid --begin specification\n"),
    (["--begin="], 255, "sbatch: error: Invalid --begin specification\n"),
    (["--deadline=12/40"], 255,
     "Invalid time specification (pos=3): 12/40\nsbatch: error: Invalid --deadline specification\n"),
]


@pytest.mark.parametrize("args,code,text", CLIENT_ERRORS, ids=[c[0][0] for c in CLIENT_ERRORS])
def test_client_side_refusals(cluster, work, args, code, text):
    before = _all_jobs(cluster)
    r = sh(cluster, "sbatch " + " ".join(_q(a) for a in args) + " --wrap=true", work)
    assert (r.returncode, r.stdout) == (code, ""), r
    assert r.stderr == text, r.stderr
    assert _all_jobs(cluster) == before


# Node requests the reference's controller refused (2026-12-03), in each command's words for a
# refused submission, exit 1, no job behind (a node both required and excluded would otherwise
# wait for ever; salloc and srun would wait with it).
_REFUSED = {"sbatch": "sbatch: error: Batch job submission failed: ",
            "salloc": "salloc: error: Job submit/allocate failed: ",
            "srun": "srun: error: Unable to allocate resources: "}
NODE_REFUSALS = [(cmd, args, why) for cmd in ("sbatch", "salloc", "srun") for args, why in (
    (["-N", "0"], "Node count specification invalid"),
    (["-w", "node1,node2", "-x", "node2", "-N", "2"], "Invalid node name specified"))]


@pytest.mark.parametrize("cmd,args,why", NODE_REFUSALS,
                         ids=[f"{c}{a[0]}" for c, a, _ in NODE_REFUSALS])
def test_node_requests_the_reference_refused(cluster, work, cmd, args, why):
    before = _all_jobs(cluster)
    tail = "--wrap=true" if cmd == "sbatch" else "true"
    r = sh(cluster, f"timeout 20 {cmd} " + " ".join(_q(a) for a in args) + f" {tail}", work)
    assert (r.returncode, r.stdout, r.stderr) == (1, "", _REFUSED[cmd] + why + "\n"), r
    assert _all_jobs(cluster) == before
    # A range from 0 is taken, as the reference took `-N 0-2`.
    if cmd == "sbatch" and args[:2] == ["-N", "0"]:
        r = sh(cluster, "sbatch --parsable -N 0-2 -o /dev/null --wrap=true", work)
        assert r.returncode == 0, r.stderr


def test_node_count_against_the_nodelist_as_the_reference(cluster, work):
    """-N with -w of more hosts (distinct ones) than -N allows: sbatch and salloc refuse in the
    reference's words (checked on it, 2026-12-03), srun trims the list and says so; a least
    below the list's count is raised to it."""
    before = _all_jobs(cluster)
    for cmd, tail in (("sbatch", "--wrap=true"), ("salloc", "true")):
        for nodes, counts in (("1", "2-1"), ("1-1", "2-1")):
            r = sh(cluster, f"timeout 20 {cmd} -w node1,node2 -N {nodes} {tail}", work)
            assert (r.returncode, r.stdout, r.stderr) == \
                (1, "", f"{cmd}: error: invalid number of nodes (-N {counts})\n"), r
    r = sh(cluster, "timeout 20 sbatch -w 'node[1-3]' -N 2 --wrap=true", work)
    assert r.stderr == "sbatch: error: invalid number of nodes (-N 3-2)\n", r
    assert _all_jobs(cluster) == before
    r = sh(cluster, "timeout 20 srun -w node1,node2 -N 1 hostname", work)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ("srun: error: Required nodelist includes more nodes than permitted by "
                        "max-node count (2 > 1). Eliminating nodes from the nodelist.\n"), r
    # The same host twice is one node; -N 1-3 with two listed asks 2-3.
    same = sbatch(cluster, work, "-H", "-w", "node1,node1", "-N", "1", "-o", "/dev/null", "--wrap=true")
    ranged = sbatch(cluster, work, "-H", "-w", "node1,node2", "-N", "1-3", "-o", "/dev/null",
                    "--wrap=true")
    # Without -N: the list's count from the submission on; fewer tasks keep its first hosts
    # (the reference's, 2026-12-04).
    listed = sbatch(cluster, work, "-H", "-w", "node[1-2]", "-o", "/dev/null", "--wrap=true")
    r = sh(cluster, "sbatch --parsable -H -n 2 -w 'node[1-3]' -o /dev/null --wrap=true", work)
    assert r.stderr == "sbatch: Warning: can't run 2 processes on 3 nodes, setting nnodes to 2\n", r
    fewer = int(r.stdout.strip())
    try:
        assert fields(cluster, same)["NumNodes"] == "1-1"
        assert (fields(cluster, ranged)["NumNodes"], fields(cluster, ranged)["NumTasks"]) == ("2-3", "2")
        f = fields(cluster, listed)
        assert (f["NumNodes"], f["NumCPUs"], f["NumTasks"]) == ("2", "2", "2"), f
        assert f["TRES"] == "cpu=2,mem=8000M,node=2,billing=2", f
        f = fields(cluster, fewer)
        assert (f["ReqNodeList"], f["NumNodes"]) == ("node[1-2]", "2-2"), f
    finally:
        sh(cluster, f"scancel {same} {ranged} {listed} {fewer}", work)


# `-p` lists the reference refused (its EnforcePartLimits=ALL; debug: 2 nodes, 30 minutes at
# most; gpu: no default time, so its maximum, a day): every partition must exist and the job
# must fit each one's limits.
_FAILED = "sbatch: error: Batch job submission failed: "
PARTITION_LISTS = [
    (["-p", "gpu,nosuch"], "sbatch: error: invalid partition specified: nosuch\n"
                           f"{_FAILED}Invalid partition name specified\n"),
    (["-p", "gpu,debug"], f"{_FAILED}Requested partition configuration not available now\n"),
    (["-p", "gpu,debug", "-t", "40"],
     f"{_FAILED}Requested time limit is invalid (missing or exceeds some limit)\n"),
    (["-p", "gpu,debug", "-t", "10", "-N", "3"], f"{_FAILED}Node count specification invalid\n"),
]


@pytest.mark.parametrize("args,text", PARTITION_LISTS, ids=["unknown", "default", "time", "nodes"])
def test_partition_list_refusals(cluster, work, args, text):
    before = _all_jobs(cluster)
    r = sh(cluster, "sbatch " + " ".join(_q(a) for a in args) + " --wrap=true", work)
    assert (r.returncode, r.stdout, r.stderr) == (1, "", text)
    assert _all_jobs(cluster) == before


def test_partition_list_waits_as_the_list_and_runs_where_it_can_start(cluster, work):
    """As the reference's runs (2026-12-03): a held `-p gpu,debug` job shows the list in
    squeue, scontrol and (a row per partition) sprio; `squeue -p debug` lists it, `scancel -p
    debug` leaves it; released, it runs in debug, whose PriorityJobFactor is higher; with
    debug's nodes busy, `-p debug,gpu` runs in gpu instead."""
    held = sbatch(cluster, work, "-H", "-p", "gpu,debug", "-t", "10", "-o", "/dev/null", "--wrap=true")
    shown = cluster.cli("squeue", "-h", "-j", str(held), "-o", "%P %r").stdout.split()
    assert shown == ["gpu,debug", "JobHeldUser"]
    assert str(held) in cluster.cli("squeue", "-h", "-p", "debug", "-o", "%i").stdout.split()
    assert fields(cluster, held)["Partition"] == "gpu,debug"
    r = sh(cluster, "scancel -p debug", work)
    assert r.returncode == 0, r.stderr
    assert squeue_state(cluster, held) == ["PD", "JobHeldUser"]
    assert cluster.cli("scontrol", "release", str(held)).returncode == 0
    done = wait_state(cluster, held, FINAL)
    assert (done["JobState"], done["Partition"]) == ("COMPLETED", "debug")
    acct = cluster.cli("sacct", "-n", "-P", "-X", "-j", str(held), "-o", "Partition")
    assert acct.stdout.split() == ["debug"]

    busy = sbatch(cluster, work, "-p", "debug", "-N", "2", "--exclusive", "-t", "5", "-o",
                  "/dev/null", "--wrap=sleep 60")
    wait_state(cluster, busy, "RUNNING")
    other = sbatch(cluster, work, "-p", "debug,gpu", "-t", "10", "-o", "/dev/null",
                   "--wrap=sleep 60")
    running = wait_state(cluster, other, "RUNNING")
    assert running["Partition"] == "gpu"
    assert running["NodeList"] not in ("node1", "node2"), running["NodeList"]
    assert cluster.cli("scancel", str(busy), str(other)).returncode == 0


def test_held_job_no_node_can_hold_waits_with_bad_constraints(cluster, work):
    """As the reference (2026-12-03): `sbatch --gres=gpu:9` on 8-GPU nodes is refused, with
    -H it is taken, and released it waits with BadConstraints."""
    r = sh(cluster, "sbatch --gres=gpu:9 --wrap=true", work)
    assert (r.returncode, r.stderr) == (1, f"{_FAILED}Requested node configuration is not available\n")
    job = sbatch(cluster, work, "-H", "--gres=gpu:9", "-o", "/dev/null", "--wrap=true")
    assert squeue_state(cluster, job) == ["PD", "JobHeldUser"]
    assert cluster.cli("scontrol", "release", str(job)).returncode == 0
    wait_for(lambda: squeue_state(cluster, job) == ["PD", "BadConstraints"], 10,
             what="BadConstraints")
    assert fields(cluster, job)["Reason"] == "BadConstraints"
    assert cluster.cli("scancel", str(job)).returncode == 0


def test_sprio_has_a_row_per_listed_partition(cluster, work):
    # sprio lists jobs that wait for resources or priority: every node busy first.
    busy = sbatch(cluster, work, "-p", "gpu", "-N", "4", "--exclusive", "-t", "5", "-o",
                  "/dev/null", "--wrap=sleep 60")
    wait_state(cluster, busy, "RUNNING")
    job = sbatch(cluster, work, "-p", "debug,gpu", "-t", "10", "-o", "/dev/null", "--wrap=true")
    try:
        rows = cluster.cli("sprio", "-h", "-j", str(job), "-o", "%i %r %Y").stdout.splitlines()
        parts = [row.split()[1] for row in rows]
        prio = {row.split()[1]: int(row.split()[2]) for row in rows}
        assert parts == ["debug", "gpu"], rows
        assert prio["debug"] > prio["gpu"], rows
    finally:
        cluster.cli("scancel", str(job), str(busy))


# --- states not reached elsewhere ----------------------------------------------------------

def test_completing_then_cancelled(cluster, work):
    """A job that ignores SIGTERM shows CG for the kill wait after scancel, then CANCELLED."""
    job = sbatch(cluster, work, "-o", "/dev/null", "--wrap=trap '' TERM; echo up > up.txt; sleep 60")
    wait_state(cluster, job, "RUNNING")
    read_when(work / "up.txt")
    assert cluster.cli("scancel", str(job)).returncode == 0
    wait_for(lambda: squeue_state(cluster, job)[:1] == ["CG"], 5, what="COMPLETING")
    assert wait_state(cluster, job, FINAL, 20)["JobState"] == "CANCELLED"


def _requeue_states(cluster, job):
    a = cluster.cli("sacct", "-D", "-X", "-P", "-n", "-j", str(job), "-o", "State")
    return a.stdout.split()


def two_runs(out, job):
    """Whether an append-mode output file holds the first run's line, the step daemon's line
    for the requeue (as the reference's slurmstepd wrote it) and the second run's."""
    lines = out.read_text().split("\n")
    return len(lines) >= 3 and lines[0] == "run" and lines[2] == "run 1" and re.fullmatch(
        rf"drover-stepd-node1: error: \*\*\* JOB {job} ON node1 CANCELLED AT \S+ DUE TO JOB "
        r"REQUEUE \*\*\*", lines[1]) is not None


def test_requeuehold_then_release_runs_the_job_again(cluster, work):
    """requeuehold: the run ends, the job waits held with Restarts=1; released, it runs again
    with SLURM_RESTART_COUNT=1 (the output file in append mode keeps both runs)."""
    job = sbatch(cluster, work, "-o", "rq.out", "--open-mode=append",
                 "--wrap=echo run $SLURM_RESTART_COUNT; sleep 30")
    wait_state(cluster, job, "RUNNING")
    read_when(work / "rq.out")
    assert cluster.scontrol("requeuehold", str(job)).returncode == 0
    f = wait_state(cluster, job, "PENDING")
    assert f["Reason"] == "job_requeued_in_held_state" and f["Restarts"] == "1", f
    node = wait_for(lambda: cluster.node_state("node1") == "idle" and "node1", 15, what="node idle")
    assert node
    assert cluster.scontrol("release", str(job)).returncode == 0
    wait_for(lambda: two_runs(work / "rq.out", job), 20, what="the second run's output")
    assert cluster.cli("scancel", str(job)).returncode == 0
    assert wait_state(cluster, job, FINAL)["JobState"] == "CANCELLED"


def test_requeued_run_shows_in_sacct(cluster, work):
    """The run that ended in a requeue keeps its own REQUEUED record in `sacct -D`, before the
    job's current one (Slurm keeps one record per run); plain sacct shows the current one."""
    job = sbatch(cluster, work, "-o", "/dev/null", "--wrap=sleep 30")
    wait_state(cluster, job, "RUNNING")
    try:
        assert cluster.scontrol("requeuehold", str(job)).returncode == 0
        wait_state(cluster, job, "PENDING")
        wait_for(lambda: _requeue_states(cluster, job) == ["REQUEUED", "PENDING"], 5,
                 what="sacct -D to show the REQUEUED run, then the pending one")
        plain = cluster.cli("sacct", "-X", "-P", "-n", "-j", str(job), "-o", "State")
        assert plain.stdout.split() == ["PENDING"], plain
    finally:
        cluster.cli("scancel", str(job))


def test_requeue_of_a_running_job_runs_it_again(cluster, work):
    """The relaunch reaches the node a few ms after the old run's end report, while that run's
    drover-stepd may still be exiting: droverd starts the new run (another restart count)
    instead of taking it for a retried launch of the old one."""
    job = sbatch(cluster, work, "-o", "rq2.out", "--open-mode=append",
                 "--wrap=echo run $SLURM_RESTART_COUNT; sleep 2")
    wait_state(cluster, job, "RUNNING")
    read_when(work / "rq2.out")
    try:
        assert cluster.scontrol("requeue", str(job)).returncode == 0
        f = wait_state(cluster, job, "COMPLETED", 10)
        assert f["Restarts"] == "1", f
        assert two_runs(work / "rq2.out", job), (work / "rq2.out").read_text()
    finally:
        cluster.cli("scancel", str(job))


def test_node_dead_at_launch_ends_a_no_requeue_job_node_fail(cluster, work):
    """The agent is gone before the controller notices (its heartbeats have not timed out yet):
    the launch RPC finds nobody, which is a node failure, not a failed launch."""
    cluster.kill("node4")
    try:
        job = sbatch(cluster, work, "--no-requeue", "-w", "node4", "-o", "/dev/null",
                     "--wrap=true")
        f = wait_state(cluster, job, FINAL, 30)
        assert (f["JobState"], f["Reason"]) == ("NODE_FAIL", "NodeDown"), f
    finally:
        cluster.start()
    cluster.wait_state("node4", "idle", 30)


def test_job_requeue_setting_is_the_default_of_requeue(cluster, work):
    """cluster.conf `jobs: {requeue: false}` (Slurm's JobRequeue=0): jobs that do not ask for
    --requeue show Requeue=0 and end NODE_FAIL when their node fails; --requeue still wins."""
    original = cluster.conf.read_text()
    try:
        changed = re.sub(r"(?m)^(\s+requeue:\s*)true", r"\1false", original)
        if changed == original:
            changed = original + "\njobs:\n  requeue: false\n"
        cluster.conf.write_text(changed)
        assert cluster.scontrol("reconfigure").returncode == 0
        plain = sbatch(cluster, work, "-w", "node4", "-o", "/dev/null",
                       "--wrap=touch started; sleep 60")
        asked = sbatch(cluster, work, "--requeue", "-H", "-o", "/dev/null", "--wrap=true")
        assert fields(cluster, asked)["Requeue"] == "1"
        cluster.cli("scancel", str(asked))
        f = wait_state(cluster, plain, "RUNNING")
        assert f["Requeue"] == "0", f
        wait_for(lambda: (work / "started").exists(), 15, what="the job's process to run")
        cluster.kill("node4")
        try:
            f = wait_state(cluster, plain, FINAL, 30)
            assert f["JobState"] == "NODE_FAIL", f
        finally:
            cluster.start()
    finally:
        cluster.conf.write_text(original)
        cluster.scontrol("reconfigure")
    cluster.wait_state("node4", "idle", 30)
    job = sbatch(cluster, work, "-H", "-o", "/dev/null", "--wrap=true")
    assert fields(cluster, job)["Requeue"] == "1"
    cluster.cli("scancel", str(job))


def test_node_failure_of_a_no_requeue_job_is_node_fail(cluster, work):
    job = sbatch(cluster, work, "--no-requeue", "-w", "node4", "-o", "/dev/null",
                 "--wrap=touch started; sleep 60")
    wait_state(cluster, job, "RUNNING")
    # Killed once the job runs (a node dead at the launch: the test above).
    wait_for(lambda: (work / "started").exists(), 15, what="the job's process to run")
    cluster.kill("node4")
    try:
        f = wait_state(cluster, job, FINAL, 30)
        assert f["JobState"] == "NODE_FAIL", f
        assert squeue_state(cluster, job)[0] == "NF"
    finally:
        cluster.start()
    cluster.wait_state("node4", "idle", 30)
