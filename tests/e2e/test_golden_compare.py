"""The comparison with real Slurm: the commands the reference folder captured
(tests/e2e/golden/NNN-*.txt, copied from ../shared/slurm-reference/golden, each headed
'# $ <command>') are replayed in order, as the same users, with the same fixed environment,
against a Drover cluster of the reference's shape (4 nodes x 16 CPUs / 64 GiB / 8 GPUs,
partitions gpu (default) and debug),
with golden.sh's waits between them. Each output is masked (golden_norm.mask: ids, times,
dates, node and host names, paths, durations) and must keep Slurm's format: the same header
lines, columns, keys in the same order, messages and exit codes.

Commands of CLIs not built yet (srun, salloc, sprio, sshare) are skipped, and so are outputs
that need them (job scripts calling srun); they are picked up as soon as <build>/bin has them.
Differences Drover has on purpose are in ALLOWED below, each with its reason, and listed in
docs/cli-compatibility.md. Set DROVER_GOLDEN_DUMP=DIR to write our raw outputs there."""

import os
import re
import subprocess
import time
from pathlib import Path

import pytest

import golden_norm as gn
from cluster import Cluster, build_dir, wait_for

# The reference outputs, copied from ../shared/slurm-reference/golden (see golden/README.md).
GOLDEN_DIR = Path(os.environ.get("DROVER_GOLDEN_DIR", Path(__file__).resolve().parent / "golden"))
OPTIONAL_CLIS = ("srun", "salloc", "sprio", "sshare")
GOLDEN_RUN_DIR = "/home/alice/golden-run"   # golden.sh's RUNDIR
GOLDEN_CONF = "/tmp/slurm-oracle/etc/slurm.conf"

# Job scripts golden.sh writes into its run directory (plain.sh and env.sh exist only in
# golden.sh; directives.sh and steps.sh are kept as golden notes 031 and 037).
PLAIN_SH = '#!/bin/bash\necho "plain script ran on $(hostname) as job $SLURM_JOB_ID"\n'
ENV_SH = "#!/bin/bash\nenv | grep -E '^(SLURM|CUDA|GPU)' | sort\n"

# The reference nodes are node01..node04, ours node1..node4 (etc/cluster.conf): node names
# given on command lines are rewritten; in outputs they are masked.
NODE_ARGS = [(r"-w node01\b", "-w node1"), (r"-w node\[02-04\]", "-w node[2-4]"),
             (r"show node -o node01\b", "show node -o node1")]

# Outputs that show what a skipped CLI did inside a job (srun in directives.sh/steps.sh).
NEEDS = {"batch-output-directives": "srun", "batch-output-directives-array": "srun",
         "batch-output-steps": "srun", "sacct-steps": "srun", "sacct-steps-default": "srun",
         "sacct-l-one": "srun"}


def goldens():
    if not GOLDEN_DIR.is_dir():
        return []
    return gn.load_goldens(GOLDEN_DIR)


def missing_clis():
    try:
        b = build_dir() / "bin"
    except RuntimeError:
        return set(OPTIONAL_CLIS)
    return {c for c in OPTIONAL_CLIS if not (b / c).exists()}


def skipped_by(g, missing):
    used = {c for c in OPTIONAL_CLIS if re.search(rf"(^|[\s;|&(]){c}\b", g.command)}
    need = NEEDS.get(g.name)
    if need:
        used.add(need)
    return sorted(used & missing)


class Replay:
    """Runs the golden commands in order and keeps each result by golden number."""

    def __init__(self, cluster, run_dir, missing):
        self.c = cluster
        self.run_dir = run_dir
        self.missing = missing
        self.ids = {}          # golden job id -> ours
        self.results = {}      # golden number -> (exit, stdout, stderr)
        self.skipped = {}      # golden number -> why
        shim = cluster.run_dir / "shim"
        shim.mkdir(exist_ok=True)
        os.chmod(shim, 0o755)
        for name in missing:   # never fall through to real Slurm's CLI in /usr/bin
            p = shim / name
            p.write_text(f"#!/bin/sh\necho '{name}: not built in this Drover build' >&2\nexit 127\n")
            p.chmod(0o755)
        self.path = f"{shim}:{cluster.bin}:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"

    def as_user(self, user, cmd, timeout=60):
        home = "/root" if user == "root" else f"/home/{user}"
        env = ["env", "-i", f"HOME={home}", f"USER={user}", f"LOGNAME={user}", "SHELL=/bin/bash",
               f"PATH={self.path}", "LANG=C.UTF-8", "TZ=UTC", f"DROVER_CONF={self.c.conf}"]
        try:
            r = subprocess.run(["runuser", "-u", user, "--", *env, "bash", "-c", cmd],
                               capture_output=True, text=True, timeout=timeout, cwd=self.run_dir,
                               stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired as e:  # golden.sh's `timeout` gives 124 too
            text = [x.decode(errors="replace") if isinstance(x, bytes) else (x or "")
                    for x in (e.stdout, e.stderr)]
            return 124, text[0], text[1]
        return r.returncode, r.stdout, r.stderr

    def translate(self, command):
        """The golden command with golden job ids replaced by ours and our node names."""
        for rx, rep in NODE_ARGS:
            command = re.sub(rx, rep, command)
        if "show host" in command:
            return command

        def sub(m):
            return str(self.ids.get(int(m.group(0)), m.group(0)))

        ctx = r"(?:(?<=afterok:)|(?<=scancel )|(?<=scancel -v )|(?<=-j )|(?<=show job )" \
              r"|(?<=show job -d )|(?<=show job -o )|(?<=,)|(?<=[a-z]-))"
        return re.sub(ctx + r"\d+(?!\d)", sub, command)

    def learn_ids(self, g, out):
        """Pairs the job id golden printed with ours."""
        want = re.search(r"(?:Submitted batch job |^)(\d+)(?:;\w+)?$", g.stdout.strip())
        got = re.search(r"(?:Submitted batch job |^)(\d+)(?:;\w+)?$", out.strip())
        if want and got and g.command.lstrip().startswith(("sbatch", "cd /tmp && sbatch")):
            self.ids[int(want.group(1))] = int(got.group(1))

    def our_id(self, golden_name):
        g = next(x for x in goldens() if x.name == golden_name)
        return self.ids[int(re.search(r"\d+", g.stdout).group(0))]

    # --- golden.sh's waits ----------------------------------------------------------------
    def state(self, job):
        r = self.c.cli("squeue", "-h", "-t", "all", "-j", str(job), "-o", "%T")
        return r.stdout.split()[0] if r.returncode == 0 and r.stdout.split() else None

    def wait_state(self, job, states, timeout):
        wait_for(lambda: self.state(job) in states, timeout, what=f"job {job} in {states}")

    def queue(self):
        return set(self.c.cli("squeue", "-h", "-o", "%A").stdout.split())

    def before(self, g):
        t_out = self.ids.get(4)  # golden's TIMEOUT job (sbatch-timeout-job)
        if g.name == "sbatch-steps":
            # Not one of golden.sh's waits: steps.sh's -N 2 -n 4 is laid out by what is free on
            # its first node (LAYOUT_WHY). Slurm's had room for 3 tasks there (3+1, golden 111);
            # a slow machine still running the directives jobs gave 1+3. The jobs before it end
            # first, so both lay it out on nodes free but for the TIMEOUT job's one CPU.
            wait_for(lambda: self.queue() <= {str(t_out)}, 90, what="the jobs before steps.sh")
        elif g.name == "job-output-files":
            # every job submitted so far ended, except the one left to time out
            wait_for(lambda: self.queue() <= {str(t_out)}, 90, what="the first jobs to end")
            time.sleep(0.5)
        elif g.name == "sbatch-array":
            self.wait_state(self.our_id("sbatch-blocker"), {"RUNNING"}, 30)
        elif g.name == "squeue-default":
            arr = self.our_id("sbatch-array")
            wait_for(lambda: self.state(f"{arr}_1") == "RUNNING", 60, what="array task 1 to run")
            time.sleep(1.0)  # a scheduling pass sets the pending reasons
        elif g.name == "squeue-after-scancel":
            for name in ("sbatch-big", "sbatch-blocker", "sbatch-held"):
                self.wait_state(self.our_id(name), {"CANCELLED"}, 30)
        elif g.name == "scontrol-show-job-timeout":
            rest = [j for j in self.queue() if j != str(t_out)]
            if rest:
                self.as_user("root", "scancel " + " ".join(rest))
            self.wait_state(t_out, {"TIMEOUT"}, 150)

            def acct():
                r = self.c.cli("sacct", "-n", "-X", "-j", str(t_out), "-o", "State")
                return r.stdout.strip().startswith("TIMEOUT")
            wait_for(acct, 30, what="sacct to show the TIMEOUT")
            wait_for(lambda: not self.queue(), 30, what="the queue to empty")

    def run(self, all_goldens):
        notes = {g.name: g.path.read_text().split("\n", 1)[1] for g in all_goldens if g.note}
        for name, text in (("plain.sh", PLAIN_SH), ("env.sh", ENV_SH),
                           ("directives.sh", notes.get("directives-script", "")),
                           ("steps.sh", notes.get("steps-script", ""))):
            p = self.run_dir / name
            p.write_text(text)
            os.chown(p, *_uid_gid("alice"))
        for g in all_goldens:
            if g.note:
                continue
            why = skipped_by(g, self.missing)
            if why:
                self.skipped[g.number] = f"needs {', '.join(why)}, not built yet"
                continue
            self.before(g)
            cmd = self.translate(g.command)
            rc, out, err = self.as_user(g.user, cmd)
            self.results[g.number] = (rc, out, err)
            self.learn_ids(g, out)


def _uid_gid(user):
    import pwd
    pw = pwd.getpwnam(user)
    return pw.pw_uid, pw.pw_gid


@pytest.fixture(scope="module")
def replay(request):
    gs = goldens()
    if not gs:
        pytest.skip(f"no reference outputs in {GOLDEN_DIR}")
    for user in ("alice", "bob"):
        try:
            _uid_gid(user)
        except KeyError:
            subprocess.run(["useradd", "-m", "-s", "/bin/bash", user], check=True)
    c = Cluster(nodes=4, gpus_per_node=8, heartbeat=1, node_down=10)
    failed_before = request.session.testsfailed
    try:
        c.start()
        run_dir = c.run_dir / "golden-run"
        run_dir.mkdir()
        os.chown(run_dir, *_uid_gid("alice"))
        r = Replay(c, run_dir, missing_clis())
        r.run(gs)
        dump = os.environ.get("DROVER_GOLDEN_DUMP")
        if dump:
            Path(dump).mkdir(parents=True, exist_ok=True)
            for g in gs:
                if g.number in r.results:
                    rc, out, err = r.results[g.number]
                    (Path(dump) / g.path.name).write_text(
                        f"# $ {r.translate(g.command)}\n# user={g.user} exit={rc}\n"
                        f"# [stdout]\n{out}# [stderr]\n{err}")
        yield r
    finally:
        failed = request.session.testsfailed > failed_before
        if failed:
            print(f"\n[e2e] run directory kept: {c.run_dir}")
        c.stop(keep=True if failed else None)



# --- how each golden file is compared ----------------------------------------------------------
class Spec:
    """mode: exact (masked lines), rows (header lines exact, rows as sets: their order and number
    follow scheduling), keys (key=value layouts), env (variable names), json (key sets), or
    allowed (not compared: a difference on purpose, `why`). `extra` masks more, in both texts.
    `missing_ok`/`extra_ok`: (regex, why) for rows Slurm printed that we may lack / rows only we
    print; `volatile`: keys whose values are not compared; `bug`: a known defect, the file is a
    strict xfail until it is fixed."""

    def __init__(self, mode="exact", why="", extra=(), missing_ok=(), extra_ok=(), volatile=(),
                 bug=None, nodes=True, names_ok=()):
        self.mode, self.why, self.extra, self.bug, self.nodes = mode, why, list(extra), bug, nodes
        self.missing_ok, self.extra_ok, self.volatile = missing_ok, extra_ok, volatile
        self.names_ok = names_ok


CONF_VAR = (("DROVER_CONF", "Drover's configuration variable, set besides SLURM_CONF"),)
# srun exports the variables torch.distributed reads (issue 5, DESIGN.md decision 7).
TORCH_VARS = tuple((n, "PyTorch's variables, exported by srun on purpose") for n in
                   ("MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE", "LOCAL_RANK",
                    "LOCAL_WORLD_SIZE", "GROUP_RANK"))
NUMBERS = (r"(?<= )\d+(\.\d+)?(?= |$)", "<N>")
HELP = "help texts are Drover's own, shorter wording that points to docs/cli-compatibility.md"
PRIO_COLUMN = (r"\d+(?=\s+\S+\s*$)", "<PRIO>")  # %.10Q before %R: Drover's weights differ
# Drover's priority weights (etc/cluster.conf, no fair-share usage yet) give other numbers.
PRIO = "Priority"
# Which pass started a job and when it was last evaluated (docs: scontrol job commands).
SCHED = ("Scheduler",)
# Rejected submissions: Slurm gives a job id and an accounting record (FAILED 1:0, None
# assigned) to jobs its node selection refuses (golden 010, 011, 016); Drover refuses them
# before they exist, so ids are not consumed and sacct has no such rows.
REJECTED = (r"^<ID> +wrap .*FAILED +1:0|^<ID>\|FAILED\|1:0\|<DUR>\|wrap\|None assigned"
            r"|^<ID> +FAILED +1:0 *$|^<ID> +alice +research +gpu +wrap +FAILED +1:0$",
            "submissions refused at submit time get no job id or accounting record")
# Jobs of srun commands (golden 047-057), present only once srun is built.
SRUN_ROWS = (r" (hostname|env|false|bash) ", "srun is not built yet: no srun jobs or steps")
# The batch steps of array 29's tasks 0 and 1, cancelled by one scancel while running: Slurm
# recorded task 0's as FAILED 15:0 and task 1's as CANCELLED 0:15 (golden 109, 116, 120); Drover
# records both as task 1's.
ARRAY_BATCH = "which of a cancelled array's batch steps Slurm records FAILED 15:0 (task 0 here)"
ARRAY_BATCH_MISSING = (r"^<ID>_0\.batch .*FAILED +15:0", ARRAY_BATCH)
ARRAY_BATCH_EXTRA = (r"^<ID>_0\.batch .*CANCELLED +<DUR>", ARRAY_BATCH)

# Agents listen on ports of the test's choosing; Version is Drover's; the kernel is this host's.
NODE_VOLATILE = ("Port", "Version")
KERNEL = (r"(OS=Linux )\S+", r"\1<KERNEL>")

# Tasks of `-N 2 -n 4 -c 2` are laid out 3+1 on idle nodes by both (golden 041: batch step
# AllocCPUS 6). The array of the same job (golden 042) starts its two tasks while other jobs
# hold part of the first nodes: Slurm laid task 1 out 2+2 (AllocCPUS 4), task 0 3+1. Each
# system's layout of a task follows what is free on its first node when it starts (Slurm's also
# how the free cores sit on the node's sockets, which Drover does not model), so which task
# gets 2+2 here, if either, is this run's. A first node with only one task's CPUs free takes one
# task (1+3, AllocCPUS 2), as the reference laid out `-N 4 -n 6` around a node with one free CPU.
LAYOUT_WHY = "the array tasks of -N 2 -n 4 -c 2 are laid out 3+1, 2+2 or 1+3 by what is free then"
LAYOUT_SLURM = (r"^<ID>_\d\.batch +batch +research +[246] +COMPLETED +0:0$", LAYOUT_WHY)
LAYOUT = LAYOUT_SLURM

# sacct -l (golden 117): the srun step's usage is this run's (sizes, major faults, frequency,
# which task had each peak); TRES strings cut at the column width cut our shorter node names
# elsewhere. Major faults print scaled past 1023 (`1.46K`), as Slurm's: a clean-clone run with
# a cold page cache gave that many.
USAGE_VALUES = [(r"(?<=\s)\d+(?:\.\d+)?[KMGT]?(\s+node\S*\s+\d+\s+)\d+(?:\.\d+)?[KMGT]?"
                 r"(?=\s+\d+:\d\d:\d\d)", r"<PAGES>\1<PAGES>"),
                (r"(?<![\w=])\d+(\.\d+)?[KMGT](?=\s)", "<SIZE>"),
                (r"(?<=\s)(node\S*\s+)\d+(?=\s)", r"\1<TASK>"),
                (r"\b(cpu|energy)=node[^\s+]*\+(?=\s|$)", r"\1=<NODE>...+"),
                # TRESUsageIn{Max,Min}Task: which task used the most and least CPU time. Tasks
                # of `env` differ by a clock tick or two from run to run (Slurm's all tied at 0).
                (r"(?<=\s)cpu=\d+(?=,fs/disk=)", "cpu=<TASK>"),
                # TRESUsageOut{Max,Min}Task: which task wrote the most and least. The tasks of
                # `env` all write nothing (task 0) unless one dirties a page of its output file
                # first (a clean-clone run once gave task 1).
                (r"(?<=\s)fs/disk=\d+(?=\s|$)", "fs/disk=<TASK>")]
# The batch step: Drover gathers its usage like any step's (Slurm's 30 s sampling never ran in
# this 1 s job, so its values are blank: docs/cli-compatibility.md).
BATCH_USAGE = (r"^<ID>\.batch <ID>\.batch batch ",
               "the batch step's usage is gathered (Slurm's blank)")

# Known defects the comparison found (strict xfail: fixing one turns its test red until the
# entry goes). Each is outside the CLIs, in the controller or scheduler.

SPECS = {
    "version": Spec("allowed", "`--version` prints `drover 0.1.0` (docs: common to all commands)"),
    "scontrol-show-config": Spec("allowed", "`scontrol show config` lists only the ~30 settings "
                                 "Drover has, read from cluster.conf (docs: scontrol)"),
    "squeue-help": Spec("allowed", HELP), "sbatch-help": Spec("allowed", HELP),
    "srun-help": Spec("allowed", HELP),
    "job-output-files": Spec("rows"),       # names hold ids, so `sort` orders them differently
    "batch-env-nogpu": Spec("env"), "batch-env-gpu2": Spec("env"),
    # job scripts and srun commands that print environments (labelled per task)
    "batch-output-directives": Spec("env", names_ok=CONF_VAR),
    "batch-output-directives-array": Spec("env", names_ok=CONF_VAR),
    "srun-env-full": Spec("env", names_ok=CONF_VAR + TORCH_VARS), "srun-n4-N1-env": Spec("env"),
    "srun-n4-N1-gpu2-env": Spec("env"), "srun-n4-N2-env": Spec("env"),
    "batch-env-full": Spec("env", names_ok=CONF_VAR),
    "squeue-o-format": Spec("rows", extra=[PRIO_COLUMN]),
    "squeue-o-format2": Spec("rows", extra=[(r"^([^|]*\|)\d+\|\d+\|", r"\1<ID>|<ID>|")]),
    "squeue-json": Spec("json", why="squeue --json has the main keys only (docs: squeue)"),
    "sinfo-json": Spec("json"), "sacct-json": Spec("json"),
    "sinfo-o-gres": Spec("exact", extra=[(r"(?<=/16 )[\d.]+ \d+$", "<LOAD> <FREEMEM>")]),
    "scontrol-show-node": Spec("keys", volatile=NODE_VOLATILE, extra=[KERNEL]),
    "scontrol-show-node-oneliner": Spec("keys", volatile=NODE_VOLATILE, extra=[KERNEL]),
    "scontrol-show-hostnames": Spec(nodes=False), "scontrol-show-hostlist": Spec(nodes=False),
    "scontrol-show-hostlist-unsorted": Spec(nodes=False),
    "scontrol-show-hostlistsorted": Spec(nodes=False),
    "sacct-default": Spec("rows", missing_ok=(REJECTED, SRUN_ROWS, LAYOUT_SLURM,
                                              ARRAY_BATCH_MISSING),
                          extra_ok=(LAYOUT, ARRAY_BATCH_EXTRA)),
    "sacct-X-parsable2": Spec("rows", missing_ok=(REJECTED, SRUN_ROWS)),
    "sacct-a-root": Spec("rows", missing_ok=(REJECTED, SRUN_ROWS)),
    "sacct-brief": Spec("rows", missing_ok=(REJECTED, SRUN_ROWS, ARRAY_BATCH_MISSING),
                        extra_ok=(ARRAY_BATCH_EXTRA,)),
    # Priority factors and usage are Drover's weights and this run's usage: numbers masked,
    # columns, users, accounts and partitions kept.
    "sprio-l": Spec("rows", extra=[NUMBERS]), "sshare-a": Spec("rows", extra=[NUMBERS]),
    "sacct-l-one": Spec("rows", extra=USAGE_VALUES, missing_ok=(BATCH_USAGE,),
                        extra_ok=(BATCH_USAGE,)),
    "sacct-array": Spec("rows", extra=[(r"^(\S+\s+)\d+", r"\1<ID>")],
                        missing_ok=(ARRAY_BATCH_MISSING,), extra_ok=(ARRAY_BATCH_EXTRA,)),
}
# Which pending job is the top one (reason Resources) and which wait behind it (Priority)
# follows each system's priorities: Drover's fair-share already counts alice's earlier jobs of
# this run, so bob's job may lead; Slurm had not yet charged that usage.
TOP_JOB = (r"(?<=[(|= ])(Resources|Priority)(?=[)|\s]|$)", "<WAITING>")
for _name in ("squeue-default", "squeue-root-all", "squeue-O-format", "squeue-h-t-PD", "squeue-r",
              "squeue-u", "squeue-l", "squeue-array-job", "squeue-after-scancel",
              "squeue-dep-after-cancel"):
    SPECS[_name] = Spec("rows", extra=[TOP_JOB])  # rows of equal priority: internal order
SPECS["squeue-o-format"].extra.append(TOP_JOB)
SPECS["squeue-o-format2"].extra.append(TOP_JOB)
for _name in ("scontrol-show-job-running", "scontrol-show-job-pending",
              "scontrol-show-job-dependency", "scontrol-show-job-array-task",
              "scontrol-show-job-d-running", "scontrol-show-job-oneliner",
              "scontrol-show-job-completed", "scontrol-show-job-cancelled",
              "scontrol-show-job-timeout"):
    SPECS[_name] = Spec("keys", volatile=(PRIO,) + SCHED, extra=[TOP_JOB])

# What the comparison found in srun (non-strict xfails): none left. Fixed: the environment of
# srun's tasks (SLURM_DISTRIBUTION inside a batch job, no SLURM_JOB_GPUS outside one), srun's
# nnodes warning, the steps' DerivedExitCode and AllocTRES, one step record per srun (ID.0
# hostname, ID.1 false, ID.2 sleep) and the 3+1 layout of -N 2 -n 4 (its batch step and the
# step on its first node hold 3 CPUs, golden 111/112).
SRUN_FINDINGS = {}


def spec_of(g):
    return SPECS.get(g.name, Spec())


def contexts(replay):
    golden = gn.Context(run_dir=GOLDEN_RUN_DIR, home="/home/alice", conf=GOLDEN_CONF,
                        hosts=("vm", "localhost"), cluster="oracle")
    import socket
    ours = gn.Context(run_dir=str(replay.run_dir), home="/home/alice", conf=str(replay.c.conf),
                      hosts=(socket.gethostname(), "localhost"), cluster="drover")
    return golden, ours


def compare(g, spec, got, gctx, octx):
    """Differences between golden g and our (exit, stdout, stderr) under spec."""
    rc, out, err = got
    gctx.extra = octx.extra = spec.extra
    diffs = [] if g.exit == rc else [f"exit code: Slurm {g.exit}, Drover {rc}"]
    if spec.mode == "env":
        want, have = gn.env_names(g.stdout), gn.env_names(out)
        ok = {n for n, _ in spec.names_ok}
        diffs += [f"variable Slurm sets, missing: {n}" for n in sorted(want - have)]
        diffs += [f"variable Slurm does not set: {n}" for n in sorted(have - want - ok)]
        return diffs
    if spec.mode == "json":
        want, have = gn.json_keys(g.stdout), gn.json_keys(out)
        for part in want:
            w, h = set(want[part]), set(have.get(part, []))
            diffs += [f"json {part or 'top'}: key Slurm does not have: {k}" for k in sorted(h - w)]
            if not spec.why:
                diffs += [f"json {part or 'top'}: key missing: {k}" for k in sorted(w - h)]
        return diffs
    w_out, h_out = gn.mask(g.stdout, gctx, spec.nodes), gn.mask(out, octx, spec.nodes)
    w_err, h_err = gn.mask(g.stderr, gctx, spec.nodes), gn.mask(err, octx, spec.nodes)
    if spec.mode == "rows":
        diffs += gn.compare_rows(w_out, h_out, [p for p, _ in spec.missing_ok],
                                 [p for p, _ in spec.extra_ok])
    elif spec.mode == "keys":
        diffs += gn.compare_keys(w_out, h_out, spec.volatile)
    else:
        diffs += gn.compare_lines(w_out, h_out)
    diffs += ["stderr " + d for d in gn.compare_lines(w_err, h_err)]
    return diffs


def _params():
    out = []
    missing = missing_clis()
    for g in goldens():
        if g.note:
            continue
        spec = spec_of(g)
        marks = []
        if spec.bug:
            marks.append(pytest.mark.xfail(strict=True, reason=spec.bug))
        elif g.name in SRUN_FINDINGS:
            marks.append(pytest.mark.xfail(strict=False, reason=SRUN_FINDINGS[g.name]))
        why = skipped_by(g, missing)
        if why:
            marks.append(pytest.mark.skip(reason=f"needs {', '.join(why)} (not built yet)"))
        elif spec.mode == "allowed":
            marks.append(pytest.mark.skip(reason=f"allowed difference: {spec.why}"))
        out.append(pytest.param(g, id=f"{g.number:03d}-{g.name}", marks=marks))
    return out


@pytest.mark.parametrize("g", _params())
def test_output_has_slurms_format(replay, g):
    assert g.number in replay.results, replay.skipped.get(g.number, "not run")
    gctx, octx = contexts(replay)
    diffs = compare(g, spec_of(g), replay.results[g.number], gctx, octx)
    assert not diffs, f"{g.path.name}: `{replay.translate(g.command)}` differs from Slurm:\n" + \
        "\n".join(diffs[:20])


def test_timed_out_job_says_so_in_its_output(replay):
    """The replay's TIMEOUT job (golden's `sbatch -J tlimit -t 1 -w node01 --wrap="sleep 600"`)
    ends with the step daemon's line on its stderr, as the reference Slurm's did (its
    `slurmstepd-node01: error: *** JOB 158 ON node01 CANCELLED AT 2026-12-04T00:15:48 DUE TO
    TIME LIMIT ***`, captured 2026-12-04)."""
    job = replay.ids.get(4)
    assert job, "the replay submitted no TIMEOUT job"
    text = (replay.run_dir / f"slurm-{job}.out").read_text()
    assert re.fullmatch(rf"drover-stepd-node1: error: \*\*\* JOB {job} ON node1 CANCELLED AT "
                        r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d DUE TO TIME LIMIT \*\*\*\n", text), text


# --- the normaliser itself: it masks what varies and nothing else ------------------------------
def _golden_named(name):
    g = next((x for x in goldens() if x.name == name), None)
    if g is None:
        pytest.skip(f"golden {name} not found in {GOLDEN_DIR}")
    return g


def _self_compare(g, stdout=None, stderr=None, exit=None, spec=None):
    """g compared with a variant of itself, as if the variant were our output from another
    run (other run directory, host, cluster name, ids shifted)."""
    gctx = gn.Context(run_dir=GOLDEN_RUN_DIR, home="/home/alice", conf=GOLDEN_CONF,
                      hosts=("vm", "localhost"), cluster="oracle")
    octx = gn.Context(run_dir=GOLDEN_RUN_DIR, home="/home/alice", conf=GOLDEN_CONF,
                      hosts=("vm", "localhost"), cluster="oracle")
    got = (g.exit if exit is None else exit, g.stdout if stdout is None else stdout,
           g.stderr if stderr is None else stderr)
    return compare(g, spec or spec_of(g), got, gctx, octx)


def _shift_ids(text, by=100):
    """Job ids changed as another run would give them (Submitted batch job, JobId=, rows)."""
    text = re.sub(r"(Submitted batch job |JobId=|^\s*)(\d+)",
                  lambda m: m.group(1) + str(int(m.group(2)) + by), text, flags=re.M)
    return text.replace("node01", "node7").replace("2026-11-30T12:", "2027-01-02T03:")


@pytest.mark.parametrize("name", ["sbatch-plain-wrap", "squeue-default", "scontrol-show-job-pending",
                                  "sacct-exit3", "sinfo-N-l", "err-no-shebang"])
def test_normaliser_accepts_another_runs_values(name):
    g = _golden_named(name)
    assert _self_compare(g) == []
    assert _self_compare(g, stdout=_shift_ids(g.stdout)) == []


BREAKS = [  # (golden, what a broken implementation prints instead, spec)
    ("squeue-default", lambda t: t.replace("     NAME     USER", "    NAME      USER"), None),
    ("squeue-default", lambda t: t.replace("(JobHeldUser)", "(JobHeldAdmin)"), None),
    ("squeue-default", lambda t: t.replace("(Dependency)", "(None)"), None),
    ("squeue-default", lambda t: t.replace(" PD ", " R  ", 1), None),
    ("squeue-default", lambda t: t.replace("      4 (", "      3 (", 1), None),
    ("sacct-exit3", lambda t: t.replace("3:0", "1:0", 1), None),
    ("sacct-exit3", lambda t: t.replace("ExitCode", "Exitcode"), None),
    ("sacct-exit3", lambda t: "\n".join(t.splitlines()[:-1]) + "\n", None),
    ("scontrol-show-job-pending", lambda t: t.replace("Reboot=0 ExitCode", "ExitCode"), None),
    ("scontrol-show-job-pending", lambda t: t.replace("TimeLimit=01:00:00", "TimeLimit=00:10:00"), None),
    ("scontrol-show-job-pending", lambda t: t.replace("JobState=PENDING", "JobState=RUNNING"), None),
    ("scontrol-show-job-pending", lambda t: t.replace("MinMemoryCPU=4000M", "MinMemoryCPU=4G"), None),
    ("sinfo-N-l", lambda t: t.replace("65536", "64000"), None),
    ("sinfo-N-l", lambda t: t.replace("allocated", "alloc    "), None),
    ("sbatch-plain-wrap", lambda t: t.replace("Submitted batch job", "Submitted job"), None),
    ("sbatch-parsable", lambda t: t + "\n", None),
    ("scontrol-show-hostnames", lambda t: t.replace("node7", "node07"), None),
    ("squeue-o-format2", lambda t: t.replace("|(null)\n", "|\n", 1), None),
    # JobIDRaw is masked only where it repeats JobID; another id still differs.
    ("sacct-steps", lambda t: t.replace("16.batch     16.batch", "16.batch     17.batch"), None),
    # sacct -l: usage values are masked, but a blank one (not gathered) is not.
    ("sacct-l-one", lambda t: t.replace("     2928K", "          "), None),
    ("sacct-l-one", lambda t: t.replace("cpu=0,fs/disk=0,m+", "                  "), None),
    # (durations are masked: a TIME_LEFT printed as 60:00 instead of 1:00:00 is the unit
    # tests' to catch, tests/unit/cli/squeue_view_test.cpp)
]


@pytest.mark.parametrize("name,broken,spec", BREAKS, ids=[f"{i}-{b[0]}" for i, b in enumerate(BREAKS)])
def test_normaliser_rejects_a_broken_variant(name, broken, spec):
    g = _golden_named(name)
    variant = broken(g.stdout)
    assert variant != g.stdout, "the break changes nothing"
    assert _self_compare(g, stdout=variant, spec=spec), f"{name}: a broken variant passed"


def test_normaliser_rejects_other_messages_and_exit_codes():
    g = _golden_named("err-time-garbage")
    assert _self_compare(g, exit=1)
    assert _self_compare(g, stderr="sbatch: error: Invalid time specification\n")
    g = _golden_named("err-no-shebang")
    assert _self_compare(g, stderr=g.stderr.replace("#!/bin/sh", "#!/bin/bash"))


def test_masked_text_keeps_what_is_not_volatile():
    g = _golden_named("scontrol-show-job-running")
    gctx, _ = contexts_for_golden()
    m = gn.mask(g.stdout, gctx)
    for kept in ("JobName=blocker", "UserId=alice(1001)", "JobState=RUNNING", "TimeLimit=00:10:00",
                 "NumNodes=3 NumCPUs=48", "TRES=cpu=48,mem=187.50G,node=3,billing=48,gres/gpu=24",
                 "ExitCode=0:0", "MinMemoryCPU=4000M", "OverSubscribe=NO"):
        assert kept in m, kept
    for gone in ("JobId=28", "2026-11-30T", "node02", "/home/alice/golden-run"):
        assert gone not in m, gone
    g = _golden_named("squeue-default")
    m = gn.mask(g.stdout, gctx)
    assert m.splitlines()[0] == g.stdout.splitlines()[0]  # the header is untouched
    assert "(JobArrayTaskLimit)" in m and "<ID>_[2-9%2]" in m and " PD " in m


def contexts_for_golden():
    ctx = gn.Context(run_dir=GOLDEN_RUN_DIR, home="/home/alice", conf=GOLDEN_CONF,
                     hosts=("vm", "localhost"), cluster="oracle")
    return ctx, ctx
