#!/usr/bin/env python3
"""cudalab — the one command a student or instructor needs.

    python3 run.py test [LAB] [--step K]   build, check and time your kernels
    python3 run.py bench [LAB]             longer measurement + vendor library
    python3 run.py list                    the labs and your progress
    python3 run.py device                  this GPU and its copy bandwidth
    python3 run.py record LAB              write the last bench table into
                                           the READMEs
    python3 run.py docs                    write each lab README's checks
                                           table from its lab.json
    python3 run.py show [FILE]             replay a saved run in the dashboard
    python3 run.py                         the workshop: the dashboard
    python3 run.py setup                   check/install system packages
    python3 run.py help [COMMAND]          the commands, or one's options
    python3 run.py login URL               a workshop server's token
    python3 run.py test LAB --remote       grade on the workshop server
    python3 run.py serve --roster F.csv    run the workshop server

Every command builds what is missing first (make) and installs missing system
packages when run as root, or prints the one apt-get command to run.
Python 3 standard library only.
"""
import argparse
import hashlib
import difflib
import json
import math
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.abspath(__file__))
GRADER = os.path.join(ROOT, "build", "cudalab-grader")
UI = os.path.join(ROOT, "build", "cudalab-ui")
# Where make builds (None: build/ of the checkout, make's default); set by
# locate() for a checkout the user cannot write.
MAKE_BUILD = None
PREBUILT = False


def _writable(path, parent):
    if os.path.exists(path):
        return os.access(path, os.W_OK | os.X_OK)
    return os.access(parent, os.W_OK | os.X_OK)


def build_dir():
    """Where cudalab builds and compiles: $CUDALAB_BUILD, else build/ of
    the checkout when the user can write it, else a per-user folder named
    after the checkout's path ($XDG_CACHE_HOME/cudalab/HASH). The grader
    takes it (CUDALAB_BUILD) and keeps its state beside (grader/paths.h)."""
    if os.environ.get("CUDALAB_BUILD"):
        return os.path.abspath(os.environ["CUDALAB_BUILD"])
    mine = os.path.join(ROOT, "build")
    if _writable(mine, ROOT):
        return mine
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(
        os.path.expanduser("~"), ".cache")
    key = hashlib.sha256(ROOT.encode("utf-8", "surrogateescape")).hexdigest()
    return os.path.join(cache, "cudalab", key[:12])


def locate():
    """Pick the build folder and the programs to run, once per command: a
    read-only checkout that ships its programs (build/ already made) is
    used as it is, with outputs in the per-user folder; one that does not
    is built there. Says so the first time."""
    global GRADER, UI, MAKE_BUILD, PREBUILT
    out = build_dir()
    shipped = os.path.join(ROOT, "build")
    os.environ["CUDALAB_BUILD"] = out
    if out == shipped:
        return
    PREBUILT = not _writable(shipped, ROOT) and all(
        os.access(os.path.join(shipped, b), os.X_OK)
        for b in ("cudalab-grader", "cudalab-ui", "devprobe"))
    if not PREBUILT:
        MAKE_BUILD = out
        GRADER = os.path.join(out, "cudalab-grader")
        UI = os.path.join(out, "cudalab-ui")
    marker = os.path.join(out, ".told")
    if os.path.exists(marker):
        return
    try:
        os.makedirs(out, exist_ok=True)
        open(marker, "w").close()
    except OSError as e:
        print("cudalab: cannot create the build folder %s: %s (set "
              "CUDALAB_BUILD to a folder you can write)" % (out, e),
              file=sys.stderr)
        return
    print("cudalab: %s is not writable for you, so %sbuild outputs and "
          "your progress go to %s (once per checkout; CUDALAB_BUILD=DIR "
          "chooses another folder)"
          % (ROOT, "cudalab's programs are used as installed; " if PREBUILT
             else "", out), file=sys.stderr)

# (Debian package, a header it provides): what the C code needs to build.
PACKAGES = [
    ("libjansson-dev", "jansson.h"),
    ("libncurses-dev", "ncurses.h"),
]
# (Debian package, a program it provides): what `make test` needs besides
# (the dashboard's tests drive the real program under tmux; the sandbox's
# tests run programs under bubblewrap).
TEST_PACKAGES = [
    ("tmux", "tmux"),
    ("bubblewrap", "bwrap"),
    ("chromium", "chromium"),  # the workshop server's status page test
    ("munge", "munged"),        # its --slurm test: a single-node Slurm
    ("slurmctld", "slurmctld"),
    ("slurmd", "slurmd"),
    ("slurm-client", "srun"),
]


def include_dirs():
    """Where the C compiler looks for headers: CPATH and friends, then /usr."""
    override = os.environ.get("CUDALAB_INCLUDE_DIRS")  # tests only
    if override is not None:
        return [d for d in override.split(":") if d]
    dirs = []
    for var in ("CPATH", "C_INCLUDE_PATH"):
        dirs += [d for d in os.environ.get(var, "").split(":") if d]
    return dirs + ["/usr/local/include", "/usr/include"]


def missing_packages(for_tests=False):
    dirs = include_dirs()
    missing = [pkg for pkg, header in PACKAGES
               if not any(os.path.exists(os.path.join(d, header))
                          for d in dirs)]
    if for_tests:
        missing += [pkg for pkg, program in TEST_PACKAGES
                    if not shutil.which(program)]
    return missing


def is_root():
    if os.environ.get("CUDALAB_PRETEND_USER"):  # tests only
        return False
    return os.geteuid() == 0


def setup(quiet=False, for_tests=False):
    """Make sure the toolchain and packages are there. Returns an exit code.
    CUDALAB_CLIENT_BUILD=1: only the workshop client's build (the grader's
    list/report and the dashboard, plain C): nvcc is not needed."""
    if not shutil.which("nvcc") and not os.environ.get("CUDALAB_CLIENT_BUILD"):
        print("cudalab: nvcc not found on PATH: install the CUDA Toolkit and "
              "add its bin/ folder to PATH (e.g. export "
              "PATH=/usr/local/cuda/bin:$PATH)", file=sys.stderr)
        return 1
    missing = missing_packages(for_tests)
    if not missing:
        if not quiet:
            print("cudalab: set-up complete (nvcc, %s)"
                  % ", ".join(p for p, _ in PACKAGES))
        return 0
    command = "apt-get install -y " + " ".join(missing)
    if not is_root():
        print("cudalab: missing system packages: %s\nrun this once, then "
              "try again:\n  sudo %s" % (", ".join(missing), command),
              file=sys.stderr)
        return 1
    print("cudalab: installing %s ..." % ", ".join(missing), file=sys.stderr)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    rc = subprocess.call(["apt-get", "install", "-y", "-qq"] + missing,
                         env=env, stdout=subprocess.DEVNULL)
    if rc != 0:  # stale or empty package lists: refresh once
        subprocess.call(["apt-get", "update", "-qq"], env=env)
        rc = subprocess.call(["apt-get", "install", "-y", "-qq"] + missing,
                             env=env, stdout=subprocess.DEVNULL)
    if rc != 0 or missing_packages(for_tests):
        print("cudalab: could not install %s; try: %s"
              % (", ".join(missing), command), file=sys.stderr)
        return 1
    return 0


def build():
    """Build what changed. Returns an exit code; prints make's output on error."""
    rc = setup(quiet=True)
    if rc:
        return rc
    announce_first_build()
    if PREBUILT:  # a read-only install with its programs: nothing to make
        return 0
    make = ["make", "-s", "-C", ROOT]
    if MAKE_BUILD:
        make.append("BUILD=" + MAKE_BUILD)
    proc = subprocess.run(make + ["all"],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout)
        print("cudalab: the build failed (above); this is a problem with "
              "cudalab itself, not with your kernels", file=sys.stderr)
        return 4
    return 0


def announce_first_build():
    """Say what the first build's silence is (the grader, the dashboard and
    the device probe compile once, ~15 s on two cores)."""
    missing = [p for p in (GRADER, UI, os.path.join(ROOT, "build",
                                                     "devprobe"))
               if not os.path.exists(p)]
    if missing:
        print("cudalab: building the grader, the dashboard and the device "
              "probe (once; about 15 s) ...", file=sys.stderr, flush=True)


def resolve_lab(name):
    """The lab a user meant: its name, any case (SAXPY), or the number
    `list` shows (2). Returns (lab, None), or (None, why) with the labs and
    a "did you mean" when the name is close to one."""
    labs = lab_manifests()
    if name in labs:
        return name, None
    order = {str(m.get("order")): n for n, m in labs.items()}
    lower = {n.lower(): n for n in labs}
    if name.strip().rstrip(".") in order:
        return order[name.strip().rstrip(".")], None
    if name.lower() in lower:
        return lower[name.lower()], None
    near = difflib.get_close_matches(name.lower(), list(lower), n=1,
                                     cutoff=0.6)
    listing = ", ".join("%s. %s" % (m.get("order"), n)
                        for n, m in labs.items())
    return None, ("no lab called \"%s\"%s (labs: %s; a lab's number "
                  "works too)" % (name, "; did you mean %s?" % lower[near[0]]
                                  if near else "", listing))


def one_step(args):
    """--step may be given once: the grader runs one step, or the whole
    lab. Returns an error message, or None (args.step is then one value)."""
    steps = getattr(args, "step", None)
    if isinstance(steps, list):
        if len(steps) > 1:
            return ("--step given %d times (%s): a run checks one step, or "
                    "the whole lab without --step; run the steps one after "
                    "the other" % (len(steps), ", ".join(steps)))
        args.step = steps[0]
    return None


def worse_exit(a, b):
    """The exit status that says more of two labs' runs: 4 (grader error) >
    2 (usage) > 1 (fail) > 3 (not graded) > 0 (pass); an unknown one wins."""
    rank = {0: 0, 3: 1, 1: 2, 2: 3, 4: 4}
    return b if rank.get(b, 5) > rank.get(a, 5) else a


def print_summary(command, results, to):
    """After `run.py test` (or bench): every lab's passed/total and verdict,
    and where the results are kept."""
    listing = subprocess.run([GRADER, "--root", ROOT, "list", "--json"],
                             stdout=subprocess.PIPE, text=True,
                             env=dict(os.environ))
    try:
        labs = {lab["name"]: lab for lab in json.loads(listing.stdout)}
    except ValueError:
        labs = {}
    words = {0: "PASS", 1: "FAIL", 2: "USAGE ERROR", 3: "NOT GRADED",
             4: "GRADER ERROR"}
    lines = [""]
    if len(results) > 1:
        lines.append("summary of `run.py %s`:" % command)
    for name, rc in results if len(results) > 1 else []:
        lab = labs.get(name, {})
        lines.append("  %-3s %-11s %d/%d step(s) passed   %s" % (
            "%s." % lab.get("order", "?"), name, lab.get("passed", 0),
            lab.get("steps", 0), words.get(rc, "exit %d" % rc)))
    state = state_dir()
    shown = (os.path.relpath(state) if state.startswith(os.getcwd() + os.sep)
             else state)
    lines.append("results kept in %s/: results/LAB.json (the last verdict "
                 "of each step), history.jsonl (every run), "
                 "runs/LAB-last.jsonl (the last run's events: `python3 "
                 "run.py show`)" % shown)
    print("\n".join(lines), file=to)


def commit_id():
    """The checkout's commit, "-dirty" when tracked files changed."""
    if os.environ.get("CUDALAB_COMMIT"):
        return os.environ["CUDALAB_COMMIT"]
    try:
        head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short=10",
                               "HEAD"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
        if head.returncode != 0:
            return "unknown"
        dirty = subprocess.call(["git", "-C", ROOT, "diff", "--quiet", "HEAD"],
                                stderr=subprocess.DEVNULL)
        return head.stdout.strip() + ("-dirty" if dirty else "")
    except OSError:
        return "unknown"


def grader(*args):
    env = dict(os.environ, CUDALAB_COMMIT=commit_id())
    return subprocess.call([GRADER, "--root", ROOT] + list(args), env=env)


_STATE = []


def state_dir():
    """The grader's state folder: the grader decides (grader/paths.h);
    before it is built, $CUDALAB_STATE or the checkout's .cudalab."""
    if not _STATE:
        try:
            out = subprocess.run([GRADER, "--root", ROOT, "paths"],
                                 stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, text=True).stdout
            _STATE.append(json.loads(out)["state"])
        except (OSError, ValueError, KeyError):
            return (os.environ.get("CUDALAB_STATE")
                    or os.path.join(ROOT, ".cudalab"))
    return _STATE[0]


MARK_BEGIN = "<!-- cudalab:results %s -->"
MARK_END = "<!-- /cudalab:results -->"
# One table per lab and GPU: "<!-- cudalab:results LAB @ GPU NAME -->". A
# block without "@" is a table recorded before there was one per GPU.
MARK_GPU = "<!-- cudalab:results %s @ %s -->"


def place_table(text, lab, gpu, table):
    """text with the table of (lab, gpu) put in its block: the block of
    that GPU if there is one (or an older block without a GPU whose table
    names it), else a new block after the lab's last block. None when the
    text has no block of the lab at all."""
    own = MARK_GPU % (lab, gpu)
    legacy = MARK_BEGIN % lab
    mark = None
    if own in text:
        mark = own
    elif legacy in text:
        old = text.split(legacy, 1)[1].split(MARK_END, 1)[0]
        if ("**%s**" % gpu) in old or "**" not in old:
            mark = legacy
    if mark:
        head, rest = text.split(mark, 1)
        _, tail = rest.split(MARK_END, 1)
        return head + own + "\n" + table + "\n" + MARK_END + tail
    starts = [i for i in range(len(text))
              if text.startswith(MARK_BEGIN[:-4] % lab, i)
              and text[i + len(MARK_BEGIN[:-4] % lab)] in " @-"]
    if not starts:
        return None
    end = text.index(MARK_END, starts[-1]) + len(MARK_END)
    return (text[:end] + "\n\n" + own + "\n" + table + "\n" + MARK_END
            + text[end:])


def bench_source(begin):
    """The step files' folder of a run (its run_begin "source"), as the
    `--src` a reader can type: relative to the checkout when inside it."""
    src = begin.get("source") or os.path.join("labs", begin.get("lab", "?"))
    if os.path.isabs(src):
        rel = os.path.relpath(src, ROOT)
        src = src if rel.startswith("..") else rel
    return '"%s"' % src if any(c.isspace() for c in src) else src


def not_measured(events):
    """Why a bench log must not become a README table (None when it may):
    no device, a step not graded or never finished, no timing at all."""
    begin = next((e for e in events if e.get("event") == "run_begin"), {})
    device = next((e for e in events if e.get("event") == "device"), None)
    if device is None or not device.get("available"):
        return "no CUDA device answered (%s)" % (
            (device or {}).get("reason") or "no device event")
    ends = {e.get("step"): e for e in events if e.get("event") == "step_end"}
    missing = [s["id"] for s in begin.get("steps", []) if s["id"] not in ends]
    if missing:
        return "step(s) %s did not finish (a partial run)" % ", ".join(missing)
    ungraded = [s for s, e in ends.items() if e.get("verdict") == "not_graded"]
    if ungraded:
        return "step(s) %s were NOT GRADED" % ", ".join(ungraded)
    if not any(e.get("event") == "timing" for e in events):
        return "nothing was timed"
    if not any(e.get("event") == "run_end" for e in events):
        return "the run did not end (interrupted)"
    return None


def timing_plan(timings):
    """How the figures were timed, from the timing events: rounds of fixed
    repetitions, or the stopping rule's count (harness.h)."""
    if not timings:
        return "nothing was timed"
    if any("stop" in t for t in timings):
        reps = [t.get("reps", 0) for t in timings]
        return ("each figure is the median of event-timed calls with the L2 "
                "flushed before every call, as many as the stopping rule "
                "needed for a 95 %% interval of the median within its "
                "target (%d to %d calls); 'CV' is their coefficient of "
                "variation" % (min(reps), max(reps)))
    first = timings[0]
    return ("each figure is the median of %d rounds of %d event-timed calls "
            "with the L2 flushed before every call; 'CV' is the coefficient "
            "of variation of the round medians"
            % (len(first.get("rounds", [])) or 1, first.get("reps", 0)))


def results_table(events):
    """Markdown for a bench run's event log (a list of events): one row per
    timed variant of each step (labs like haxpy time every offset), then the
    vendor library's rows and how the best step compares with it."""
    begin = next(e for e in events if e["event"] == "run_begin")
    device = next(e for e in events if e["event"] == "device")
    ends = [e for e in events if e["event"] == "step_end"]
    student = [e for e in events if e["event"] == "timing"
               and e.get("who") not in ("vendor", "reference")]
    vendor = [e for e in events if e["event"] == "timing"
              and e.get("who") == "vendor"]
    profile = {e["step"]: e for e in events if e["event"] == "profile"}
    titles = {s["id"]: s["title"] for s in begin["steps"]}
    copy_gbps = device.get("copy_gbps") or 0
    first = student[0] if student else {}
    # labs that time their own baseline in every step's process report the
    # speedup over it; the others, over step 1 of the same run
    vs_key = ("speedup_vs_baseline"
              if any("speedup_vs_baseline" in e for e in ends)
              else "speedup_vs_first")

    def pct(t):
        if isinstance(t.get("pct_of_copy"), (int, float)):
            return t["pct_of_copy"]
        return 100 * t["gbps"] / copy_gbps if copy_gbps else None

    def num(v, fmt):
        return fmt % v if isinstance(v, (int, float)) else "–"

    def cv(t):
        v = t.get("rounds_cv", t.get("cv"))
        return v * 100 if isinstance(v, (int, float)) else None

    lines = [
        "Measured with `python3 run.py %s`, recorded "
        "by `python3 run.py record %s`: **%s** (%d SMs, CC %s, driver %s), "
        "%s, commit `%s`. Copy ceiling %.0f GB/s (%s, measured in the same "
        "run). n = %s elements (%.0f MiB moved per call)%s; %s; "
        "'%% of ref.' is the step's bandwidth against its reference "
        "solution's calibrated figure for this GPU (what the timing bars "
        "judge)."
        % (("calibrate %s --into calibration --bench" % begin["lab"])
           if any(e["event"] == "calibration" for e in events)
           else "bench %s --src %s" % (begin["lab"], bench_source(begin)),
           begin["lab"], device.get("name"),
           device.get("sm_count", 0), device.get("cc"), device.get("driver"),
           begin["started"][:10], begin.get("commit", "unknown"), copy_gbps,
           device.get("copy_method"), "{:,}".format(int(first.get("n", 0))),
           first.get("bytes", 0) / 2**20,
           " for the first step; the steps' timed sizes differ (see the lab's "
           "README)" if len({t.get("n") for t in student}) > 1 else "",
           timing_plan(student)),
        "",
        "| step | | median µs | GB/s | %% of copy | %% of ref. | %s | "
        "instructions / element | registers | occupancy | CV | verdict |"
        % ("vs baseline" if vs_key == "speedup_vs_baseline" else "vs step 1"),
        "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|",
    ]
    for e in ends:
        rows = [t for t in student if t.get("step") == e["step"]] or [{}]
        p = profile.get(e["step"], {})
        ipe = p.get("inst_per_element") if p.get("measured") else None
        title = titles.get(e["step"], "").replace("_", "\\_")
        for k, t in enumerate(rows):
            label = title + (" · " + t["variant"] if t.get("variant") else "")
            lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s "
                         "| %s | %s |"
                         % (e["step"] if k == 0 else "", label,
                            num(t.get("median_us"), "%.1f"),
                            num(t.get("gbps"), "%.0f"),
                            num(pct(t) if t else None, "%.1f%%"),
                            num(e.get("pct_of_reference") if k == 0
                                else None, "%.1f%%"),
                            num(e.get(vs_key) if k == 0 else None,
                                "%.2f×"),
                            num(ipe if k == 0 else None, "%.2f"),
                            num(e.get("registers") if k == 0 else None, "%.0f"),
                            num(e.get("occupancy_pct") if k == 0 else None,
                                "%.0f%%"),
                            num(cv(t) if t else None, "%.2f%%"),
                            e["verdict"] if k == 0 else ""))
    for v in vendor:
        label = v.get("name", "") + (" · " + v["variant"]
                                     if v.get("variant") else "")
        lines.append("| vendor | %s | %.1f | %.0f | %s | | | | | | %s | |" % (
            label, v["median_us"], v["gbps"], num(pct(v), "%.1f%%"),
            num(cv(v), "%.2f%%")))
    notes = []
    for v in vendor:
        same = [t for t in student if t.get("variant") == v.get("variant")]
        best = max(same, key=lambda t: t["gbps"], default=None)
        if best:
            notes.append("Best step%s: %s at %.1f%% of copy bandwidth, "
                         "%.3f× %s's bandwidth." % (
                             " at " + v["variant"] if v.get("variant") else "",
                             best["step"], pct(best), best["gbps"] / v["gbps"],
                             v.get("name")))
    if len({t.get("variant") for t in student}) > 1:
        worst = min(student, key=lambda t: t["gbps"])
        notes.append("Slowest variant: %s %s at %.1f%% of copy bandwidth."
                     % (worst["step"], worst.get("variant"), pct(worst)))
    if notes:
        lines += [""] + notes
    no_profile = [p for p in profile.values() if not p.get("measured")]
    if no_profile:
        lines += ["", "Instructions per element not measured: %s."
                  % no_profile[0].get("reason")]
    return "\n".join(lines)


SWEEP_BEGIN = "<!-- cudalab:sweep %s -->"
SWEEP_END = "<!-- /cudalab:sweep -->"
SWEEP_COLORS = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e",
                "#e6ab02", "#a6761d", "#666666"]


def sweep_points(events):
    """{step: {value: speedup or None}}, the define and the values, from
    the "sweep" events of a bench log."""
    sweeps = [e for e in events if e["event"] == "sweep"]
    steps, values = {}, []
    for e in sweeps:
        v = e["value"]
        if v not in values:
            values.append(v)
        steps.setdefault(e["step"], {})[v] = (
            e.get("speedup_vs_baseline") if e.get("ok") else None)
    define = sweeps[0]["define"] if sweeps else None
    return define, sorted(values), steps


def sweep_table(events, svg_name):
    define, values, steps = sweep_points(events)
    begin = next(e for e in events if e["event"] == "run_begin")
    device = next(e for e in events if e["event"] == "device")
    titles = {s["id"]: s["title"] for s in begin["steps"]}
    lines = [
        "Each step whose file uses `%s` rebuilt with `-D%s=value` and timed "
        "at the timed size (speedup over the lab's baseline kernel, timed in "
        "the same process); **%s**, %s, commit `%s`, by `python3 run.py "
        "bench %s --src %s` and `python3 run.py record %s`."
        % (define, define, device.get("name"), begin["started"][:10],
           begin.get("commit", "unknown"), begin["lab"], bench_source(begin),
           begin["lab"]),
        "",
        "| step | | " + " | ".join("%s=%d" % (define, v) for v in values)
        + " |",
        "|---|---|" + "--:|" * len(values),
    ]
    for step, pts in steps.items():
        best = max((x for x in pts.values() if x), default=None)
        cells = []
        for v in values:
            x = pts.get(v)
            cell = "fail" if x is None else "%.2f×" % x
            cells.append("**%s**" % cell if x is not None and x == best
                         else cell)
        lines.append("| %s | %s | %s |" % (step, titles.get(step, "")
                                           .replace("_", "\\_"),
                                           " | ".join(cells)))
    lines += ["", "![speedup against %s](%s)" % (define, svg_name)]
    return "\n".join(lines)


def sweep_svg(events):
    """A line chart of the sweep (speedup against the swept value, one line
    per step), as SVG text: drawn here, from the log, no plotting library."""
    define, values, steps = sweep_points(events)
    w, h, left, right, top, bottom = 640, 360, 56, 150, 20, 44
    ys = [x for pts in steps.values() for x in pts.values() if x]
    ymax = max([1.0] + ys) * 1.1
    xmin, xmax = min(values), max(values)

    def px(v):
        return left + (w - left - right) * (v - xmin) / float(xmax - xmin or 1)

    def py(y):
        return top + (h - top - bottom) * (1 - y / ymax)
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="12">' % (w, h),
           '<rect width="100%" height="100%" fill="white"/>']
    tick = 0.5 if ymax <= 4 else 1.0
    y = 0.0
    while y <= ymax:
        out.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/>'
                   % (left, w - right, py(y), py(y)))
        out.append('<text x="%d" y="%.1f" text-anchor="end">%.1f×</text>'
                   % (left - 6, py(y) + 4, y))
        y += tick
    out.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#999" '
               'stroke-dasharray="4 3"/>' % (left, w - right, py(1), py(1)))
    for v in values:
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%d</text>'
                   % (px(v), h - bottom + 16, v))
    out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>'
               % ((left + w - right) / 2.0, h - 8, define))
    out.append('<text x="14" y="%.1f" transform="rotate(-90 14 %.1f)" '
               'text-anchor="middle">speedup over the baseline</text>'
               % ((top + h - bottom) / 2.0, (top + h - bottom) / 2.0))
    for i, (step, pts) in enumerate(steps.items()):
        color = SWEEP_COLORS[i % len(SWEEP_COLORS)]
        xy = [(px(v), py(pts[v])) for v in values if pts.get(v)]
        out.append('<polyline fill="none" stroke="%s" stroke-width="2" '
                   'points="%s"/>' % (color, " ".join("%.1f,%.1f" % p
                                                       for p in xy)))
        for x, y in xy:
            out.append('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>'
                       % (x, y, color))
        ly = top + 16 * i + 8
        out.append('<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="%s" '
                   'stroke-width="2"/>' % (w - right + 12, w - right + 32,
                                           ly, ly, color))
        out.append('<text x="%d" y="%d">%s</text>' % (w - right + 38, ly + 4,
                                                    step))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def variant_series(events):
    """{step: {family: [(value, % of copy)]}} for the steps that time
    several variants named "<family> <number>" (e.g. "stride 4")."""
    device = next((e for e in events if e["event"] == "device"), {})
    copy_gbps = device.get("copy_gbps") or 0
    out = {}
    for e in events:
        if e["event"] != "timing" or e.get("who") in ("vendor", "reference"):
            continue
        parts = (e.get("variant") or "").rsplit(" ", 1)
        if len(parts) != 2 or not parts[1].isdigit() or not copy_gbps:
            continue
        pct = e.get("pct_of_copy", 100 * e["gbps"] / copy_gbps)
        out.setdefault(e["step"], {}).setdefault(parts[0], []).append(
            (int(parts[1]), pct))
    return {s: f for s, f in out.items() if sum(map(len, f.values())) > 1}


def variants_svg(events):
    """Bandwidth (% of copy) against each variant family of each step (one
    panel per family: stride, offset, ...), as SVG text."""
    series = variant_series(events)
    panels = [(step, fam, sorted(pts)) for step, fams in series.items()
              for fam, pts in fams.items()]
    device = next((e for e in events if e["event"] == "device"), {})
    pw, ph, left, top, bottom = 330, 260, 56, 36, 44
    w = left + len(panels) * (pw + 20)
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="12">' % (w, ph + top + bottom),
           '<rect width="100%" height="100%" fill="white"/>']
    for k, (step, fam, pts) in enumerate(panels):
        x0 = left + k * (pw + 20)
        xs = [v for v, _ in pts]
        logx = fam == "stride" and min(xs) >= 1
        tx = math.log2 if logx else float
        lo, hi = tx(min(xs)), tx(max(xs))

        def px(v, x0=x0, lo=lo, hi=hi, tx=tx):
            return x0 + pw * (tx(v) - lo) / float(hi - lo or 1)

        def py(p):
            return top + ph * (1 - min(p, 110) / 110.0)
        for p in (0, 25, 50, 75, 100):
            out.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" '
                       'stroke="#ddd"/>' % (x0, x0 + pw, py(p), py(p)))
            out.append('<text x="%d" y="%.1f" text-anchor="end">%d%%</text>'
                       % (x0 - 4, py(p) + 4, p))
        for v, _ in pts:
            out.append('<text x="%.1f" y="%d" text-anchor="middle">%d</text>'
                       % (px(v), top + ph + 16, v))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%s %s '
                   '(elements)</text>' % (x0 + pw / 2.0, top + ph + 34,
                                          step, fam))
        out.append('<polyline fill="none" stroke="#1b9e77" stroke-width="2" '
                   'points="%s"/>' % " ".join("%.1f,%.1f" % (px(v), py(p))
                                              for v, p in pts))
        for v, p in pts:
            out.append('<circle cx="%.1f" cy="%.1f" r="3" fill="#1b9e77"/>'
                       % (px(v), py(p)))
    out.append('<text x="%d" y="20">%% of the copy bandwidth (%s, %.0f GB/s),'
               ' useful bytes only</text>' % (left, device.get("name", "?"),
                                             device.get("copy_gbps") or 0))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def draw_variants(lab):
    """After a bench: the bandwidth-against-variant plot of a lab whose steps
    time variants, next to the run log. Returns the path or None."""
    path = os.path.join(state_dir(), "runs", "%s-last.jsonl" % lab)
    try:
        with open(path) as f:
            events = [json.loads(line) for line in f if line.strip()]
    except (OSError, ValueError):
        return None
    if not variant_series(events):
        return None
    svg = os.path.join(state_dir(), "runs", "%s-variants.svg" % lab)
    with open(svg, "w") as f:
        f.write(variants_svg(events))
    return svg


def record(args):
    """Write the last bench run's table into the READMEs (between markers)."""
    path = args.events or os.path.join(state_dir(), "runs",
                                       "%s-last.jsonl" % args.lab)
    try:
        with open(path) as f:
            events = [json.loads(line) for line in f if line.strip()]
    except (OSError, ValueError) as e:
        print("cudalab: cannot read the run log %s: %s\nrun `python3 run.py "
              "bench %s` first" % (path, e, args.lab), file=sys.stderr)
        return 2
    begin = next((e for e in events if e.get("event") == "run_begin"), {})
    if begin.get("lab") != args.lab or begin.get("mode") != "bench":
        print("cudalab: %s is not a bench run of %s (found: %s %s); record "
              "only takes a complete `bench` run"
              % (path, args.lab, begin.get("mode"), begin.get("lab")),
              file=sys.stderr)
        return 2
    why = not_measured(events)
    if why:
        print("cudalab: not recording %s: %s; the READMEs are unchanged. "
              "Record only a complete `python3 run.py bench %s` on a GPU."
              % (path, why, args.lab), file=sys.stderr)
        return 2
    table = results_table(events)
    targets = args.readme or [os.path.join(ROOT, "README.md"),
                              os.path.join(ROOT, "labs", args.lab, "README.md")]
    gpu = next(e for e in events if e["event"] == "device").get("name")
    for target in targets:
        with open(target) as f:
            text = f.read()
        placed = place_table(text, args.lab, gpu, table)
        if placed is None:
            print("cudalab: %s has no %s ... %s block to fill"
                  % (target, MARK_BEGIN % args.lab, MARK_END),
                  file=sys.stderr)
            return 2
        with open(target, "w") as f:
            f.write(placed)
        print("cudalab: recorded %s results on the %s in %s"
              % (args.lab, gpu, os.path.relpath(target, ROOT)))
    if variant_series(events):
        svg = os.path.join(ROOT, "labs", args.lab, "variants.svg")
        with open(svg, "w") as f:
            f.write(variants_svg(events))
        print("cudalab: drew bandwidth against the variants in %s"
              % os.path.relpath(svg, ROOT))
    if any(e["event"] == "sweep" for e in events):
        svg = os.path.join(ROOT, "labs", args.lab, "sweep.svg")
        with open(svg, "w") as f:
            f.write(sweep_svg(events))
        print("cudalab: drew the sweep in %s" % os.path.relpath(svg, ROOT))
        for target in targets:
            with open(target) as f:
                text = f.read()
            mark = SWEEP_BEGIN % args.lab
            if mark not in text:
                continue
            rel = os.path.relpath(svg, os.path.dirname(target))
            head, rest = text.split(mark, 1)
            _, tail = rest.split(SWEEP_END, 1)
            with open(target, "w") as f:
                f.write(head + mark + "\n" + sweep_table(events, rel) + "\n"
                        + SWEEP_END + tail)
            print("cudalab: recorded the sweep in %s"
                  % os.path.relpath(target, ROOT))
    return 0


CHECKS_BEGIN = ("<!-- checks: generated from lab.json by `python3 run.py "
                "docs`; edit lab.json, then run it -->")
CHECKS_END = "<!-- /checks -->"
OP_WORDS = {">=": "≥", "<=": "≤", ">": ">", "<": "<", "==": "="}


def checks_block(lab):
    """The checks of one lab (an entry of `cudalab-grader list --json`) as
    Markdown: every step's checks with metric, op, bound and unit, where
    the figure comes from, and why. Rendered from whatever lab.json says,
    so a new metric or op needs no change here."""
    def bound(c):
        b = c["bound"]
        text = ("%d" % b) if float(b).is_integer() else ("%g" % b)
        unit = c.get("unit") or ""
        return "%s %s%s" % (OP_WORDS.get(c["op"], c["op"]), text,
                            (" " + unit) if unit else "")
    lines = [CHECKS_BEGIN,
             "| step | file | checked | bar | measured by | why |",
             "|---|---|---|---|---|---|"]
    for st in lab["step_list"]:
        checks = st.get("checks") or []
        if not checks:
            lines.append("| %s | `%s` | correct results only | | | |"
                         % (st["id"], st["file"]))
        for k, c in enumerate(checks):
            lines.append("| %s | %s | `%s` | %s | %s | %s |" % (
                st["id"] if k == 0 else "",
                "`%s`" % st["file"] if k == 0 else "",
                c["metric"], bound(c), c.get("source", ""),
                c.get("why", "").replace("|", "\\|")))
    lines += ["",
              "Every step must first be correct on every case (see above); "
              "a step is timed only when it is, at the timed size the "
              "harness chooses for the GPU it runs on (the results table "
              "gives n for the GPU measured). Checks measured by the *ptx* "
              "or the *compiler* are judged without a GPU too."]
    san = lab.get("sanitize")
    if san:
        lines += ["", "`sanitizer_errors` counts what compute-sanitizer's "
                  "%s report%s on the case \"%s\"."
                  % (" and ".join("`%s`" % t for t in san["tools"]),
                     "" if len(san["tools"]) > 1 else "s", san["case"])]
    lines.append(CHECKS_END)
    return "\n".join(lines)


def docs(args):
    """`run.py docs`: write each lab README's checks block from its lab.json
    (or, with --check, only say which are out of date: exit 1)."""
    rc = build()
    if rc:
        return rc
    out = subprocess.run([GRADER, "--root", ROOT, "list", "--json"],
                         stdout=subprocess.PIPE, text=True)
    try:
        labs = json.loads(out.stdout or "[]")
    except ValueError:
        labs = []
    if out.returncode != 0 or not labs:
        print("cudalab: cannot read the labs (see above)", file=sys.stderr)
        return 4
    stale = []
    for lab in labs:
        path = os.path.join(ROOT, "labs", lab["name"], "README.md")
        with open(path) as f:
            text = f.read()
        if CHECKS_BEGIN not in text or CHECKS_END not in text:
            print("cudalab: %s has no checks block (%s ... %s)"
                  % (os.path.relpath(path, ROOT), CHECKS_BEGIN, CHECKS_END),
                  file=sys.stderr)
            stale.append(path)
            continue
        head, rest = text.split(CHECKS_BEGIN, 1)
        _, tail = rest.split(CHECKS_END, 1)
        new = head + checks_block(lab) + tail
        if new == text:
            continue
        stale.append(path)
        if not args.check:
            with open(path, "w") as f:
                f.write(new)
            print("cudalab: wrote the checks of %s into %s"
                  % (lab["name"], os.path.relpath(path, ROOT)))
    if args.check and stale:
        print("cudalab: out of date with lab.json: %s; run `python3 run.py "
              "docs`" % ", ".join(os.path.relpath(p, ROOT) for p in stale),
              file=sys.stderr)
        return 1
    if not stale:
        print("cudalab: every lab README's checks block matches its lab.json")
    return 0


def lab_names():
    """Labs in workshop order, from the grader (which validates manifests)."""
    out = subprocess.run([GRADER, "--root", ROOT, "list", "--json"],
                         stdout=subprocess.PIPE, text=True)
    try:
        return [lab["name"] for lab in json.loads(out.stdout or "[]")]
    except ValueError:
        return []


def use_dashboard(args):
    """The dashboard when a person is watching: a terminal, and no --plain
    or --json."""
    return (sys.stdout.isatty() and sys.stdin.isatty()
            and not getattr(args, "plain", False)
            and not getattr(args, "json", False)
            and os.environ.get("TERM", "dumb") != "dumb"
            and os.path.exists(UI))


def labs_file():
    """`list --json` saved in the state folder, for the dashboard."""
    os.makedirs(state_dir(), exist_ok=True)
    path = os.path.join(state_dir(), "labs.json")
    with open(path, "w") as f:
        subprocess.call([GRADER, "--root", ROOT, "list", "--json"], stdout=f)
    return path


def dashboard(command, labs, step=None, flags=()):
    ui = [UI, "--grader", GRADER, "--root", ROOT, "--labs", labs_file(),
          "--history", os.path.join(state_dir(), "history.jsonl")]
    for lab in labs:
        ui += ["--lab", lab]
    if step:
        ui += ["--step", step]
    if command == "bench":
        ui.append("--bench")
    env = dict(os.environ, CUDALAB_COMMIT=commit_id())
    return subprocess.call(ui + ["--"] + list(flags), env=env)


def grade_labs(command, args):
    rc = build()
    if rc:
        return rc
    labs = [args.lab] if args.lab else lab_names()
    if args.step and not args.lab:
        print("cudalab: --step needs a lab, e.g. run.py %s saxpy --step 2"
              % command, file=sys.stderr)
        return 2
    flags = []
    for name in ("step", "src", "seed", "time_limit", "jobs"):
        value = getattr(args, name, None)
        if value is not None:
            flags += ["--" + name.replace("_", "-"), str(value)]
    if use_dashboard(args):
        dash_flags = [f for f in flags]
        if "--step" in dash_flags:
            i = dash_flags.index("--step")
            del dash_flags[i:i + 2]
        rc = dashboard(command, labs, args.step, dash_flags)
        if command == "bench":
            for lab in labs:
                svg = draw_variants(lab)
                if svg:
                    print("cudalab: bandwidth against the variants: %s" % svg)
        return rc
    if args.json:
        flags.append("--json")
    if args.verbose:
        flags.append("--verbose")
    worst = 0
    results = []
    for lab in labs:
        rc = grader(command, lab, *flags)
        # a grader without a sandbox says so: once, not once per lab
        os.environ["CUDALAB_SANDBOX_SAID"] = "1"
        results.append((lab, rc))
        svg = draw_variants(lab) if command == "bench" else None
        if svg:
            print("cudalab: bandwidth against the variants: %s" % svg,
                  file=sys.stderr if args.json else sys.stdout)
        worst = worse_exit(worst, rc)
    print_summary(command, results, sys.stderr if args.json else sys.stdout)
    return worst


def workshop(parser):
    """`python3 run.py`: the dashboard on the first lab not yet passed."""
    rc = build()
    if rc:
        return rc
    out = subprocess.run([GRADER, "--root", ROOT, "list", "--json"],
                         stdout=subprocess.PIPE, text=True).stdout
    labs = json.loads(out or "[]")
    if not labs:
        print("cudalab: no labs found in %s/labs" % ROOT, file=sys.stderr)
        return 4
    todo = [lab for lab in labs if lab["passed"] < lab["steps"]] or labs
    if not use_dashboard(None):
        grader("list")
        print("\nnext: python3 run.py test %s   (in a terminal, `python3 "
              "run.py` opens the dashboard)" % todo[0]["name"])
        return 0
    return dashboard("test", [todo[0]["name"]])


def show(args):
    rc = build()
    if rc:
        return rc
    path = args.file
    if not path:
        runs = os.path.join(state_dir(), "runs")
        logs = [os.path.join(runs, f) for f in os.listdir(runs)] \
            if os.path.isdir(runs) else []
        if not logs:
            print("cudalab: no saved run yet: run `python3 run.py test LAB` "
                  "first", file=sys.stderr)
            return 2
        path = max(logs, key=os.path.getmtime)
    if not os.path.exists(path):
        print("cudalab: no such run log or gradebook: %s" % path,
              file=sys.stderr)
        return 2
    if os.path.isdir(path) or os.path.basename(path) == "gradebook.json":
        # a graded class (run.py grade's OUT folder): the class view
        ui = [UI, "--gradebook", path]
        if not use_dashboard(None):
            ui += ["--dump", args.size.replace("X", "x")]
        return subprocess.call(ui)
    ui = [UI, "--replay", path, "--labs", labs_file()]
    if not use_dashboard(None):
        ui += ["--dump", args.size.replace("X", "x")]
    return subprocess.call(ui)


def lab_manifests(names=None):
    """{lab: manifest} from labs/*/lab.json, workshop order."""
    labs = {}
    base = os.path.join(ROOT, "labs")
    for name in sorted(os.listdir(base)):
        path = os.path.join(base, name, "lab.json")
        if os.path.exists(path):
            with open(path) as f:
                labs[name] = json.load(f)
    ordered = sorted(labs, key=lambda n: labs[n].get("order", 99))
    return {n: labs[n] for n in ordered if names is None or n in names}


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


def slurm_script(args, out, script):
    """The job-array script of `grade --slurm N`: every grading flag given
    here, each path quoted, the site's partition/account/modules (flags,
    else CUDALAB_SLURM_PARTITION, _ACCOUNT, _MODULES, _TIME)."""
    import shlex
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
        root=q(ROOT), subs=q(subs), script=q(script),
        runpy=q(os.path.join(ROOT, "run.py")), ngpus=ngpus,
        walltime=sbatch_quote(walltime),
        log=sbatch_quote(os.path.join(out, "slurm-%a.log")),
        sbatch_extra=extra,
        modules="".join("module load %s\n" % q(m) for m in modules),
        flags=flags)


def grade_class(args):
    """`run.py grade`: intake (tools/submissions.py), then the C grader."""
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import submissions
    if not os.path.isdir(args.submissions):
        print("run.py grade: %s is not a folder of submissions"
              % args.submissions, file=sys.stderr)
        return 2
    names = args.labs.split(",") if args.labs else None
    manifests = lab_manifests(names)
    unknown = [n for n in (names or []) if n not in manifests]
    if unknown:
        print("run.py grade: no lab called %s (labs: %s)"
              % (", ".join(unknown), ", ".join(lab_manifests())),
              file=sys.stderr)
        return 2
    out = os.path.abspath(args.out)
    if args.slurm:
        os.makedirs(out, exist_ok=True)
        script = os.path.join(out, "grade.slurm")
        try:
            text = slurm_script(args, out, script)
        except ValueError as e:
            print("run.py grade: %s" % e, file=sys.stderr)
            return 2
        with open(script, "w") as f:
            f.write(text)
        import shlex
        print("wrote %s: `sbatch %s`, then `python3 %s merge %s %s/shard-*`"
              % (script, shlex.quote(script),
                 shlex.quote(os.path.join(ROOT, "run.py")), shlex.quote(out),
                 shlex.quote(out)))
        return 0
    rc = build()
    if rc:
        return rc
    files = {n: [s["file"] for s in m["steps"]] for n, m in manifests.items()}
    record = submissions.intake(args.submissions, files, out)
    record["steps"] = {n: [{"id": s["id"], "title": s["title"],
                            "file": s["file"]} for s in m["steps"]]
                       for n, m in manifests.items()}
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
    rc = grader(*cmd)
    if os.path.exists(os.path.join(out, "gradebook.json")) and not args.quiet:
        print("class view (histograms per step): python3 run.py show %s"
              % out, file=sys.stderr)
    return rc


def remote_command(args, workshop_server):
    """login, serve, test --remote and show URL: tools/server.py and
    tools/remote.py do the work."""
    import remote
    if args.command == "serve":
        rc = build()
    else:  # a laptop without CUDA: the plain-C programs only
        rc = subprocess.call(["make", "-s", "-C", ROOT, "build/cudalab-grader",
                              "build/cudalab-ui"],
                             env=dict(os.environ, CUDALAB_CLIENT_BUILD="1"))
        rc = 4 if rc else 0
    if rc:
        return rc
    try:
        if args.command == "serve":
            return workshop_server.serve(args, ROOT, commit_id())
        if args.command == "login":
            return remote.login(args.url)
        if args.command == "show":
            return remote.show_class(args.file, UI, args.size,
                                     use_dashboard(None))
        if use_dashboard(args) and args.lab and not args.json:
            env = dict(os.environ, CUDALAB_JOB=args.job or "")
            ui = [UI, "--grader", os.path.join(ROOT, "tools", "remote_grader"),
                  "--root", ROOT, "--labs", labs_file(), "--lab", args.lab]
            if args.step:
                ui += ["--step", args.step]
            return subprocess.call(ui + ["--"] + (["--src", args.src]
                                                  if args.src else []),
                                   env=env)
        return remote.test(args, ROOT, GRADER)
    except remote.RemoteError as e:
        print("cudalab: %s" % e.message, file=sys.stderr)
        return e.code


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="run.py", description="cudalab: CUDA performance labs.",
        epilog="exit status: 0 every check passed, 1 a check failed, "
               "2 usage error, 3 not graded (no CUDA device), 4 set-up or "
               "grader error")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def add_grading(name, help_text):
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.add_argument("lab", nargs="?", help="the lab (default: every lab)")
        p.add_argument("--step", action="append",
                       help="only this step (number or id; once)")
        p.add_argument("--src", help="take the step files from this folder")
        p.add_argument("--seed", help="replay the inputs of an earlier run")
        p.add_argument("--time-limit", dest="time_limit", type=float,
                       help="seconds each step may run")
        p.add_argument("--jobs", type=int, help="parallel compiles")
        p.add_argument("--json", action="store_true",
                       help="print the event stream as JSON lines")
        p.add_argument("--plain", action="store_true",
                       help="plain text (the default when not a terminal)")
        p.add_argument("--verbose", action="store_true",
                       help="show passing checks and compiler warnings too")
        if name == "test":
            p.add_argument("--remote", action="store_true",
                           default=os.environ.get("CUDALAB_REMOTE", "")
                           not in ("", "0"),
                           help="grade on the workshop server (after `run.py "
                                "login URL`; also CUDALAB_REMOTE=1)")
            p.add_argument("--job", help="with --remote: re-attach to a job")
            p.add_argument("--gradescope", metavar="FILE",
                           help="with --remote: also write the job's "
                                "Gradescope results.json to FILE")

    add_grading("test", "build, check and time each step of a lab")
    add_grading("bench", "a longer, steadier measurement with a fresh "
                         "copy-bandwidth ceiling and the vendor library")
    p = sub.add_parser("calibrate", help="time the reference solutions on "
                                         "this GPU (the timing bars' yardstick)",
                       description="time each lab's reference solutions "
                                   "(solutions/LAB) on this GPU and keep "
                                   "every step's figure: the timing bars "
                                   "(pct_of_reference) are relative to it. "
                                   "A step that needs a figure nobody has "
                                   "times its reference by itself, once; "
                                   "this does every lab at once, e.g. for a "
                                   "new GPU or driver. --into calibration "
                                   "keeps the figures in the tree for "
                                   "everyone with this kind of GPU.")
    p.add_argument("labs", nargs="*", help="the labs (default: every lab)")
    p.add_argument("--into", help="keep the figures in this folder as "
                                  "KEY.json (default: the state folder)")
    p.add_argument("--bench", action="store_true",
                   help="the longer bench measurement (also what `record` "
                        "needs for the README tables)")
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("list", help="the labs in workshop order, with progress",
                       description="the labs in workshop order, with progress")
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("device", help="this GPU and its copy bandwidth",
                       description="this GPU and its measured copy bandwidth")
    p.add_argument("--fresh", action="store_true",
                   help="measure the copy bandwidth again")
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("record", help="write the last bench run's table "
                                      "into the READMEs",
                       description="write the measured table of the last "
                                   "`bench LAB` run into README.md and "
                                   "labs/LAB/README.md, between their "
                                   "<!-- cudalab:results LAB --> markers")
    p.add_argument("lab")
    p.add_argument("--events", help="a saved run log (default: the last "
                                    "run of LAB in .cudalab/runs/)")
    p.add_argument("--readme", action="append",
                   help="the file(s) to update (repeatable)")
    p = sub.add_parser("help", help="this help, or a command's: run.py "
                                    "help test",
                       description="print the commands, or with COMMAND "
                                   "that command's options (the same as "
                                   "`run.py COMMAND --help`)")
    p.add_argument("topic", nargs="?", metavar="COMMAND")
    p = sub.add_parser("docs", help="write each lab README's checks "
                                    "block from its lab.json",
                       description="write the table of every step's checks "
                                   "(metric, bound, why) into each "
                                   "labs/LAB/README.md, between its checks "
                                   "markers: lab.json is the one place the "
                                   "bars are written")
    p.add_argument("--check", action="store_true",
                   help="change nothing; exit 1 when a block is out of "
                        "date")
    p = sub.add_parser("setup", help="check and install system packages",
                       description="check nvcc and the system packages; "
                                   "install them when run as root")
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--for-tests", action="store_true",
                   help="also what `make test` needs (tmux, bubblewrap, "
                        "chromium, a single-node Slurm)")

    p = sub.add_parser("grade", help="grade a folder of student submissions",
                       description="grade every submission (a folder, .zip "
                                   "or .tar.gz per student) in SUBMISSIONS: "
                                   "isolated, time-limited runs, hidden "
                                   "cases, a gradebook in OUT (CSV, JSON, "
                                   "Gradescope, JUnit). Interrupted runs "
                                   "resume.")
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
    p = sub.add_parser("merge", help="combine the gradebooks of shards",
                       description="combine the OUT folders of `grade "
                                   "--shard` runs into one gradebook")
    p.add_argument("out")
    p.add_argument("shards", nargs="+")

    p = sub.add_parser("explain", help="why a step is as fast as it is: "
                                       "its build, its counters, hints",
                       description="build the steps of LAB and show, per "
                                   "step: each kernel's registers, spills, "
                                   "shared memory and stack, and every "
                                   "global load, store and asynchronous "
                                   "copy in its PTX with its width, whether "
                                   "it takes the read-only path, and the "
                                   "source line it came from (no GPU "
                                   "needed). With a GPU and Nsight Compute: "
                                   "DRAM throughput, occupancy and what "
                                   "limits it, sectors per request, "
                                   "instructions and bank conflicts per "
                                   "element, cache hit rates and the top "
                                   "stall reasons of the timed-size case "
                                   "(clocks untouched); then the lab's "
                                   "hints that apply, and a roofline of "
                                   "the steps")
    p.add_argument("lab")
    p.add_argument("--step", action="append",
                   help="only step K (number or id; once)")
    p.add_argument("--src", help="take the step files from this folder")
    p.add_argument("--plot", metavar="FILE.svg",
                   help="also draw the roofline as an SVG file")
    p.add_argument("--no-counters", action="store_true",
                   help="static views only: do not run Nsight Compute")

    p = sub.add_parser("show", help="replay a saved run, or show a graded "
                                    "class, in the dashboard",
                       description="replay a saved run (default: the most "
                                   "recent one in .cudalab/runs/) in the "
                                   "dashboard, or, given the OUT folder of "
                                   "`run.py grade` (or its gradebook.json), "
                                   "the class view: per step, the class's "
                                   "% of copy as a histogram and every "
                                   "student's verdict; without a terminal, "
                                   "print the screen")
    p.add_argument("file", nargs="?", help="a run log (JSON lines), or a "
                                           "grade OUT folder")
    p.add_argument("--size", default="30x100",
                   help="ROWSxCOLS of the printed screen without a terminal")

    p = sub.add_parser("login", help="keep a workshop server's token",
                       description="ask for the token the organiser handed "
                                   "out, check it with the server at URL and "
                                   "keep both in your config folder "
                                   "($XDG_CONFIG_HOME/cudalab/remote.json, "
                                   "mode 0600), never in this tree")
    p.add_argument("url")
    p = sub.add_parser("serve", help="the workshop server: a fair queue on "
                                     "this machine's GPUs, tokens, a status "
                                     "page",
                       description="serve the grader over HTTP to a room of "
                                   "laptops (see the README's workshop "
                                   "guide)")
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import server as workshop_server
    workshop_server.add_arguments(p)

    args = parser.parse_args(argv)
    locate()
    why = one_step(args)
    if why:
        print("cudalab: %s" % why, file=sys.stderr)
        return 2
    if args.command in ("login", "serve") or getattr(args, "remote", False) \
            or (args.command == "show" and (args.file or "").startswith(
                ("http://", "https://"))):
        return remote_command(args, workshop_server)
    if args.command is None:
        return workshop(parser)
    if args.command == "help":
        # `run.py help` = --help; `run.py help CMD` = `run.py CMD --help`
        if not args.topic:
            parser.print_help()
            return 0
        if args.topic not in sub.choices:
            print("run.py help: no command %s (commands: %s)"
                  % (args.topic, ", ".join(sorted(sub.choices))),
                  file=sys.stderr)
            return 2
        sub.choices[args.topic].print_help()
        return 0
    if getattr(args, "lab", None) and args.command != "record":
        lab, why = resolve_lab(args.lab)
        if not lab:
            print("cudalab: %s" % why, file=sys.stderr)
            return 2
        if lab != args.lab:
            print("cudalab: lab %s is %s" % (args.lab, lab), file=sys.stderr)
        args.lab = lab
    if args.command == "setup":
        return setup(args.quiet, args.for_tests)
    if args.command == "record":
        return record(args)
    if args.command == "docs":
        return docs(args)
    if args.command == "show":
        return show(args)
    if args.command == "explain":
        rc = build()
        extra = []
        for flag, value in (("--step", args.step), ("--src", args.src),
                            ("--plot", args.plot)):
            if value:
                extra += [flag, value]
        if args.no_counters:
            extra.append("--no-counters")
        return rc or grader("explain", args.lab, *extra)
    if args.command in ("test", "bench"):
        return grade_labs(args.command, args)
    if args.command == "grade":
        return grade_class(args)
    if args.command == "merge":
        rc = build()
        return rc or grader("merge", args.out, *args.shards)
    rc = build()
    if rc:
        return rc
    if args.command == "list":
        return grader("list", *(["--json"] if args.json else []))
    if args.command == "calibrate":
        known = lab_names()
        for lab in args.labs:
            if lab not in known:
                print("cudalab: no lab called %r (labs: %s)"
                      % (lab, ", ".join(known)), file=sys.stderr)
                return 2
        flags = (["--into", os.path.abspath(args.into)] if args.into else []) \
            + (["--bench"] if args.bench else []) \
            + (["--json"] if args.json else [])
        worst = 0
        for lab in args.labs or known:
            rc = grader("calibrate", lab, *flags)
            worst = worse_exit(worst, rc)
        return worst
    if args.command == "device":
        return grader("device", *(["--fresh"] if args.fresh else []),
                      *(["--json"] if args.json else []))
    return 2


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
