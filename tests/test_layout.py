"""Layout suite (no GPU, no build): run.py stays the front door and each
contract has one owner (issue 19, item 4).

- run.py is under 400 lines: the command line, its help and the dispatch;
  the work lives in tools/ (one module a concern).
- The import picture of run.py and tools/*.py has no circle (imports inside
  functions count: they close a circle as surely at run time).
- No Python file reads lab.json or spells the grader's state files: the
  grader owns both (`cudalab-grader list --json`, `cudalab-grader paths`).
- The exit statuses Python names (tools/exits.py) are the grader's (its
  `--help` line "exit status: 0 pass, 1 fail, ...").

Each check is first run on a planted fixture that it must catch.
"""
import ast
import os
import re
import shutil
import sys
import tempfile

import harness_util as hu

FRONT_DOOR_LINES = 400
# names only the grader may spell (grader/paths.h, grader/results.h,
# common/manifest.h); a Python string equal to one is a second owner
GRADER_OWNED = ("lab.json", ".cudalab", "history.jsonl")


def python_files(root):
    tools = os.path.join(root, "tools")
    return [os.path.join(root, "run.py")] + sorted(
        os.path.join(tools, f) for f in os.listdir(tools) if f.endswith(".py"))


def module_name(path):
    return os.path.splitext(os.path.basename(path))[0]


def import_graph(paths):
    """{module: sorted local modules it imports} for the files in paths
    (a module is local when one of paths defines it)."""
    local = {module_name(p) for p in paths}
    graph = {}
    for path in paths:
        with open(path) as f:
            tree = ast.parse(f.read(), path)
        found = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module \
                    and not node.level:
                found.add(node.module.split(".")[0])
        graph[module_name(path)] = sorted(found & local - {module_name(path)})
    return graph


def grader_owned_strings(paths):
    """["file:line 'name'"] for every string in paths that spells a name the
    grader owns (GRADER_OWNED, or a run log's "-last.jsonl")."""
    hits = []
    for path in paths:
        with open(path) as f:
            tree = ast.parse(f.read(), path)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and (node.value in GRADER_OWNED
                         or node.value.endswith("-last.jsonl")):
                hits.append((path, node.lineno, "%s:%d %r" % (
                    os.path.relpath(path, hu.ROOT), node.lineno,
                    node.value)))
    return [h[2] for h in sorted(hits)]


def exit_mismatches(grader_help, words):
    """["N: grader says X, Python Y"] where the grader's "exit status:" line
    and Python's words (exits.WORDS) disagree; a status either lacks counts."""
    line = re.search(r"exit status: (.*)", grader_help)
    said = dict((int(n), w.strip()) for n, w in re.findall(
        r"(\d+) ([a-z ]+)", line.group(1))) if line else {}
    wrong = []
    for code in sorted(set(said) | set(words)):
        mine = words.get(code, "").lower()
        if not said.get(code) or not mine.startswith(said[code]):
            wrong.append("%d: grader says %r, Python %r"
                         % (code, said.get(code), mine))
    return wrong


def planted(files):
    """A folder with the given {name: source}; the paths of its files."""
    tmp = tempfile.mkdtemp(prefix="cudalab-layout-")
    paths = []
    for name, text in files.items():
        path = os.path.join(tmp, name)
        with open(path, "w") as f:
            f.write(text)
        paths.append(path)
    return paths


def run(t):
    paths = python_files(hu.ROOT)
    with open(paths[0]) as f:
        lines = len(f.read().splitlines())
    t.record("layout: run.py is the front door, under %d lines (command "
             "line, help, dispatch; the work in tools/)" % FRONT_DOOR_LINES,
             0 < lines < FRONT_DOOR_LINES, "run.py has %d lines" % lines)

    fixture = planted({
        "front.py": "import alpha\n",
        "alpha.py": "import os\nfrom beta import thing\n",
        "beta.py": "def late():\n    import gamma\n",
        "gamma.py": "import json\n\n\ndef f():\n    import alpha\n",
    })
    cycle = hu.find_cycle(import_graph(fixture))
    shutil.rmtree(os.path.dirname(fixture[0]), ignore_errors=True)
    t.record("layout: a planted circle (alpha -> beta -> gamma -> alpha, "
             "two of its imports inside functions) is found and named",
             cycle == ["alpha", "beta", "gamma", "alpha"], str(cycle))
    graph = import_graph(paths)
    cycle = hu.find_cycle(graph)
    t.record("layout: the imports of run.py and tools/*.py have no circle",
             cycle is None and graph.get("run"),
             "circle: %s" % " -> ".join(cycle or []))

    fixture = planted({"reader.py": (
        "import json, os\n\ndef manifest(root, lab):\n"
        "    return json.load(open(os.path.join(root, 'labs', lab, "
        "'lab.json')))\n\ndef log(state, lab):\n"
        "    return os.path.join(state, 'runs', lab + '-last.jsonl')\n")})
    hits = grader_owned_strings(fixture)
    shutil.rmtree(os.path.dirname(fixture[0]), ignore_errors=True)
    t.record("layout: a planted reader of lab.json and of the run log's name "
             "is caught", len(hits) == 2 and "'lab.json'" in hits[0]
             and "'-last.jsonl'" in hits[1], "; ".join(hits))
    hits = grader_owned_strings(paths)
    t.record("layout: no Python file reads lab.json or spells the grader's "
             "state files (the grader lists and locates them)",
             not hits, "; ".join(hits))

    sys.path.insert(0, os.path.join(hu.ROOT, "tools"))
    import exits
    wrong = exit_mismatches("exit status: 0 pass, 1 fail, 2 usage, 3 fail, "
                            "4 grader error\n", exits.WORDS)
    t.record("layout: a planted disagreement on an exit status (3) is named",
             len(wrong) == 1 and wrong[0].startswith("3:"), "; ".join(wrong))
    rc, out, err = hu.run([hu.GRADER, "--help"])
    wrong = exit_mismatches(out, exits.WORDS)
    t.record("layout: tools/exits.py names the grader's exit statuses, "
             "each as the grader's --help does", rc == 0 and not wrong,
             "; ".join(wrong) or err)
