"""The layout of the C tree: no circle between its modules.

A module is a file pair (foo.c and foo.h) under ui/, grader/ or common/.
Two pictures are checked, and a circle in either fails:

  includes  foo -> bar when foo.c or foo.h (or a .cu of common/) includes
            bar.h (quoted includes, resolved as the Makefile's -I flags
            do: the includer's folder, then common/, then grader/)
  links     foo -> bar when build/.../foo.o uses a symbol bar.o defines
            (nm): the circle a header alone does not show, e.g. a
            renderer that calls the panels that call its helpers

Both use one cycle finder, which is itself tested on a planted circle, so
the test can fail.
"""
import glob
import os
import re
import subprocess

import harness_util as hu

DIRS = ("ui", "grader", "common")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def module(path):
    """ui/render.c -> ui/render"""
    return os.path.splitext(os.path.relpath(path, hu.ROOT))[0]


def include_graph():
    graph = {}
    files = [f for d in DIRS for pat in ("*.c", "*.h", "*.cu")
             for f in glob.glob(os.path.join(hu.ROOT, d, pat))]
    for f in files:
        me = module(f)
        graph.setdefault(me, set())
        with open(f, errors="replace") as fh:
            text = fh.read()
        for name in INCLUDE.findall(text):
            for where in (os.path.dirname(f), os.path.join(hu.ROOT, "common"),
                          os.path.join(hu.ROOT, "grader")):
                target = os.path.join(where, name)
                if os.path.exists(target):
                    other = module(target)
                    if other != me:
                        graph[me].add(other)
                    break
    return graph


def link_graph():
    """None when the objects are not built (run `make` first)."""
    objs = [o for d in DIRS
            for o in glob.glob(os.path.join(hu.ROOT, "build", d, "*.o"))]
    if not objs:
        return None
    defined, used = {}, {}
    for o in objs:
        out = subprocess.run(["nm", o], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True).stdout
        me = os.path.relpath(o, os.path.join(hu.ROOT, "build"))[:-2]
        used[me] = set()
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "TDBR":
                defined.setdefault(parts[2], me)
            elif len(parts) == 2 and parts[0] == "U":
                used[me].add(parts[1])
    return {me: {defined[s] for s in syms if s in defined} - {me}
            for me, syms in used.items()}


def run(t):
    planted = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    t.record("graph: the cycle finder finds a planted circle a->b->c->a "
             "and none in a tree",
             hu.find_cycle(planted) == ["a", "b", "c", "a"]
             and hu.find_cycle({"a": {"b", "c"}, "b": {"c"}}) is None,
             str(hu.find_cycle(planted)))
    graph = include_graph()
    cycle = hu.find_cycle(graph)
    t.record("graph: the #include graph of ui/ grader/ common/ (%d modules)"
             " has no circle" % len(graph), cycle is None,
             " -> ".join(cycle or []))
    t.record("graph: ui/render includes the panels, the panels draw with "
             "ui/draw, and nothing under them includes render",
             "ui/panels" in graph.get("ui/render", ())
             and "ui/draw" in graph.get("ui/panels", ())
             and all("ui/render" not in graph.get(m, ())
                     for m in graph if m.startswith("ui/panel")),
             str({m: sorted(v) for m, v in graph.items()
                  if m.startswith("ui/")}))
    links = link_graph()
    if links is None:
        t.skip("graph: the link graph of the objects", "nothing built")
        return
    cycle = hu.find_cycle(links)
    t.record("graph: the link graph of the built objects (%d, nm) has no "
             "circle" % len(links), cycle is None, " -> ".join(cycle or []))
