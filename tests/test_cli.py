"""CLI suite (no GPU needed): run.py and the grader's command line.

Every command line a user can type wrongly has a test that expects a clear
message and the documented exit status (0 pass, 1 fail, 2 usage, 3 not
graded, 4 grader/set-up error).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import harness_util as hu

RUN = [sys.executable, os.path.join(hu.ROOT, "run.py")]
NO_GPU = {"CUDALAB_NO_DEVICE": "1"}
STEPS = ["v1", "v2", "v3", "v4", "v5"]


def help_texts(t):
    rc, out, _ = hu.run(RUN + ["--help"])
    t.record("cli: run.py --help lists test, bench, list, device, setup",
             rc == 0 and all(w in out for w in
                             ("test", "bench", "list", "device", "setup")),
             out)
    for cmd in ("test", "bench", "list", "device", "setup", "explain"):
        rc, out, _ = hu.run(RUN + [cmd, "--help"])
        t.record("cli: run.py %s --help" % cmd, rc == 0 and "usage" in out,
                 out)
    rc, out, _ = hu.run([hu.GRADER, "--help"])
    t.record("cli: cudalab-grader --help documents exit statuses",
             rc == 0 and "exit status" in out, out)
    rc, _, err = hu.run([hu.GRADER])
    t.record("cli: cudalab-grader with no command prints usage, exit 2",
             rc == 2 and "usage" in err, err)


def bad_input(t):
    cases = [
        ("unknown lab", RUN + ["test", "nosuchlab"], 2, "no lab called"),
        ("unknown step", [hu.GRADER, "test", "saxpy", "--step", "9"], 2,
         "has no step \"9\""),
        ("bad seed", [hu.GRADER, "test", "saxpy", "--seed", "abc"], 2,
         "--seed needs a number"),
        ("bad time limit", [hu.GRADER, "test", "saxpy", "--time-limit", "0"],
         2, "--time-limit needs seconds"),
        ("unknown option", [hu.GRADER, "test", "saxpy", "--fast"], 2,
         "unknown option --fast"),
        ("unknown command", [hu.GRADER, "grade-all"], 2,
         "unknown command \"grade-all\""),
        ("missing lab", [hu.GRADER, "test"], 2, "needs a lab name"),
        ("unreadable --src", [hu.GRADER, "test", "saxpy", "--src",
                              "/nonexistent/dir"], 2, "cannot read the folder"),
        ("--step without a lab", RUN + ["test", "--step", "2"], 2,
         "--step needs a lab"),
    ]
    for name, args, want_rc, want_text in cases:
        rc, out, err = hu.run(args, env=NO_GPU)
        t.record("cli: %s -> exit %d, \"%s\"" % (name, want_rc, want_text),
                 rc == want_rc and want_text in err,
                 "rc=%d\nstderr: %s" % (rc, err))


def no_gpu_path(t, state):
    env = dict(NO_GPU, CUDALAB_STATE=state)
    rc, out, err = hu.run(RUN + ["test", "saxpy"], env=env)
    lines = out.strip().splitlines()
    t.record("cli: without a GPU, `run.py test saxpy` exits 3 and ends "
             "NOT GRADED",
             rc == 3 and lines and
             any(x.startswith("NOT GRADED: no CUDA device") for x in lines),
             "rc=%d\n%s\n%s" % (rc, out[-1500:], err))
    t.record("cli: without a GPU, no step is reported as passed",
             "PASS " not in out and " 0 passed" in out, out[-800:])
    rc, out, _ = hu.run(RUN + ["device"], env=env)
    t.record("cli: `run.py device` without a GPU says none, exit 3",
             rc == 3 and "none" in out, out)


def every_file_compiles(t, state):
    env = dict(NO_GPU, CUDALAB_STATE=state)
    for lab, label, src, steps in (
            ("saxpy", "solution", "solutions/saxpy", STEPS),
            ("saxpy", "starter", "labs/saxpy", STEPS),
            ("haxpy", "solution", "solutions/haxpy", ["haxpy"]),
            ("haxpy", "starter", "labs/haxpy", ["haxpy"]),
            ("transpose", "solution", "solutions/transpose", STEPS[:4]),
            ("transpose", "starter", "labs/transpose", STEPS[:4]),
            ("reduction", "solution", "solutions/reduction", STEPS),
            ("reduction", "starter", "labs/reduction", STEPS)):
        rc, events, err = hu.grade(["test", lab, "--src",
                                    os.path.join(hu.ROOT, src)], env=env)
        compiled = {e["step"]: e["status"] for e in events
                    if e.get("event") == "compile"
                    and e.get("status") != "started"}
        for step in steps:
            t.record("cli: %s %s %s compiles" % (lab, label, step),
                     compiled.get(step) in ("ok", "cached"),
                     "status %s\n%s" % (compiled.get(step), err))


def write_device(folder, cc, name):
    """A device event as devprobe would print it, for CUDALAB_DEVICE_FACTS
    (the grader's test hook: no GPU is asked)."""
    path = os.path.join(folder, "device-%s.json" % cc)
    with open(path, "w") as f:
        json.dump({"available": True, "name": name, "cc": cc,
                   "sm_count": 40, "l2_bytes": 4 << 20,
                   "mem_bytes": 15 << 30, "driver": "580.0",
                   "runtime": "13.0", "uuid": "fake-" + cc,
                   "copy_gbps": 240.0}, f)
    return path


def arch_targets(t, state):
    """CUDALAB_ARCH without a GPU shows what that GPU can take; a GPU below
    a step's needs, or one this nvcc cannot build for, is NOT GRADED with
    the reason, never a compile error or a crash."""
    env = dict(NO_GPU, CUDALAB_STATE=state, CUDALAB_ARCH="sm_75")
    sol = os.path.join(hu.ROOT, "solutions", "prefetch")
    rc, out, err = hu.run(RUN + ["test", "prefetch", "--src", sol], env=env)
    want = ("NOT GRADED: needs compute capability 8.0 (cp.async); the "
            "target sm_75 (CUDALAB_ARCH, no GPU here) is 7.5")
    t.record("cli: CUDALAB_ARCH=sm_75 run.py test prefetch: v6 and v7 are "
             "NOT GRADED naming cp.async and 8.0, exit 3",
             rc == 3 and out.count(want) == 2, "rc=%d\n%s\n%s"
             % (rc, out[-2500:], err[-800:]))
    rc, events, err = hu.grade(["test", "prefetch", "--src", sol], env=env)
    compiled = {e["step"]: e for e in events if e.get("event") == "compile"
                and e.get("status") != "started"}
    ends = hu.step_ends(events)
    dev = [e for e in events if e.get("event") == "device"]
    t.record("cli: CUDALAB_ARCH=sm_75: v1-v5 build for sm_75 and show their "
             "PTX facts; v6, v7 are skipped (compile status, reason)",
             dev and dev[0].get("arch") == "sm_75"
             and all(compiled.get(s, {}).get("status") in ("ok", "cached")
                     for s in ("v1", "v2", "v3", "v4", "v5"))
             and all(compiled.get(s, {}).get("status") == "skipped"
                     and "cp.async" in compiled[s].get("reason", "")
                     for s in ("v6", "v7"))
             and any(e.get("event") == "ptx" and e.get("step") == "v5"
                     for e in events)
             and not any(e.get("event") == "ptx" and e.get("step") == "v6"
                         for e in events),
             "%s\n%s" % ({k: v.get("status") for k, v in compiled.items()},
                         err[-800:]))
    t.record("cli: CUDALAB_ARCH=sm_75: the reason is in step_end's summary; "
             "steps it can take say no CUDA device",
             all(ends.get(s, {}).get("verdict") == "not_graded"
                 for s in ends) and len(ends) == 7
             and want in ends.get("v7", {}).get("summary", "")
             and "no CUDA device" in ends.get("v1", {}).get("summary", ""),
             str({k: v.get("summary") for k, v in ends.items()}))
    rc, events, err = hu.grade(["test", "prefetch", "--step", "v6",
                                "--build-only", "--src", sol],
                               env=dict(env, CUDALAB_ARCH="sm_80"))
    st = [e.get("status") for e in events if e.get("event") == "compile"
          and e.get("step") == "v6"]
    t.record("cli: CUDALAB_ARCH=sm_80 builds prefetch v6 (8.0 is enough)",
             rc == 0 and st and st[-1] in ("ok", "cached"),
             "rc=%d %s\n%s" % (rc, st, err[-800:]))

    rc, out, err = hu.run(RUN + ["explain", "prefetch", "--step", "v6",
                                 "--src", sol], env=env)
    t.record("cli: CUDALAB_ARCH=sm_75 run.py explain prefetch v6 says why "
             "it was not built",
             rc == 0 and "not built: needs compute capability 8.0 "
             "(cp.async)" in out, "rc=%d\n%s\n%s" % (rc, out[-800:], err))
    rc, out, err = hu.run([hu.GRADER, "--root", hu.ROOT, "test", "saxpy"],
                          env=dict(env, CUDALAB_ARCH="turing"))
    t.record("cli: a CUDALAB_ARCH that is not an arch is a usage error "
             "naming it (exit 2)",
             rc == 2 and "CUDALAB_ARCH must name a GPU arch like sm_75" in err
             and "\"turing\"" in err, "rc=%d %s" % (rc, err))
    rc, events, err = hu.grade(["test", "saxpy", "--step", "1"],
                               env=dict(env, CUDALAB_ARCH="sm_70"))
    e = hu.step_ends(events).get("v1", {})
    t.record("cli: CUDALAB_ARCH=sm_70 (dropped by CUDA 13): NOT GRADED "
             "naming the toolkit's range, nothing compiled",
             rc == 3 and e.get("verdict") == "not_graded"
             and "builds only for sm_75 to" in e.get("summary", "")
             and "still supports this GPU" in e.get("summary", "")
             and not any(x.get("event") == "compile"
                         and x.get("status") not in ("skipped",)
                         for x in events),
             "rc=%d %s\n%s" % (rc, e, err[-500:]))

    # A GPU that is there, as the grader sees it (CUDALAB_DEVICE_FACTS)
    folder = tempfile.mkdtemp(prefix="cudalab-dev-")
    try:
        fake = dict(CUDALAB_STATE=state,
                    CUDALAB_DEVICE_FACTS=write_device(folder, "7.5", "Tesla T4"))
        rc, events, err = hu.grade(["test", "prefetch", "--step", "v7",
                                    "--src", sol], env=fake)
        e = hu.step_ends(events).get("v7", {})
        t.record("cli: on a 7.5 GPU prefetch v7 is NOT GRADED: 'needs "
                 "compute capability 8.0 (cp.async); this GPU is 7.5', "
                 "not built, not run",
                 rc == 3 and e.get("verdict") == "not_graded"
                 and e.get("summary") == "NOT GRADED: needs compute "
                 "capability 8.0 (cp.async); this GPU is 7.5"
                 and not any(x.get("event") in ("case", "timing")
                             for x in events),
                 "rc=%d %s\n%s" % (rc, e, err[-500:]))
        fake["CUDALAB_DEVICE_FACTS"] = write_device(folder, "7.0", "V100")
        rc, out, err = hu.run([hu.GRADER, "--root", hu.ROOT, "test", "saxpy",
                               "--step", "1"], env=fake)
        t.record("cli: on a 7.0 GPU (below CUDA 13): NOT GRADED 'this GPU "
                 "is 7.0 (sm_70), and this CUDA compiler ... builds only "
                 "for sm_75 to ...', exit 3",
                 rc == 3 and "NOT GRADED: this GPU is 7.0 (sm_70), and this "
                 "CUDA compiler (release" in out
                 and "builds only for sm_75 to sm_" in out,
                 "rc=%d\n%s\n%s" % (rc, out[-1500:], err[-500:]))
        fake["CUDALAB_DEVICE_FACTS"] = os.path.join(folder, "missing.json")
        rc, out, err = hu.run([hu.GRADER, "--root", hu.ROOT, "test", "saxpy",
                               "--step", "1"], env=fake)
        t.record("cli: an unreadable CUDALAB_DEVICE_FACTS is a grader error "
                 "naming it (exit 4)",
                 rc == 4 and "CUDALAB_DEVICE_FACTS" in err
                 and "missing.json" in err, "rc=%d %s" % (rc, err))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def json_stream(t, state):
    env = dict(NO_GPU, CUDALAB_STATE=state)
    rc, events, _ = hu.grade(["test", "saxpy"], env=env)
    kinds = [e.get("event") for e in events]
    t.record("cli: --json prints only events, run_begin first, run_end last",
             kinds and kinds[0] == "run_begin" and kinds[-1] == "run_end"
             and "unparsable" not in kinds, str(kinds))
    t.record("cli: --json run_end says not_graded without a GPU",
             events and events[-1].get("verdict") == "not_graded", "")
    begin = events[0] if events else {}
    limits = begin.get("limits", {})
    t.record("cli: run_begin carries the commit and the limits a run was "
             "held to (time, CPU, compile, file, output), for the gradebook",
             begin.get("commit") and limits.get("time_limit_s") == 60
             and limits.get("cpu_limit_s", 0) > 60
             and limits.get("compile_limit_s", 0) > 0
             and limits.get("file_limit_bytes", 0) > 0
             and limits.get("output_limit_bytes", 0) > 0, str(begin)[:600])
    ptx = {e["step"]: e for e in events if e.get("event") == "ptx"}
    t.record("cli: PTX facts without a GPU: v1 scalar, no .nc; v5 starter "
             "is a stub",
             ptx.get("v1", {}).get("max_load_bytes") == 4
             and ptx.get("v1", {}).get("nc_loads") == 0, str(ptx.get("v1")))


def results_files(t, state):
    res = os.path.join(state, "results", "saxpy.json")
    hist = os.path.join(state, "history.jsonl")
    last = os.path.join(state, "runs", "saxpy-last.jsonl")
    ok = os.path.exists(res) and os.path.exists(hist) and os.path.exists(last)
    detail = ""
    if ok:
        with open(res) as f:
            steps = json.load(f).get("steps", {})
        with open(hist) as f:
            lines = [json.loads(line) for line in f]
        ok = set(steps) == {"v1", "v2", "v3", "v4", "v5"} and len(lines) >= 5
        detail = "%s / %d history lines" % (sorted(steps), len(lines))
    t.record("cli: results, history and last-run files are written", ok,
             detail)
    rc, out, _ = hu.run(RUN + ["list"], env={"CUDALAB_STATE": state})
    t.record("cli: `run.py list` shows saxpy with its progress",
             rc == 0 and "saxpy" in out and "0/5 steps passed" in out, out)


def compile_errors_without_gpu(t, state):
    env = dict(NO_GPU, CUDALAB_STATE=state)
    fixture = os.path.join(hu.ROOT, "tests", "fixtures", "saxpy",
                           "does_not_compile.cu")
    with hu.Scratch() as s:
        s.put(fixture, "saxpy_v1.cu")
        rc, out, err = hu.run([hu.GRADER, "--root", hu.ROOT, "test", "saxpy",
                               "--step", "1", "--src", s.path], env=env)
    t.record("cli: a compile error fails the step even without a GPU "
             "(exit 1, file:line)",
             rc == 1 and "COMPILE ERROR" in out
             and "saxpy_v1.cu:11: identifier \"yy\" is undefined" in out,
             "rc=%d\n%s" % (rc, out[-1500:]))


def compile_error_fixtures_without_gpu(t, state):
    """Every compile_error fixture is one without a GPU too: a misspelt
    launcher of the coalescing lab (weak), a wrong signature, no lab header
    (no extern "C") are read from the compiled object, not from a run."""
    env = dict(NO_GPU, CUDALAB_STATE=state)
    base = os.path.join(hu.ROOT, "tests", "fixtures")
    for lab in sorted(os.listdir(base)):
        manifest = os.path.join(hu.ROOT, "labs", lab, "lab.json")
        if not os.path.exists(manifest):
            continue
        with open(manifest) as f:
            files = {s["id"]: s["file"] for s in json.load(f)["steps"]}
        for name in sorted(os.listdir(os.path.join(base, lab))):
            path = os.path.join(base, lab, name)
            if not name.endswith(".cu"):
                continue
            want = hu.fixture_expectations(path)
            if want.get("verdict") != "compile_error":
                continue
            step = want["step"]
            with hu.Scratch() as s:
                s.put(path, files[step])
                rc, events, _ = hu.grade(["test", lab, "--step", step,
                                          "--src", s.path], env=env)
            e = hu.step_ends(events).get(step, {})
            t.record("cli: %s %s is a compile error without a GPU: '%s'"
                     % (lab, name, want["message"]),
                     rc == 1 and e.get("verdict") == "compile_error"
                     and want["message"] in e.get("summary", ""),
                     "rc=%d %s" % (rc, e))


def no_gpu_feedback(t, state):
    """Without a GPU the plain report still says, per step: written or a
    stub, registers and spills, the PTX's memory instructions, and the
    checks judged from the build (the rest: needs a GPU)."""
    env = dict(NO_GPU, CUDALAB_STATE=state)
    rc, out, _ = hu.run(RUN + ["test", "saxpy", "--plain"], env=env)
    t.record("cli: no GPU, starters: v1 builds, v2 is not implemented with "
             "its CUDALAB_TODO() line",
             re.search(r"v1 .*NOT GRADED +· builds", out)
             and re.search(r"v2 .*not implemented \(saxpy_v2\.cu:\d+ still "
                           r"calls CUDALAB_TODO\(\)\)", out), out[-3000:])
    t.record("cli: no GPU: registers/spills per kernel, demangled, and "
             "global memory instructions with their widths",
             re.search(r"kernel saxpy_naive: \d+ registers, 0 B spilled", out)
             and "_Z11saxpy_naive" not in out
             and re.search(r"memory 2 global load\(s\) up to 4 B wide, 0 "
                           r"read-only", out), out[-3000:])
    t.record("cli: no GPU: the build phase is announced before nvcc runs",
             out.index("build  compiling") < out.index("build  done")
             if "build  done" in out and "build  compiling" in out
             else False, out[:600])
    with hu.Scratch() as s:
        s.write("saxpy_v1.cu", open(os.path.join(
            hu.ROOT, "solutions", "saxpy", "saxpy_v1.cu")).read()
            + "\n// %s\n" % time.time())  # new content: a real compile
        rc, out, _ = hu.run(RUN + ["test", "saxpy", "--plain", "--step", "1",
                                   "--src", s.path], env=env)
    t.record("cli: plain mode says each step's compile as it ends (no "
             "silence while nvcc works)",
             re.search(r"build  compiling the step files.*\nbuild  v1 "
                       r"compiled \(1/1\)\nbuild  done", out), out[:800])
    rc, out, _ = hu.run(RUN + ["test", "saxpy", "--plain", "--src",
                               os.path.join(hu.ROOT, "solutions", "saxpy")],
                        env=env)
    t.record("cli: no GPU: static checks judged (v3 ptx_nc_loads ok, v5 "
             "16-byte loads ok), timing checks listed as needing a GPU",
             re.search(r"ok +ptx_nc_loads: 7, needs >= 1", out)
             and re.search(r"ok +ptx_max_load_bytes: 16 B, needs >= 16", out)
             and "needs a GPU pct_of_reference >= 80" in out, out[-3000:])
    with hu.Scratch() as s:
        s.write("saxpy_v5.cu", open(os.path.join(
            hu.ROOT, "solutions", "saxpy", "saxpy_v1.cu")).read())
        rc, events, _ = hu.grade(["test", "saxpy", "--step", "5", "--src",
                                  s.path], env=env)
    checks = {c["metric"]: c for c in hu.checks(events, "v5")}
    t.record("cli: no GPU: a scalar kernel in the float4 step fails its "
             "static check (ptx_max_load_bytes 4, needs >= 16), not "
             "graded overall",
             checks.get("ptx_max_load_bytes", {}).get("status") == "fail"
             and "4 B, needs >= 16" in checks["ptx_max_load_bytes"]
             ["message"]
             and checks.get("pct_of_reference", {}).get("needs_gpu") is True
             and hu.step_ends(events)["v5"]["verdict"] == "not_graded",
             str(checks))
    rc, out, _ = hu.run(RUN + ["test", "saxpy", "--plain", "--verbose",
                               "--step", "5", "--src",
                               os.path.join(hu.ROOT, "solutions", "saxpy")],
                        env=env)
    t.record("cli: no GPU --verbose: the full demangled kernel signature "
             "and every PTX count",
             "saxpy_vec4(int, float, float const*, float*)" in out
             and re.search(r"ptx +ptx_barriers 0 ptx_shuffles 0 ptx_rem_ops 0", out),
             out[-2000:])


def docs_from_lab_json(t):
    """Item 8 of issue 18: the bars live in lab.json only; each lab README
    quotes them in a block `run.py docs` writes, and starters point there."""
    rc, out, err = hu.run(RUN + ["docs", "--check"])
    t.record("cli: `run.py docs --check`: every lab README's checks block "
             "matches its lab.json", rc == 0, out + err)
    sys.path.insert(0, os.path.join(hu.ROOT, "tools"))
    import docs as docs_mod  # run.py docs renders with it
    rc, listing, _ = hu.run([hu.GRADER, "--root", hu.ROOT, "list", "--json"])
    labs = json.loads(listing)
    stale, repeated, starters = [], [], []
    for lab in labs:
        readme = os.path.join(hu.ROOT, "labs", lab["name"], "README.md")
        text = open(readme).read()
        block = docs_mod.checks_block(lab)
        if block not in text:
            stale.append(lab["name"])
        outside = text.replace(block, "")
        for st in lab["step_list"]:
            for c in st["checks"]:
                b = ("%d" % c["bound"]) if float(c["bound"]).is_integer() \
                    else ("%g" % c["bound"])
                if re.search(r"(?:≥|≤|>=|<=)\s*\**%s\s*(?:%%|x\b|\*\*)"
                             % re.escape(b), outside):
                    repeated.append("%s %s %s" % (lab["name"], st["id"], b))
            path = os.path.join(hu.ROOT, "labs", lab["name"], st["file"])
            comment = [line for line in open(path)
                       if line.startswith("//")]
            said = " ".join(comment)
            if re.search(r"(?:>=|<=|≥|≤)\s*\d|\d\s*%|\d(?:\.\d+)?x\b",
                         said.split("Checked:", 1)[-1]
                         if "Checked:" in said else ""):
                starters.append(st["file"])
    t.record("cli: each lab README holds the checks block generated from "
             "its lab.json (metric, bound, unit, why)",
             not stale and labs, "stale: %s" % stale)
    t.record("cli: no README repeats a bar outside its generated block",
             not repeated, "; ".join(repeated))
    t.record("cli: starters do not repeat the bars (they point to the "
             "README)", not starters, ", ".join(starters))
    lab = json.loads(json.dumps(labs[1]))
    lab["step_list"][0]["checks"][0]["bound"] = 61.5
    lab["step_list"][0]["checks"].append(
        {"metric": "speedup_vs_reference", "op": ">=", "bound": 0.95,
         "unit": "x", "source": "timing", "why": "a new kind of bar"})
    block = docs_mod.checks_block(lab)
    t.record("cli: the block is rendered from whatever lab.json says: a "
             "changed bound and a new metric show up (so the test above "
             "fails when a README is out of date)",
             "≥ 61.5 % of reference" in block
             and "`speedup_vs_reference` | ≥ 0.95 x | timing | a new kind"
             in block and block not in open(os.path.join(
                 hu.ROOT, "labs", lab["name"], "README.md")).read(),
             block)
    red = [lab for lab in labs if lab["name"] == "reduction"]
    text = open(os.path.join(hu.ROOT, "labs", "reduction",
                             "README.md")).read()
    t.record("cli: the reduction README states v5's racecheck/synccheck "
             "check and no longer says the timed size is 2^26",
             red and "`sanitizer_errors`" in text and "racecheck" in text
             and "synccheck" in text and "2^26" not in text, "")
    saxpy4 = open(os.path.join(hu.ROOT, "labs", "saxpy",
                               "saxpy_v4.cu")).read()
    man = json.load(open(os.path.join(hu.ROOT, "labs", "saxpy",
                                      "lab.json")))
    hint4 = [s["hint"] for s in man["steps"] if s["id"] == "v4"][0]
    t.record("cli: saxpy v4's starter, hint and README agree: stride over "
             "tiles (as the solution does)",
             "tile += gridDim.x" in saxpy4 and "tile += gridDim.x" in hint4
             and "stride over tiles" in open(os.path.join(
                 hu.ROOT, "labs", "saxpy", "README.md")).read(), hint4)


def newcomer_commands(t, state):
    """Issue 18, item 9: the command line a newcomer types."""
    env = dict(NO_GPU, CUDALAB_STATE=state)
    rc, out, err = hu.run(RUN + ["help"])
    t.record("cli: `run.py help` is --help", rc == 0 and "usage: run.py"
             in out and "test" in out, out + err)
    rc, out, err = hu.run(RUN + ["help", "test"])
    t.record("cli: `run.py help test` is `run.py test --help`",
             rc == 0 and "usage: run.py test" in out and "--step" in out,
             out + err)
    rc, out, err = hu.run(RUN + ["help", "tset"])
    t.record("cli: `run.py help tset`: exit 2, lists the commands",
             rc == 2 and "no command tset" in err and "test" in err, err)
    rc, out, err = hu.run(RUN + ["test", "saxpy", "--step", "2", "--step",
                                 "3"], env=env)
    t.record("cli: --step twice is a usage error that says so (not a "
             "silent run of the last one)",
             rc == 2 and "--step given 2 times (2, 3)" in err
             and "v3" not in out, "rc=%d %s %s" % (rc, out[-500:], err))
    rc, out, err = hu.run(RUN + ["test", "SAXPY", "--step", "1"], env=env)
    t.record("cli: `run.py test SAXPY` runs saxpy (names in any case)",
             rc == 3 and "lab SAXPY is saxpy" in err
             and "cudalab · saxpy" in out, "rc=%d %s" % (rc, err))
    rc, out, err = hu.run(RUN + ["test", "2", "--step", "1"], env=env)
    t.record("cli: `run.py test 2` runs lab 2 as `list` numbers it (saxpy)",
             rc == 3 and "cudalab · saxpy" in out, "rc=%d %s" % (rc, err))
    t.record("cli: after `run.py test` it says where the results are kept",
             "results kept in %s/" % state in out
             and "results/LAB.json" in out, out[-600:])
    rc, out, err = hu.run(RUN + ["test", "saxpi"], env=env)
    t.record("cli: a misspelt lab: did you mean, and the numbered labs",
             rc == 2 and "no lab called \"saxpi\"; did you mean saxpy?"
             in err and "2. saxpy" in err, err)
    sys.path.insert(0, os.path.join(hu.ROOT, "tools"))
    import io
    import labs as labs_mod  # run.py's summary after test/bench
    import programs  # run.py's builder
    buf = io.StringIO()
    old_state = os.environ.get("CUDALAB_STATE")
    os.environ["CUDALAB_STATE"] = state
    try:
        labs_mod.print_summary("test", [("coalescing", 3), ("saxpy", 1),
                                        ("haxpy", 0)], buf)
        saved = programs.GRADER, programs.UI
        programs.GRADER = programs.UI = os.path.join(state, "nothing")
        first = io.StringIO()
        real, sys.stderr = sys.stderr, first
        try:
            programs.announce_first_build()
        finally:
            sys.stderr = real
            programs.GRADER, programs.UI = saved
    finally:
        if old_state is None:
            del os.environ["CUDALAB_STATE"]
        else:
            os.environ["CUDALAB_STATE"] = old_state
    text = buf.getvalue()
    t.record("cli: after several labs, a summary: each lab's passed/total "
             "and verdict, and where results are kept",
             re.search(r"1\. +coalescing +0/4 step\(s\) passed +NOT GRADED",
                       text)
             and re.search(r"2\. +saxpy +0/5 step\(s\) passed +FAIL", text)
             and re.search(r"3\. +haxpy +\d/1 step\(s\) passed +PASS", text)
             and "results kept in" in text, text)
    t.record("cli: the first build says what it is doing before the "
             "silence", "building the grader, the dashboard" in
             first.getvalue(), first.getvalue())


def static_checks_of_solutions(t, state):
    """Without a GPU every reference solution passes every check judged from
    its build (PTX facts, registers, shared memory, stack), and the figures
    read as numbers (16384 B, not 1.638e+04 B)."""
    env = dict(NO_GPU, CUDALAB_STATE=state)
    failed, judged, messages = [], 0, []
    for lab in ("saxpy", "haxpy", "reduction", "prefetch", "memtuning"):
        rc, events, _ = hu.grade(["test", lab, "--src", os.path.join(
            hu.ROOT, "solutions", lab)], env=env)
        for e in events:
            if e.get("event") == "check" and e.get("status") != \
                    "not_measured":
                judged += 1
                messages.append(e["message"])
                if e["status"] != "pass":
                    failed.append("%s %s" % (lab, e["message"]))
    t.record("cli: no GPU: every solution passes the checks judged from "
             "its build (%d judged)" % judged,
             judged >= 15 and not failed, "\n".join(failed))
    t.record("cli: a check's figure is a whole number when it is one "
             "(shared_bytes: 16384 B, not 1.638e+04 B)",
             any("shared_bytes: 16384 B, needs >= 4096" in m
                 for m in messages)
             and not any("e+0" in m for m in messages),
             "\n".join(m for m in messages if "shared" in m))


def rejected_without_gpu(t, state):
    """Fixtures the kernel-file rules reject: no GPU needed to catch them
    (tests/fixtures/LAB and the planted attacks of tests/fixtures/attacks/LAB;
    most attacks pass the text lint on purpose: the object check rejects
    them after the compile, before the link)."""
    env = dict(NO_GPU, CUDALAB_STATE=state)
    base = os.path.join(hu.ROOT, "tests", "fixtures")
    folders = []
    for top in (base, os.path.join(base, "attacks")):
        for lab in sorted(os.listdir(top)):
            if os.path.exists(os.path.join(hu.ROOT, "labs", lab, "lab.json")):
                folders.append((lab, os.path.join(top, lab)))
    for lab, folder in folders:
        manifest = os.path.join(hu.ROOT, "labs", lab, "lab.json")
        with open(manifest) as f:
            files = {s["id"]: s["file"] for s in json.load(f)["steps"]}
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            if not name.endswith(".cu"):
                continue
            want = hu.fixture_expectations(path)
            verdicts = want.get("verdict", "").split("|")
            # an attack may be stopped before the link (rejected) or by
            # the compile box (compile_error: the file it reaches for is
            # not there); either way it never runs
            if not set(verdicts) & {"rejected", "compile_error"}:
                continue
            step = want["step"]
            with hu.Scratch() as s:
                s.put(path, files[step])
                rc, events, _ = hu.grade(["test", lab, "--step", step,
                                          "--src", s.path], env=env)
            e = hu.step_ends(events).get(step, {})
            lint = [x for x in events if x.get("event") == "lint"]
            t.record("cli: %s %s is rejected before it is linked, without "
                     "a GPU: '%s'" % (lab, name, want["message"]),
                     rc == 1 and e.get("verdict") in verdicts
                     and e.get("verdict") in ("rejected", "compile_error")
                     and any(m in e.get("summary", "")
                             for m in want["message"].split("|"))
                     # expect-absent: text the output must never hold
                     # (a host file's line quoted back)
                     and not (want.get("absent")
                              and want["absent"] in json.dumps(events))
                     and (e.get("verdict") != "rejected"
                          or (len(lint) == 1
                              and not any(x.get("event") == "compile"
                                          and x.get("status") != "started"
                                          for x in events))),
                     "rc=%d %s" % (rc, e))


def forged_compiler_facts(t, state):
    """Facts read from the compiler cannot be written by the student's text
    (red team, 2026-11-23): a #pragma message put "ptxas info ... Used 96
    registers" lines into the compile log, and the registers check of
    memtuning's launch-bounds step passed without launch bounds; a block
    comment opened by inline PTX held "ld.global.nc.v4.f32" lines, and a
    scalar saxpy passed step 5's 16-byte load and store checks; a rem in
    inline PTX after a '{' on its line was not counted (2026-11-24), and
    reduction step 1's % passed step 2's "no rem" check."""
    env = dict(NO_GPU, CUDALAB_STATE=state)
    for lab, name, metric, shown in (
            ("memtuning", "forged_ptxas_registers.cu", "registers",
             "Used 96 registers"),
            ("saxpy", "ptx_comment_forged_loads.cu", "ptx_max_load_bytes",
             None),
            ("reduction", "rem_in_asm_block.cu", "ptx_rem_ops", None)):
        path = os.path.join(hu.ROOT, "tests", "fixtures", "attacks", lab,
                            name)
        want = hu.fixture_expectations(path)
        files = hu.step_files(lab)
        with hu.Scratch() as s:
            s.put(path, files[want["step"]])
            rc, events, _ = hu.grade(["test", lab, "--step", want["step"],
                                      "--src", s.path], env=env)
        out = "".join(e.get("output", "") for e in events
                      if e.get("event") == "compile")
        checks = [e for e in events if e.get("event") == "check"
                  and e.get("metric") == metric]
        t.record("cli: %s %s: a fact the student's text forged does not "
                 "reach the verdict: '%s'" % (lab, name, want["message"]),
                 (shown is None or shown in out)
                 and len(checks) == 1 and checks[0].get("status") == "fail"
                 and want["message"] in checks[0].get("message", ""),
                 "checks=%s" % checks)


def honest_fixtures_build(t, env):
    """tests/fixtures/honest/LAB/*.cu: kernels written the way published
    code is (cuda-samples' CUDA_CHECK with exit, gpuAssert with abort, CUB
    block and warp primitives, cooperative groups, templates, functors,
    __constant__ memory, cuda::pipeline ...). Each builds as the step its
    `expect-step` names, with no lint or object-check problem and no check
    judged from the build failing: NOT GRADED without a GPU, never
    rejected or a static FAIL."""
    base = os.path.join(hu.ROOT, "tests", "fixtures", "honest")
    for lab in sorted(os.listdir(base)):
        files = hu.step_files(lab)
        for name in sorted(os.listdir(os.path.join(base, lab))):
            if not name.endswith(".cu"):
                continue
            path = os.path.join(base, lab, name)
            step = hu.fixture_expectations(path)["step"]
            with hu.Scratch() as s:
                s.put(path, files[step])
                rc, events, _ = hu.grade(["test", lab, "--step", step,
                                          "--src", s.path], env=env)
            compiled = [x.get("status") for x in events
                        if x.get("event") == "compile"
                        and x.get("step") == step]
            problems = [x.get("problems") for x in events
                        if x.get("event") == "lint"]
            failed = [x.get("id") for x in events
                      if x.get("event") == "check"
                      and x.get("status") == "fail"]
            end = hu.step_ends(events).get(step, {})
            t.record("cli: honest %s %s builds as %s with every static check "
                     "ok" % (lab, name, step),
                     not problems and not failed
                     and compiled[-1:] in (["ok"], ["cached"])
                     and end.get("verdict") == "not_graded",
                     "compile %s, rejected %s, failed %s, %s"
                     % (compiled, str(problems)[:800], failed,
                        end.get("summary")))


def harmless_code_builds(t, state):
    """Published, harmless code the text lint used to reject (<cuda.h>,
    fprintf behind #if DEBUG, a non-static __device__ helper, an inline
    host helper) and every solution and starter pass the object check."""
    env = dict(NO_GPU, CUDALAB_STATE=state)
    for name, what in (("harmless_published.cu",
                        "<cuda.h>, fprintf behind #if DEBUG, __device__ and "
                        "inline helpers"),
                       ("static_local_inline_harmless.cu",
                        "a static local in an inline helper"),
                       ("harmless_operators_macros.cu",
                        "a macro of numbers before the includes, a flags "
                        "operator&, a __device__ one, a static kernel "
                        "named L2")):
        path = os.path.join(hu.ROOT, "tests", "fixtures", "attacks",
                            "saxpy", name)
        with hu.Scratch() as s:
            s.put(path, "saxpy_v1.cu")
            rc, events, _ = hu.grade(["test", "saxpy", "--step", "v1",
                                      "--src", s.path], env=env)
        compiled = [x.get("status") for x in events
                    if x.get("event") == "compile" and x.get("step") == "v1"]
        t.record("cli: harmless published code is not rejected (%s)" % what,
                 not any(x.get("event") == "lint" for x in events)
                 and compiled[-1:] in (["ok"], ["cached"]),
                 "%s %s" % (compiled, [x for x in events
                                       if x.get("event") == "lint"]))
    honest_fixtures_build(t, env)
    for lab in sorted(os.listdir(os.path.join(hu.ROOT, "solutions"))):
        if not os.path.exists(os.path.join(hu.ROOT, "labs", lab,
                                           "lab.json")):
            continue
        rejected = []
        for src in (os.path.join(hu.ROOT, "solutions", lab),
                    os.path.join(hu.ROOT, "labs", lab)):
            rc, events, _ = hu.grade(["test", lab, "--src", src,
                                      "--build-only"], env=env)
            rejected += [(src, x.get("step"), x.get("problems"))
                         for x in events if x.get("event") == "lint"]
        t.record("cli: %s solutions and starters pass the object check"
                 % lab, not rejected, str(rejected)[:1500])


def explain(t, state):
    """run.py explain: the static view of a step, with no GPU."""
    env = dict(NO_GPU, CUDALAB_STATE=state)
    sol = os.path.join(hu.ROOT, "solutions")
    rc, o, e = hu.run(RUN + ["explain", "saxpy", "--step", "1", "--src",
                             os.path.join(sol, "saxpy")], env=env)
    t.record("cli: explain saxpy v1: 4-byte loads and store mapped to "
             "saxpy_v1.cu with the line's text; counters not measured (why)",
             rc == 0 and re.search(r"saxpy_v1\.cu:\d+ +2x load +4 B", o)
             and "y[i] = alpha * x[i] + y[i];" in o
             and "not measured: no CUDA device" in o
             and "registers" in o, "rc=%d\n%s\n%s" % (rc, o, e[-500:]))
    hints = [l for l in o.splitlines() if l.startswith("  hint")]
    t.record("cli: explain saxpy v1: the lab's hints that hold on the static "
             "facts, after the facts, naming the step that fixes them",
             len(hints) == 3 and o.index("  counters") < o.index("  hint")
             and "step v3" in o and "step v5" in o
             and "[because ptx_nc_loads == 0]" in o
             and "[because ptx_max_load_bytes" in o.replace("\n", " ")
             and "3 more not checked: they need inst_per_element, waves,"
             in o, o)
    rc, o, e = hu.run(RUN + ["explain", "saxpy", "--step", "v5", "--src",
                             os.path.join(sol, "saxpy")], env=env)
    t.record("cli: explain saxpy v5: 16-byte loads on the read-only path, "
             "and neither the float4 nor the __restrict__ hint",
             rc == 0 and re.search(r"load +16 B read-only path", o)
             and "widest 16 B" in o and "step v5" not in o
             and "step v3" not in o, o)
    import shutil as _shutil
    if _shutil.which("cuobjdump"):
        t.record("cli: explain saxpy v5: the SASS has the 16-byte loads",
                 "LDG 16 B x6 (3 read-only)" in o, o)
    else:
        t.record("cli: explain without cuobjdump: the SASS view is not "
                 "shown, and says why",
                 "sass      not shown: cuobjdump not found on PATH" in o, o)
    rc, o, e = hu.run(RUN + ["explain", "saxpy", "--step", "3"], env=env)
    t.record("cli: explain on a stub says not implemented (file:line) and "
             "gives no hint pointing at the step itself",
             rc == 0 and re.search(r"not implemented: saxpy_v3\.cu:\d+ "
                                   r"still calls CUDALAB_TODO\(\)", o)
             and "-> step v3" not in o and "  hint" not in o, o)
    rc, o, e = hu.run(RUN + ["explain", "saxpy", "--step", "1"], env=env)
    t.record("cli: explain names kernels demangled",
             "compiler  saxpy_naive(int, float, float const*, float*)" in o
             and "_Z11" not in o, o)
    text = open(os.path.join(sol, "saxpy", "saxpy_v1.cu")).read() + \
        "\n// %s\n" % time.time()
    with hu.Scratch() as s:  # built from one folder, which then goes away
        s.write("saxpy_v1.cu", text)
        hu.run(RUN + ["explain", "saxpy", "--step", "1", "--src", s.path],
               env=env)
    with hu.Scratch() as s:  # the same content elsewhere: a cache hit
        s.write("saxpy_v1.cu", text)
        rc, o, e = hu.run(RUN + ["explain", "saxpy", "--step", "1", "--src",
                                 s.path], env=env)
    t.record("cli: explain quotes the student's line even when the cached "
             "build was compiled from another (deleted) folder",
             "| y[i] = alpha * x[i] + y[i];" in o, o)
    svg = os.path.join(state, "roof.svg")
    rc, o, e = hu.run(RUN + ["explain", "saxpy", "--step", "1", "--plot", svg],
                      env=env)
    t.record("cli: explain --plot without counters: no roofline, says why, "
             "writes no file",
             rc == 0 and "roofline: no plot: the counters were not measured"
             in o and not os.path.exists(svg), o + e)
    rc, o, e = hu.run([hu.GRADER, "--root", hu.ROOT, "explain", "saxpy", "--plot"],
                      env=env)
    t.record("cli: explain --plot with no file: exit 2",
             rc == 2 and "--plot needs a file name" in e, "rc=%d %s" % (rc, e))
    rc, o, e = hu.run([hu.GRADER, "--root", hu.ROOT, "test", "saxpy",
                       "--no-counters"], env=env)
    t.record("cli: --no-counters belongs to explain only: test rejects it",
             rc == 2 and "unknown option --no-counters" in e,
             "rc=%d %s" % (rc, e))
    rc, o, e = hu.run(RUN + ["explain", "prefetch", "--step", "v6", "--src",
                             os.path.join(sol, "prefetch")], env=env)
    t.record("cli: explain prefetch v6: the asynchronous copies, attributed "
             "to the student's lines (not the CUDA headers)",
             rc == 0 and re.search(r"prefetch_v6\.cu:\d+ +8x async +8 B "
                                   r"global->shared", o)
             and "cuda_pipeline" not in o and "9 asynchronous copies" in o, o)
    with hu.Scratch() as s:
        s.put(os.path.join(hu.ROOT, "tests", "fixtures", "saxpy",
                           "does_not_compile.cu"), "saxpy_v2.cu")
        rc, o, e = hu.run(RUN + ["explain", "saxpy", "--step", "2", "--src",
                                 s.path], env=env)
    t.record("cli: explain of a step that does not compile: its first error, "
             "exit 1", rc == 1 and "does not compile: " in o, o + e)
    # explain speaks in events: --json streams them, and the text is the
    # text reporter's rendering of the same events
    args = ["explain", "saxpy", "--step", "1", "--src",
            os.path.join(sol, "saxpy")]
    rc, o, e = hu.run([hu.GRADER, "--root", hu.ROOT] + args + ["--json"],
                      env=env)
    events = [json.loads(line) for line in o.splitlines() if line.strip()]
    kinds = [ev.get("event") for ev in events]
    mine = kinds[kinds.index("explain"):] if "explain" in kinds else []
    prof = next((ev for ev in events if ev.get("event") == "profile"), {})
    adv = next((ev for ev in events if ev.get("event") == "advice"), {})
    t.record("cli: explain --json streams the build (run_begin mode "
             "explain), then explain, accesses, sass, profile (set explain, "
             "with the facts) and advice for the step",
             rc == 0 and events and events[0].get("mode") == "explain"
             and mine == ["explain", "accesses", "sass", "profile", "advice"]
             and prof.get("set") == "explain"
             and prof.get("facts", {}).get("ptx_nc_loads") == 0
             and not prof.get("measured")
             and any(h.get("see") == "v5" for h in adv.get("hints", [])),
             "rc=%d %s\n%s" % (rc, kinds, e[-500:]))
    with hu.Scratch() as s:
        s.write("explain.jsonl", o)
        rc2, replayed, _ = hu.run([hu.GRADER, "report", os.path.join(
            s.path, "explain.jsonl"), "--no-color"], env=env)
    rc3, direct, _ = hu.run([hu.GRADER, "--root", hu.ROOT] + args, env=env)
    t.record("cli: `report` of a recorded explain run prints what explain "
             "printed (one renderer: the text reporter)",
             rc3 == 0 and direct.strip() and replayed == direct
             and "compiler  saxpy_naive" in replayed,
             "--- report\n%s\n--- explain\n%s" % (replayed, direct))
    rc, o, e = hu.run(RUN + ["explain", "nosuchlab"], env=env)
    t.record("cli: explain of an unknown lab: exit 2, says so",
             rc == 2 and "nosuchlab" in e, "rc=%d %s" % (rc, e))
    rc, o, e = hu.run(RUN + ["explain", "saxpy", "--step", "99"], env=env)
    t.record("cli: explain of an unknown step: exit 2, lists the steps",
             rc == 2 and 'no step "99"' in e and "1..5" in e,
             "rc=%d %s" % (rc, e))
    rc, o, e = hu.run(RUN + ["explain", "saxpy", "--src", "/nonexistent"],
                      env=env)
    t.record("cli: explain with a missing --src folder: exit 2, names it",
             rc == 2 and "/nonexistent" in e, "rc=%d %s" % (rc, e))


def sandbox_policy(t, state):
    """No sandbox, no class grading (unless --unsandboxed, and then every
    row says so); a student's `test` goes on without one, saying so once."""
    import planted_class
    env = dict(NO_GPU, CUDALAB_STATE=state)
    nobox = dict(env, CUDALAB_BWRAP="/nonexistent/bwrap")
    with hu.Scratch() as s:
        subs = os.path.join(s.path, "subs")
        planted_class._folder(os.path.join(subs, "ok"), planted_class._files())
        out = os.path.join(s.path, "grades")
        rc, o, e = hu.run(RUN + ["grade", subs, "--labs", "saxpy", "--out",
                                 out], env=nobox)
        t.record("cli: grade refuses when the sandbox cannot start (exit 4, "
                 "says why and names --unsandboxed), grading nobody",
                 rc == 4 and "sandbox cannot start" in e
                 and "/nonexistent/bwrap" in e and "--unsandboxed" in e
                 and not os.path.exists(os.path.join(out, "results", "ok",
                                                     "saxpy.jsonl")),
                 "rc=%d\n%s" % (rc, e[-800:]))
        rc, o, e = hu.run(RUN + ["grade", subs, "--labs", "saxpy", "--out",
                                 out, "--unsandboxed"], env=nobox)
        try:
            with open(os.path.join(out, "gradebook.json")) as f:
                rows = json.load(f)["students"]
            with open(os.path.join(out, "gradebook.csv")) as f:
                csv_text = f.read()
        except (OSError, ValueError) as err:
            rows, csv_text = [], str(err)
        t.record("cli: grade --unsandboxed grades, and every gradebook row "
                 "says it was unsandboxed (JSON field and CSV note)",
                 # 3: no GPU here, every step not graded (never a score)
                 rc in (0, 3) and rows
                 and all(r.get("unsandboxed") for r in rows)
                 and csv_text.count("UNSANDBOXED") == len(rows),
                 "rc=%d rows=%s\n%s" % (rc, rows[:1], e[-600:]))
        out2 = os.path.join(s.path, "grades2")
        rc, o, e = hu.run(RUN + ["grade", subs, "--labs", "saxpy", "--out",
                                 out2], env=env)
        try:
            with open(os.path.join(out2, "gradebook.json")) as f:
                rows = json.load(f)["students"]
        except (OSError, ValueError):
            rows = []
        t.record("cli: grade with the sandbox: rows are not marked "
                 "unsandboxed",
                 rc in (0, 3) and rows
                 and not any(r.get("unsandboxed") for r in rows),
                 "rc=%d\n%s" % (rc, e[-600:]))
    rc, o, e = hu.run(RUN + ["test", "saxpy", "--step", "1", "--plain"],
                      env=nobox)
    t.record("cli: a student's test without bubblewrap goes on and says "
             "so once (sandbox: off, why)",
             rc == 3 and o.count("sandbox: off") == 1
             and "/nonexistent/bwrap" in o, "rc=%d\n%s" % (rc, o[-800:]))
    # an include the device pass alone reads, with no box to hide the tree
    # (red team, 2026-11-27: the reference kernel became the student's PTX)
    with hu.Scratch() as s:
        with open(os.path.join(s.path, "saxpy_v5.cu"), "w") as f:
            f.write('#include "saxpy.h"\n#ifdef __CUDA_ARCH__\n'
                    '%:include "../../solutions/saxpy/saxpy_v5.cu"\n'
                    '#else\n__global__ void saxpy_vec4(int n, float a, '
                    'const float *x, float *y) {}\n'
                    'void saxpy(int n, float a, const float *x, float *y)\n'
                    '{ saxpy_vec4<<<1, 256>>>(n, a, x, y); }\n#endif\n')
        rc, o, e = hu.run(RUN + ["test", "saxpy", "--step", "v5", "--src",
                                 s.path, "--plain"], env=nobox)
        t.record("cli: without a box, an #include under #ifdef __CUDA_ARCH__ "
                 "of the instructor's tree is rejected, naming it",
                 rc == 1 and "includes solutions/saxpy/saxpy_v5.cu" in o
                 and "device code" in o, "rc=%d\n%s" % (rc, o[-800:]))
    # a compile box that fails to start is no compile error of the file's,
    # and is not cached (red team, 2026-11-27: one student's processes
    # made another's compile box fail at exec, cached for good)
    with hu.Scratch() as s:
        src = os.path.join(s.path, "src")
        os.mkdir(src)
        with open(os.path.join(src, "saxpy_v1.cu"), "w") as f:
            with open(os.path.join(hu.ROOT, "solutions", "saxpy",
                                   "saxpy_v1.cu")) as g:
                f.write(g.read() + "// %s\n" % s.path)
        fake = os.path.join(s.path, "bwrap")
        with open(fake, "w") as f:
            f.write('#!/bin/sh\ncase "$*" in *--keep*"%s/saxpy_v1.cu"*)\n'
                    '  echo "box: nvcc: Resource temporarily unavailable" '
                    '>&2; exit 126;;\nesac\nexec %s "$@"\n'
                    % (src, shutil.which("bwrap") or "/usr/bin/bwrap"))
        os.chmod(fake, 0o755)
        first = hu.run(RUN + ["test", "saxpy", "--step", "v1", "--src", src,
                              "--plain"], env=dict(env, CUDALAB_BWRAP=fake))
        again = hu.run(RUN + ["test", "saxpy", "--step", "v1", "--src", src,
                              "--plain"], env=env)
        t.record("cli: a compile box that cannot start is said to be the "
                 "machine's, and the next run compiles again (not cached)",
                 first[0] == 1 and "reason of the machine" in first[1]
                 and again[0] == 3 and "NOT GRADED" in again[1],
                 "rc=%d %s\nrc=%d %s" % (first[0], first[1][-600:],
                                        again[0], again[1][-600:]))
        # a compile that outgrew the box's memory is the file's doing
        with open(os.path.join(src, "saxpy_v1.cu"), "a") as f:
            f.write("// memory\n")
        with open(fake, "w") as f:
            f.write('#!/bin/sh\ncase "$*" in *--keep*"%s/saxpy_v1.cu"*)\n'
                    '  echo "cc1plus: out of memory allocating 65536 bytes: '
                    'virtual memory exhausted: Cannot allocate memory" >&2; '
                    'exit 1;;\nesac\nexec %s "$@"\n'
                    % (src, shutil.which("bwrap") or "/usr/bin/bwrap"))
        own = hu.run(RUN + ["test", "saxpy", "--step", "v1", "--src", src,
                            "--plain"], env=dict(env, CUDALAB_BWRAP=fake))
        t.record("cli: a compile that ran out of the box's memory is the "
                 "file's compile error, not the machine's",
                 own[0] == 1 and "COMPILE ERROR" in own[1]
                 and "reason of the machine" not in own[1],
                 "rc=%d %s" % (own[0], own[1][-600:]))
    rc, events, _ = hu.grade(["test", "saxpy", "--step", "1"], env=env)
    ev = [x for x in events if x.get("event") == "sandbox"]
    t.record("cli: with bubblewrap, the sandbox event says on (and not "
             "unsandboxed)",
             len(ev) == 1 and ev[0].get("on") is True
             and ev[0].get("unsandboxed") is False, str(ev))
    # a course tree inside a folder the box shows (/opt/cudalab) is covered
    # (red team, 2026-11-23: the compile box quoted solutions/ back)
    if os.geteuid() == 0:
        script = os.path.join(hu.ROOT, "tests", "fixtures", "attacks",
                              "tree_under_opt.sh")
        proc = subprocess.run(["sh", script], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True,
                              timeout=600)
        t.record("cli: a tree under /opt is covered in the compile box (the "
                 "solution cannot be included)",
                 proc.returncode == 0 and "no leak" in proc.stdout,
                 proc.stdout[-800:])
    else:
        t.skip("cli: a tree under /opt is covered in the compile box",
               "needs root to write /opt")
    # libraries on LD_LIBRARY_PATH are bound into the box at their own path
    # (found on the GPU machine: a bind with an empty destination covered
    # the box's root and no box could start)
    libdir = tempfile.mkdtemp(prefix="cudalab-libs-")
    try:
        env2 = dict(env or os.environ)
        env2["LD_LIBRARY_PATH"] = libdir + ":" + env2.get("LD_LIBRARY_PATH",
                                                         "")
        rc, events, _ = hu.grade(["test", "saxpy", "--step", "1"], env=env2)
        ev = [x for x in events if x.get("event") == "sandbox"]
        t.record("cli: the box starts with a library folder on "
                 "LD_LIBRARY_PATH", len(ev) == 1 and ev[0].get("on") is True,
                 str(ev))
    finally:
        shutil.rmtree(libdir, ignore_errors=True)


def gradebook_whole_characters(t, state):
    """Red team (2026-11-24): notes and names cut to a buffer's size inside
    a multi-byte character made gradebook.csv unreadable as UTF-8 and left
    one student's Gradescope results.json empty and the students after it
    without one. Three zips whose 25 near-miss names (110 euro signs each)
    make notes past 4096 bytes, beside an honest folder 'zed' that sorts
    last: every file must decode and parse, every student get results.json."""
    import csv
    import zipfile
    env = dict(NO_GPU, CUDALAB_STATE=state)
    with open(os.path.join(hu.ROOT, "solutions", "saxpy", "saxpy_v1.cu"),
              "rb") as f:
        sol = f.read()
    with hu.Scratch() as s:
        subs = os.path.join(s.path, "subs")
        os.makedirs(os.path.join(subs, "zed"))
        for pad in range(3):
            with zipfile.ZipFile(os.path.join(subs, "a%d.zip" % pad),
                                 "w") as z:
                for i in range(25):
                    z.writestr("x" * pad + "\u20ac" * 110
                               + "%02d/Saxpy-V1.cu" % i, b"x")
                z.writestr("saxpy_v1.cu", sol)
        with open(os.path.join(subs, "zed", "saxpy_v1.cu"), "wb") as f:
            f.write(sol)
        out = os.path.join(s.path, "grades")
        rc, o, e = hu.run(RUN + ["grade", subs, "--labs", "saxpy", "--out",
                                 out], env=env)
        problems = []
        try:
            with open(os.path.join(out, "gradebook.csv"),
                      encoding="utf-8") as f:
                rows = list(csv.reader(f))
            if len(rows) != 5:
                problems.append("%d csv rows, not 5" % len(rows))
        except (OSError, UnicodeDecodeError, csv.Error) as err:
            problems.append("gradebook.csv: %s" % err)
        for sid in ("a0", "a1", "a2", "zed"):
            path = os.path.join(out, "gradescope", sid, "results.json")
            try:
                with open(path, encoding="utf-8") as f:
                    doc = json.load(f)
                if len(doc.get("tests", [])) != 5:
                    problems.append("%s: %d tests" % (sid,
                                                      len(doc["tests"])))
            except (OSError, ValueError) as err:
                problems.append("%s: %s" % (path, err))
        t.record("cli: grade: notes cut at a buffer's size keep whole "
                 "characters (gradebook.csv is UTF-8, every student's "
                 "Gradescope results.json parses; exit 3, not graded)",
                 rc == 3 and not problems,
                 "rc=%d\n%s\n%s" % (rc, "\n".join(problems), e[-1500:]))


def grade_resume_keeps_own_results(t, state):
    """Red team (2026-11-24): a resumed class run kept results by student
    id, and ids are given anew each run: a late folder "bob-2" beside "_bob"
    (who had id bob-2) took _bob's kept compile error. A kept result must be
    of the same entry and the same files."""
    import csv
    env = dict(NO_GPU, CUDALAB_STATE=state)
    sol = os.path.join(hu.ROOT, "solutions", "saxpy", "saxpy_v1.cu")
    with hu.Scratch() as s:
        subs = os.path.join(s.path, "subs")
        for d in ("bob", "_bob"):
            os.makedirs(os.path.join(subs, d))
        shutil.copy(sol, os.path.join(subs, "bob"))
        with open(os.path.join(subs, "_bob", "saxpy_v1.cu"), "w") as f:
            f.write("this is not C++\n")
        out = os.path.join(s.path, "grades")
        cmd = RUN + ["grade", subs, "--labs", "saxpy", "--out", out]
        rc1, _, e1 = hu.run(cmd, env=env)
        os.makedirs(os.path.join(subs, "bob-2"))
        shutil.copy(sol, os.path.join(subs, "bob-2"))
        rc2, _, e2 = hu.run(cmd, env=env)
        with open(os.path.join(out, "gradebook.csv"), encoding="utf-8") as f:
            by_source = {r["source"]: r for r in csv.DictReader(f)}
        got = {k: (r["student"], r["saxpy/v1"]) for k, r in by_source.items()}
        t.record("cli: grade: a resumed run keeps a result only for the same "
                 "entry and files (bob kept; the late bob-2 graded, not "
                 "given _bob's compile error; _bob still a compile error)",
                 rc1 == 3 and rc2 == 3
                 and "1 job(s) already graded: kept" in e2
                 and got.get("bob", ("", ""))[1] == "not_graded"
                 and got.get("bob-2", ("", ""))[1] == "not_graded"
                 and got.get("_bob", ("", ""))[1] == "compile_error",
                 "rc=%d,%d %s\n%s" % (rc1, rc2, got, e2[-1500:]))


def class_grading(t, state):
    """run.py grade without a GPU: intake notes, the four gradebook
    formats, resume, shards + merge, the Slurm script."""
    import csv
    import xml.etree.ElementTree as ET
    import planted_class
    env = dict(NO_GPU, CUDALAB_STATE=state)
    with hu.Scratch() as s:
        subs = os.path.join(s.path, "subs")
        want = planted_class.make_class(subs, gpu=False)
        planted_class._folder(os.path.join(subs, "ok"), planted_class._files())
        out = os.path.join(s.path, "grades")
        rc, o, e = hu.run(RUN + ["grade", subs, "--labs", "saxpy", "--out",
                                 out], env=env)
        e0 = e
        t.record("cli: `run.py grade` grades a class without a GPU (exit 3: "
                 "not graded, progress and summary)",
                 rc == 3 and "graded 1/1" in e and "class summary" in o,
                 "rc=%d\n%s\n%s" % (rc, o[-800:], e[-1500:]))
        try:
            with open(os.path.join(out, "gradebook.json")) as f:
                book = json.load(f)
        except (OSError, ValueError) as err:
            t.record("cli: gradebook.json is written", False, str(err))
            return
        rows = {r["student"]: r for r in book["students"]}
        for sid, exp in sorted(want.items()):
            row = rows.get(planted_class_id(sid))
            problems = (["no row"] if row is None else
                        planted_class.check_row(row, exp, gpu=False))
            if row is not None:
                problems += ["%s is %s, not missing" % (r["step"], r["verdict"])
                             for r in row["labs"]["saxpy"]
                             if r["verdict"] != "missing"]
            t.record("cli: grade: submission '%s' gets its note(s): %s"
                     % (sid, "; ".join(exp["notes"])), not problems,
                     "\n".join(problems))
        ok_row = rows.get("ok", {})
        t.record("cli: grade: a complete submission is graded (not graded "
                 "here: no GPU), never marked missing",
                 [r["verdict"] for r in ok_row.get("labs", {}).get(
                     "saxpy", [])] == ["not_graded"] * 5, str(ok_row)[:600])
        rc, o, e = hu.run(RUN + ["show", out, "--size", "40x100"], env=env)
        t.record("cli: `run.py show OUT` prints the class view of the graded "
                 "class (no terminal)",
                 rc == 0 and "class of %d students" % len(rows) in o
                 and "saxpy     v5" in o and "NOT GRADED" in o
                 and "not measured" in o and "run.py show %s" % out in e0,
                 "rc=%d\n%s\n%s" % (rc, o[-1500:], e[-500:]))
        with open(os.path.join(out, "gradebook.csv")) as f:
            table = list(csv.DictReader(f))
        t.record("cli: gradebook.csv has a row per student and a column per "
                 "step, total and notes",
                 len(table) == len(rows)
                 and all(("saxpy/v%d" % k) in table[0] for k in range(1, 6))
                 and {"passed", "total", "notes"} <= set(table[0]),
                 str(table[:1]))
        try:
            suites = ET.parse(os.path.join(out, "junit.xml")).getroot()
            cases = suites.findall("./testsuite/testcase")
            junit_ok = (suites.tag == "testsuites"
                        and len(suites) == len(rows)
                        and len(cases) == 5 * len(rows)
                        and all((c.find("failure") is None)
                                != (c.find("skipped") is None)
                                for c in cases))
            detail = "%d suites, %d cases" % (len(suites), len(cases))
        except (OSError, ET.ParseError) as err:
            junit_ok, detail = False, str(err)
        t.record("cli: junit.xml parses: a suite per student, a case per "
                 "step, failures (or not graded: skipped) marked", junit_ok,
                 detail)
        gs_ok, detail = True, ""
        for sid in rows:
            path = os.path.join(out, "gradescope", sid, "results.json")
            try:
                with open(path) as f:
                    gs = json.load(f)
                tests = gs["tests"]
                graded = [x for x in tests if "score" in x]
                gs_ok &= (gs["max_score"] == 5 and len(tests) == 5
                          and all({"name", "max_score", "output",
                                   "visibility"} <= set(x) for x in tests)
                          and (gs["score"] == sum(x["score"] for x in tests)
                               if len(graded) == 5 else "score" not in gs))
            except (OSError, ValueError, KeyError) as err:
                gs_ok, detail = False, "%s: %s" % (path, err)
        t.record("cli: Gradescope results.json per student: score, "
                 "max_score, a test per step", gs_ok, detail)

        results = os.path.join(out, "results", "ok", "saxpy.jsonl")
        before = os.path.getmtime(results) if os.path.exists(results) else 0
        rc, o, e = hu.run(RUN + ["grade", subs, "--labs", "saxpy", "--out",
                                 out], env=env)
        t.record("cli: grade resumes: a second run keeps finished results",
                 rc == 3 and "1 job(s) already graded: kept" in e
                 and before and os.path.getmtime(results) == before,
                 "rc=%d\n%s" % (rc, e[-800:]))

        shards = []
        for k in range(2):
            d = os.path.join(s.path, "shard-%d" % k)
            shards.append(d)
            hu.run(RUN + ["grade", subs, "--labs", "saxpy", "--out", d,
                          "--shard", "%d/2" % k, "--quiet"], env=env)
        merged = os.path.join(s.path, "merged")
        rc, o, e = hu.run(RUN + ["merge", merged] + shards, env=env)
        try:
            with open(os.path.join(merged, "gradebook.json")) as f:
                m = {r["student"]: r["labs"] for r in json.load(f)["students"]}
            same = m == {k: r["labs"] for k, r in rows.items()}
        except (OSError, ValueError) as err:
            same, e = False, str(err)
        t.record("cli: two shards merged give the same gradebook as one run",
                 rc == 3 and same, "rc=%d %s" % (rc, e[-500:]))

        # a folder added between the shards' intakes moves ids (red team,
        # 2026-11-27: _bob's row got bob's results): merge refuses
        late = os.path.join(s.path, "late")
        shutil.copytree(subs, late)
        hu.run(RUN + ["grade", late, "--labs", "saxpy", "--out",
                      os.path.join(s.path, "late-0"), "--shard", "0/2",
                      "--quiet"], env=env)
        shutil.copytree(os.path.join(late, "ok"),
                        os.path.join(late, "aaa-late"))
        hu.run(RUN + ["grade", late, "--labs", "saxpy", "--out",
                      os.path.join(s.path, "late-1"), "--shard", "1/2",
                      "--quiet"], env=env)
        rc, o, e = hu.run(RUN + ["merge", os.path.join(s.path, "late-m"),
                                 os.path.join(s.path, "late-0"),
                                 os.path.join(s.path, "late-1")], env=env)
        t.record("cli: merge refuses shards whose intakes took in other "
                 "students (exit 4, naming the first difference)",
                 rc == 4 and "took in other students" in e
                 and "aaa-late" in e and not os.path.exists(
                     os.path.join(s.path, "late-m", "gradebook.csv")),
                 "rc=%d %s" % (rc, e[-500:]))

        rc, o, e = hu.run(RUN + ["grade", subs, "--out", out, "--slurm", "4"],
                          env=env)
        script = os.path.join(out, "grade.slurm")
        text = open(script).read() if os.path.exists(script) else ""
        t.record("cli: --slurm writes a job-array script of N shards and "
                 "says how to merge",
                 rc == 0 and "#SBATCH --array=0-3" in text
                 and '--shard "$SLURM_ARRAY_TASK_ID/4"' in text
                 and "merge" in o, o + text[:300])

        for bad, words in ((["grade", "/nonexistent"], "not a folder"),
                           (["grade", subs, "--labs", "nope"], "no lab called"),
                           (["grade", subs, "--shard", "3/2"], "--shard")):
            rc, o, e = hu.run(RUN + bad + ["--out", out], env=env)
            t.record("cli: grade %s is a usage error naming the problem"
                     % " ".join(bad[2:]) if len(bad) > 2 else
                     "cli: grade of a missing folder is a usage error",
                     rc == 2 and words in e, "rc=%d %s" % (rc, e[-300:]))


def class_commands_bad_input(t):
    """cudalab-grader grade/gradebook/merge with wrong arguments."""
    cases = [
        (["grade", "/tmp", "--gpus", "x"], 2, "--gpus takes GPU numbers"),
        (["grade", "/tmp", "--jobs", "0"], 2, "--jobs takes 1..256"),
        (["grade", "/tmp", "--time-limit", "-1"], 2, "--time-limit takes"),
        (["grade", "/tmp", "--shard", "1"], 2, "--shard takes K/N"),
        (["grade", "/tmp", "--bogus"], 2, "unknown option --bogus"),
        (["grade", "/nonexistent-out"], 4, "intake.json"),
        (["gradebook", "/nonexistent-out"], 4, "intake.json"),
        (["merge", "/tmp/x"], 2, "merge needs"),
        (["merge", "/tmp/x", "/nonexistent-shard"], 4, "intake.json"),
    ]
    for args, want_rc, words in cases:
        rc, out, err = hu.run([hu.GRADER, "--root", hu.ROOT] + args)
        t.record("cli: cudalab-grader %s -> exit %d, \"%s\""
                 % (" ".join(args), want_rc, words),
                 rc == want_rc and words in err, "rc=%d %s" % (rc, err[-300:]))


def planted_class_id(entry):
    sys.path.insert(0, os.path.join(hu.ROOT, "tools"))
    import submissions
    return submissions.student_id(entry)


def missing_step_file(t, state):
    env = dict(NO_GPU, CUDALAB_STATE=state)
    with hu.Scratch() as s:
        rc, out, err = hu.run([hu.GRADER, "--root", hu.ROOT, "test", "saxpy",
                               "--step", "2", "--src", s.path], env=env)
    t.record("cli: a step file missing from --src is a compile error "
             "naming the file (exit 1)",
             rc == 1 and "cannot read %s/saxpy_v2.cu" % s.path in out, out)


def build_cache(t, state):
    env = dict(NO_GPU, CUDALAB_STATE=state)
    with hu.Scratch() as s:
        for k in range(1, 6):
            s.put(os.path.join(hu.ROOT, "solutions", "saxpy",
                               "saxpy_v%d.cu" % k), "saxpy_v%d.cu" % k)
        hu.grade(["test", "saxpy", "--src", s.path], env=env)
        began = time.time()
        _, events, _ = hu.grade(["test", "saxpy", "--src", s.path], env=env)
        took = time.time() - began
        status = {e["step"]: e["status"] for e in events
                  if e.get("event") == "compile"
                  and e.get("status") != "started"}
        t.record("cli: an unchanged lab is not rebuilt (%.1f s)" % took,
                 set(status.values()) == {"cached"}, str(status))
        with open(os.path.join(s.path, "saxpy_v2.cu"), "a") as f:
            # unique content: the cache is keyed by content, across runs
            f.write("\n// edited %s %d\n" % (time.time(), os.getpid()))
        _, events, _ = hu.grade(["test", "saxpy", "--src", s.path], env=env)
        status = {e["step"]: e["status"] for e in events
                  if e.get("event") == "compile"
                  and e.get("status") != "started"}
        t.record("cli: editing one step rebuilds only that step",
                 status.get("v2") == "ok" and
                 all(status[k] == "cached" for k in status if k != "v2"),
                 str(status))


def broken_manifest(t):
    root = tempfile.mkdtemp(prefix="cudalab-root-")
    try:
        for d in ("common", "build"):
            os.symlink(os.path.join(hu.ROOT, d), os.path.join(root, d))
        lab = os.path.join(root, "labs", "broken")
        os.makedirs(lab)
        shutil.copy(os.path.join(hu.ROOT, "labs", "saxpy", "lab.json"),
                    os.path.join(lab, "lab.json"))
        with open(os.path.join(lab, "lab.json")) as f:
            text = f.read().replace('"name": "saxpy"', '"name": "broken"')
            text = text.replace('"metric": "waves", "max"',
                                '"metric": "wavez", "max"')
        with open(os.path.join(lab, "lab.json"), "w") as f:
            f.write(text)
        rc, out, err = hu.run([hu.GRADER, "--root", root, "test", "broken"],
                              env=NO_GPU)
        t.record("cli: a broken lab.json names file, field and reason "
                 "(exit 4)",
                 rc == 4 and "labs/broken/lab.json: steps[3].checks[0]."
                             "metric: unknown metric \"wavez\"" in err,
                 "rc=%d\n%s" % (rc, err))
        rc, out, err = hu.run([hu.GRADER, "--root", root, "list"], env=NO_GPU)
        t.record("cli: `list` reports a broken lab and exits 4",
                 rc == 4 and "wavez" in err, "rc=%d\n%s" % (rc, err))
    finally:
        shutil.rmtree(root, ignore_errors=True)


def setup_messages(t):
    env = {"CUDALAB_INCLUDE_DIRS": "/nonexistent", "CUDALAB_PRETEND_USER": "1"}
    rc, out, err = hu.run(RUN + ["setup"], env=env)
    t.record("cli: missing packages as a user: the exact apt-get command, "
             "exit 1",
             rc == 1 and "sudo apt-get install -y libjansson-dev "
                         "libncurses-dev" in err, err)
    rc, out, err = hu.run(RUN + ["test", "saxpy"], env=env)
    t.record("cli: `run.py test` stops at set-up with the same command",
             rc == 1 and "apt-get install -y" in err, err)
    rc, out, err = hu.run(RUN + ["setup", "--for-tests"],
                          env={"CUDALAB_PRETEND_USER": "1",
                               "PATH": "/nonexistent:" + os.path.dirname(
                                   shutil.which("nvcc") or "/usr/bin")})
    t.record("cli: `setup --for-tests` also asks for tmux when it is missing",
             rc == 1 and "sudo apt-get install -y tmux" in err, err)
    path_without_nvcc = "/usr/bin:/bin"
    rc, out, err = hu.run(["/usr/bin/env", "PATH=" + path_without_nvcc,
                           "python3"] + RUN[1:] + ["setup"])
    t.record("cli: no nvcc on PATH: says to install the CUDA Toolkit",
             rc == 1 and "nvcc not found" in err, err)
    rc, out, err = hu.run(RUN + ["setup"])
    t.record("cli: on this machine set-up is complete", rc == 0
             and "set-up complete" in out, out + err)


def synthetic_bench_log(path, mode="bench"):
    steps = [{"id": "v1", "title": "naive", "file": "saxpy_v1.cu"},
             {"id": "v2", "title": "coarse", "file": "saxpy_v2.cu"}]
    events = [
        {"event": "run_begin", "schema": 1, "lab": "saxpy", "mode": mode,
         "started": "2026-11-22T12:00:00Z", "steps": steps, "commit": "abc123"},
        {"event": "device", "available": True, "name": "Test GPU",
         "sm_count": 10, "cc": "9.0", "driver": "13.0", "copy_gbps": 1000.0,
         "copy_method": "cudaMemcpy"},
        {"event": "timing", "step": "v1", "who": "student", "n": 1024,
         "bytes": 12288, "reps": 100, "median_us": 20.0, "gbps": 614.4,
         "pct_of_copy": 61.44,  # the grader's (verdict.c), as it writes it
         "rounds": [20, 20, 20], "rounds_cv": 0.001},
        {"event": "profile", "step": "v1", "measured": True,
         "inst_per_element": 19.0},
        {"event": "step_end", "step": "v1", "verdict": "pass",
         "median_us": 20.0, "gbps": 614.4, "pct_of_copy": 61.44,
         "pct_of_reference": 76.8,
         "speedup_vs_first": 1.0, "registers": 10, "occupancy_pct": 100.0},
        {"event": "profile", "step": "v2", "measured": False,
         "reason": "ncu not found on PATH (Nsight Compute)"},
        {"event": "step_end", "step": "v2", "verdict": "fail",
         "summary": "x"},
        {"event": "timing", "step": "vendor", "who": "vendor",
         "name": "cuBLAS cublasSaxpy", "median_us": 25.0, "gbps": 491.5,
         "pct_of_copy": 49.15, "rounds_cv": 0.002,
         "vs_steps": {"v1": 1.25}},  # the grader's (verdict.c)
        {"event": "run_end", "verdict": "fail"},
    ]
    with open(path, "w") as f:
        for e in events:
            f.write(json.dumps(e) + "\n")


def record_table(t):
    tmp = tempfile.mkdtemp(prefix="cudalab-record-")
    try:
        log = os.path.join(tmp, "bench.jsonl")
        readme = os.path.join(tmp, "README.md")
        synthetic_bench_log(log)
        with open(readme, "w") as f:
            f.write("# x\n<!-- cudalab:results saxpy -->\nold\n"
                    "<!-- /cudalab:results -->\ntail\n")
        rc, out, err = hu.run(RUN + ["record", "saxpy", "--events", log,
                                     "--readme", readme])
        with open(readme) as f:
            text = f.read()
        t.record("cli: `record` writes the bench table between the markers",
                 rc == 0 and "old" not in text and text.endswith("tail\n")
                 and "| v1 | naive | 20.0 | 614 | 61.4% | 76.8% | 1.00× | "
                     "19.00 | 10 | 100% | 0.10% | pass |" in text
                 and "<!-- cudalab:results saxpy @ Test GPU -->" in text
                 and "Test GPU" in text and "abc123" in text
                 and "2026-11-22" in text
                 and "| vendor | cuBLAS cublasSaxpy | 25.0 |" in text
                 and "Best step: v1 at 61.4% of copy bandwidth, 1.250× "
                     "cuBLAS cublasSaxpy's bandwidth." in text
                 and "not measured: ncu not found" in text,
                 "rc=%d %s\n%s" % (rc, err, text))
        rc2, _, _ = hu.run(RUN + ["record", "saxpy", "--events", log,
                                  "--readme", readme])
        with open(readme) as f:
            again = f.read()
        t.record("cli: `record` twice gives the same file", rc2 == 0
                 and again == text, "")
        other = log + ".h200"
        with open(log) as f, open(other, "w") as g:
            g.write(f.read().replace('"Test GPU"', '"Other GPU"'))
        rc3, _, err3 = hu.run(RUN + ["record", "saxpy", "--events", other,
                                     "--readme", readme])
        with open(readme) as f:
            both = f.read()
        t.record("cli: `record` on a second GPU adds its own table after the "
                 "first and keeps the first",
                 rc3 == 0 and text.split("tail")[0].strip() in both
                 and both.index("@ Test GPU") < both.index("@ Other GPU")
                 < both.index("tail") and both.count("| v1 | naive |") == 2,
                 "rc=%d %s\n%s" % (rc3, err3, both))
        rc4, _, _ = hu.run(RUN + ["record", "saxpy", "--events", log,
                                  "--readme", readme])
        with open(readme) as f:
            t.record("cli: `record` again on the first GPU replaces only its "
                     "table", rc4 == 0 and f.read() == both, "")
        synthetic_bench_log(log, mode="test")
        rc, _, err = hu.run(RUN + ["record", "saxpy", "--events", log,
                                   "--readme", readme])
        t.record("cli: `record` refuses a test run (only bench counts), "
                 "exit 2", rc == 2 and "not a bench run" in err, err)
        with open(readme, "w") as f:
            f.write("no markers here\n")
        synthetic_bench_log(log)
        rc, _, err = hu.run(RUN + ["record", "saxpy", "--events", log,
                                   "--readme", readme])
        t.record("cli: `record` into a file without markers: exit 2",
                 rc == 2 and "no <!-- cudalab:results saxpy -->" in err, err)
        rc, _, err = hu.run(RUN + ["record", "saxpy", "--events",
                                   os.path.join(tmp, "missing.jsonl")])
        t.record("cli: `record` without a run log says to bench first",
                 rc == 2 and "run `python3 run.py bench saxpy` first" in err,
                 err)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def variants_plot(t):
    """run.py draws bandwidth against a step's variants ("stride 4",
    "offset 1") from a bench log: one panel per family."""
    sys.path.insert(0, os.path.join(hu.ROOT, "tools"))
    import plots  # run.py's charts
    events = [{"event": "device", "name": "Test GPU", "copy_gbps": 1000.0}]
    for fam, pts in (("stride", [(1, 800), (2, 600), (4, 400), (32, 110)]),
                     ("offset", [(1, 790), (31, 780)])):
        for v, gbps in pts:
            # pct_of_copy as the grader writes it on every timing event
            # (verdict.c; the device's copy_gbps is 1000)
            events.append({"event": "timing", "step": "v2", "who": "student",
                           "variant": "%s %d" % (fam, v), "gbps": gbps,
                           "pct_of_copy": gbps / 10.0, "median_us": 1.0})
    events.append({"event": "timing", "step": "v1", "who": "student",
                   "gbps": 800, "pct_of_copy": 80.0, "median_us": 1.0})
    series = plots.variant_series(events)
    svg = plots.variants_svg(events)
    t.record("cli: the variants plot has a panel per family (stride: 4 "
             "points, offset: 2), labelled, and skips steps with one timing",
             list(series) == ["v2"] and len(series["v2"]["stride"]) == 4
             and len(series["v2"]["offset"]) == 2
             and svg.count("<polyline") == 2 and "v2 stride" in svg
             and "v2 offset" in svg and svg.count("<circle") == 6
             and "Test GPU" in svg, svg[:400])


def dashboard_bad_input(t):
    ui = os.path.join(hu.ROOT, "build", "cudalab-ui")
    pass_log = os.path.join(hu.ROOT, "tests", "fixtures", "ui", "pass.jsonl")
    cases = [
        ("no source", [], 2, "give --replay FILE, --gradebook OUT, or --grader"),
        ("missing replay file", ["--replay", "/nonexistent.jsonl", "--dump",
                                 "24x80"], 2, "cannot read /nonexistent.jsonl"),
        ("bad --dump size", ["--replay", pass_log, "--dump", "3x3"], 2,
         "--dump needs ROWSxCOLS"),
        ("unknown --keys key", ["--replay", pass_log, "--dump", "24x80",
                                "--keys", "Enter,Bogus"], 2,
         "unknown key \"Bogus\""),
        ("unknown option", ["--bogus"], 2, "unknown option --bogus"),
        ("option without its value", ["--replay"], 2,
         "--replay needs a value"),
        ("no terminal", ["--replay", pass_log], 4,
         "the dashboard needs a terminal"),
    ]
    for name, args, want_rc, want in cases:
        proc = subprocess.run([ui] + args, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, timeout=30, start_new_session=True)
        t.record("cli: cudalab-ui %s -> exit %d, \"%s\"" % (name, want_rc,
                                                            want),
                 proc.returncode == want_rc and want in proc.stderr,
                 "rc=%d\n%s" % (proc.returncode, proc.stderr))
    rc, out, err = hu.run(RUN + ["show", "/nonexistent.jsonl"])
    t.record("cli: `run.py show` of a missing log: exit 2, names it",
             rc == 2 and "no such run log or gradebook: /nonexistent.jsonl" in err, err)
    empty = tempfile.mkdtemp(prefix="cudalab-empty-")
    try:
        rc, out, err = hu.run(RUN + ["show"], env={"CUDALAB_STATE": empty})
        t.record("cli: `run.py show` before any run says to run a test first",
                 rc == 2 and "no saved run yet" in err, err)
    finally:
        shutil.rmtree(empty, ignore_errors=True)
    rc, out, err = hu.run(RUN + ["show", pass_log, "--size", "24x80"])
    t.record("cli: `run.py show FILE` without a terminal prints the final "
             "screen", rc == 0 and "PASS: 5 passed" in out, out + err)


def registration_after_fork(t, exe):
    """Nothing of the student's object runs before main (grader/objcheck.h,
    objcheck_defer_registration): the step program's .init_array holds the
    harness's registrations only, and the student's __sti____cudaRegisterAll
    is the one entry of the section hx_register, which the lab driver runs
    in the student's process after the fork (red team, 2026-11-27: a
    student's operator& ran inside it, in the process that becomes the
    judge)."""
    def words(cmd):
        rc, out, _ = hu.run(cmd, timeout=60)
        return out if rc == 0 else ""
    sti = set()
    for line in words(["nm", exe]).splitlines():
        f = line.split()
        if len(f) == 3 and f[2] == "_ZL24__sti____cudaRegisterAllv":
            sti.add(int(f[0], 16))

    def pointers(section):
        vals = []
        for line in words(["objdump", "-s", "-j", section, exe]).splitlines():
            f = line.split()
            if len(f) < 2 or not re.fullmatch(r"[0-9a-f]+", f[0]):
                continue
            hexes = "".join(x for x in f[1:5] if re.fullmatch(r"[0-9a-f]{8}", x))
            for k in range(0, len(hexes) - 15, 16):
                vals.append(int.from_bytes(bytes.fromhex(hexes[k:k + 16]),
                                           "little"))
        return vals
    moved, init = pointers("hx_register"), pointers(".init_array")
    t.record("cli: the student's registration is no static initialiser of "
             "the step program: hx_register holds one of the "
             "__sti____cudaRegisterAll, .init_array not that one",
             len(moved) == 1 and moved[0] in sti and moved[0] not in init
             and len(sti) >= 2,
             "hx_register=%s init_array=%s sti=%s" % (
                 [hex(v) for v in moved], [hex(v) for v in init],
                 [hex(v) for v in sorted(sti)]))


def student_symbols_not_exported(t, state):
    """Nothing the student's object defines is exported from the step
    program (grader/objcheck.h, objcheck_hide_definitions): built from the
    honest string_message_throw.cu, whose std::string constructor template,
    operator+ and std::to_string the compiler copies into the file, the
    step's dynamic symbol table defines none of them and not the launcher,
    and its symbol table has them hidden or local (a libstdc++-named copy
    exported would take libstdc++'s own place for every caller, the
    judge's included: red team, 2026-11-27)."""
    env = dict(NO_GPU, CUDALAB_STATE=state)
    path = os.path.join(hu.ROOT, "tests", "fixtures", "honest", "saxpy",
                        "string_message_throw.cu")
    with hu.Scratch() as s:
        s.put(path, "saxpy_v1.cu")
        rc, events, _ = hu.grade(["test", "saxpy", "--step", "v1", "--src",
                                  s.path, "--build-only"], env=env)
    exes = [x.get("exe") for x in events if x.get("event") == "compile"
            and x.get("step") == "v1" and x.get("exe")]
    if not exes:
        t.record("cli: the student's definitions are not exported: the "
                 "step builds", False, "rc=%d %s" % (rc, events[-3:]))
        return
    exe = os.path.realpath(exes[-1])
    _, dyn, _ = hu.run(["nm", "-D", "--defined-only", exe], timeout=60)
    _, sym, _ = hu.run(["readelf", "-sW", exe], timeout=60)
    copies = [line.split()[-1] for line in sym.splitlines()
              if re.search(r"_ZNSt7__cxx11|_ZStpl|\bsaxpy$", line)
              and " UND " not in line]
    exported = [line for line in dyn.splitlines()
                if re.search(r"_ZNSt7__cxx11|_ZStpl| saxpy$", line)]
    visible = [line for line in sym.splitlines()
               if re.search(r"_ZNSt7__cxx11|_ZStpl|\bsaxpy$", line)
               and " UND " not in line and " DEFAULT " in line
               and (" GLOBAL " in line or " WEAK " in line)]
    t.record("cli: nothing the student's object defines is exported from "
             "the step program (its std::string copies and the launcher "
             "are hidden or local)",
             len(copies) >= 2 and not exported and not visible,
             "copies=%s exported=%s visible=%s" % (copies[:6], exported,
                                                   visible[:4]))


def judge_without_gpu(t, state):
    """The step program is two processes (common/harness.h): without a GPU
    the judge reports one no_device error and exits 3, and the student's
    process it forked before any CUDA call does not outlive it (it dies
    with its parent); --in-process gives the same answer in one process.
    With strace on the machine, also: a socketpair, a fork, the child's
    PR_SET_PDEATHSIG and descriptors closed, the judge not dumpable."""
    env = dict(NO_GPU, CUDALAB_STATE=state)
    rc, events, _ = hu.grade(["test", "saxpy", "--step", "v1", "--src",
                              os.path.join(hu.ROOT, "solutions", "saxpy"),
                              "--build-only"], env=env)
    exes = [x.get("exe") for x in events if x.get("event") == "compile"
            and x.get("step") == "v1" and x.get("exe")]
    if not exes:
        t.record("cli: the judge without a GPU: the step builds", False,
                 "rc=%d %s" % (rc, events[-3:]))
        return
    exe = os.path.realpath(exes[-1])
    nodev = {"CUDA_VISIBLE_DEVICES": ""}
    registration_after_fork(t, exe)
    student_symbols_not_exported(t, state)

    def leftovers():
        left = []
        for pid in os.listdir("/proc"):
            try:
                if os.path.realpath("/proc/%s/exe" % pid) == exe:
                    left.append(pid)
            except OSError:
                pass
        return left

    for extra in ([], ["--in-process"]):
        rc, out, err = hu.run([exe, "--result-fd", "1"] + extra, env=nodev,
                              timeout=60)
        evs = [json.loads(x) for x in out.splitlines() if x.startswith("{")]
        time.sleep(0.5)
        left = leftovers()
        t.record("cli: the judge without a GPU%s: one no_device error, exit "
                 "3, no process of the step left" % (
                     " (--in-process)" if extra else ""),
                 rc == 3 and [e.get("kind") for e in evs] == ["no_device"]
                 and not left,
                 "rc=%d events=%s left=%s %s" % (rc, evs, left, err[-300:]))
    strace = shutil.which("strace")
    if not strace:
        return
    log = os.path.join(state, "judge.strace")
    hu.run([strace, "-f", "-o", log, "-e",
            "trace=socketpair,clone,clone3,fork,prctl,close_range",
            exe, "--result-fd", "1"], env=nodev, timeout=60)
    text = open(log).read() if os.path.exists(log) else ""
    t.record("cli: the judge forks its student's process before CUDA: "
             "socketpair, PR_SET_DUMPABLE 0 in the judge, PR_SET_PDEATHSIG "
             "and descriptors closed in the child",
             "socketpair(AF_UNIX, SOCK_SEQPACKET" in text
             and "PR_SET_DUMPABLE" in text and "PR_SET_PDEATHSIG" in text
             and ("close_range(4" in text or "close(4)" in text),
             text[-1500:])


def gpu_parts_bad_input(t):
    """tests/gpu_parts.py (the GPU suite a part at a time) lists the parts
    of test_gpu.PARTS and refuses a part it does not know, naming it,
    before anything runs."""
    tool = [sys.executable, os.path.join(hu.ROOT, "tests", "gpu_parts.py")]
    rc, o, e = hu.run(tool + ["--list"])
    t.record("cli: gpu_parts --list names the GPU suite's parts",
             rc == 0 and o.split()[:2] == ["coalescing", "saxpy"]
             and "server" in o.split(), o + e)
    with hu.Scratch() as s:
        out = os.path.join(s.path, "logs")
        rc, o, e = hu.run(tool + [out, "saxpy", "saxpi"])
        t.record("cli: gpu_parts with an unknown part: exit 2, names it, "
                 "runs nothing", rc == 2 and "unknown: saxpi" in e
                 and not os.path.exists(out), "rc=%d %s" % (rc, o + e))
        rc, o, e = hu.run(tool + [out])
        t.record("cli: gpu_parts with no part: exit 2, says what to give",
                 rc == 2 and "name the parts" in e, "rc=%d %s" % (rc, o + e))


def fixture_headers(t):
    """Every planted bug and planted attack says the step it is graded as,
    the verdict it must get and the message that names what was detected
    (a fixture without them is silently left out of every suite that
    grades fixtures: the two byte-order-mark attacks were, until their
    first line was allowed to be the attack)."""
    base = os.path.join(hu.ROOT, "tests", "fixtures")
    verdicts = {"pass", "fail", "rejected", "compile_error", "crash",
                "timeout", "not_graded"}
    bad, count = [], 0
    for top in (base, os.path.join(base, "attacks")):
        for lab in sorted(os.listdir(top)):
            manifest = os.path.join(hu.ROOT, "labs", lab, "lab.json")
            if not os.path.exists(manifest):
                continue
            with open(manifest) as f:
                steps = {s["id"] for s in json.load(f)["steps"]}
            for name in sorted(os.listdir(os.path.join(top, lab))):
                if not name.endswith(".cu"):
                    continue
                count += 1
                want = hu.fixture_expectations(os.path.join(top, lab, name))
                if (want.get("step") not in steps or "message" not in want
                        or not set(want.get("verdict", "").split("|"))
                        <= verdicts or not want.get("verdict")):
                    bad.append("%s/%s %s" % (lab, name, want))
    t.record("cli: every planted fixture (%d) names its step, verdict and "
             "message" % count, count > 100 and not bad, "; ".join(bad))


def run(t):
    state = tempfile.mkdtemp(prefix="cudalab-state-")
    try:
        help_texts(t)
        fixture_headers(t)
        bad_input(t)
        no_gpu_path(t, state)
        every_file_compiles(t, state)
        arch_targets(t, state)
        json_stream(t, state)
        results_files(t, state)
        compile_errors_without_gpu(t, state)
        rejected_without_gpu(t, state)
        judge_without_gpu(t, state)
        forged_compiler_facts(t, state)
        harmless_code_builds(t, state)
        compile_error_fixtures_without_gpu(t, state)
        no_gpu_feedback(t, state)
        docs_from_lab_json(t)
        newcomer_commands(t, state)
        static_checks_of_solutions(t, state)
        class_grading(t, state)
        gradebook_whole_characters(t, state)
        grade_resume_keeps_own_results(t, state)
        sandbox_policy(t, state)
        explain(t, state)
        variants_plot(t)
        class_commands_bad_input(t)
        missing_step_file(t, state)
        build_cache(t, state)
        broken_manifest(t)
        setup_messages(t)
        record_table(t)
        dashboard_bad_input(t)
        gpu_parts_bad_input(t)
    finally:
        shutil.rmtree(state, ignore_errors=True)
