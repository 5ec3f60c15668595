"""srun --multi-prog end to end (man srun, MULTIPLE PROGRAM CONFIGURATION): each rank runs its
line's program with %t and %o replaced and srun's extra arguments added, on two nodes, as the
unprivileged user, with the usual task variables; an invalid file is refused by srun before
anything starts (no job, no step); inside an salloc allocation, where srun does not know the
task count, the controller refuses a file that leaves a rank without a program and records no
step, and the next srun runs."""

import re
import subprocess

from cluster import labelled, shared_dir, wait_for

USER = "nobody"


def run(cluster, *args, timeout=60, user=USER):
    return subprocess.run([str(cluster.bin / args[0]), *args[1:]], capture_output=True, text=True,
                          env=cluster.env(), timeout=timeout, cwd=str(cluster.run_dir), user=user)


def conf(cluster, name, text):
    path = shared_dir(cluster, "multi-prog") / name
    path.write_text(text)
    path.chmod(0o644)
    return path


def job_ids(cluster):
    r = cluster.cli("sacct", "-a", "-X", "-n", "-P", "-o", "JobID")
    assert r.returncode == 0, r.stderr
    return set(r.stdout.split())


def step_ids(cluster, job_id):
    r = cluster.cli("sacct", "-j", str(job_id), "-n", "-P", "-o", "JobID,State")
    assert r.returncode == 0, r.stderr
    return dict(line.split("|") for line in r.stdout.splitlines() if line)


MPMD = """\
# srun -N2 -n4 -l --multi-prog mpmd.conf tail
0      echo first rank=%t offset=%o
1-2    echo "two words %t" 'kept %t' off=%o
*      sh -c 'echo "$SLURM_PROCID/$SLURM_STEP_NUM_TASKS $SLURMD_NODENAME $(id -un) $0 $1 $2"' rank%t off%o
"""


def test_each_rank_runs_its_own_program_and_arguments(cluster):
    path = conf(cluster, "mpmd.conf", MPMD)
    r = run(cluster, "srun", "-N2", "-n4", "-l", "--multi-prog", str(path), "tail")
    assert r.returncode == 0, r.stderr
    tasks = labelled(r.stdout)
    assert tasks[0] == ["first rank=0 offset=0 tail"], tasks
    assert tasks[1] == ["two words 1 kept %t off=0 tail"], tasks
    assert tasks[2] == ["two words 2 kept %t off=1 tail"], tasks
    m = re.fullmatch(r"3/4 (node\d) nobody rank3 off0 tail", tasks[3][0])
    assert m and len(tasks[3]) == 1, tasks


def test_tasks_of_one_line_on_two_nodes_get_their_own_rank_and_offset(cluster):
    # $0 of sh -c is the offset; %t inside single quotes stays as written.
    path = conf(cluster, "spread.conf", "* sh -c 'echo $SLURMD_NODENAME $0 %t' %o\n")
    r = run(cluster, "srun", "-N2", "-n4", "-l", "--multi-prog", str(path))
    assert r.returncode == 0, r.stderr
    tasks = labelled(r.stdout)
    assert sorted(tasks) == [0, 1, 2, 3], tasks
    assert [v[0].split()[1:] for _, v in sorted(tasks.items())] == [
        ["0", "%t"], ["1", "%t"], ["2", "%t"], ["3", "%t"]], tasks
    assert len({v[0].split()[0] for v in tasks.values()}) == 2, tasks


def test_invalid_file_is_refused_before_anything_starts(cluster):
    before = job_ids(cluster)
    dup = conf(cluster, "dup.conf", "# doubled rank\n0-2 echo a\n2-3 echo b\n")
    r = run(cluster, "srun", "-N2", "-n4", "--multi-prog", str(dup), timeout=20)
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert r.stderr == (f"srun: error: {dup}:3: task rank 2 is already on line 2: each task rank "
                        "may be on one line only\n"), r.stderr
    assert r.stdout == ""

    missing = conf(cluster, "missing.conf", "0-2 echo a\n")
    r = run(cluster, "srun", "-n4", "--multi-prog", str(missing), timeout=20)
    assert r.returncode == 1, r.stderr
    assert r.stderr.startswith(f"srun: error: {missing}: No executable program specified for "
                               "task 3: no line names rank 3 and there is no '*' line"), r.stderr

    syntax = conf(cluster, "syntax.conf", "0 echo ok\n1-x echo bad\n")
    r = run(cluster, "srun", "-n2", "--multi-prog", str(syntax), timeout=20)
    assert r.returncode == 1, r.stderr
    assert r.stderr.startswith(f"srun: error: {syntax}:2: invalid task rank '1-x'"), r.stderr
    assert "accepted:" in r.stderr

    r = run(cluster, "srun", "-n2", "--multi-prog", str(dup) + ".nosuch", timeout=20)
    assert r.returncode == 1, r.stderr
    assert r.stderr == (f"srun: error: Unable to open multi-prog configuration file {dup}.nosuch: "
                        "No such file or directory\n"), r.stderr
    # srun asked the controller for nothing: no allocation, so no job and no step.
    assert job_ids(cluster) == before


def test_inside_salloc_the_controller_checks_the_task_count(cluster):
    """salloc -N2 sets no SLURM_NTASKS, so srun learns the step's 2 tasks only from the
    controller, which refuses the file naming rank 0 alone and records no step."""
    bad = conf(cluster, "one.conf", "0 echo only-zero\n")
    good = conf(cluster, "two.conf", "0 echo zero %o\n1 echo one %o\n")
    srun = cluster.bin / "srun"
    r = run(cluster, "salloc", "-N2", "sh", "-c",
            f"{srun} --multi-prog {bad}; echo bad=$?; {srun} -l --multi-prog {good}", timeout=60)
    assert r.returncode == 0, r.stderr
    m = re.search(r"salloc: Granted job allocation (\d+)", r.stderr)
    assert m, r.stderr
    job_id = m.group(1)
    assert (f"srun: error: Unable to create step for job {job_id}: {bad}: No executable program "
            "specified for task 1") in r.stderr, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "bad=1", lines
    assert labelled("\n".join(lines[1:])) == {0: ["zero 0"], 1: ["one 0"]}, lines
    # The refused srun took no step id: the one that ran is step 0, and it is the only step.
    steps = wait_for(lambda: (s := step_ids(cluster, job_id)).get(f"{job_id}.0") and s, 15,
                     what="the step record")
    numbered = {k for k in steps if re.fullmatch(rf"{job_id}\.\d+", k)}
    assert numbered == {f"{job_id}.0"}, steps
    assert steps[f"{job_id}.0"] == "COMPLETED", steps


def test_inside_a_batch_job(cluster):
    out_dir = shared_dir(cluster, "multi-prog")
    path = conf(cluster, "batch.conf", "1 echo odd %t\n0 echo even %t\n")
    out = out_dir / "batch.out"
    script = f"#!/bin/sh\n{cluster.bin}/srun -n2 -l --multi-prog {path}\n"
    r = subprocess.run([str(cluster.bin / "sbatch"), "--parsable", "-N1", "-n2", "-o", str(out)],
                       input=script, capture_output=True, text=True, env=cluster.env(),
                       cwd=str(out_dir), user=USER)
    assert r.returncode == 0, r.stderr
    job_id = int(r.stdout.split(";")[0])
    fields = cluster.wait_job(job_id, {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT"}, timeout=60)
    assert fields["JobState"] == "COMPLETED", (fields, out.read_text())
    assert labelled(out.read_text()) == {0: ["even 0"], 1: ["odd 1"]}
