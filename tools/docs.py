"""docs — `run.py docs`: each lab README's checks block, rendered from the
grader's validated view of lab.json (`cudalab-grader list --json`), so
lab.json is the one place the bars are written.
"""
import os
import sys

import exits
import labs as labs_mod
import programs

ROOT = programs.ROOT

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
    rc = programs.build()
    if rc:
        return rc
    rc, labs = labs_mod.listing_status()
    if rc != 0 or not labs:
        print("cudalab: cannot read the labs (see above)", file=sys.stderr)
        return exits.GRADER_ERROR
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
        return exits.FAIL
    if not stale:
        print("cudalab: every lab README's checks block matches its lab.json")
    return exits.PASS
