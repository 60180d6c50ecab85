"""GPU suite: the SAXPY lab on a real device.

- every reference solution passes its step;
- the starters pass step 1 and answer "not implemented" for 2-5;
- the step matrix: the reference of step k-1 submitted as step k fails,
  and fails on the check that step k is about;
- every planted-bug fixture gets its declared verdict and message;
- a fully cached `test saxpy` finishes in under 10 s.
"""
import os
import time

import harness_util as hu

LAB = "saxpy"
SOL = os.path.join(hu.ROOT, "solutions", LAB)
STARTERS = os.path.join(hu.ROOT, "labs", LAB)
FIXTURES = os.path.join(hu.ROOT, "tests", "fixtures", LAB)
STEPS = ["v1", "v2", "v3", "v4", "v5"]
# The check each step exists for: the previous step's solution must fail it.
DISTINGUISHING = {"v2": "elements_per_thread", "v3": "ptx_nc_loads",
                  "v4": "waves", "v5": "ptx_max_load_bytes"}


def solutions_pass(t):
    rc, events, err = hu.grade(["test", LAB, "--src", SOL])
    ends = hu.step_ends(events)
    for step in STEPS:
        e = ends.get(step, {})
        t.record("gpu: solution %s passes step %s" % (step, step),
                 e.get("verdict") == "pass",
                 "%s: %s\n%s" % (e.get("verdict"), e.get("summary"), err))
    t.record("gpu: solutions exit 0", rc == 0, "rc=%d" % rc)


def starters(t):
    rc, events, err = hu.grade(["test", LAB])
    ends = hu.step_ends(events)
    e = ends.get("v1", {})
    t.record("gpu: starter v1 (the naive kernel) passes",
             e.get("verdict") == "pass", "%s: %s" % (e.get("verdict"),
                                                     e.get("summary")))
    for step in STEPS[1:]:
        e = ends.get(step, {})
        ok = (e.get("verdict") == "not_implemented"
              and "saxpy_%s.cu:" % step in e.get("summary", ""))
        t.record("gpu: starter %s says not implemented, with file:line" % step,
                 ok, "%s: %s" % (e.get("verdict"), e.get("summary")))
    t.record("gpu: starters exit 1", rc == 1, "rc=%d" % rc)


def step_matrix(t):
    for k in range(1, len(STEPS)):
        prev, step = STEPS[k - 1], STEPS[k]
        with hu.Scratch() as s:
            s.put(os.path.join(SOL, "saxpy_%s.cu" % prev), "saxpy_%s.cu" % step)
            rc, events, err = hu.grade(["test", LAB, "--step", step,
                                        "--src", s.path])
        e = hu.step_ends(events).get(step, {})
        failed = [c["metric"] for c in hu.checks(events, step)
                  if c.get("status") == "fail"]
        t.record("gpu: solution %s submitted as %s fails on %s"
                 % (prev, step, DISTINGUISHING[step]),
                 e.get("verdict") == "fail"
                 and DISTINGUISHING[step] in failed,
                 "%s: %s (failed checks: %s)" % (e.get("verdict"),
                                                 e.get("summary"), failed))


def fixtures(t):
    for name in sorted(os.listdir(FIXTURES)):
        if not name.endswith(".cu"):
            continue
        want = hu.fixture_expectations(os.path.join(FIXTURES, name))
        step = want["step"]
        with hu.Scratch() as s:
            s.put(os.path.join(FIXTURES, name), "saxpy_%s.cu" % step)
            began = time.time()
            rc, events, err = hu.grade(["test", LAB, "--step", step, "--src",
                                        s.path, "--time-limit", "15"])
            took = time.time() - began
        e = hu.step_ends(events).get(step, {})
        ok = (e.get("verdict") == want["verdict"]
              and want["message"] in e.get("summary", "")
              and rc == 1)
        t.record("gpu: planted bug %s -> %s '%s'" % (name, want["verdict"],
                                                     want["message"]),
                 ok, "got %s: %s (rc=%d, %.1f s)\n%s" % (
                     e.get("verdict"), e.get("summary"), rc, took, err[-500:]))


def cached_run_is_fast(t):
    hu.grade(["test", LAB, "--src", SOL])  # warm the cache
    began = time.time()
    rc, events, _ = hu.grade(["test", LAB, "--src", SOL])
    took = time.time() - began
    cached = [e for e in events if e.get("event") == "compile"
              and e.get("status") == "cached"]
    t.record("gpu: cached `test saxpy` takes under 10 s (took %.1f s)" % took,
             took < 10 and len(cached) == len(STEPS) and rc == 0,
             "rc=%d, %d cached" % (rc, len(cached)))


def run(t):
    solutions_pass(t)
    starters(t)
    step_matrix(t)
    fixtures(t)
    cached_run_is_fast(t)
