"""Newcomer suite (no GPU needed): what a student, an instructor or a
workshop organiser meets first (issue 18), and intake that never falls over
(issue 16, item 7).

Each function is the story of one rough edge; every check can fail.
"""
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

import harness_util as hu
import test_cli

RUN = [sys.executable, os.path.join(hu.ROOT, "run.py")]
NO_GPU = {"CUDALAB_NO_DEVICE": "1"}


def _write_log(path, events):
    with open(path, "w") as f:
        for e in events:
            f.write(json.dumps(e) + "\n")


def _read_log(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def record_refuses_unmeasured(t):
    """`record` writes only what was measured, and names the real source."""
    tmp = tempfile.mkdtemp(prefix="cudalab-record-")
    try:
        log = os.path.join(tmp, "bench.jsonl")
        readme = os.path.join(tmp, "README.md")
        before = ("# x\n<!-- cudalab:results saxpy -->\nold\n"
                  "<!-- /cudalab:results -->\ntail\n")
        test_cli.synthetic_bench_log(log)
        good = _read_log(log)
        cases = []
        nodev = [dict(e, available=False, reason="no NVIDIA driver")
                 if e["event"] == "device" else e for e in good]
        nodev = [e for e in nodev if e["event"] != "timing"]
        cases.append(("a run without a GPU", nodev, "no CUDA device"))
        partial = [e for e in good
                   if not (e["event"] == "step_end" and e["step"] == "v2")
                   and e["event"] != "run_end"]
        cases.append(("a partial bench (a step missing)", partial,
                      "v2 did not finish"))
        ungraded = [dict(e, verdict="not_graded")
                    if e["event"] == "step_end" and e["step"] == "v2" else e
                    for e in good]
        cases.append(("a bench with a NOT GRADED step", ungraded,
                      "v2 were NOT GRADED"))
        for what, events, words in cases:
            _write_log(log, events)
            with open(readme, "w") as f:
                f.write(before)
            rc, out, err = hu.run(RUN + ["record", "saxpy", "--events", log,
                                         "--readme", readme])
            with open(readme) as f:
                after = f.read()
            t.record("newcomer: `record` refuses %s (exit 2, says why, "
                     "README untouched)" % what,
                     rc == 2 and words in err and "not recording" in err
                     and after == before, "rc=%d %s" % (rc, err))
        mine = os.path.join(tmp, "my work")
        _write_log(log, [dict(e, source=mine) if e["event"] == "run_begin"
                         else e for e in good])
        with open(readme, "w") as f:
            f.write(before)
        rc, out, err = hu.run(RUN + ["record", "saxpy", "--events", log,
                                     "--readme", readme])
        with open(readme) as f:
            after = f.read()
        t.record("newcomer: `record` states the run's real source folder, "
                 "not always solutions/LAB",
                 rc == 0 and '--src "%s"' % mine in after
                 and "solutions/saxpy" not in after, after)
        _write_log(log, [dict(e, source=os.path.join(hu.ROOT, "solutions",
                                                     "saxpy"))
                         if e["event"] == "run_begin" else e for e in good])
        rc, out, err = hu.run(RUN + ["record", "saxpy", "--events", log,
                                     "--readme", readme])
        with open(readme) as f:
            after = f.read()
        t.record("newcomer: `record` of a run of the solutions says "
                 "--src solutions/saxpy (relative to the checkout)",
                 rc == 0 and "--src solutions/saxpy`" in after, after)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run(t):
    record_refuses_unmeasured(t)
