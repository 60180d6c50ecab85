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
an entry that is itself a link, a pipe or a device (it is not read),
entries escaping their folder (../, absolute paths), links and devices,
files over FILE_LIMIT, archives whose contents exceed TOTAL_LIMIT (bombs),
unreadable archives, near-miss names (saxpy-v1.cu for saxpy_v1.cu),
duplicates, empty submissions; encrypted zip entries, compression methods
other than stored and deflate (bzip2 and LZMA too: zipfile inflates them
with no cap, whatever size they claim; 99, AES), corrupt data; tar headers
that would cost memory or time (a GNU long name or pax header over
NAME_LIMIT / PAX_LIMIT is refused before it is read; pax keys over
PAX_KEYS, a member's or the archive's global ones, which tarfile copies
into every later member; more than TAR_CHAIN extension headers before one
member, or EXT_LIMIT of them in all; GNU sparse members, whose map tarfile
reads before the member is seen: see CappedTarInfo); names that are not
UTF-8 (shown with U+FFFD).
Anything else an entry raises is caught per entry: one bad submission is a
note on its row, never the end of the class's intake.

Capped: an archive's size on disk (TOTAL_LIMIT), the sizes its members
claim, every member of every type counted before the next one is read
(TOTAL_LIMIT: skipping a member in a compressed tar costs decompressing
it, so one submission costs at most TOTAL_LIMIT of inflating), entries
(MAX_ENTRIES), a tar's extension headers (pax keys per member PAX_KEYS,
TAR_CHAIN in a row, EXT_LIMIT in all), a zip's inflating (deflate only),
each note (NOTE_LIMIT characters, control characters removed) and the notes
of one row (MAX_NOTES), the number of submissions (MAX_SUBMISSIONS).

Ids: each entry's id is its name made folder-safe (student_id). They are
unique and never stolen: an entry whose name already is its id (`bob`)
gets it before any entry that only maps to it (`_bob`, `bob!`), which gets
`bob-2` (the next free number); otherwise in name order. So the result
does not depend on the order the folder lists its entries.
"""
import json
import os
import re
import shutil
import stat
import struct
import tarfile
import zipfile

FILE_LIMIT = 1 << 20        # a kernel file is a few KiB
TOTAL_LIMIT = 256 << 20     # uncompressed contents of one submission
MAX_ENTRIES = 10000
NAME_LIMIT = 4096           # a GNU long name/link (PATH_MAX)
PAX_LIMIT = 64 << 10        # a pax extended header
PAX_KEYS = 64               # pax keys of one member, the archive's global
                            # ones included: a normal member has a handful
                            # (times, path, owner; macOS adds a few xattrs;
                            # git archive one global comment)
TAR_CHAIN = 4               # extension headers before one member (long
                            # name, long link, pax, global pax)
EXT_LIMIT = 16 << 20        # all the extension headers of one archive
                            # (tarfile keeps them in its members)
CD_LIMIT = 4 << 20          # a zip's central directory (MAX_ENTRIES of
                            # ~400 bytes): zipfile parses it whole
ZIP_METHODS = (zipfile.ZIP_STORED,    # the zip methods read: deflate's
               zipfile.ZIP_DEFLATED)  # output is capped as it is read
NOTE_LIMIT = 300            # characters of one note
MAX_NOTES = 20              # notes kept per student
MAX_SUBMISSIONS = 5000


def shown(text, limit=120):
    """A name from a submission as a note may quote it: valid UTF-8 (bytes
    that were not become U+FFFD), no control characters, capped."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    else:
        text = text.encode("utf-8", "surrogateescape").decode("utf-8",
                                                              "replace")
    text = "".join(c if c.isprintable() else "?" for c in text)
    return text if len(text) <= limit else text[:limit - 1] + "…"


EXTENSION_TYPES = (tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK,
                   tarfile.XHDTYPE, tarfile.XGLTYPE, tarfile.SOLARIS_XHDTYPE)


def _sparse(name):
    """The refusal of a GNU sparse member (a ValueError to raise)."""
    return ValueError("holds a GNU sparse file ('%s'): sparse files are not "
                      "read; tar the files without --sparse (-S)"
                      % shown(name))


def _sparse_of(member, args):
    """The refusal of a sparse member, named as its pax keys name it when
    tarfile passed them."""
    keys = args[0] if args and isinstance(args[0], dict) else {}
    return _sparse(keys.get("GNU.sparse.name") or member.name)


class CappedTarInfo(tarfile.TarInfo):
    """A tar header checked before tarfile acts on it: tarfile reads a
    header's extension blocks, the header after it and a sparse map inside
    TarInfo.fromtarfile, before the TarFile yields a member the intake
    could count (red team: a 64 KiB .tar.gz claiming a 300 MB name; pax
    global headers whose keys every later member copies, M^2: 2.7 MB, 34 s
    and 5.4 GB; a sparse map read to the end of the archive, 200 KB: 88 s).

    Each header is checked on its 512 bytes, before anything after it is
    read (_refuse_header), and each member once tarfile has built it,
    before the next header (_refuse_member); both raise ValueError, which
    tarfile lets through. So a pax header costs at most one parse of
    PAX_LIMIT bytes before it is refused. A sparse member is refused
    before its map is read: tarfile calls _proc_gnusparse_* once it has
    the pax keys and the member's header, before the map; issparse() and
    the GNU.sparse.* keys are checked again on the member, should a later
    tarfile name those handlers otherwise.

    Decided: each refusal refuses the whole archive (a note, not graded),
    as the other caps do; a student's kernel files are never sparse.
    Global pax headers are capped by their keys, not refused: git archive
    writes one, with the commit id."""

    def _proc_member(self, tarfile_):
        chain = getattr(tarfile_, "_capped_chain", 0)
        self._refuse_header(tarfile_, chain)
        if self.type in EXTENSION_TYPES:
            tarfile_._capped_chain = chain + 1
        try:
            info = super()._proc_member(tarfile_)
        finally:
            tarfile_._capped_chain = chain
        self._refuse_member(info, tarfile_)
        return info

    def _refuse_header(self, tarfile_, chain):
        """Raises ValueError for what this header, or the archive's global
        pax keys so far, would cost to read on."""
        if (self.type in (tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK)
                and self.size > NAME_LIMIT):
            raise ValueError("holds a GNU long name of %d bytes (over the "
                             "%d-byte limit)" % (self.size, NAME_LIMIT))
        if (self.type in (tarfile.XHDTYPE, tarfile.XGLTYPE,
                          tarfile.SOLARIS_XHDTYPE)
                and self.size > PAX_LIMIT):
            raise ValueError("holds a pax header of %d bytes (over the "
                             "%d-byte limit)" % (self.size, PAX_LIMIT))
        if self.type == tarfile.GNUTYPE_SPARSE:
            raise _sparse(self.name)
        if self.type in EXTENSION_TYPES:
            if chain >= TAR_CHAIN:
                raise ValueError("holds more than %d extension headers "
                                 "(pax headers, GNU long names) in a row "
                                 "before one file" % TAR_CHAIN)
            tarfile_._capped_ext = (getattr(tarfile_, "_capped_ext", 0)
                                    + max(self.size, 0))
            if tarfile_._capped_ext > EXT_LIMIT:
                raise ValueError("holds more than %d MiB of tar extension "
                                 "headers (pax headers, GNU long names)"
                                 % (EXT_LIMIT >> 20))
        self._refuse_keys(tarfile_.pax_headers, tarfile_, "")

    def _refuse_member(self, info, tarfile_):
        """Raises ValueError for a member tarfile has built that holds too
        many pax keys or is sparse."""
        self._refuse_keys(info.pax_headers, tarfile_, info.name)
        if info.issparse():
            raise _sparse(info.name)

    @staticmethod
    def _refuse_keys(keys, tarfile_, name):
        """Raises ValueError when the archive's global pax keys or `keys`
        (a member's, or the global ones) are over PAX_KEYS or sparse."""
        if len(tarfile_.pax_headers) > PAX_KEYS:
            raise ValueError("holds pax global headers of %d keys (over "
                             "the %d-key limit)"
                             % (len(tarfile_.pax_headers), PAX_KEYS))
        if len(keys) > PAX_KEYS:
            raise ValueError("holds a pax header of %d keys for '%s' (over "
                             "the %d-key limit)"
                             % (len(keys), shown(name), PAX_KEYS))
        if any(k.startswith("GNU.sparse.") for k in keys):
            raise _sparse(keys.get("GNU.sparse.name") or name or "?")

    # tarfile's handlers of the GNU sparse pax formats (0.0, 0.1, 1.0),
    # called before the map is read (1.0: from the member's data); their
    # arguments differ between Python releases (0.0: the pax dict and its
    # buffer, or the raw records since the 2024 tarfile fixes), hence *args
    def _proc_gnusparse_00(self, next_, *args):
        raise _sparse_of(next_, args)

    def _proc_gnusparse_01(self, next_, *args):
        raise _sparse_of(next_, args)

    def _proc_gnusparse_10(self, next_, *args):
        raise _sparse_of(next_, args)


def entry_name(entry):
    """The entry's name without its archive extension."""
    for ext in (".tar.gz", ".tgz", ".tar", ".zip"):
        if entry.lower().endswith(ext):
            return entry[: -len(ext)]
    return entry


def student_id(entry):
    """A folder-safe id from the entry's name, extension dropped."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", entry_name(entry)).strip("._")
    return (safe or "student")[:80]


def assign_ids(entries):
    """{entry: unique id}: exact names first (see the module's notes)."""
    ids, taken = {}, set()
    exact = [e for e in entries if entry_name(e) == student_id(e)]
    for entry in sorted(exact) + sorted(set(entries) - set(exact)):
        base = sid = student_id(entry)
        k = 2
        while sid in taken:
            sid = "%s-%d" % (base[:74], k)
            k += 1
        taken.add(sid)
        ids[entry] = sid
    return ids


def normalise(name):
    return re.sub(r"[-_ ]", "", name.lower())


class Member:
    """One file inside a submission: its path and how to read it."""

    def __init__(self, path, size, read, index=0):
        self.path, self.size, self.read = path, size, read
        self.index = index  # its place in the archive: reads go in order


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


# zip methods a note names (the others by number)
METHOD_NAMES = {9: "Deflate64", 12: "bzip2", 14: "LZMA", 93: "Zstandard",
                95: "xz", 98: "PPMd", 99: "AES encryption"}


def _zip_problem(info):
    """Why a zip entry cannot be read, before trying (None: it can)."""
    if info.flag_bits & 0x1:
        return ("it is encrypted (a password-protected zip): submit it "
                "without a password")
    # only stored and deflate: zipfile inflates bzip2 (12) and LZMA (14)
    # with no cap on the output, whatever size the entry claims (red team:
    # a 4.6 KB zip, 12 GB on the first read)
    if info.compress_type not in ZIP_METHODS:
        name = METHOD_NAMES.get(info.compress_type)
        return ("it uses compression method %d%s; only deflate and stored "
                "are read: zip it with the usual method (deflate)"
                % (info.compress_type, " (%s)" % name if name else ""))
    return None


def _zip_read(z, info):
    problem = _zip_problem(info)
    if problem:
        raise ValueError(problem)
    return _capped(z.open(info), FILE_LIMIT)


def _zip_directory(path):
    """(entries, bytes) of a zip's central directory, from its end records
    (zip64 ones too), read before zipfile parses it; None when there is no
    end record (zipfile then says why)."""
    with open(path, "rb") as fh:
        size = fh.seek(0, os.SEEK_END)
        tail_at = max(0, size - (22 + 0xFFFF + 20))
        fh.seek(tail_at)
        tail = fh.read()
        # where zipfile looks: an end record with no comment in the last
        # 22 bytes first, only then the last signature (red team,
        # 2026-11-27: an end record whose own offset field spelt the
        # signature hid the directory's size from a search alone)
        if tail[-22:-18] == b"PK\x05\x06" and tail[-2:] == b"\0\0":
            at = len(tail) - 22
        else:
            at = tail.rfind(b"PK\x05\x06")
        if at < 0 or len(tail) < at + 22:
            return None
        entries, cd_bytes = struct.unpack_from("<HL", tail, at + 10)
        # zipfile takes the zip64 record just before its locator, and
        # newer ones (the fix of CVE-2025-8291) where the locator says:
        # both are read, the largest claim counts (red team, 2026-11-27)
        loc = tail_at + at - 20
        if loc >= 56:
            fh.seek(loc)
            locator = fh.read(20)
            places = {loc - 56}
            if locator[:4] == b"PK\x06\x07":
                where = struct.unpack_from("<Q", locator, 8)[0]
                if where <= loc - 56:
                    places.add(where)
            for place in places:
                fh.seek(place)
                rec = fh.read(56)
                if rec[:4] == b"PK\x06\x06" and len(rec) == 56:
                    big = struct.unpack_from("<QQ", rec, 32)
                    entries = max(entries, big[0])
                    cd_bytes = max(cd_bytes, big[1])
    return entries, cd_bytes


def _zip_members(path, notes):
    # zipfile reads the whole central directory, however long, before
    # anything can be counted (red team: 5 million entries in 256 MiB
    # cost half a minute and 2 GiB); and it walks it by its size in
    # bytes, not by the entry count the end record claims: both capped
    directory = _zip_directory(path)
    if directory and directory[0] > MAX_ENTRIES:
        raise ValueError("more than %d entries" % MAX_ENTRIES)
    if directory and directory[1] > CD_LIMIT:
        raise ValueError("its list of contents takes more than %d MiB "
                         "(too many entries or names?)" % (CD_LIMIT >> 20))
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
            notes.append("ignored '%s': it points outside the submission"
                         % shown(info.filename))
            continue
        if stat.S_ISLNK(mode):
            notes.append("ignored '%s': a symbolic link"
                         % shown(info.filename))
            continue
        out.append(Member(safe, info.file_size,
                          lambda i=info: _zip_read(z, i)))
    return out


def _tar_members(path, notes):
    t = tarfile.open(path, "r:*", tarinfo=CappedTarInfo)
    out, total = [], 0
    for k, m in enumerate(t):
        if k >= MAX_ENTRIES:
            raise ValueError("more than %d entries" % MAX_ENTRIES)
        # every member's claimed size counts, whatever its type, before
        # the next header is read: tarfile skips a member's data by
        # decompressing it (red team: an unknown-type member claiming
        # 2 GiB in a 2.7 KiB archive cost 8 s of intake)
        total += max(m.size, 0)
        if total > TOTAL_LIMIT:
            raise ValueError("its contents would take more than %d MiB "
                             "unpacked (an archive bomb?)"
                             % (TOTAL_LIMIT >> 20))
        if m.isdir():
            continue
        safe = _safe_path(m.name)
        if safe is None:
            notes.append("ignored '%s': it points outside the submission"
                         % shown(m.name))
            continue
        if m.issym() or m.islnk():
            notes.append("ignored '%s': a link" % shown(m.name))
            continue
        if not m.isfile():
            notes.append("ignored '%s': not a regular file" % shown(m.name))
            continue
        out.append(Member(safe, m.size,
                          lambda m=m: _capped(t.extractfile(m), FILE_LIMIT),
                          k))
    return out


def _folder_members(path, notes):
    out, seen = [], 0
    for dirpath, dirnames, filenames in os.walk(path, followlinks=False):
        # every entry counts, folders and links too (a folder of a
        # million empty folders is not free to walk)
        seen += len(dirnames) + len(filenames)
        if seen > MAX_ENTRIES:
            raise ValueError("more than %d entries" % MAX_ENTRIES)
        for d in list(dirnames):
            if os.path.islink(os.path.join(dirpath, d)):
                notes.append("ignored '%s': a symbolic link" % shown(
                    os.path.relpath(os.path.join(dirpath, d), path)))
                dirnames.remove(d)
        for f in filenames:
            full = os.path.join(dirpath, f)
            rel = os.path.relpath(full, path)
            st = os.lstat(full)
            if stat.S_ISLNK(st.st_mode):
                notes.append("ignored '%s': a symbolic link" % shown(rel))
                continue
            if not stat.S_ISREG(st.st_mode):
                notes.append("ignored '%s': not a regular file" % shown(rel))
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
        st = os.lstat(path)
        # the entry itself: a link would read a file outside the
        # submissions (another student's), a FIFO would block the intake
        if stat.S_ISLNK(st.st_mode):
            raise ValueError("is a symbolic link: hand in the folder or "
                             "archive itself")
        if stat.S_ISDIR(st.st_mode):
            return _folder_members(path, notes)
        if not stat.S_ISREG(st.st_mode):
            raise ValueError("is not a folder or a file (a pipe or a "
                             "device?)")
        if st.st_size > TOTAL_LIMIT:
            raise ValueError("is over %d MiB" % (TOTAL_LIMIT >> 20))
        if low.endswith(".zip"):
            return _zip_members(path, notes)
        if low.endswith((".tar.gz", ".tgz", ".tar")):
            return _tar_members(path, notes)
    except (zipfile.BadZipFile, tarfile.TarError, OSError, EOFError,
            UnicodeError, NotImplementedError, RuntimeError) as e:
        raise ValueError("cannot be read: %s" % shown(str(e), 200))
    raise ValueError("is not a folder, a .zip or a .tar.gz")


def _stage(path, entry, sid, rec, wanted, labs, work):
    """Take one entry's lab files into work/SID/LAB; every problem is a
    note in rec. Raises only for what the caller turns into one note."""
    notes = rec["notes"]
    near = {normalise(f): f for f in wanted}
    try:
        files = members(path, notes)
    except ValueError as e:
        notes.append("%s %s: not graded" % (shown(entry), e))
        return
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
                                 % (name, shown(m.path)))
                taken[name] = m
            else:
                notes.append("two files called %s: took %s"
                             % (name, shown(prev.path)))
        elif normalise(name) in near:
            notes.append("%s looks like %s: rename it (not graded "
                         "under the wrong name)"
                         % (shown(m.path), near[normalise(name)]))
        else:
            extra.append(m.path)
    if extra:
        notes.append("%d other file(s) ignored (e.g. %s)"
                     % (len(extra), shown(extra[0])))
    # in archive order: a compressed tar read backwards is decompressed
    # again from its start for each file (red team: 240 MiB of padding and
    # the wanted files in reverse order, 0.3 s per file with gzip, 1 s with
    # bzip2)
    for name, m in sorted(taken.items(), key=lambda kv: (kv[1].index,
                                                         kv[0])):
        lab = wanted[name]
        if m.size > FILE_LIMIT:
            notes.append("%s is %d bytes, over the %d-byte limit for a "
                         "kernel file: not graded"
                         % (shown(m.path), m.size, FILE_LIMIT))
            continue
        try:
            data = m.read()
        except Exception as e:  # zlib, CRC, NotImplementedError...: a note
            notes.append("%s cannot be read (%s): not graded"
                         % (shown(m.path), shown(str(e) or type(e).__name__,
                                                 200)))
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
            got["files"].sort()
            got["missing"] = [f for f in files_of_lab
                              if f not in got["files"]]
            if got["missing"]:
                notes.append("%s: missing %s" %
                             (lab, ", ".join(got["missing"])))
    if not rec["labs"]:
        notes.append("no lab files found (looked for %s)"
                     % ", ".join(sorted(wanted)[:6]) +
                     (", ..." if len(wanted) > 6 else ""))


def _capped_notes(notes):
    notes = [shown(n, NOTE_LIMIT) for n in notes]
    if len(notes) > MAX_NOTES:
        notes = notes[:MAX_NOTES - 1] + ["... and %d more note(s)"
                                         % (len(notes) - MAX_NOTES + 1)]
    return notes


def intake(submissions, labs, out_dir):
    """Stage every submission; labs maps lab name -> list of step files.
    Returns the intake record (also written to OUT/intake.json)."""
    wanted = {}
    for lab, files in labs.items():
        for f in files:
            wanted[f] = lab
    work = os.path.join(out_dir, "work")
    entries = sorted(e for e in os.listdir(submissions)
                     if not e.startswith("."))
    dropped = entries[MAX_SUBMISSIONS:]
    entries = entries[:MAX_SUBMISSIONS]
    ids = assign_ids(entries)
    students = []
    for entry in entries:
        sid = ids[entry]
        rec = {"student": sid, "source": shown(entry, 200), "notes": [],
               "labs": {}}
        students.append(rec)
        try:
            _stage(os.path.join(submissions, entry), entry, sid, rec,
                   wanted, labs, work)
        except Exception as e:  # never the end of the class's intake
            rec["labs"] = {}
            shutil.rmtree(os.path.join(work, sid), ignore_errors=True)
            rec["notes"].append("%s could not be taken in (%s: %s): not "
                                "graded" % (shown(entry), type(e).__name__,
                                            shown(str(e), 200)))
        rec["notes"] = _capped_notes(rec["notes"])
    if dropped:
        students[-1]["notes"].append(
            "over %d submissions: %d entries after this one were not taken "
            "in (e.g. %s)" % (MAX_SUBMISSIONS, len(dropped),
                              shown(dropped[0])))
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
