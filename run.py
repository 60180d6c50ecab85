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

This file is the front door: the command line, its help, and which module
does each command. The work is in tools/ (one module a concern):

    programs.py       the C programs: build, locate, call; the grader's paths
    packages.py       `setup`: nvcc and the system packages
    exits.py          the exit statuses (the grader's, grader/main.c)
    labs.py           the labs as the grader lists them (it owns lab.json)
    lab_runs.py       test, bench, calibrate, explain, show, the dashboard
    record.py         `record`: the README results tables (Markdown)
    plots.py          the SVG charts (sweep, variants)
    docs.py           `docs`: each lab README's checks block
    class_grading.py  `grade`: intake (submissions.py), then the grader
    slurm.py          `grade --slurm N`: the job-array script
    server.py, store.py, remote.py   the workshop server and its client
"""
import argparse
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(ROOT, "tools"))

import class_grading  # noqa: E402
import docs  # noqa: E402
import exits  # noqa: E402
import lab_runs  # noqa: E402
import labs  # noqa: E402
import packages  # noqa: E402
import programs  # noqa: E402
import record  # noqa: E402
import remote  # noqa: E402
import server as workshop_server  # noqa: E402


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


def add_grading(sub, name, help_text):
    p = sub.add_parser(name, help=help_text, description=help_text)
    p.add_argument("lab", nargs="?", help="the lab (default: every lab)")
    for flag, spec in lab_runs.GRADING_OPTIONS:
        p.add_argument(flag, **spec)
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


def make_parser():
    """run.py's command line: (the parser, its subcommands)."""
    parser = argparse.ArgumentParser(
        prog="run.py", description="cudalab: CUDA performance labs.",
        epilog=exits.EPILOG)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    add_grading(sub, "test", "build, check and time each step of a lab")
    add_grading(sub, "bench", "a longer, steadier measurement with a fresh "
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
    class_grading.add_arguments(p)
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
    workshop_server.add_arguments(p)
    return parser, sub


def remote_command(args):
    """login, serve, test --remote and show URL: tools/server.py and
    tools/remote.py do the work."""
    if args.command == "serve":
        rc = programs.build()
    else:  # a laptop without CUDA: the plain-C programs only
        rc = programs.build_client()
    if rc:
        return rc
    try:
        if args.command == "serve":
            return workshop_server.serve(args, ROOT, programs.commit_id(),
                                         programs.GRADER)
        if args.command == "login":
            return remote.login(args.url)
        if args.command == "show":
            return remote.show_class(args.file, programs.UI, args.size,
                                     lab_runs.use_dashboard(None))
        if lab_runs.use_dashboard(args) and args.lab and not args.json:
            env = dict(os.environ, CUDALAB_JOB=args.job or "")
            ui = [programs.UI, "--grader", os.path.join(ROOT, "tools",
                                                        "remote_grader"),
                  "--root", ROOT, "--labs", lab_runs.labs_file(), "--lab",
                  args.lab]
            if args.step:
                ui += ["--step", args.step]
            return subprocess.call(ui + ["--"] + (["--src", args.src]
                                                  if args.src else []),
                                   env=env)
        return remote.test(args, ROOT, programs.GRADER)
    except remote.RemoteError as e:
        print("cudalab: %s" % e.message, file=sys.stderr)
        return e.code


def print_help(parser, sub, topic):
    """`run.py help` = --help; `run.py help CMD` = `run.py CMD --help`."""
    if not topic:
        parser.print_help()
        return exits.PASS
    if topic not in sub.choices:
        print("run.py help: no command %s (commands: %s)"
              % (topic, ", ".join(sorted(sub.choices))), file=sys.stderr)
        return exits.USAGE
    sub.choices[topic].print_help()
    return exits.PASS


def dispatch(args, parser, sub):
    """Run the command args name. Returns its exit status."""
    if args.command in ("login", "serve") or getattr(args, "remote", False) \
            or (args.command == "show" and (args.file or "").startswith(
                ("http://", "https://"))):
        return remote_command(args)
    if args.command is None:
        return lab_runs.workshop()
    if args.command == "help":
        return print_help(parser, sub, args.topic)
    if args.command == "setup":
        return packages.setup(args.quiet, args.for_tests)
    if args.command == "record":
        return record.record(args)
    if args.command == "docs":
        return docs.docs(args)
    if args.command == "grade":
        return class_grading.grade_class(args)
    rc = programs.build()
    if rc:
        return rc
    if getattr(args, "lab", None):
        # the grader lists the labs (it owns lab.json): build it first
        lab, why = labs.resolve(args.lab)
        if not lab:
            print("cudalab: %s" % why, file=sys.stderr)
            return exits.USAGE
        if lab != args.lab:
            print("cudalab: lab %s is %s" % (args.lab, lab), file=sys.stderr)
        args.lab = lab
    if args.command == "show":
        return lab_runs.show(args)
    if args.command == "explain":
        return lab_runs.explain(args)
    if args.command in ("test", "bench"):
        return lab_runs.grade_labs(args.command, args)
    if args.command == "merge":
        return programs.call("merge", args.out, *args.shards)
    if args.command == "list":
        return programs.call("list", *(["--json"] if args.json else []))
    if args.command == "calibrate":
        return lab_runs.calibrate(args)
    if args.command == "device":
        return programs.call("device", *(["--fresh"] if args.fresh else []),
                             *(["--json"] if args.json else []))
    return exits.USAGE


def main(argv=None):
    parser, sub = make_parser()
    args = parser.parse_args(argv)
    programs.locate()
    why = one_step(args)
    if why:
        print("cudalab: %s" % why, file=sys.stderr)
        return exits.USAGE
    try:
        return dispatch(args, parser, sub)
    except programs.GraderError as e:
        print("cudalab: %s" % e, file=sys.stderr)
        return exits.GRADER_ERROR


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
