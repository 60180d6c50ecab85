"""slurm — `run.py grade --slurm N`: the job-array script that grades a
class in N shards on a Slurm cluster (then `run.py merge`).
"""
import os
import shlex

import programs

ROOT = programs.ROOT

SLURM_SCRIPT = """#!/bin/bash
# Grade {subs_text} in {n} shards (written by `run.py grade --slurm`).
# Submit:   sbatch {script}
# Then:     python3 {runpy} merge {out} {out}/shard-*
#SBATCH --job-name=cudalab-grade
#SBATCH --array=0-{last}
#SBATCH --gres=gpu:{ngpus}
#SBATCH --cpus-per-task=8
#SBATCH --time={walltime}
#SBATCH --output={log}
{sbatch_extra}set -eu
{modules}ROOT={root}
SUBS={subs}
OUT={out}
cd "$ROOT"
python3 run.py grade "$SUBS" --out "$OUT/shard-$SLURM_ARRAY_TASK_ID" \\
    --shard "$SLURM_ARRAY_TASK_ID/{n}"{flags}
"""


def sbatch_quote(text):
    """A value on an #SBATCH line: sbatch reads double quotes there (not
    the shell), so a path with a space is written in them."""
    if '"' in text or "\n" in text:
        raise ValueError("a Slurm path cannot hold \" or a newline: %r"
                         % text)
    return '"%s"' % text if any(c.isspace() for c in text) else text


def script(args, out, path):
    """The job-array script of `grade --slurm N` (to be written at path):
    every grading flag given here, each path quoted, the site's
    partition/account/modules (flags, else CUDALAB_SLURM_PARTITION,
    _ACCOUNT, _MODULES, _TIME)."""
    q = shlex.quote
    partition = args.partition or os.environ.get("CUDALAB_SLURM_PARTITION")
    account = args.account or os.environ.get("CUDALAB_SLURM_ACCOUNT")
    modules = args.module or os.environ.get(
        "CUDALAB_SLURM_MODULES", "").replace(",", " ").split()
    walltime = args.slurm_time or os.environ.get("CUDALAB_SLURM_TIME",
                                                 "04:00:00")
    extra = ""
    if partition:
        extra += "#SBATCH --partition=%s\n" % sbatch_quote(partition)
    if account:
        extra += "#SBATCH --account=%s\n" % sbatch_quote(account)
    flags = ""
    if args.labs:
        flags += " --labs %s" % q(args.labs)
    for flag, value in (("--gpus", args.gpus), ("--jobs", args.jobs),
                        ("--time-limit", args.time_limit)):
        if value is not None:
            flags += " %s %s" % (flag, q(str(value)))
    if args.fresh:
        flags += " --fresh"
    if getattr(args, "unsandboxed", False):
        flags += " --unsandboxed"
    ngpus = len([g for g in (args.gpus or "0").split(",") if g])
    subs = os.path.abspath(args.submissions)
    return SLURM_SCRIPT.format(
        subs_text=subs, n=args.slurm, last=args.slurm - 1, out=q(out),
        root=q(ROOT), subs=q(subs), script=q(path),
        runpy=q(os.path.join(ROOT, "run.py")), ngpus=ngpus,
        walltime=sbatch_quote(walltime),
        log=sbatch_quote(os.path.join(out, "slurm-%a.log")),
        sbatch_extra=extra,
        modules="".join("module load %s\n" % q(m) for m in modules),
        flags=flags)
