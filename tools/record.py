"""record — the measured results as Markdown: `run.py record LAB` writes the
last bench run's table (and its sweep, and the charts of plots.py) into the
READMEs, between their markers.

A table is rendered from one bench run's events (common/event.h) and
nothing else: every figure is an event's field as the grader wrote it
(pct_of_copy, pct_of_reference, speedups, and the vendor comparison's
vs_steps: grader/verdict.c); nothing is computed here.
"""
import os
import sys

import events as run_log
import exits
import plots
import programs

ROOT = programs.ROOT

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
        v = t.get("pct_of_copy")
        return v if isinstance(v, (int, float)) else None

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
        # the grader's step -> bandwidth over the vendor's, same variant
        vs = v.get("vs_steps") or {}
        step = max(vs, key=lambda s: vs[s], default=None)
        best = next((t for t in student if t.get("step") == step
                     and t.get("variant") == v.get("variant")), None)
        if best:
            notes.append("Best step%s: %s at %s of copy bandwidth, "
                         "%.3f× %s's bandwidth." % (
                             " at " + v["variant"] if v.get("variant") else "",
                             step, num(pct(best), "%.1f%%"), vs[step],
                             v.get("name")))
    if len({t.get("variant") for t in student}) > 1:
        worst = min(student, key=lambda t: t["gbps"])
        notes.append("Slowest variant: %s %s at %s of copy bandwidth."
                     % (worst["step"], worst.get("variant"),
                        num(pct(worst), "%.1f%%")))
    if notes:
        lines += [""] + notes
    no_profile = [p for p in profile.values() if not p.get("measured")]
    if no_profile:
        lines += ["", "Instructions per element not measured: %s."
                  % no_profile[0].get("reason")]
    return "\n".join(lines)


SWEEP_BEGIN = "<!-- cudalab:sweep %s -->"
SWEEP_END = "<!-- /cudalab:sweep -->"

def sweep_table(events, svg_name):
    define, values, steps = plots.sweep_points(events)
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


def record(args):
    """Write the last bench run's table into the READMEs (between markers)."""
    path = args.events
    if not path:
        rc = programs.build()
        if rc:
            return rc
        path = programs.paths(args.lab)["last_run"]
    try:
        events = run_log.read(path)
    except (OSError, ValueError) as e:
        print("cudalab: cannot read the run log %s: %s\nrun `python3 run.py "
              "bench %s` first" % (path, e, args.lab), file=sys.stderr)
        return exits.USAGE
    begin = next((e for e in events if e.get("event") == "run_begin"), {})
    if begin.get("lab") != args.lab or begin.get("mode") != "bench":
        print("cudalab: %s is not a bench run of %s (found: %s %s); record "
              "only takes a complete `bench` run"
              % (path, args.lab, begin.get("mode"), begin.get("lab")),
              file=sys.stderr)
        return exits.USAGE
    why = not_measured(events)
    if why:
        print("cudalab: not recording %s: %s; the READMEs are unchanged. "
              "Record only a complete `python3 run.py bench %s` on a GPU."
              % (path, why, args.lab), file=sys.stderr)
        return exits.USAGE
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
            return exits.USAGE
        with open(target, "w") as f:
            f.write(placed)
        print("cudalab: recorded %s results on the %s in %s"
              % (args.lab, gpu, os.path.relpath(target, ROOT)))
    if plots.variant_series(events):
        svg = os.path.join(ROOT, "labs", args.lab, "variants.svg")
        with open(svg, "w") as f:
            f.write(plots.variants_svg(events))
        print("cudalab: drew bandwidth against the variants in %s"
              % os.path.relpath(svg, ROOT))
    if any(e["event"] == "sweep" for e in events):
        svg = os.path.join(ROOT, "labs", args.lab, "sweep.svg")
        with open(svg, "w") as f:
            f.write(plots.sweep_svg(events))
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
    return exits.PASS
