"""Dashboard suite: the real cudalab-ui under tmux, fed recorded event
streams (tests/fixtures/ui/*.jsonl, real runs on an H100 plus a no-GPU run,
a truncated one and garbage). Asserts on captured screens at 80x24 and
larger, after a resize, and that the terminal is restored after q, Ctrl-C,
a dead stream and a crashed grader. Skipped (and counted) without tmux.
"""
import os
import re
import shutil
import subprocess
import tempfile
import time

import harness_util as hu

UI = os.path.join(hu.ROOT, "build", "cudalab-ui")
FIX = os.path.join(hu.ROOT, "tests", "fixtures", "ui")


class Pane:
    """One tmux session running one command."""

    def __init__(self, command, cols=80, rows=24, env=None):
        self.name = "cudalab-test-%d" % os.getpid()
        self.sock = os.path.join(tempfile.gettempdir(), self.name + ".sock")
        envs = " ".join("%s=%s" % kv for kv in (env or {}).items())
        shell = "cd %s && export LANG=C.UTF-8 TERM=xterm-256color %s && %s" % (
            hu.ROOT, envs, command)
        self.tmux("new-session", "-d", "-s", self.name, "-x", str(cols),
                  "-y", str(rows), shell)

    def tmux(self, *args):
        return subprocess.run(["tmux", "-S", self.sock] + list(args),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, timeout=20)

    def screen(self, escapes=False):
        args = ["capture-pane", "-p", "-t", self.name]
        if escapes:
            args.insert(2, "-e")
        return self.tmux(*args).stdout

    def keys(self, *keys):
        self.tmux("send-keys", "-t", self.name, *keys)

    def wait_for(self, text, timeout=10):
        end = time.time() + timeout
        while time.time() < end:
            s = self.screen()
            if text in s:
                return s
            time.sleep(0.1)
        return self.screen()

    def resize(self, cols, rows):
        self.tmux("resize-window", "-t", self.name, "-x", str(cols), "-y",
                  str(rows))

    def close(self):
        self.tmux("kill-server")
        try:
            os.unlink(self.sock)
        except OSError:
            pass


def replay(name, cols=80, rows=24, after="", env=None):
    cmd = "%s --replay %s; %s sleep 60" % (UI, os.path.join(FIX, name), after)
    return Pane(cmd, cols, rows, env)


def bar_markers(screen, glyph="┃"):
    """{step id: (first bar column, marker column)} from a steps screen."""
    out = {}
    for line in screen.splitlines():
        m = re.match(r"^(v\d)\s", line)
        if m and glyph in line:
            start = min(i for i, ch in enumerate(line) if ch in "█▏▎▍▌▋▊▉·")
            out[m.group(1)] = (start, line.index(glyph))
    return out


def passing_run(t):
    p = replay("pass.jsonl")
    try:
        s = p.wait_for("PASS: 5 passed")
        lines = s.splitlines()
        t.record("ui: 80x24 replay of a passing run: every step PASS with "
                 "time, GB/s, % and speedup",
                 len(lines) == 24 and all("PASS" in l for l in lines[4:9])
                 and "299.0µs  2693" in s and "91.4%  1.00×" in s
                 and "PASS: 5 passed, 0 failed" in s, s)
        t.record("ui: header shows GPU, copy ceiling, SMs, CC, driver",
                 "NVIDIA H100 80GB HBM3 · copy 2946 GB/s · 132 SMs · CC 9.0"
                 in s, s)
        marks = bar_markers(s)
        ok = set(marks) == {"v1", "v2", "v3", "v4", "v5"}
        if ok:
            # thresholds 60, 80, 80, 80, 90 % of copy, on one scale
            w1 = marks["v1"][1] - marks["v1"][0]
            w2 = marks["v2"][1] - marks["v2"][0]
            w5 = marks["v5"][1] - marks["v5"][0]
            ok = (w1 < w2 < w5 and abs(w1 / w2 - 60 / 80) < 0.1
                  and marks["v2"][1] == marks["v3"][1] == marks["v4"][1])
        t.record("ui: the threshold marker sits at each step's threshold "
                 "(60 < 80 = 80 = 80 < 90)", ok, "%s\n%s" % (marks, s))
        p.keys("Enter")
        s = p.wait_for("Checks (measured")
        t.record("ui: Enter opens the details: checks with measured values, "
                 "resources, launch, PTX, hint",
                 "ok   pct_of_copy: 91.43 % of copy, needs >= 60" in s
                 and "Resources" in s and "Launch at the timed size" in s,
                 s)
        p.keys("Escape")
        s = p.wait_for("PASS: 5 passed")
        p.keys("j", "j")
        time.sleep(0.3)
        s = p.screen()
        t.record("ui: Esc returns to the steps; j moves the selection",
                 "PASS: 5 passed" in s and "v3: correct" in s, s)
        p.keys("?")
        s = p.wait_for("Keys")
        t.record("ui: ? shows the keys", "rerun the selected step" in s, s)
        p.keys("x")
        s = p.wait_for("PASS: 5 passed")
        p.keys("r")
        s = p.wait_for("not available in a replay")
        t.record("ui: r in a replay says why it cannot rerun",
                 "rerun is not available in a replay" in s, s)
    finally:
        p.close()


def details_scroll(t):
    p = replay("compile_error.jsonl", cols=80, rows=10)
    try:
        p.wait_for("COMPILE ERR")
        p.keys("Enter")
        s1 = p.wait_for("lines 1-")
        p.keys("PgDn")
        time.sleep(0.4)
        s2 = p.screen()
        t.record("ui: details longer than the screen scroll with PgDn, to "
                 "the hint",
                 "One thread per element" not in s1
                 and "One thread per element" in s2
                 and "lines 1-" in s1 and "lines 1-" not in s2,
                 s1 + "\n---\n" + s2)
    finally:
        p.close()


def sizes_and_resize(t):
    p = replay("pass.jsonl", cols=130, rows=40)
    try:
        s = p.wait_for("PASS: 5 passed")
        lines = s.splitlines()
        t.record("ui: 130x40 uses the room: full titles, wider bars",
                 len(lines) == 40 and "naive, one element per thread" in s
                 and "% of copy  (┃ threshold)" in s, s)
        wide = bar_markers(s)
        p.resize(80, 24)
        time.sleep(0.8)
        s = p.screen()
        narrow = bar_markers(s)
        t.record("ui: after a resize to 80x24 it redraws to fit",
                 len(s.splitlines()) == 24 and "naive, one eleme" in s
                 and "naive, one element per thread" not in s
                 and narrow and wide
                 and narrow["v1"][1] < wide["v1"][1]
                 and "PASS: 5 passed" in s, s)
    finally:
        p.close()


def outcomes(t):
    cases = [
        ("compile_error.jsonl", ["COMPILE ERR",
                                 "saxpy_v1.cu:11: identifier \"yy\" is"]),
        ("wrong_result.jsonl", ["FAIL", "never written", "index 0"]),
        ("timeout.jsonl", ["TIMEOUT", "was killed"]),
        ("crash.jsonl", ["CRASH", "illegal memory access"]),
        ("no_gpu.jsonl", ["no CUDA device", "NOT GRADED", "NOT GRADED: 0 "
                          "passed"]),
        ("starters.jsonl", ["TODO", "saxpy_v2.cu", "CUDALAB_TODO()"]),
    ]
    for name, want in cases:
        keys = ["j"] if name == "starters.jsonl" else []
        p = replay(name)
        try:
            p.wait_for(want[0])
            s = p.wait_for(want[-1] if not keys else want[0])
            if keys:
                p.keys(*keys)
                time.sleep(0.3)
                s = p.screen()
            t.record("ui: %s shows %s" % (name, ", ".join(want)),
                     all(w in s for w in want), s)
        finally:
            p.close()


def broken_streams(t):
    p = replay("truncated.jsonl")
    try:
        s = p.wait_for("ended before the run finished")
        t.record("ui: a truncated stream is reported, the step in progress "
                 "is INCOMPLETE, no crash",
                 "the event stream ended before the run finished" in s
                 and "INCOMPLETE" in s, s)
    finally:
        p.close()
    p = replay("garbage.jsonl")
    try:
        s = p.wait_for("malformed line")
        t.record("ui: garbage lines are reported, not fatal",
                 "ignored a malformed line 1 of the event stream: not JSON"
                 in s, s)
    finally:
        p.close()


def stty_after(t, label, start_cmd, keys, env=None, wait_text=None):
    out = tempfile.mktemp(prefix="cudalab-stty-")
    p = Pane("%s; echo EXIT=$? > %s.rc; stty -a > %s; sleep 60"
             % (start_cmd, out, out), env=env)
    try:
        if wait_text:
            p.wait_for(wait_text)
        else:
            time.sleep(1.0)
        p.keys(*keys)
        end = time.time() + 10
        while time.time() < end and not os.path.exists(out):
            time.sleep(0.1)
        time.sleep(0.3)
        stty = open(out).read() if os.path.exists(out) else ""
        rc = open(out + ".rc").read().strip() if os.path.exists(
            out + ".rc") else "?"
        s = p.screen()
        t.record("ui: terminal restored after %s (echo, icanon; %s)"
                 % (label, rc),
                 re.search(r"(^|\s)echo(\s|$)", stty) is not None
                 and re.search(r"(^|\s)icanon(\s|$)", stty) is not None
                 and "↑↓/jk move" not in s, "stty: %s\nscreen:\n%s"
                 % (stty[:400], s))
        return rc
    finally:
        p.close()
        for f in (out, out + ".rc"):
            if os.path.exists(f):
                os.unlink(f)


def terminal_restored(t):
    pass_log = os.path.join(FIX, "pass.jsonl")
    stty_after(t, "q", "%s --replay %s" % (UI, pass_log), ["q"],
               wait_text="PASS: 5 passed")
    rc = stty_after(t, "Ctrl-C", "%s --replay %s" % (UI, pass_log), ["C-c"],
                    wait_text="PASS: 5 passed")
    t.record("ui: Ctrl-C exits with 130", rc == "EXIT=130", rc)
    stty_after(t, "the stream dies (then q)",
               "(head -n 40 %s; sleep 0.5) | %s --replay -" % (pass_log, UI),
               ["q"], wait_text="ended before the run finished")
    fake = os.path.join(hu.ROOT, "tests", "programs", "fake_grader.sh")
    out = tempfile.mktemp(prefix="cudalab-fake-")
    p = Pane("%s --grader %s --root %s --lab saxpy; echo EXIT=$? > %s; sleep 60"
             % (UI, fake, hu.ROOT, out),
             env={"FAKE_EVENTS": pass_log})
    try:
        s = p.wait_for("ended before the run finished")
        t.record("ui: a crashed grader: its last words on screen, still "
                 "responsive",
                 "fake grader: segmentation fault" in s, s)
        p.keys("q")
        # the shell creates the file before echo writes it: wait for a
        # whole line, not for the file
        end, said = time.time() + 5, ""
        while time.time() < end and not said.endswith("\n"):
            time.sleep(0.1)
            if os.path.exists(out):
                with open(out) as f:
                    said = f.read()
        t.record("ui: quitting after a crashed grader returns its status "
                 "(139)", said.strip() == "EXIT=139", said or "no exit")
    finally:
        p.close()
        if os.path.exists(out):
            os.unlink(out)


def rerun_keys(t):
    fake = os.path.join(hu.ROOT, "tests", "programs", "fake_grader.sh")
    log = tempfile.mktemp(prefix="cudalab-fakelog-")
    p = Pane("%s --grader %s --root %s --lab saxpy -- --src /somewhere; "
             "sleep 60" % (UI, fake, hu.ROOT),
             env={"FAKE_EVENTS": os.path.join(FIX, "pass.jsonl"),
                  "FAKE_MODE": "complete", "FAKE_LOG": log})
    try:
        p.wait_for("PASS: 5 passed")
        p.keys("j", "j", "r")
        time.sleep(1.0)
        p.wait_for("PASS: 5 passed")
        p.keys("R")
        time.sleep(1.0)
        s = p.wait_for("PASS: 5 passed")
        calls = open(log).read().splitlines() if os.path.exists(log) else []
        t.record("ui: live mode runs the grader, r reruns the selected "
                 "step, R the lab (grader options kept)",
                 len(calls) == 3
                 and calls[0] == "--root %s test saxpy --src /somewhere "
                                 "--json" % hu.ROOT
                 and "test saxpy --step v3 --src /somewhere --json" in calls[1]
                 and "--step" not in calls[2] and "PASS: 5 passed" in s,
                 "calls: %s\n%s" % (calls, s))
    finally:
        p.close()
        if os.path.exists(log):
            os.unlink(log)


def colour_and_ascii(t):
    p = replay("pass.jsonl")
    try:
        p.wait_for("PASS: 5 passed")
        coloured = p.screen(escapes=True)
    finally:
        p.close()
    p = replay("pass.jsonl", env={"NO_COLOR": "1"})
    try:
        p.wait_for("PASS: 5 passed")
        mono = p.screen(escapes=True)
    finally:
        p.close()
    has_colour = re.compile(r"\x1b\[[0-9;]*3[1-6]m|\x1b\[38;5;\d+m")
    t.record("ui: colours on a colour terminal, none with NO_COLOR",
             has_colour.search(coloured) is not None
             and has_colour.search(mono) is None,
             "coloured has %d colour codes, mono %d" % (
                 len(has_colour.findall(coloured)),
                 len(has_colour.findall(mono))))
    p = Pane("LANG=C LC_ALL=C %s --replay %s; sleep 60"
             % (UI, os.path.join(FIX, "pass.jsonl")))
    try:
        s = p.wait_for("PASS: 5 passed")
        t.record("ui: ASCII bars and markers where the locale is not UTF-8",
                 "#" in s and "|" in s and "█" not in s and "┃" not in s, s)
    finally:
        p.close()


def live_no_gpu(t):
    state = tempfile.mkdtemp(prefix="cudalab-state-")
    p = Pane("python3 run.py test saxpy; echo EXIT=$?; sleep 60",
             env={"CUDALAB_NO_DEVICE": "1", "CUDALAB_STATE": state})
    try:
        s = p.wait_for("NOT GRADED: 0 passed", timeout=120)
        t.record("ui: `run.py test saxpy` in a terminal shows the live "
                 "dashboard, NOT GRADED without a GPU",
                 "no CUDA device" in s and "NOT GRADED: 0 passed" in s
                 and "Labs" in s, s)
        p.keys("e")
        s = p.wait_for("hint ", timeout=120)
        t.record("ui: e explains the selected step in place, without "
                 "leaving the dashboard (its build, and why the counters "
                 "were not measured)",
                 "saxpy_v1.cu:8" in s and "compiler" in s
                 and "counters  not measured: no CUDA device" in s
                 and "Labs" in s and "Esc back to the dashboard" in s
                 and "press Enter" not in s, s)
        p.keys("Escape")
        s = p.wait_for("NOT GRADED: 0 passed")
        t.record("ui: Esc returns from explain to the dashboard",
                 "Labs" in s and "counters  not measured" not in s, s)
        p.keys("q")
        s = p.wait_for("EXIT=")
        t.record("ui: and `run.py test` still exits 3 (not graded)",
                 "EXIT=3" in s, s)
    finally:
        p.close()
        shutil.rmtree(state, ignore_errors=True)


def class_view(t):
    """The class view of a gradebook (tests/fixtures/class: 9 students,
    saxpy v1 and v2, thresholds 60 and 80 % of copy)."""
    book = os.path.join(hu.ROOT, "tests", "fixtures", "class")
    p = Pane("%s --gradebook %s; sleep 60" % (UI, book), 100, 30)
    try:
        s = p.wait_for("class of 9 students")
        # the student list is drawn after the header: on a loaded machine
        # a screen read at once could lack its last names (CI, 2026-11-24)
        s = p.wait_for("eli")
        rows = [l for l in s.splitlines() if l.startswith("saxpy")]
        t.record("ui class: a row per step with passed/submitted and "
                 "min/median/max % of copy",
                 len(rows) == 2 and "5/8" in rows[0]
                 and "40.0  89.0  99.0" in rows[0]
                 and "12.0  85.0 101.0" in rows[1], s)
        # the histogram: 6 measured students on v1; the marker at 60 %
        hist = rows[0][rows[0].index("99.0") + 6:] if rows else ""
        bars = [i for i, ch in enumerate(hist) if ch in "▁▂▃▄▅▆▇█"]
        mark = hist.find("┃")
        axis = [l for l in s.splitlines() if "100%" in l]
        zero = axis[0].index("0%") if axis else -1
        hundred = axis[0].index("100%") if axis else -1
        ok = (len(bars) >= 4 and mark > 0 and bars[0] < mark < bars[1]
              and zero > 0 and hundred > zero)
        if ok:
            # positions against the axis: 60 % sits 0.6 of the way to 100 %
            at = (mark + rows[0].index("99.0") + 6 - zero) / float(
                hundred - zero)
            ok = abs(at - 0.6) < 0.05
        t.record("ui class: histogram bars on both sides of the threshold "
                 "marker, which sits at 60% on the axis", ok,
                 "bars %s mark %s\n%s" % (bars, mark, s))
        t.record("ui class: the selected step's verdict counts and its "
                 "students, best first, unmeasured last",
                 "PASS 5   FAIL 1   CRASH 1   MISSING 1   TIMEOUT 1" in s
                 and s.index("ivy") < s.index("ada") < s.index("cy")
                 < s.index("eli") and "needs >= 60% of copy" in s, s)
        p.keys("j")
        s = p.wait_for("needs >= 80%")
        t.record("ui class: j selects v2: its threshold, counts and list",
                 "coarsened, block-strided" in s
                 and "COMPILE ERR 1" in s and "FAIL 3" in s
                 and s.index("ivy") < s.index("dee") < s.index("ben"), s)
        p.resize(80, 24)
        time.sleep(0.5)
        s = p.screen()
        t.record("ui class: redrawn at 80x24 after a resize",
                 "class of 9 students" in s and "needs >= 80%" in s
                 and max(len(l) for l in s.splitlines()) <= 80, s)
    finally:
        p.close()
    stty_after(t, "q in the class view", "%s --gradebook %s" % (UI, book),
               ["q"], wait_text="class of 9")
    # an absurd figure (a forged timing) must not squash the class's bars
    import json
    with open(os.path.join(book, "gradebook.json")) as f:
        doc = json.load(f)
    doc["students"][0]["labs"]["saxpy"][0]["pct_of_copy"] = 21371.25
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "gradebook.json"), "w") as f:
            json.dump(doc, f)
        r = subprocess.run([UI, "--gradebook", d, "--dump", "20x100"],
                           stdout=subprocess.PIPE, text=True)
    axis = [l for l in r.stdout.splitlines() if "100%" in l]
    t.record("ui class: a value past 200% of copy is shown as 999+ in the "
             "last bin; the scale stays at most 200%",
             r.returncode == 0 and "40.0  89.0  999+" in r.stdout
             and axis and "100%" in axis[0] and "500%" not in axis[0]
             and "999+%" in r.stdout, r.stdout)
    r = subprocess.run([UI, "--gradebook", "/nonexistent"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    t.record("ui class: a missing gradebook is exit 2 with its path",
             r.returncode == 2 and "/nonexistent: no such file" in r.stderr
             and "run.py grade" in r.stderr,
             r.stderr)


def sweep_view(t):
    """A bench run with a PDIST sweep (prefetch on an H100): the details
    of a step show one bar per value, the best marked; the steps table
    shows the speedup over the lab's baseline."""
    log = os.path.join(FIX, "prefetch_bench.jsonl")
    r = subprocess.run([UI, "--replay", log, "--dump", "60x100", "--keys",
                        "j,j,j,j,j,j,Enter,PgDn,PgDn"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    rows = [l for l in r.stdout.splitlines() if l.strip().startswith("PDIST=")]
    best = [l for l in rows if l.rstrip().endswith("best")]
    bars = [l.count("█") for l in rows]
    t.record("ui: a step's details show its PDIST sweep: a bar per value, "
             "the longest one marked best",
             r.returncode == 0 and "PDIST sweep" in r.stdout
             and len(rows) == 8 and len(best) == 1
             and "PDIST=8" in best[0] and max(bars) == best[0].count("█"),
             r.stdout + r.stderr)
    r = subprocess.run([UI, "--replay", log, "--dump", "24x100"],
                       stdout=subprocess.PIPE, text=True)
    t.record("ui: the steps table shows the speedup over the lab's baseline "
             "(v7 2.64x)", "2.64×" in r.stdout and "1.60×" in r.stdout,
             r.stdout)


def explain_key_in_replay(t):
    r = subprocess.run([UI, "--replay", os.path.join(FIX, "pass.jsonl"),
                        "--dump", "24x100", "--keys", "e"],
                       stdout=subprocess.PIPE, text=True)
    t.record("ui: e in a replay says how to explain instead (no grader)",
             "explain needs the grader: `python3 run.py explain saxpy "
             "--step K`" in r.stdout, r.stdout)


def explain_replay(t):
    """A recorded `explain --json` run (explain's events, common/event.h):
    the dashboard shows it in place with `e`, and says the run is complete
    (no "ended before the run finished")."""
    fix = os.path.join(FIX, "explain_saxpy_v1.jsonl")
    r = subprocess.run([UI, "--replay", fix, "--dump", "30x110", "--keys",
                        "e"], stdout=subprocess.PIPE, text=True)
    t.record("ui: a recorded explain run is shown in place with e: the "
             "kernel, the PTX accesses by line, why no counters, the hints "
             "naming the step that fixes them",
             "compiler  saxpy_naive(int, float, float const*, float*)"
             in r.stdout and "saxpy_v1.cu:8" in r.stdout
             and "2x load" in r.stdout
             and "counters  not measured: no CUDA device" in r.stdout
             and "-> step v3" in r.stdout and "Esc back" in r.stdout
             and "ended before the run finished" not in r.stdout, r.stdout)
    r = subprocess.run([UI, "--replay", fix, "--dump", "30x110", "--keys",
                        "e,Esc"], stdout=subprocess.PIPE, text=True)
    t.record("ui: Esc leaves the explain view for the steps; the header "
             "says the explanation is there",
             "explained: e shows it" in r.stdout and "v1" in r.stdout
             and "counters  not measured" not in r.stdout, r.stdout)


def variant_bars(t):
    """A step that times variants (coalescing v2, recorded on the H100):
    the details draw a bar per variant, 30 cells = 100 % of copy."""
    log = os.path.join(FIX, "coalescing-bench.jsonl")
    r = subprocess.run([UI, "--replay", log, "--dump", "50x110", "--keys",
                        "j,Enter"], stdout=subprocess.PIPE, text=True)
    rows = {}
    for line in r.stdout.splitlines():
        m = re.match(r"\s+(stride|offset) (\d+)\s.*%\s+(█*)$", line)
        if m:
            rows["%s %s" % (m.group(1), m.group(2))] = len(m.group(3))
    strides = [rows.get("stride %d" % s, -1) for s in (1, 2, 4, 8, 16, 32)]
    t.record("ui: bandwidth against stride and offset as bars (stride 1 "
             "23 cells for 77.8 %%, falling to 3 at stride 32): %s" % strides,
             len(rows) == 12 and strides == sorted(strides, reverse=True)
             and strides[0] == 23 and strides[-1] == 3
             and rows.get("offset 31") == 23, r.stdout)


def newcomer_views(t):
    """What a newcomer without a GPU meets in the dashboard (issue 18)."""
    labs = os.path.join(FIX, "labs_all.json")
    p = Pane("%s --replay %s --labs %s; sleep 60"
             % (UI, os.path.join(FIX, "no_gpu_static.jsonl"), labs), 100, 30)
    try:
        s = p.wait_for("NOT GRADED: 0 passed")
        rows = {line[:3]: line for line in s.splitlines()}
        t.record("ui: no GPU: a written step reads 'built', a stub 'TODO' "
                 "(from the build, not a run)",
                 "built·no GPU" in rows.get("v1 ", "")
                 and "TODO·no GPU" in rows.get("v2 ", ""), s)
        labs_row = next((x for x in s.splitlines()
                         if x.startswith("Labs")), "")
        t.record("ui: at 100 columns the Labs bar shows all seven labs "
                 "(6 and 7 too)",
                 all(re.search(r"\b%d[ .]" % k, labs_row)
                     for k in range(1, 8)) and "2.saxpy" in labs_row,
                 labs_row)
        t.record("ui: a replay is labelled as a replay",
                 "replay of no_gpu_static.jsonl" in s.splitlines()[0], s)
        p.keys("Enter")
        s = p.wait_for("Checks")
        t.record("ui: details say NOT GRADED once, not 'NOT GRADED: NOT "
                 "GRADED:'", "NOT GRADED: no CUDA device" in s
                 and "NOT GRADED: NOT GRADED" not in s, s)
        t.record("ui: details of a written step without a GPU: 'builds', "
                 "the timing check marked as needing a GPU, the kernel "
                 "demangled",
                 "builds; without a GPU" in s
                 and re.search(r"GPU +pct_of_copy needs a GPU", s)
                 and "saxpy_naive(int, float, float const*, float*)" in s
                 and "_Z11" not in s, s)
        p.keys("Escape")
        p.keys("j", "j")
        p.keys("Enter")
        s = p.wait_for("Checks")
        t.record("ui: details of v3 without a GPU: its static check judged "
                 "(ptx_nc_loads ok)",
                 re.search(r"ok +ptx_nc_loads: \d+, needs >= 1", s), s)
        p.keys("Escape")
        p.keys("?")
        s = p.wait_for("Keys")
        t.record("ui: ? lists ←/→ (switch labs)", "← →" in s, s)
    finally:
        p.close()
    p = Pane("%s --replay %s --labs %s; sleep 60"
             % (UI, os.path.join(FIX, "haxpy_no_gpu.jsonl"), labs), 80, 24)
    try:
        s = p.wait_for("NOT GRADED: 0 passed")
        row = next((x for x in s.splitlines() if x.startswith("haxpy")), "")
        t.record("ui: the haxpy step id does not run into its title",
                 row.startswith("haxpy peel"), s)
    finally:
        p.close()
    fake = os.path.join(hu.ROOT, "tests", "programs", "fake_grader.sh")
    p = Pane("%s --grader %s --root %s --lab saxpy; sleep 60"
             % (UI, fake, hu.ROOT),
             env={"FAKE_EVENTS": os.path.join(FIX, "no_gpu_static.jsonl"),
                  "FAKE_STEP_EVENTS": os.path.join(FIX,
                                                   "no_gpu_rerun_v2.jsonl"),
                  "FAKE_MODE": "complete"})
    try:
        p.wait_for("NOT GRADED: 0 passed")
        p.keys("j", "r")
        time.sleep(1.0)
        s = p.wait_for("not graded of")
        t.record("ui: after r (one step rerun) the footer counts every "
                 "step, not only the rerun one",
                 "0 passed, 0 failed, 5 not graded of 5" in s, s)
    finally:
        p.close()


def run(t):
    sweep_view(t)
    variant_bars(t)
    explain_key_in_replay(t)
    explain_replay(t)
    if not shutil.which("tmux"):
        t.skip("ui suite", "tmux is not installed")
        return
    passing_run(t)
    details_scroll(t)
    sizes_and_resize(t)
    outcomes(t)
    broken_streams(t)
    terminal_restored(t)
    rerun_keys(t)
    colour_and_ascii(t)
    live_no_gpu(t)
    newcomer_views(t)
    class_view(t)
