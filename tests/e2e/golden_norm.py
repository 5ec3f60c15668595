"""Reading the reference folder's golden files and masking what legitimately differs between
two runs (ids, times, dates, node and host names, paths, durations, pids), so that what is
left is Slurm's format: headers, columns, keys, messages. Used by test_golden_compare.py."""

import json
import re
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Golden:
    number: int
    name: str
    path: Path
    command: str = ""
    user: str = "alice"
    exit: int = 0
    stdout: str = ""
    stderr: str = ""
    note: bool = False  # a job script kept for context, not a command


def parse_golden(path):
    """One golden file: '# $ <command>', '# user=... exit=...', '# [stdout]', ..., '# [stderr]', ..."""
    m = re.match(r"(\d+)-(.*)\.txt$", path.name)
    g = Golden(number=int(m.group(1)), name=m.group(2), path=path)
    text = path.read_text()
    if text.startswith("# (not a command"):
        g.note = True
        return g
    lines = text.split("\n")
    assert lines[0].startswith("# $ "), f"{path}: no '# $ <command>' header"
    g.command = lines[0][4:]
    head = dict(kv.split("=", 1) for kv in lines[1][2:].split())
    g.user, g.exit = head["user"], int(head["exit"])
    body = "\n".join(lines[2:])
    assert body.startswith("# [stdout]\n"), f"{path}: no [stdout] section"
    out, sep, err = body[len("# [stdout]\n"):].partition("# [stderr]\n")
    assert sep, f"{path}: no [stderr] section"
    g.stdout, g.stderr = out, err
    return g


def load_goldens(folder):
    return [parse_golden(p) for p in sorted(Path(folder).glob("[0-9][0-9][0-9]-*.txt"))]


@dataclass
class Context:
    """What one run calls its volatile things: the directory the commands ran in, the
    cluster's config path and hostname."""
    run_dir: str
    home: str
    conf: str
    hosts: tuple = ()
    cluster: str = ""
    extra: list = field(default_factory=list)  # (regex, replacement) for this file only


# Job ids appear in many contexts; only these are masked, so counts and sizes stay checked.
# Group 1 is kept; the digits after it become <ID>.
_ID_PATTERNS = [
    r"(Submitted batch job )\d+",
    r"(\b(?:JobId|ArrayJobId|SLURM_JOB_ID|SLURM_JOBID|SLURM_ARRAY_JOB_ID)=)\d+",
    r"(StepId=)\d+",
    r"(\bjob id )\d+",
    r"(\bjob )\d+(?=\b|_)",
    r"(^Job )\d+(?=[_+])",                              # scontrol's "Job 29_7 not found"
    r"(\bjob=)\d+",
    r"(^)\d+(?=(;\w+)?$)",                              # sbatch --parsable
    r"(^\s*)\d+(?=[_.\s|]|$)",                          # first column of squeue/sacct rows
    r"(\b(?:slurm|out|err|full|gpu|nogpu|steps|direct)-)\d+(?=[-_.])",  # file names
    r"(afterok:)\d+",
    r"(hello from |as job )\d+",                     # echoed by golden.sh's job scripts
]
_RAW_BESIDE_ID = r"^(\s*)(\d+)(\.\w+|)( +|\|)\2\3(?=[ |]|$)"
_VOLATILE_KEYS = r"(?:SLURM_TASK_PID|SLURM_SRUN_COMM_PORT|SLURM_STEP_LAUNCHER_PORT|AllocNode:Sid|" \
                 r"CPULoad|FreeMem|SLURM_WORKING_CLUSTER|RunTime)"


def _mask_after_prefix(m):
    keep = m.end(1) - m.start(0)
    return m.group(0)[:keep] + re.sub(r"\d+", "<ID>", m.group(0)[keep:])


def mask(text, ctx, nodes=True):
    """`text` with volatile values replaced by <TAGS>. `nodes=False` keeps node names (for
    the hostlist commands, whose output is the point)."""
    t = text
    for rx, rep in ctx.extra:
        t = re.sub(rx, rep, t, flags=re.M)
    # paths first: they contain ids and host names
    for p, tag in ((ctx.run_dir, "<RUNDIR>"), (ctx.conf, "<CONF>"), (ctx.home, "<HOME>")):
        if p:
            t = t.replace(p, tag)
    t = re.sub(rf"(\b{_VOLATILE_KEYS}=)\S*", r"\1<V>", t)
    t = re.sub(r"\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\b", "<TS>", t)
    t = re.sub(r"\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
               r" [ \d]\d \d\d:\d\d:\d\d \d{4}\b", "<DATE>", t)
    # sacct's JobIDRaw beside JobID: the same id again (16 16, 16.batch 16.batch), masked
    # with it. An array task's JobIDRaw (29_0 30) is its own id and is not touched.
    t = re.sub(_RAW_BESIDE_ID, r"\1\2\3\4<ID>\3", t, flags=re.M)
    for rx in _ID_PATTERNS:
        t = re.sub(rx, _mask_after_prefix, t, flags=re.M)
    if nodes:
        t = re.sub(r"\bnode(\[[\d,\-]+\]|\d+)", "<NODE>", t)
        for h in ctx.hosts:
            t = re.sub(rf"(?<![\w.-]){re.escape(h)}(?![\w.-])", "<HOST>", t)
    if ctx.cluster:
        t = re.sub(rf"(?<=[=;:]){re.escape(ctx.cluster)}\b", "<CLUSTER>", t)
    # durations in columns (elapsed, run and left times); values after '=' are keys' values
    # (TimeLimit=, ExitCode=) and stay
    t = re.sub(r"(?<![\w:=])(\d+-)?\d{1,2}:\d\d:\d\d(?![\w:])", "<DUR>", t)
    t = re.sub(r"(?<![\w:=])\d{1,3}:\d\d(?![\w:])", "<DUR>", t)
    return t


def _squash(line):
    return " ".join(line.split())


def compare_lines(want, got):
    """Masked texts line by line. A golden line with no masked value (a header, a message)
    must be identical, spacing included; one with masked values is compared with runs of
    blanks squashed (a masked value's width varies). Returns a list of differences."""
    diffs = []
    w, g = want.splitlines(), got.splitlines()
    for i in range(max(len(w), len(g))):
        a = w[i] if i < len(w) else None
        b = g[i] if i < len(g) else None
        if a is None or b is None:
            diffs.append(f"line {i + 1}: want {a!r}, got {b!r}")
            continue
        same = a == b if "<" not in a else _squash(a) == _squash(b)
        if not same:
            diffs.append(f"line {i + 1}:\n  want {a!r}\n  got  {b!r}")
    return diffs


def split_header(masked):
    """Lines without any masked value (column headers, dashes, fixed messages), and the
    rows that hold masked values."""
    lines = [line for line in masked.splitlines() if line.strip()]
    return [line for line in lines if "<" not in line], [line for line in lines if "<" in line]


def compare_rows(want, got, allow_missing=(), allow_extra=(), subset=False):
    """Tables whose row order and number depend on scheduling: identical header lines, and
    each row we print (masked, blanks squashed) is a row Slurm printed; unless `subset`, each
    row kind Slurm printed is one we print too. allow_* are regexes of rows excused."""
    wh, wr = split_header(want)
    gh, gr = split_header(got)
    diffs = [f"header:\n  want {wh!r}\n  got  {gh!r}"] if wh != gh else []
    ws = {_squash(r) for r in wr if r.strip()}
    gs = {_squash(r) for r in gr if r.strip()}
    for r in sorted(gs - ws):
        if not any(re.search(p, r) for p in allow_extra):
            diffs.append(f"row Slurm never printed: {r!r}")
    if not subset:
        for r in sorted(ws - gs):
            if not any(re.search(p, r) for p in allow_missing):
                diffs.append(f"row of Slurm's missing: {r!r}")
    return diffs


def keys_of(text):
    """key=value keys per line, in order (scontrol show ... layouts)."""
    return [re.findall(r"(?:^|\s)([A-Za-z_/:()]+)=", line) for line in text.splitlines()]


def compare_keys(want, got, volatile=()):
    """Same keys in the same order on the same lines; values equal after masking except for
    keys listed in `volatile` (their values depend on scheduling or configuration)."""
    diffs = []
    wk, gk = keys_of(want), keys_of(got)
    if wk != gk:
        for i in range(max(len(wk), len(gk))):
            a = wk[i] if i < len(wk) else None
            b = gk[i] if i < len(gk) else None
            if a != b:
                diffs.append(f"keys of line {i + 1}:\n  want {a}\n  got  {b}")
        return diffs
    vol = "|".join(re.escape(k) for k in volatile)

    def values(text):
        if vol:
            text = re.sub(rf"(?<![\w/:])({vol})=\S*", r"\1=<V>", text)
        return text

    return compare_lines(values(want), values(got))


def env_names(text):
    """Variable names of `env` output; srun -l's task labels ("  3: ") are dropped."""
    names = set()
    for line in text.splitlines():
        m = re.match(r"^(?:\s*\d+: )?([A-Za-z_]\w*)=", line)
        if m:
            names.add(m.group(1))
    return names


def json_keys(text):
    """Top-level keys, and the keys of the first element of each top-level list."""
    doc = json.loads(text)
    out = {"": sorted(doc)}
    for k, v in doc.items():
        if isinstance(v, list) and v and isinstance(v[0], dict):
            out[k] = sorted(v[0])
    return out
