#!/usr/bin/env python3
"""Run parts of the GPU suite one by one, each with its own tally and log.

The whole GPU suite takes about 30 minutes on an H100, longer than one call
of a lent GPU machine may run (10 minutes), and `run_tests.py` prints
nothing until a suite ends. This runner takes the parts to run, writes
OUTDIR/gpu-PART.log for each and appends a line per part to
OUTDIR/summary.log as soon as it ends, so a call cut by its time limit still
says what ran and how it went.

usage: python3 tests/gpu_parts.py OUTDIR PART [PART ...]
       python3 tests/gpu_parts.py --list

The part "bench" runs `run.py bench LAB --src solutions/LAB` for every lab
(about 5 minutes on an H100, 2026-11-27) and keeps each log in
build/bench-logs/ and all of them in build/bench-logs.tar: copy that one
file to OUTDIR (a lent machine sends back at most 8 files), unpack it here
and write the README tables with `run.py record LAB --events
build/bench-logs/LAB.jsonl`.

Measured durations on the H100 (2026-11-23, ea4e504): coalescing 41 s,
saxpy 182 s, haxpy 53 s, transpose 76 s, reduction 78 s, prefetch 141 s,
memtuning 51 s, sandbox 50 s, explain 151 s, sizes 7 s, shared_saxpy 64 s,
shared_transpose 93-129 s, newcomer 38 s, class 205-330 s, server 342 s.
With the two-process judge (2026-11-24, d9e934f, alone): prefetch 172 s,
shared_saxpy 59 s, shared_transpose 116 s, class 208 s. Alone, one after
another (2026-11-24): H100 (ea0c844) saxpy 206, transpose 65, reduction 69,
haxpy 44, coalescing 40, memtuning 49, prefetch 191, shared_saxpy 57,
shared_transpose 123; H200 (d5727c5) saxpy 180, transpose 49, reduction 63,
haxpy 38, coalescing 28, memtuning 37, prefetch 161, shared_saxpy 45,
shared_transpose 101, sandbox 49, sizes 4. Several parts at once
(one call, streams in parallel) take about twice as long each, and the
cached-run check in saxpy then fails on time. The honest fixtures on the
GPU (2026-11-24, three to five streams): honest_a 220-356 s, honest_b
296-425 s. At 9b5adce (H100, alone): saxpy 305 s, class 208 s,
shared_saxpy 53 s, shared_transpose 82 s (after their runs' output went to
files instead of pipes: with pipes shared_saxpy hung); H200 saxpy 298 s.
Four streams at once (saxpy, explain, server, the shared parts) left three
cut at 560 s: the GPU lock makes their GPU work take turns, so streams help
only with compiling.
"""
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness_util as hu  # noqa: E402
import test_gpu as g  # noqa: E402

PARTS = {part: suite for part, _, suite in g.PARTS}  # test_gpu.py owns them


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    if argv[0] == "--list":
        print(" ".join(PARTS))
        return 0
    out, parts = argv[0], argv[1:]
    unknown = [p for p in parts if p not in PARTS]
    if not parts or unknown:
        print("gpu_parts: name the parts to run (unknown: %s); --list shows "
              "them" % (", ".join(unknown) or "none given"), file=sys.stderr)
        return 2
    os.makedirs(out, exist_ok=True)
    failed = 0
    with open(os.path.join(out, "summary.log"), "a") as summary:
        for name in parts:
            began = time.time()
            t = hu.Tally()
            stdout = sys.stdout
            # line by line: a part cut by the call's time limit still
            # leaves what it printed
            with open(os.path.join(out, "gpu-%s.log" % name), "w",
                      buffering=1) as log:
                sys.stdout = log
                try:
                    PARTS[name](t)
                except Exception:
                    t.record("gpu: %s part raised" % name, False,
                             traceback.format_exc())
                finally:
                    sys.stdout = stdout
                print(t.summary(), file=log)
            failed += t.failed
            line = "%-16s %5.0fs  %s" % (name, time.time() - began,
                                        t.summary())
            print(line, file=summary, flush=True)
            print(line, flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
