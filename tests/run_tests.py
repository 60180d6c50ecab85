#!/usr/bin/env python3
"""The project's own test runner: `make test` calls it.

Suites, each a story of one feature:
  unit  build/tests/test_* (C unit tests of common/ and grader/), TAP lines
  graph tests/test_graph.py: no circle in the #include graph or the
        link graph of ui/ grader/ common/
  cli   tests/test_cli.py: run.py and the grader's command line, CPU only
  layout  tests/test_layout.py: run.py stays the front door (under 400
        lines), no import circle in run.py + tools/, no lab.json read in Python
  newcomer  tests/test_newcomer.py: what a newcomer meets first, intake
        that never falls over (CPU only)
  arch  tests/test_arch.py: every lab builds for sm_75 ... sm_120, and what
        a step needs is real (CUDALAB_ARCH_MATRIX=full: every file)
  ui    tests/test_ui.py: the dashboard under tmux (recorded streams)
  server tests/test_server.py: the workshop server on 127.0.0.1 (stand-in
        and real grader, status page in headless Chromium)
  gpu   tests/test_gpu.py: the SAXPY lab on a real device (skipped, and
        counted as skipped, when no CUDA device answers)

Prints one line per test and, last, `N passed, N failed, N skipped`.
Exit status 0 only when nothing failed. `python3 tests/run_tests.py NAME...`
prints and counts only the tests whose name contains one of the given
words; every suite still runs, unless each word begins with a suite's
prefix ("cli: honest", "server:", "test_ptx"): then only those suites run.
"""
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import harness_util as hu  # noqa: E402


def unit_suite(t):
    bin_dir = os.path.join(ROOT, "build", "tests")
    bins = sorted(f for f in os.listdir(bin_dir)
                  if f.startswith("test_") and not f.endswith(".d")) \
        if os.path.isdir(bin_dir) else []
    if not bins:
        t.record("unit: test programs were built", False,
                 "no build/tests/test_*: run `make test`, not this script")
    for name in bins:
        path = os.path.join(ROOT, "build", "tests", name)
        proc = subprocess.run([path], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, cwd=ROOT,
                              timeout=120)
        seen = 0
        for line in proc.stdout.splitlines():
            if line.startswith("ok ") and " # SKIP " in line:
                seen += 1
                what, _, why = line.split(" - ", 1)[-1].partition(" # SKIP ")
                t.skip("%s: %s" % (name, what), why)
            elif line.startswith("ok "):
                seen += 1
                t.record("%s: %s" % (name, line.split(" - ", 1)[-1]), True)
            elif line.startswith("not ok "):
                seen += 1
                t.record("%s: %s" % (name, line.split(" - ", 1)[-1]), False,
                         "")
            elif line.startswith("#") and t.last_failed():
                t.detail(line[1:].strip())
        if proc.returncode != 0 or seen == 0:
            t.record("%s: exits 0 after its checks" % name, False,
                     "exit %d, %d checks\n%s" % (proc.returncode, seen,
                                                 proc.stdout[-2000:]))


def gpu_suite(t):
    import test_gpu
    device = hu.device_facts()
    if device.get("available"):
        print("# GPU suite on %s" % device.get("name"))
        test_gpu.run(t)
    else:
        t.skip("gpu suite", "no CUDA device: %s" % device.get("reason"))


def module_suite(name):
    def run(t):
        __import__(name).run(t)
    return run


# (the prefixes of a suite's test names, the suite), in the order they run
SUITES = [
    (("unit:", "test_"), unit_suite),
    (("graph:",), module_suite("test_graph")),
    (("layout:",), module_suite("test_layout")),
    (("cli:",), module_suite("test_cli")),
    (("newcomer:",), module_suite("test_newcomer")),
    (("arch:",), module_suite("test_arch")),
    (("ui:",), module_suite("test_ui")),
    (("server:",), module_suite("test_server")),
    (("gpu",), gpu_suite),
]


def suite_runs(prefixes, words):
    """Every suite runs unless every word names suites by their prefix."""
    if not words or any(not any(w.startswith(p) for ps, _ in SUITES
                                for p in ps) for w in words):
        return True
    return any(w.startswith(p) for w in words for p in prefixes)


def main(argv):
    t = hu.Tally(filters=argv)
    start = time.time()
    for prefixes, suite in SUITES:
        if suite_runs(prefixes, argv):
            suite(t)
    print("# %.1f s" % (time.time() - start))
    print(t.summary())
    return 1 if t.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
