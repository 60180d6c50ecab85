"""programs — the C programs behind run.py: where they are, building them,
calling them.

The grader owns lab.json, the state folder and its own command line
(grader/main.c); this module only finds it and asks it:

  locate()        once per command: the build folder and the programs to run
  build()         set-up (packages.py), then make what changed; an exit code
  call(*args)     `cudalab-grader --root ROOT ARGS...`, its exit status
  paths(lab)      `cudalab-grader paths [LAB]`: the state folder and its files
                  (grader/paths.h, grader/results.h); never rebuilt here
  commit_id()     the checkout's commit, passed to the grader for its events

What stays here: where the programs are built before any of them exists
(build_dir: a read-only checkout builds in a per-user folder, handed to the
grader as CUDALAB_BUILD, which grader/paths.h then honours).
"""
import hashlib
import json
import os
import subprocess
import sys

import exits
import packages

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GRADER = os.path.join(ROOT, "build", "cudalab-grader")
UI = os.path.join(ROOT, "build", "cudalab-ui")
DEVPROBE = os.path.join(ROOT, "build", "devprobe")
# Where make builds (None: build/ of the checkout, make's default); set by
# locate() for a checkout the user cannot write.
MAKE_BUILD = None
PREBUILT = False


class GraderError(Exception):
    """The grader could not answer a question run.py must ask it; the
    message says what to do. run.py reports it once (exit 4)."""


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


def announce_first_build():
    """Say what the first build's silence is (the grader, the dashboard and
    the device probe compile once, ~15 s on two cores)."""
    missing = [p for p in (GRADER, UI, DEVPROBE) if not os.path.exists(p)]
    if missing:
        print("cudalab: building the grader, the dashboard and the device "
              "probe (once; about 15 s) ...", file=sys.stderr, flush=True)


def build():
    """Build what changed. Returns an exit code; prints make's output on error."""
    rc = packages.setup(quiet=True)
    if rc:
        return rc
    announce_first_build()
    if PREBUILT:  # a read-only install with its programs: nothing to make
        return exits.PASS
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
        return exits.GRADER_ERROR
    return exits.PASS


def build_client():
    """A laptop without CUDA (workshop client): the plain-C programs only
    (the grader's list/report and the dashboard). Returns an exit code."""
    rc = subprocess.call(["make", "-s", "-C", ROOT, "build/cudalab-grader",
                          "build/cudalab-ui"],
                         env=dict(os.environ, CUDALAB_CLIENT_BUILD="1"))
    return exits.GRADER_ERROR if rc else exits.PASS


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


def grader_env():
    """The environment the grader and the dashboard run in."""
    return dict(os.environ, CUDALAB_COMMIT=commit_id())


def call(*args):
    """Run the grader with its output on ours; its exit status."""
    return subprocess.call([GRADER, "--root", ROOT] + list(args),
                           env=grader_env())


def ask(*args, quiet=False, grader=None, root=None):
    """(exit status, stdout) of the grader asked a question (JSON); grader
    and root: another grader than the one locate() chose (the server's)."""
    proc = subprocess.run([grader or GRADER, "--root", root or ROOT]
                          + list(args),
                          stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL if quiet else None,
                          text=True)
    return proc.returncode, proc.stdout


def paths(lab=None):
    """The grader's folders and state files (`cudalab-grader paths [LAB]`):
    root, bin, build, state, runs, results, history; with lab, last_run
    and lab_results too. Raises GraderError when the grader cannot say."""
    try:
        rc, out = ask("paths", *([lab] if lab else []), quiet=True)
        if rc == 0:
            return json.loads(out)
    except (OSError, ValueError):
        pass
    raise GraderError("the grader (%s) cannot say where its state folder is; "
                      "run `python3 run.py setup`, then try again" % GRADER)
