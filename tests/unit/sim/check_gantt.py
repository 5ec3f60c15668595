#!/usr/bin/python3
"""drover-sim --gantt end to end: replay the tiny trace, then read the SVG with a real XML
parser and check it holds one job rectangle per job that ran in the window, plus axis labels."""
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sim, trace = sys.argv[1], sys.argv[2]
with tempfile.TemporaryDirectory() as tmp:
    out = f"{tmp}/gantt.svg"
    subprocess.run([sim, "--trace", trace, "--policy", "easy", "--csv", f"{tmp}/jobs.csv",
                    "--gantt", out, "--gantt-window", "0:250"], check=True,
                   stdout=subprocess.DEVNULL)
    root = ET.parse(out).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag == ns + "svg", root.tag
    jobs = {r.get("data-job") for r in root.iter(ns + "rect") if r.get("class") == "job"}
    with open(f"{tmp}/jobs.csv") as f:
        header = f.readline().strip().split(",")
        rows = [dict(zip(header, line.strip().split(","))) for line in f if line.strip()]
    want = {r["job_id"] for r in rows if int(r["start"]) < 250 and int(r["end"]) > 0}
    assert jobs == want, (jobs, want)
    texts = [t.text for t in root.iter(ns + "text")]
    assert "time (s since trace start)" in texts and "node" in texts, texts
    bad = subprocess.run([sim, "--trace", trace, "--gantt", out, "--gantt-window", "9:3"],
                         capture_output=True, text=True)
    assert bad.returncode != 0 and "--gantt-window" in bad.stderr, bad.stderr
print("ok")
