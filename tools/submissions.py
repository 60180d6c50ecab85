"""Intake of a folder of student submissions, for `run.py grade`.

One entry per student in SUBMISSIONS/: a folder, a .zip, or a .tar.gz/.tgz.
Only the files the lab manifests name as student files are taken, matched by
file name anywhere inside the entry (course platforms nest them differently);
everything else comes from the instructor's tree. Archives are read with the
Python standard library and never unpacked as a whole: each wanted file's
bytes are copied into OUT/work/STUDENT/LAB/FILE, nothing else is written.

Why Python: zip and gzip need an inflater, and the C grader's dependencies
(CUDA, jansson, ncurses) have none; zipfile and tarfile are in the standard
library run.py already relies on. The C grader receives plain folders.

Every oddity becomes a note on the student's gradebook row, never a crash:
entries escaping their folder (../, absolute paths), links and devices,
files over FILE_LIMIT, archives whose contents exceed TOTAL_LIMIT (bombs),
unreadable archives, near-miss names (saxpy-v1.cu for saxpy_v1.cu),
duplicates, empty submissions.
"""
import json
import os
import re
import shutil
import stat
import tarfile
import zipfile

FILE_LIMIT = 1 << 20        # a kernel file is a few KiB
TOTAL_LIMIT = 256 << 20     # uncompressed contents of one submission
MAX_ENTRIES = 10000


def student_id(entry):
    """A folder-safe id from the entry's name, extension dropped."""
    name = entry
    for ext in (".tar.gz", ".tgz", ".zip"):
        if name.lower().endswith(ext):
            name = name[: -len(ext)]
            break
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "student"
    return safe[:80]


def normalise(name):
    return re.sub(r"[-_ ]", "", name.lower())


class Member:
    """One file inside a submission: its path and how to read it."""

    def __init__(self, path, size, read):
        self.path, self.size, self.read = path, size, read


def _safe_path(path):
    """The entry's path if it stays inside its folder, else None."""
    p = path.replace("\\", "/")
    if p.startswith("/") or re.match(r"^[A-Za-z]:", p):
        return None
    parts = [x for x in p.split("/") if x not in ("", ".")]
    if any(x == ".." for x in parts):
        return None
    return "/".join(parts)


def _capped(f, limit):
    data = f.read(limit + 1)
    if len(data) > limit:
        raise ValueError("larger than %d bytes" % limit)
    return data


def _zip_members(path, notes):
    z = zipfile.ZipFile(path)
    out = []
    infos = z.infolist()
    if len(infos) > MAX_ENTRIES:
        raise ValueError("more than %d entries" % MAX_ENTRIES)
    if sum(i.file_size for i in infos) > TOTAL_LIMIT:
        raise ValueError("its contents would take more than %d MiB "
                         "unpacked (an archive bomb?)" % (TOTAL_LIMIT >> 20))
    for info in infos:
        mode = info.external_attr >> 16
        if info.is_dir():
            continue
        safe = _safe_path(info.filename)
        if safe is None:
            notes.append("ignored %r: it points outside the submission"
                         % info.filename)
            continue
        if stat.S_ISLNK(mode):
            notes.append("ignored %r: a symbolic link" % info.filename)
            continue
        out.append(Member(safe, info.file_size,
                          lambda i=info: _capped(z.open(i), FILE_LIMIT)))
    return out


def _tar_members(path, notes):
    t = tarfile.open(path, "r:*")
    out, total = [], 0
    for k, m in enumerate(t):
        if k >= MAX_ENTRIES:
            raise ValueError("more than %d entries" % MAX_ENTRIES)
        if m.isdir():
            continue
        safe = _safe_path(m.name)
        if safe is None:
            notes.append("ignored %r: it points outside the submission"
                         % m.name)
            continue
        if m.issym() or m.islnk():
            notes.append("ignored %r: a link" % m.name)
            continue
        if not m.isfile():
            notes.append("ignored %r: not a regular file" % m.name)
            continue
        total += m.size
        if total > TOTAL_LIMIT:
            raise ValueError("its contents would take more than %d MiB "
                             "unpacked (an archive bomb?)"
                             % (TOTAL_LIMIT >> 20))
        out.append(Member(safe, m.size,
                          lambda m=m: _capped(t.extractfile(m), FILE_LIMIT)))
    return out


def _folder_members(path, notes):
    out = []
    for dirpath, dirnames, filenames in os.walk(path, followlinks=False):
        for d in list(dirnames):
            if os.path.islink(os.path.join(dirpath, d)):
                notes.append("ignored %r: a symbolic link" %
                             os.path.relpath(os.path.join(dirpath, d), path))
                dirnames.remove(d)
        for f in filenames:
            full = os.path.join(dirpath, f)
            rel = os.path.relpath(full, path)
            st = os.lstat(full)
            if stat.S_ISLNK(st.st_mode):
                notes.append("ignored %r: a symbolic link" % rel)
                continue
            if not stat.S_ISREG(st.st_mode):
                notes.append("ignored %r: not a regular file" % rel)
                continue

            def read(full=full):
                with open(full, "rb") as fh:
                    return _capped(fh, FILE_LIMIT)
            out.append(Member(rel, st.st_size, read))
            if len(out) > MAX_ENTRIES:
                raise ValueError("more than %d files" % MAX_ENTRIES)
    return out


def members(path, notes):
    """The files of one submission entry (raises ValueError when it cannot
    be read at all)."""
    low = path.lower()
    try:
        if os.path.isdir(path) and not os.path.islink(path):
            return _folder_members(path, notes)
        if low.endswith(".zip"):
            return _zip_members(path, notes)
        if low.endswith((".tar.gz", ".tgz", ".tar")):
            return _tar_members(path, notes)
    except (zipfile.BadZipFile, tarfile.TarError, OSError, EOFError) as e:
        raise ValueError("cannot be read: %s" % e)
    raise ValueError("is not a folder, a .zip or a .tar.gz")


def intake(submissions, labs, out_dir):
    """Stage every submission; labs maps lab name -> list of step files.
    Returns the intake record (also written to OUT/intake.json)."""
    wanted = {}
    for lab, files in labs.items():
        for f in files:
            wanted[f] = lab
    near = {normalise(f): f for f in wanted}
    work = os.path.join(out_dir, "work")
    students, seen_ids = [], set()
    for entry in sorted(os.listdir(submissions)):
        if entry.startswith("."):
            continue
        sid = student_id(entry)
        base, k = sid, 2
        while sid in seen_ids:
            sid = "%s-%d" % (base, k)
            k += 1
        seen_ids.add(sid)
        rec = {"student": sid, "source": entry, "notes": [], "labs": {}}
        students.append(rec)
        notes = rec["notes"]
        try:
            files = members(os.path.join(submissions, entry), notes)
        except ValueError as e:
            notes.append("%s %s: not graded" % (entry, e))
            continue
        taken, extra = {}, []
        for m in files:
            name = m.path.rsplit("/", 1)[-1]
            if name in wanted:
                lab = wanted[name]
                prev = taken.get(name)
                # prefer labs/LAB/NAME over a copy elsewhere
                if prev is None or ("labs/%s/" % lab) in ("/" + m.path):
                    if prev is not None:
                        notes.append("two files called %s: took %s"
                                     % (name, m.path))
                    taken[name] = m
                else:
                    notes.append("two files called %s: took %s"
                                 % (name, prev.path))
            elif normalise(name) in near:
                notes.append("%s looks like %s: rename it (not graded "
                             "under the wrong name)"
                             % (m.path, near[normalise(name)]))
            else:
                extra.append(m.path)
        if extra:
            notes.append("%d other file(s) ignored (e.g. %s)"
                         % (len(extra), extra[0]))
        for name, m in sorted(taken.items()):
            lab = wanted[name]
            if m.size > FILE_LIMIT:
                notes.append("%s is %d bytes, over the %d-byte limit for a "
                             "kernel file: not graded"
                             % (m.path, m.size, FILE_LIMIT))
                continue
            try:
                data = m.read()
            except (ValueError, OSError, zipfile.BadZipFile,
                    tarfile.TarError, EOFError) as e:
                notes.append("%s cannot be read (%s): not graded"
                             % (m.path, e))
                continue
            dest = os.path.join(work, sid, lab)
            os.makedirs(dest, exist_ok=True)
            with open(os.path.join(dest, name), "wb") as fh:
                fh.write(data)
            rec["labs"].setdefault(lab, {"files": [], "missing": []})
            rec["labs"][lab]["files"].append(name)
        for lab, files_of_lab in labs.items():
            got = rec["labs"].get(lab)
            if got:
                got["missing"] = [f for f in files_of_lab
                                  if f not in got["files"]]
                if got["missing"]:
                    notes.append("%s: missing %s" %
                                 (lab, ", ".join(got["missing"])))
        if not rec["labs"]:
            notes.append("no lab files found (looked for %s)"
                         % ", ".join(sorted(wanted)[:6]) +
                         (", ..." if len(wanted) > 6 else ""))
    record = {"submissions": os.path.abspath(submissions),
              "labs": labs, "students": students}
    os.makedirs(out_dir, exist_ok=True)
    tmp = os.path.join(out_dir, "intake.json.tmp")
    with open(tmp, "w") as fh:
        json.dump(record, fh, indent=1)
    os.replace(tmp, os.path.join(out_dir, "intake.json"))
    return record


def clear_work(out_dir):
    shutil.rmtree(os.path.join(out_dir, "work"), ignore_errors=True)
