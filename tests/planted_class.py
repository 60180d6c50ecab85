"""A class of planted SAXPY submissions, for the grading tests.

make_class(folder, gpu=True) writes one entry per student into folder and
returns {student: expectation}. An expectation is a dict:
  notes:   words that must appear in the student's gradebook notes
  verdicts: {step: (verdict alternatives, message alternatives)} for the
           steps that must fail a certain way; every other submitted step
           of a GPU student must pass
  graded:  whether the student has a lab to grade at all

The submissions are the reference solutions with one step replaced by a
planted-bug fixture (tests/fixtures/saxpy/*.cu), correct ones in each
packaging (folder, nested folder, .zip, .tar.gz), and the packaging faults
(path traversal, symbolic link, archive bomb, near-miss name, empty entry,
not an archive). With gpu=False only the packaging cases are written.
"""
import io
import os
import tarfile
import zipfile

import harness_util as hu

SOL = os.path.join(hu.ROOT, "solutions", "saxpy")
FIX = os.path.join(hu.ROOT, "tests", "fixtures", "saxpy")
STEPS = ["v1", "v2", "v3", "v4", "v5"]


def _solution(step):
    with open(os.path.join(SOL, "saxpy_%s.cu" % step), "rb") as f:
        return f.read()


def _files(replace=None):
    """{name: bytes}: all five solutions, one step maybe replaced."""
    files = {"saxpy_%s.cu" % s: _solution(s) for s in STEPS}
    if replace:
        step, data = replace
        files["saxpy_%s.cu" % step] = data
    return files


def _folder(path, files, sub=""):
    os.makedirs(os.path.join(path, sub), exist_ok=True)
    for name, data in files.items():
        with open(os.path.join(path, sub, name), "wb") as f:
            f.write(data)


def _zip(path, files, prefix=""):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(prefix + name, data)


def _tar(path, files, extra=()):
    with tarfile.open(path, "w:gz") as t:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
        for info in extra:
            t.addfile(info)


def make_class(folder, gpu=True):
    os.makedirs(folder, exist_ok=True)
    want = {}

    # --- packaging faults (no GPU needed to judge the notes) ---------------
    data = _solution("v1")
    with tarfile.open(os.path.join(folder, "trav.tar.gz"), "w:gz") as t:
        for name in ("../../escape/saxpy_v1.cu", "/etc/saxpy_v2.cu"):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    want["trav"] = {"notes": ["'../../escape/saxpy_v1.cu': it points outside",
                              "'/etc/saxpy_v2.cu': it points outside",
                              "no lab files found"], "graded": False}
    link = tarfile.TarInfo("saxpy_v5.cu")
    link.type = tarfile.SYMTYPE
    link.linkname = os.path.join(SOL, "saxpy_v5.cu")
    _tar(os.path.join(folder, "linker.tar.gz"), {}, [link])
    want["linker"] = {"notes": ["'saxpy_v5.cu': a link", "no lab files"],
                      "graded": False}
    with zipfile.ZipFile(os.path.join(folder, "bomb.zip"), "w",
                         zipfile.ZIP_DEFLATED) as z:
        z.writestr("saxpy_v1.cu", b"\0" * (300 << 20))
    want["bomb"] = {"notes": ["archive bomb", "not graded"], "graded": False}
    os.makedirs(os.path.join(folder, "empty"))
    want["empty"] = {"notes": ["no lab files found"], "graded": False}
    with open(os.path.join(folder, "notes.txt"), "w") as f:
        f.write("not a submission\n")
    want["notes.txt"] = {"notes": ["not a folder, a .zip or a .tar.gz"],
                         "graded": False}
    _folder(os.path.join(folder, "oddname"),
            {"Saxpy-V1.cu": _solution("v1"), "README.md": b"hi"})
    want["oddname"] = {"notes": ["Saxpy-V1.cu looks like saxpy_v1.cu",
                                 "1 other file(s) ignored"],
                       "graded": False}
    big = os.path.join(folder, "huge")
    _folder(big, {"saxpy_v1.cu": b"// x\n" * 300000})
    want["huge"] = {"notes": ["over the 1048576-byte limit"], "graded": False}
    if not gpu:
        return want

    # --- correct, in every packaging --------------------------------------
    _folder(os.path.join(folder, "ok-folder"), _files())
    _folder(os.path.join(folder, "ok-nested"), _files(), "labs/saxpy")
    _zip(os.path.join(folder, "ok-zip.zip"), _files(), "ok-zip/")
    _tar(os.path.join(folder, "ok-tar.tar.gz"), _files())
    for s in ("ok-folder", "ok-nested", "ok-zip", "ok-tar"):
        want[s] = {"notes": [], "verdicts": {}, "graded": True}
    partial = _files()
    del partial["saxpy_v4.cu"], partial["saxpy_v5.cu"]
    _folder(os.path.join(folder, "partial"), partial)
    want["partial"] = {"notes": ["missing saxpy_v4.cu, saxpy_v5.cu"],
                       "verdicts": {"v4": (["missing"], ["not submitted"]),
                                    "v5": (["missing"], ["not submitted"])},
                       "graded": True}
    # slow: the naive kernel handed in as every step
    slow = {"saxpy_%s.cu" % s: _solution("v1") for s in STEPS}
    _folder(os.path.join(folder, "slow"), slow)
    want["slow"] = {"notes": [], "graded": True,
                    "verdicts": {s: (["fail"], [""]) for s in STEPS[1:]}}
    # more correct students, so the class has 40 entries (identical files
    # share one build: what a real class of mostly-right answers costs)
    for k in range(1, 9):
        _folder(os.path.join(folder, "ok-copy-%d" % k), _files())
        want["ok-copy-%d" % k] = {"notes": [], "verdicts": {},
                                  "graded": True}

    # --- one planted bug each ----------------------------------------------
    for name in sorted(os.listdir(FIX)):
        if not name.endswith(".cu"):
            continue
        path = os.path.join(FIX, name)
        exp = hu.fixture_expectations(path)
        with open(path, "rb") as f:
            data = f.read()
        sid = "bug-" + name[:-3].replace("_", "-")
        _folder(os.path.join(folder, sid), _files((exp["step"], data)))
        want[sid] = {"notes": [], "graded": True,
                     "verdicts": {exp["step"]: (exp["verdict"].split("|"),
                                                exp["message"].split("|"))}}
    return want


def check_row(row, exp, gpu=True):
    """Problems with one gradebook.json row against its expectation."""
    problems = []
    notes = " ".join(row.get("notes", []))
    for words in exp["notes"]:
        if words not in notes:
            problems.append("notes lack %r (notes: %s)" % (words, notes))
    if not gpu:
        return problems
    steps = {r["step"]: r for r in row["labs"].get("saxpy", [])}
    for step in STEPS:
        r = steps.get(step, {})
        verdict, summary = r.get("verdict"), r.get("summary", "")
        if not exp["graded"]:
            if verdict != "missing":
                problems.append("%s: %s, expected missing" % (step, verdict))
            continue
        if step in exp.get("verdicts", {}):
            vs, ms = exp["verdicts"][step]
            if verdict not in vs or not any(m in summary for m in ms):
                problems.append("%s: %s '%s', expected %s '%s'"
                                % (step, verdict, summary, "|".join(vs),
                                   "|".join(ms)))
        elif verdict != "pass":
            problems.append("%s: %s '%s', expected pass"
                            % (step, verdict, summary))
    return problems
