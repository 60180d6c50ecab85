"""class_grading — `run.py grade`: a class's submissions, graded.

Intake (submissions.py: folders, .zip, .tar.gz, never falling over) takes
each student's step files for the labs the grader lists (its validated
manifests: `cudalab-grader list --json`), writes OUT/intake.json, then the
C grader grades every (student, lab) and writes the gradebook. With
--slurm N, only the job-array script is written (slurm.py).
"""
import json
import os
import shlex
import sys

import exits
import labs
import programs
import slurm
import submissions

ROOT = programs.ROOT


def add_arguments(p):
    """The options of `run.py grade` (its parser is p)."""
    p.add_argument("submissions", help="one entry per student")
    p.add_argument("--labs", help="comma-separated labs (default: all)")
    p.add_argument("--out", default="grades",
                   help="where the gradebook and results go (default: "
                        "./grades)")
    p.add_argument("--gpus", help="GPUs to use, e.g. 0,1 (default: all)")
    p.add_argument("--jobs", type=int, help="parallel compiles")
    p.add_argument("--shard", help="K/N: only this shard (Slurm array)")
    p.add_argument("--time-limit", dest="time_limit",
                   help="seconds each step run may take (default: the lab's)")
    p.add_argument("--fresh", action="store_true",
                   help="regrade submissions that already have results")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.add_argument("--unsandboxed", action="store_true",
                   help="grade even where the sandbox (bubblewrap) cannot "
                        "start; every gradebook row then says so (without "
                        "it, no sandbox means nothing is graded: exit 4)")
    p.add_argument("--slurm", type=int, metavar="N",
                   help="write a Slurm job-array script of N shards "
                        "instead of grading here (it carries --labs, "
                        "--gpus, --jobs, --time-limit and --fresh)")
    p.add_argument("--partition", help="with --slurm: the Slurm partition "
                   "(default: $CUDALAB_SLURM_PARTITION, else the site's)")
    p.add_argument("--account", help="with --slurm: the Slurm account "
                   "(default: $CUDALAB_SLURM_ACCOUNT)")
    p.add_argument("--module", action="append",
                   help="with --slurm: `module load` this first "
                        "(repeatable; default: $CUDALAB_SLURM_MODULES, "
                        "comma- or space-separated, e.g. cuda/13.0)")
    p.add_argument("--slurm-time", dest="slurm_time", metavar="HH:MM:SS",
                   help="with --slurm: each task's wall-clock limit "
                        "(default: $CUDALAB_SLURM_TIME, else 04:00:00)")


def lab_steps(wanted):
    """(exit status, {lab: [{"id", "title", "file"}]}) of the labs named in
    wanted ("a,b"; None: every lab), as the grader validated them; the
    gradebook reads these steps back from intake.json."""
    names = wanted.split(",") if wanted else None
    rc, every = labs.listing_status()
    if rc != exits.PASS and names is None:
        print("run.py grade: a lab.json is broken (above); mend it, or name "
              "the labs to grade with --labs", file=sys.stderr)
        return exits.GRADER_ERROR, {}
    known = [lab["name"] for lab in every]
    unknown = [n for n in (names or []) if n not in known]
    if unknown:
        print("run.py grade: no lab called %s (labs: %s)"
              % (", ".join(unknown), ", ".join(known)), file=sys.stderr)
        return exits.USAGE, {}
    return exits.PASS, {
        lab["name"]: [{"id": s["id"], "title": s["title"], "file": s["file"]}
                      for s in lab["step_list"]]
        for lab in every if names is None or lab["name"] in names}


def grade_class(args):
    """`run.py grade`: intake (tools/submissions.py), then the C grader."""
    if not os.path.isdir(args.submissions):
        print("run.py grade: %s is not a folder of submissions"
              % args.submissions, file=sys.stderr)
        return exits.USAGE
    out = os.path.abspath(args.out)
    if args.slurm:
        # a login node may have no CUDA to build with: the labs are checked
        # here when the grader is built, else by the shards themselves
        rc = lab_steps(args.labs)[0] if os.path.exists(programs.GRADER) \
            else exits.PASS
        if rc:
            return rc
        os.makedirs(out, exist_ok=True)
        script = os.path.join(out, "grade.slurm")
        try:
            text = slurm.script(args, out, script)
        except ValueError as e:
            print("run.py grade: %s" % e, file=sys.stderr)
            return exits.USAGE
        with open(script, "w") as f:
            f.write(text)
        print("wrote %s: `sbatch %s`, then `python3 %s merge %s %s/shard-*`"
              % (script, shlex.quote(script),
                 shlex.quote(os.path.join(ROOT, "run.py")), shlex.quote(out),
                 shlex.quote(out)))
        return exits.PASS
    rc = programs.build()
    if rc:
        return rc
    rc, steps = lab_steps(args.labs)
    if rc:
        return rc
    files = {n: [s["file"] for s in st] for n, st in steps.items()}
    record = submissions.intake(args.submissions, files, out)
    record["steps"] = steps
    with open(os.path.join(out, "intake.json"), "w") as f:
        json.dump(record, f, indent=1)
    flagged = sum(1 for s in record["students"] if s["notes"])
    print("intake: %d submission(s), %d with notes (see the gradebook)"
          % (len(record["students"]), flagged), file=sys.stderr)
    cmd = ["grade", out]
    for flag, value in (("--gpus", args.gpus), ("--jobs", args.jobs),
                        ("--shard", args.shard),
                        ("--time-limit", args.time_limit)):
        if value is not None:
            cmd += [flag, str(value)]
    if args.fresh:
        cmd.append("--fresh")
    if args.quiet:
        cmd.append("--quiet")
    if args.unsandboxed:
        cmd.append("--unsandboxed")
    rc = programs.call(*cmd)
    if os.path.exists(os.path.join(out, "gradebook.json")) and not args.quiet:
        print("class view (histograms per step): python3 run.py show %s"
              % out, file=sys.stderr)
    return rc
