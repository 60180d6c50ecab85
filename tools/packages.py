"""packages — the system packages cudalab needs, checked and installed.

`run.py setup` and the first step of every command: nvcc on PATH, the
Debian packages the C code builds against (and, for `make test`, the
programs its tests drive). As root, missing packages are installed with
apt-get; as a user, the one command to run is printed.
"""
import os
import shutil
import subprocess
import sys

import exits

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
        return exits.FAIL
    missing = missing_packages(for_tests)
    if not missing:
        if not quiet:
            print("cudalab: set-up complete (nvcc, %s)"
                  % ", ".join(p for p, _ in PACKAGES))
        return exits.PASS
    command = "apt-get install -y " + " ".join(missing)
    if not is_root():
        print("cudalab: missing system packages: %s\nrun this once, then "
              "try again:\n  sudo %s" % (", ".join(missing), command),
              file=sys.stderr)
        return exits.FAIL
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
        return exits.FAIL
    return exits.PASS
