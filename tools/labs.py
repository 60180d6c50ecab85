"""labs — the labs as the grader sees them, for run.py.

The grader owns lab.json: it validates every manifest and lists the labs in
workshop order (`cudalab-grader list --json`: name, title, order, steps with
id, title, file and checks, progress). Python never reads lab.json itself;
everything here asks that listing.
"""
import difflib
import json
import os

import exits
import programs


def listing_status(quiet=False, grader=None, root=None):
    """(the grader's exit status, the labs in workshop order): each lab an
    entry of `list --json` (the validated manifest and progress). A broken
    lab.json is left out (status 4), and the grader says why on stderr
    (unless quiet). grader, root: another grader (programs.ask)."""
    rc, out = programs.ask("list", "--json", quiet=quiet, grader=grader,
                           root=root)
    try:
        labs = json.loads(out or "[]")
    except ValueError:
        labs = []
    return rc, labs if isinstance(labs, list) else []


def listing(quiet=False, grader=None, root=None):
    """The labs of listing_status(), whatever its status."""
    return listing_status(quiet, grader, root)[1]


def names(quiet=False):
    """The labs' names in workshop order."""
    return [lab["name"] for lab in listing(quiet)]


def resolve(name, labs=None):
    """The lab a user meant: its name, any case (SAXPY), or the number
    `list` shows (2). Returns (lab, None), or (None, why) with the labs and
    a "did you mean" when the name is close to one."""
    labs = listing() if labs is None else labs
    known = [lab["name"] for lab in labs]
    if name in known:
        return name, None
    order = {str(lab.get("order")): lab["name"] for lab in labs}
    lower = {n.lower(): n for n in known}
    if name.strip().rstrip(".") in order:
        return order[name.strip().rstrip(".")], None
    if name.lower() in lower:
        return lower[name.lower()], None
    near = difflib.get_close_matches(name.lower(), list(lower), n=1,
                                     cutoff=0.6)
    numbered = ", ".join("%s. %s" % (lab.get("order"), lab["name"])
                         for lab in labs)
    return None, ("no lab called \"%s\"%s (labs: %s; a lab's number "
                  "works too)" % (name, "; did you mean %s?" % lower[near[0]]
                                  if near else "", numbered))


def print_summary(command, results, to):
    """After `run.py test` (or bench): every lab's passed/total and verdict,
    and where the results are kept."""
    by_name = {lab["name"]: lab for lab in listing(quiet=True)}
    lines = [""]
    if len(results) > 1:
        lines.append("summary of `run.py %s`:" % command)
    for name, rc in results if len(results) > 1 else []:
        lab = by_name.get(name, {})
        lines.append("  %-3s %-11s %d/%d step(s) passed   %s" % (
            "%s." % lab.get("order", "?"), name, lab.get("passed", 0),
            lab.get("steps", 0), exits.WORDS.get(rc, "exit %d" % rc)))
    state = programs.paths()["state"]
    shown = (os.path.relpath(state) if state.startswith(os.getcwd() + os.sep)
             else state)
    lines.append("results kept in %s/: results/LAB.json (the last verdict "
                 "of each step), history.jsonl (every run), "
                 "runs/LAB-last.jsonl (the last run's events: `python3 "
                 "run.py show`)" % shown)
    print("\n".join(lines), file=to)
