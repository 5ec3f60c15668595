"""Prints the markdown comparison of two bench.sh result files (real Slurm, Drover) from the
same run: each figure for both systems and how many times faster Drover is, against the
issue's targets, judged on the figures as measured. Latencies are also shown with the
benchmark's own wrapper cost (runuser + bash, measured by bench.sh in the same run) taken off
both sides: that cost belongs to the harness, not to either system.

    python3 bench/cli/ratios.py slurm.json drover.json [floor.json]
    python3 bench/cli/ratios.py slurm-1.json,slurm-2.json drover-1.json,drover-2.json [floor-1.json,floor-2.json]

The "ceiling" column is the most any system could be faster than Slurm by in this run: Slurm's
figure over what no system can go under here. For phases a and b that is
bench/platform/wlm-floor's result (bench.sh's loops and the jobs' shells alone, measured right
after Slurm's half); for a latency it is the wrapper, which is part of every sample.

With several files a side (compare-slurm --abba: Slurm, Drover, Drover, Slurm), each figure is
the mean of that side's runs, so a drift of the machine's speed during the run favours neither.
"""

import json
import sys
from pathlib import Path


def load(paths):
    """The results of a comma-separated list of bench.sh JSON files (those that exist)."""
    return [json.loads(Path(p).read_text()) for p in paths.split(",") if p and Path(p).is_file()]


# (label, how to read seconds or ms from a result, target ratio or None, is latency,
#  the wlm-floor figure of the same phase or None)
ROWS = [
    ("a1: 1000 x sbatch, sequential (s)", lambda r: r["a1_seq_submit"]["seconds"], 5, False, "a1_floor_s"),
    ("a8: 1000 x sbatch, 8 parallel submitters (s)", lambda r: r["a8_par8_submit"]["seconds"], 5, False,
     "a8_floor_s"),
    ("b1: first submit -> all a1 jobs done (s)", lambda r: r["b1_seq_first_submit_to_all_done_s"], 10, False,
     "b1_floor_s"),
    ("b8: first submit -> all a8 jobs done (s)", lambda r: r["b8_par8_first_submit_to_all_done_s"], 10, False,
     "b8_floor_s"),
    ("c: submit 5000 held jobs, 8 parallel (s)", lambda r: r["c_held"]["submit_seconds"], None, False, None),
    ("c: squeue with 5000 pending, median (ms)", lambda r: r["c_held"]["squeue_ms"]["median"], 5, True, None),
    ("c: squeue -u USER, median (ms)", lambda r: r["c_held"]["squeue_u_ms"]["median"], 5, True, None),
    ("c: scancel the 5000, 1000 ids per call (s)", lambda r: r["c_held"]["scancel_seconds"], 10, False, None),
    ("d: srun -n 4 true, median (ms)", lambda r: r["d_srun_n4_true_ms"]["median"], None, True, None),
]


def value(results, read):
    """The mean of the figure over `results`, None unless every run has it."""
    values = []
    for result in results:
        try:
            v = read(result)
        except (KeyError, TypeError):
            return None
        if not isinstance(v, (int, float)):
            return None
        values.append(v)
    return sum(values) / len(values) if values else None


def fmt(v):
    return "n/a" if v is None else f"{v:.4g}"


def ratio(slow, fast):
    if slow is None or fast is None or fast <= 0:
        return None
    return slow / fast


def ratio_text(r):
    return "n/a" if r is None else f"{r:.1f}x"


def main(slurm_path, drover_path, floor_path=""):
    slurm, drover, floor = load(slurm_path), load(drover_path), load(floor_path)
    over_s = value(slurm, lambda r: r["wrapper_overhead_ms"]["median"])
    over_d = value(drover, lambda r: r["wrapper_overhead_ms"]["median"])
    runs = lambda results: f" (mean of {len(results)})" if len(results) > 1 else ""
    print(f"| figure | Slurm 22.05{runs(slurm)} | Drover{runs(drover)} | Drover faster by | "
          "without wrapper | ceiling | target |")
    print("|---|---|---|---|---|---|---|")
    for label, read, target, latency, floor_key in ROWS:
        s, d = value(slurm, read), value(drover, read)
        r = ratio(s, d)
        ceiling = "-"
        if floor_key is not None and floor:
            ceiling = ratio_text(ratio(s, value(floor, lambda f: f[floor_key])))
        elif latency:
            ceiling = ratio_text(ratio(s, over_s))
        net = "-"
        if latency and None not in (s, d, over_s, over_d):
            net_r = ratio(s - over_s, max(d - over_d, 0.1))
            net = f"{net_r:.1f}x" if net_r else "n/a"
        met = ""
        if target is not None and r is not None:
            met = " (met)" if r >= target else " (NOT met)"
        print(f"| {label} | {fmt(s)} | {fmt(d)} | {ratio_text(r)} | {net} | {ceiling} | "
              f"{'-' if target is None else f'>= {target}x'}{met} |")
    print()
    print(f"Wrapper overhead (runuser + bash, in every latency): Slurm run {fmt(over_s)} ms, "
          f"Drover run {fmt(over_d)} ms.")
    if floor:
        figures = ", ".join(f"{k[:2]} {fmt(value(floor, lambda f: f[k]))} s"
                            for k in ("a1_floor_s", "a8_floor_s", "b1_floor_s", "b8_floor_s"))
        print(f"No system under (bench/platform/wlm-floor{runs(floor)}): {figures}.")


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    main(*sys.argv[1:])
