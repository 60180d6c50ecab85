"""Helpers shared by the test suites: the tally, running the grader."""
import json
import os
import shutil
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
GRADER = os.path.join(ROOT, "build", "cudalab-grader")


class Tally:
    """Counts results and prints one line per test."""

    def __init__(self, filters=()):
        self.passed = self.failed = self.skipped = 0
        self.filters = list(filters)
        self._last_failed = False

    def wanted(self, name):
        return not self.filters or any(f in name for f in self.filters)

    def record(self, name, ok, detail=""):
        if not self.wanted(name):
            return
        self._last_failed = not ok
        if ok:
            self.passed += 1
            print("ok   - %s" % name)
        else:
            self.failed += 1
            print("FAIL - %s" % name)
            if detail:
                self.detail(detail)

    def detail(self, text):
        for line in str(text).splitlines()[:40]:
            print("       %s" % line)

    def last_failed(self):
        return self._last_failed

    def skip(self, name, why):
        self.skipped += 1
        print("skip - %s: %s" % (name, why))

    def summary(self):
        return "%d passed, %d failed, %d skipped" % (
            self.passed, self.failed, self.skipped)


def run(args, env=None, timeout=600, cwd=ROOT):
    """Run a command; returns (exit code, stdout, stderr)."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    proc = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, env=full_env, timeout=timeout, cwd=cwd)
    return proc.returncode, proc.stdout, proc.stderr


def grade(args, env=None, timeout=600):
    """Run the grader with --json; returns (rc, events, stderr)."""
    rc, out, err = run([GRADER, "--root", ROOT] + args + ["--json"], env=env,
                       timeout=timeout)
    events = []
    for line in out.splitlines():
        try:
            events.append(json.loads(line))
        except ValueError:
            events.append({"event": "unparsable", "line": line})
    log_dir = os.environ.get("CUDALAB_TEST_LOG")
    if log_dir:
        os.makedirs(log_dir, exist_ok=True)
        with open(os.path.join(log_dir, "grader-events.jsonl"), "a") as f:
            f.write(json.dumps({"args": args, "rc": rc}) + "\n")
            f.write(out)
    return rc, events, err


def step_ends(events):
    return {e["step"]: e for e in events if e.get("event") == "step_end"}


def checks(events, step):
    return [e for e in events if e.get("event") == "check"
            and e.get("step") == step]


def device_facts():
    probe = os.path.join(ROOT, "build", "devprobe")
    if os.environ.get("CUDALAB_NO_DEVICE"):
        return {"available": False, "reason": "CUDALAB_NO_DEVICE is set"}
    try:
        rc, out, _ = run([probe], timeout=120)
        return json.loads(out.strip().splitlines()[-1])
    except (OSError, ValueError, IndexError, subprocess.TimeoutExpired) as e:
        return {"available": False, "reason": "devprobe failed: %s" % e}


class Scratch:
    """A temporary folder holding step files under the names a lab expects."""

    def __init__(self):
        self.path = tempfile.mkdtemp(prefix="cudalab-test-")

    def put(self, source, name):
        shutil.copy(source, os.path.join(self.path, name))
        return self

    def write(self, name, text):
        with open(os.path.join(self.path, name), "w") as f:
            f.write(text)
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        shutil.rmtree(self.path, ignore_errors=True)


def step_files(lab):
    """{step id: the file the student edits} of labs/LAB/lab.json."""
    with open(os.path.join(ROOT, "labs", lab, "lab.json")) as f:
        return {s["id"]: s["file"] for s in json.load(f)["steps"]}


def fixture_expectations(path):
    """The `// expect-KEY: value` lines at the top of a fixture. A fixture
    that starts with a UTF-8 byte order mark needs its first line for the
    attack (GCC drops the mark, so line 1 is a directive): its
    expectations follow that line."""
    want = {}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f):
            if number == 0 and line.startswith("\ufeff"):
                continue
            if not line.startswith("// expect-"):
                break
            key, _, value = line[len("// expect-"):].partition(":")
            want[key.strip()] = value.strip()
    return want


def find_cycle(graph):
    """A list of nodes forming a circle in graph {node: set(nodes)} (the
    first node repeated at the end), or None."""
    state = {}  # node -> 1 on the path, 2 done
    path = []

    def visit(v):
        state[v] = 1
        path.append(v)
        for w in sorted(graph.get(v, ())):
            if state.get(w) == 1:
                return path[path.index(w):] + [w]
            if w not in state:
                found = visit(w)
                if found:
                    return found
        path.pop()
        state[v] = 2
        return None

    for v in sorted(graph):
        if v not in state:
            found = visit(v)
            if found:
                return found
    return None
