"""lab_runs — a lab run on this machine: `run.py test`, `bench`,
`calibrate`, `explain`, `show` and the workshop's bare `run.py`.

Each is the grader (plain text, --json) or, when a person is watching a
terminal, the dashboard (cudalab-ui) driving the grader; then a summary and,
after a bench, the variants chart next to the run log (plots.py).
"""
import os
import subprocess
import sys

import events as run_log
import exits
import labs
import plots
import programs

# The options of `run.py test` and `bench` that the grader takes as they
# are (the grader's usage: grader/main.c): run.py defines them from this
# table and grade_labs() passes them on by the same names.
GRADING_OPTIONS = (
    ("--step", dict(action="append",
                    help="only this step (number or id; once)")),
    ("--src", dict(help="take the step files from this folder")),
    ("--seed", dict(help="replay the inputs of an earlier run")),
    ("--time-limit", dict(dest="time_limit", type=float,
                          help="seconds each step may run")),
    ("--jobs", dict(type=int, help="parallel compiles")),
)
# (argparse's attribute, the grader's flag) of each
PASSED_ON = tuple((spec.get("dest", flag[2:]), flag)
                  for flag, spec in GRADING_OPTIONS)


def use_dashboard(args):
    """The dashboard when a person is watching: a terminal, and no --plain
    or --json."""
    return (sys.stdout.isatty() and sys.stdin.isatty()
            and not getattr(args, "plain", False)
            and not getattr(args, "json", False)
            and os.environ.get("TERM", "dumb") != "dumb"
            and os.path.exists(programs.UI))


def labs_file():
    """`list --json` saved in the state folder, for the dashboard."""
    state = programs.paths()["state"]
    os.makedirs(state, exist_ok=True)
    path = os.path.join(state, "labs.json")
    with open(path, "w") as f:
        subprocess.call([programs.GRADER, "--root", programs.ROOT, "list",
                         "--json"], stdout=f)
    return path


def dashboard(command, names, step=None, flags=()):
    ui = [programs.UI, "--grader", programs.GRADER, "--root", programs.ROOT,
          "--labs", labs_file(), "--history", programs.paths()["history"]]
    for lab in names:
        ui += ["--lab", lab]
    if step:
        ui += ["--step", step]
    if command == "bench":
        ui.append("--bench")
    return subprocess.call(ui + ["--"] + list(flags),
                           env=programs.grader_env())


def draw_variants(lab):
    """After a bench: the bandwidth-against-variant plot of a lab whose steps
    time variants, next to the run log. Returns the path or None."""
    path = programs.paths(lab)["last_run"]
    try:
        events = run_log.read(path)
    except (OSError, ValueError):
        return None
    if not plots.variant_series(events):
        return None
    svg = os.path.join(os.path.dirname(path), "%s-variants.svg" % lab)
    with open(svg, "w") as f:
        f.write(plots.variants_svg(events))
    return svg


def grade_labs(command, args):
    """`run.py test|bench [LAB]`: every lab (or one) in workshop order
    (the programs are built: run.py's dispatch)."""
    names = [args.lab] if args.lab else labs.names()
    if args.step and not args.lab:
        print("cudalab: --step needs a lab, e.g. run.py %s saxpy --step 2"
              % command, file=sys.stderr)
        return exits.USAGE
    flags = []
    for name, flag in PASSED_ON:
        value = getattr(args, name, None)
        if value is not None and name != "step":
            flags += [flag, str(value)]
    if use_dashboard(args):
        rc = dashboard(command, names, args.step, flags)
        if command == "bench":
            for lab in names:
                svg = draw_variants(lab)
                if svg:
                    print("cudalab: bandwidth against the variants: %s" % svg)
        return rc
    if args.step is not None:
        flags = ["--step", str(args.step)] + flags
    if args.json:
        flags.append("--json")
    if args.verbose:
        flags.append("--verbose")
    worst = exits.PASS
    results = []
    for lab in names:
        rc = programs.call(command, lab, *flags)
        # a grader without a sandbox says so: once, not once per lab
        os.environ["CUDALAB_SANDBOX_SAID"] = "1"
        results.append((lab, rc))
        svg = draw_variants(lab) if command == "bench" else None
        if svg:
            print("cudalab: bandwidth against the variants: %s" % svg,
                  file=sys.stderr if args.json else sys.stdout)
        worst = exits.worse(worst, rc)
    labs.print_summary(command, results, sys.stderr if args.json
                       else sys.stdout)
    return worst


def calibrate(args):
    """`run.py calibrate [LAB...]`: the reference solutions timed, lab by
    lab (every lab by default); the status that says the most."""
    known = labs.names()
    for lab in args.labs:
        if lab not in known:
            print("cudalab: no lab called %r (labs: %s)"
                  % (lab, ", ".join(known)), file=sys.stderr)
            return exits.USAGE
    flags = (["--into", os.path.abspath(args.into)] if args.into else []) \
        + (["--bench"] if args.bench else []) \
        + (["--json"] if args.json else [])
    worst = exits.PASS
    for lab in args.labs or known:
        worst = exits.worse(worst, programs.call("calibrate", lab, *flags))
    return worst


def explain(args):
    """`run.py explain LAB`: the grader's explain, its flags passed on."""
    extra = []
    for flag, value in (("--step", args.step), ("--src", args.src),
                        ("--plot", args.plot)):
        if value:
            extra += [flag, value]
    if args.no_counters:
        extra.append("--no-counters")
    return programs.call("explain", args.lab, *extra)


def workshop():
    """`python3 run.py`: the dashboard on the first lab not yet passed."""
    rc = programs.build()
    if rc:
        return rc
    every = labs.listing()
    if not every:
        print("cudalab: no labs found in %s/labs" % programs.ROOT,
              file=sys.stderr)
        return exits.GRADER_ERROR
    todo = [lab for lab in every if lab["passed"] < lab["steps"]] or every
    if not use_dashboard(None):
        programs.call("list")
        print("\nnext: python3 run.py test %s   (in a terminal, `python3 "
              "run.py` opens the dashboard)" % todo[0]["name"])
        return exits.PASS
    return dashboard("test", [todo[0]["name"]])


def show(args):
    """`run.py show [FILE|OUT]`: a saved run replayed, or a graded class
    (the programs are built: run.py's dispatch)."""
    path = args.file
    if not path:
        runs = programs.paths()["runs"]
        logs = [os.path.join(runs, f) for f in os.listdir(runs)
                if f.endswith(".jsonl")] if os.path.isdir(runs) else []
        if not logs:
            print("cudalab: no saved run yet: run `python3 run.py test LAB` "
                  "first", file=sys.stderr)
            return exits.USAGE
        path = max(logs, key=os.path.getmtime)
    if not os.path.exists(path):
        print("cudalab: no such run log or gradebook: %s" % path,
              file=sys.stderr)
        return exits.USAGE
    if os.path.isdir(path) or os.path.basename(path) == "gradebook.json":
        # a graded class (run.py grade's OUT folder): the class view
        ui = [programs.UI, "--gradebook", path]
    else:
        ui = [programs.UI, "--replay", path, "--labs", labs_file()]
    if not use_dashboard(None):
        ui += ["--dump", args.size.replace("X", "x")]
    return subprocess.call(ui)
