"""Newcomer suite (no GPU needed): what a student, an instructor or a
workshop organiser meets first (issue 18), and intake that never falls over
(issue 16, item 7).

Each function is the story of one rough edge; every check can fail.
"""
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

import harness_util as hu
import test_cli

RUN = [sys.executable, os.path.join(hu.ROOT, "run.py")]
NO_GPU = {"CUDALAB_NO_DEVICE": "1"}


def _write_log(path, events):
    with open(path, "w") as f:
        for e in events:
            f.write(json.dumps(e) + "\n")


def _read_log(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def record_refuses_unmeasured(t):
    """`record` writes only what was measured, and names the real source."""
    tmp = tempfile.mkdtemp(prefix="cudalab-record-")
    try:
        log = os.path.join(tmp, "bench.jsonl")
        readme = os.path.join(tmp, "README.md")
        before = ("# x\n<!-- cudalab:results saxpy -->\nold\n"
                  "<!-- /cudalab:results -->\ntail\n")
        test_cli.synthetic_bench_log(log)
        good = _read_log(log)
        cases = []
        nodev = [dict(e, available=False, reason="no NVIDIA driver")
                 if e["event"] == "device" else e for e in good]
        nodev = [e for e in nodev if e["event"] != "timing"]
        cases.append(("a run without a GPU", nodev, "no CUDA device"))
        partial = [e for e in good
                   if not (e["event"] == "step_end" and e["step"] == "v2")
                   and e["event"] != "run_end"]
        cases.append(("a partial bench (a step missing)", partial,
                      "v2 did not finish"))
        ungraded = [dict(e, verdict="not_graded")
                    if e["event"] == "step_end" and e["step"] == "v2" else e
                    for e in good]
        cases.append(("a bench with a NOT GRADED step", ungraded,
                      "v2 were NOT GRADED"))
        for what, events, words in cases:
            _write_log(log, events)
            with open(readme, "w") as f:
                f.write(before)
            rc, out, err = hu.run(RUN + ["record", "saxpy", "--events", log,
                                         "--readme", readme])
            with open(readme) as f:
                after = f.read()
            t.record("newcomer: `record` refuses %s (exit 2, says why, "
                     "README untouched)" % what,
                     rc == 2 and words in err and "not recording" in err
                     and after == before, "rc=%d %s" % (rc, err))
        mine = os.path.join(tmp, "my work")
        _write_log(log, [dict(e, source=mine) if e["event"] == "run_begin"
                         else e for e in good])
        with open(readme, "w") as f:
            f.write(before)
        rc, out, err = hu.run(RUN + ["record", "saxpy", "--events", log,
                                     "--readme", readme])
        with open(readme) as f:
            after = f.read()
        t.record("newcomer: `record` states the run's real source folder, "
                 "not always solutions/LAB",
                 rc == 0 and '--src "%s"' % mine in after
                 and "solutions/saxpy" not in after, after)
        _write_log(log, [dict(e, source=os.path.join(hu.ROOT, "solutions",
                                                     "saxpy"))
                         if e["event"] == "run_begin" else e for e in good])
        rc, out, err = hu.run(RUN + ["record", "saxpy", "--events", log,
                                     "--readme", readme])
        with open(readme) as f:
            after = f.read()
        t.record("newcomer: `record` of a run of the solutions says "
                 "--src solutions/saxpy (relative to the checkout)",
                 rc == 0 and "--src solutions/saxpy`" in after, after)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def grade_without_gpu(t, state):
    """`grade` on a machine without a GPU reads NOT GRADED everywhere
    (exit 3, JUnit <skipped>, no Gradescope score, CSV and summary), and
    `merge` names a missing or unfinished shard."""
    import xml.etree.ElementTree as ET
    import planted_class
    env = dict(NO_GPU, CUDALAB_STATE=state)
    with hu.Scratch() as s:
        subs = os.path.join(s.path, "subs")
        for sid in ("ann", "ben"):
            planted_class._folder(os.path.join(subs, sid),
                                  planted_class._files())
        out = os.path.join(s.path, "grades")
        rc, o, e = hu.run(RUN + ["grade", subs, "--labs", "saxpy", "--out",
                                 out], env=env)
        t.record("newcomer: `grade` without a GPU exits 3 and says NOT "
                 "GRADED, never `passed 0/5`",
                 rc == 3 and "NOT GRADED" in o and "passed   0/2" not in o
                 and "passed 0/" not in o, "rc=%d\n%s\n%s" % (rc, o, e[-600:]))
        try:
            root = ET.parse(os.path.join(out, "junit.xml")).getroot()
            cases = root.findall("./testsuite/testcase")
            skipped = [c.find("skipped") for c in cases]
            ok = (len(cases) == 10 and all(x is not None for x in skipped)
                  and all(c.find("failure") is None for c in cases)
                  and all("no CUDA device" in (x.text or "")
                          for x in skipped)
                  and all(su.get("skipped") == "5" and su.get("failures")
                          == "0" for su in root.findall("./testsuite")))
            detail = ET.tostring(root, encoding="unicode")[:1500]
        except (OSError, ET.ParseError) as err:
            ok, detail = False, str(err)
        t.record("newcomer: junit.xml marks not-graded steps <skipped> with "
                 "the reason as text, not <failure>", ok, detail)
        try:
            with open(os.path.join(out, "gradescope", "ann",
                                   "results.json")) as f:
                gs = json.load(f)
            ok = ("score" not in gs and "NOT GRADED" in gs.get("output", "")
                  and all("score" not in x and "status" not in x
                          and "NOT GRADED" in x["output"]
                          and "no CUDA device" in x["output"]
                          for x in gs["tests"]))
            detail = json.dumps(gs)[:1500]
        except (OSError, ValueError, KeyError) as err:
            ok, detail = False, str(err)
        t.record("newcomer: Gradescope results.json of an ungraded student "
                 "has no score, and says NOT GRADED and why", ok, detail)
        with open(os.path.join(out, "gradebook.csv")) as f:
            rows = list(csv.DictReader(f))
        with open(os.path.join(out, "summary.txt")) as f:
            summary = f.read()
        t.record("newcomer: gradebook.csv and summary.txt say not graded "
                 "(no `passed 0`)",
                 len(rows) == 2 and all(r["passed"] == ""
                                        and r["not_graded"] == "5"
                                        and "NOT GRADED" in r["notes"]
                                        for r in rows)
                 and "NOT GRADED 2/2" in summary
                 and "passed   0/2" not in summary,
                 json.dumps(rows)[:800] + "\n" + summary)

        shards = [os.path.join(s.path, "shard-%d" % k) for k in range(3)]
        for k in range(2):
            hu.run(RUN + ["grade", subs, "--labs", "saxpy", "--out",
                          shards[k], "--shard", "%d/3" % k, "--quiet"],
                   env=env)
        merged = os.path.join(s.path, "merged")
        rc, o, e = hu.run(RUN + ["merge", merged] + shards[:2], env=env)
        t.record("newcomer: `merge` without shard 2 of 3 says which shard "
                 "is missing and exits non-zero",
                 rc == 4 and "shard 2/3 is missing" in e
                 and not os.path.exists(os.path.join(merged,
                                                     "gradebook.csv")),
                 "rc=%d %s" % (rc, e))
        with open(os.path.join(shards[1], "shard.json"), "w") as f:
            json.dump({"shard": 1, "shards": 3, "finished": False}, f)
        rc, o, e = hu.run(RUN + ["merge", merged] + shards[:2], env=env)
        t.record("newcomer: `merge` with a shard that did not finish names "
                 "it and exits non-zero",
                 rc == 4 and "shard 1/3" in e and "did not finish" in e,
                 "rc=%d %s" % (rc, e))


def slurm_script(t):
    """`grade --slurm N` writes a script that carries every grading flag,
    the site's settings, and survives a space in every path."""
    tmp = tempfile.mkdtemp(prefix="cudalab slurm ")
    try:
        subs = os.path.join(tmp, "my subs")
        os.makedirs(subs)
        out = os.path.join(tmp, "grade out")
        rc, o, e = hu.run(RUN + ["grade", subs, "--labs", "saxpy", "--out",
                                 out, "--slurm", "3", "--time-limit", "7",
                                 "--jobs", "2", "--gpus", "0", "--fresh",
                                 "--partition", "gpu-h100", "--module",
                                 "cuda/13.0"],
                          env={"CUDALAB_SLURM_ACCOUNT": "course42"})
        script = os.path.join(out, "grade.slurm")
        text = open(script).read() if os.path.exists(script) else ""
        t.record("newcomer: the --slurm script carries --time-limit, --jobs,"
                 " --gpus, --fresh, partition, account and modules",
                 rc == 0 and "--time-limit 7" in text and "--jobs 2" in text
                 and "--gpus 0" in text and "--fresh" in text
                 and "#SBATCH --partition=gpu-h100" in text
                 and "#SBATCH --account=course42" in text
                 and "module load cuda/13.0" in text
                 and '#SBATCH --output="%s/slurm-%%a.log"' % out in text,
                 "rc=%d %s\n%s" % (rc, e, text))
        # run the task body with stand-ins for python3 and module: the
        # arguments it passes must arrive whole, spaces and all
        fake = os.path.join(tmp, "bin")
        os.makedirs(fake)
        got = os.path.join(tmp, "argv.json")
        with open(os.path.join(fake, "python3"), "w") as f:
            f.write("#!%s\nimport json, os, sys\njson.dump([os.getcwd()] "
                    "+ sys.argv[1:], open(%r, 'w'))\n" % (sys.executable,
                                                          got))
        os.chmod(os.path.join(fake, "python3"), 0o755)
        body = "module() { :; }\n" + text
        rc = subprocess.call(["bash", "-c", body],
                             env=dict(os.environ, SLURM_ARRAY_TASK_ID="1",
                                      PATH=fake + ":" + os.environ["PATH"]))
        try:
            argv = json.load(open(got))
        except (OSError, ValueError):
            argv = []
        want = [hu.ROOT, "run.py", "grade", subs, "--out",
                os.path.join(out, "shard-1"), "--shard", "1/3", "--labs",
                "saxpy", "--gpus", "0", "--jobs", "2", "--time-limit", "7",
                "--fresh"]
        t.record("newcomer: the --slurm script runs with spaces in every "
                 "path (each argument arrives whole)",
                 rc == 0 and argv == want, "rc=%d\n%s\n%s" % (rc, argv, want))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


FAKE_LIBCUDA = r"""
int cuDriverGetVersion(int *v) { *v = %d; return 0; }
int cuInit(unsigned flags) { (void)flags; return 100; /* no device */ }
"""


def _fake_driver(folder, version):
    """A stand-in libcuda.so.1 that reports a driver of `version` (e.g.
    12020 for CUDA 12.2) and no device: dlopen finds it through
    LD_LIBRARY_PATH before any real driver."""
    os.makedirs(folder, exist_ok=True)
    src = os.path.join(folder, "fake.c")
    with open(src, "w") as f:
        f.write(FAKE_LIBCUDA % version)
    lib = os.path.join(folder, "libcuda.so.1")
    rc = subprocess.call(["cc", "-shared", "-fPIC", "-o", lib, src])
    return rc == 0


def no_gpu_reason(t, state):
    """Without a GPU the reason names what is missing (no driver, no
    device, a driver older than the toolkit), once per run."""
    probe = os.path.join(hu.ROOT, "build", "devprobe")
    tmp = tempfile.mkdtemp(prefix="cudalab-fakecuda-")
    try:
        rc, out, _ = hu.run([probe])
        mine = json.loads(out.strip().splitlines()[-1]) if out.strip() \
            else {}
        if mine.get("available") or os.path.exists("/dev/nvidiactl"):
            t.skip("newcomer: devprobe says `no NVIDIA driver` where there "
                   "is none", "this machine has a driver")
        else:
            t.record("newcomer: devprobe says `no NVIDIA driver` where there "
                     "is none (not `driver version is insufficient`)",
                     mine.get("cause") == "no_driver"
                     and "no NVIDIA driver" in mine.get("reason", "")
                     and "insufficient" not in mine.get("reason", ""), out)
        for version, cause, words in (
                (12020, "old_driver", "supports CUDA 12.2, older than the"),
                (99000, "no_device", "installed but sees no GPU")):
            lib = os.path.join(tmp, cause)
            if not _fake_driver(lib, version):
                t.record("newcomer: a stand-in libcuda.so.1 builds", False,
                         "cc failed")
                continue
            rc, out, _ = hu.run([probe], env={"LD_LIBRARY_PATH": lib})
            try:
                got = json.loads(out.strip().splitlines()[-1])
            except (ValueError, IndexError):
                got = {}
            t.record("newcomer: devprobe tells %s apart (%s)"
                     % (cause, words),
                     rc == 0 and got.get("available") is False
                     and got.get("cause") == cause
                     and words in got.get("reason", ""), out)
        lib = os.path.join(tmp, "old_driver")
        rc, out, err = hu.run([hu.GRADER, "--root", hu.ROOT, "test", "saxpy",
                               "--no-color"],
                              env={"LD_LIBRARY_PATH": lib,
                                   "CUDALAB_STATE": state})
        said = out.count("older than the")
        t.record("newcomer: a run without a GPU says why once (the GPU "
                 "line; at most again in the verdict line), not per step, "
                 "and what still ran",
                 rc == 3 and 1 <= said <= 2 and "insufficient" not in out
                 and "built and checked statically" in out
                 and out.count("not run: no CUDA device") == 5,
                 "rc=%d said %d times\n%s" % (rc, said, out[-2500:]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def times_in_c_locale(t):
    """LANG=C: the dashboard prints times as `us`, never a blank where the
    µ was; a UTF-8 terminal keeps the µ."""
    if not shutil.which("tmux"):
        t.skip("newcomer: times under LANG=C", "tmux is not installed")
        return
    import test_ui
    log = os.path.join(test_ui.FIX, "pass.jsonl")
    screens = {}
    for lang in ("C", "C.UTF-8"):
        p = test_ui.Pane("LANG=%s LC_ALL=%s %s --replay %s; sleep 60"
                         % (lang, lang, test_ui.UI, log), cols=100, rows=30)
        try:
            screens[lang] = p.wait_for("PASS: 5 passed")
        finally:
            p.close()
    c, u = screens["C"], screens["C.UTF-8"]
    t.record("newcomer: LANG=C prints times as `us` (not `299.0 s`); UTF-8 "
             "keeps `µs`",
             "299.0us" in c and "299.0 s" not in c and "µ" not in c
             and "299.0µs" in u, c + "\n----\n" + u)


def _zip_patch(path, member, flag=None, method=None, garble=False):
    """Rewrite one member's header fields in place: the general-purpose
    flag (bit 0: encrypted), the compression method, or its data."""
    import struct
    import zipfile
    with zipfile.ZipFile(path) as z:
        info = z.getinfo(member)
    with open(path, "rb") as f:
        data = bytearray(f.read())
    local = info.header_offset
    if flag is not None:
        struct.pack_into("<H", data, local + 6, flag)
    if method is not None:
        struct.pack_into("<H", data, local + 8, method)
    if garble:
        nlen, xlen = struct.unpack_from("<HH", data, local + 26)
        start = local + 30 + nlen + xlen
        for k in range(start, start + min(info.compress_size, 64)):
            data[k] ^= 0x5A
    at = data.find(b"PK\x01\x02")
    while at >= 0:
        nlen = struct.unpack_from("<H", data, at + 28)[0]
        if bytes(data[at + 46:at + 46 + nlen]) == member.encode():
            if flag is not None:
                struct.pack_into("<H", data, at + 8, flag)
            if method is not None:
                struct.pack_into("<H", data, at + 10, method)
        at = data.find(b"PK\x01\x02", at + 4)
    with open(path, "wb") as f:
        f.write(data)


def _long_name_tar(path, name_bytes):
    """A .tar.gz whose first header is a GNU long name of name_bytes bytes
    (all 'a': it compresses ~1000:1), then an ordinary file."""
    import gzip
    import tarfile
    long_hdr = tarfile.TarInfo("././@LongLink")
    long_hdr.type = tarfile.GNUTYPE_LONGNAME
    long_hdr.size = name_bytes
    body = tarfile.TarInfo("saxpy_v1.cu")
    body.size = 3
    with gzip.open(path, "wb") as g:
        g.write(long_hdr.tobuf(tarfile.GNU_FORMAT))
        chunk = b"a" * (1 << 20)
        left = name_bytes
        while left > 0:
            g.write(chunk[:min(left, len(chunk))])
            left -= len(chunk)
        g.write(b"\0" * (-name_bytes % 512))
        g.write(body.tobuf(tarfile.GNU_FORMAT) + b"x;\n" + b"\0" * 509)
        g.write(b"\0" * 1024)


def long_name_memory(t):
    """A GNU long name is refused before it is read: bounded memory (the
    child's own peak, VmHWM: ru_maxrss would carry the test runner's peak
    across fork and exec)."""
    tmp = tempfile.mkdtemp(prefix="cudalab-longname-")
    try:
        tgz = os.path.join(tmp, "eve.tar.gz")
        _long_name_tar(tgz, 200 << 20)
        size = os.path.getsize(tgz)
        code = ("import sys, resource; sys.path.insert(0, %r)\n"
                "import submissions\nnotes = []\n"
                "try:\n    submissions.members(%r, notes)\n"
                "except ValueError as e:\n    print('refused:', e)\n"
                "hwm = [l.split()[1] for l in open('/proc/self/status')"
                " if l.startswith('VmHWM:')]\n"
                "print('maxrss_kib', hwm[0] if hwm else resource.getrusage("
                "resource.RUSAGE_SELF).ru_maxrss)\n"
                % (os.path.join(hu.ROOT, "tools"), tgz))
        rc, out, err = hu.run([sys.executable, "-c", code], timeout=120)
        rss = [int(line.split()[1]) for line in out.splitlines()
               if line.startswith("maxrss_kib")]
        t.record("newcomer: intake: a %d KiB .tar.gz with a 200 MB GNU long "
                 "name is refused by name, in bounded memory (< 100 MB)"
                 % (size >> 10),
                 rc == 0 and "GNU long name" in out and rss
                 and rss[0] < 100 * 1024, "rc=%d %s %s" % (rc, out, err))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def slow_skip_bomb(t):
    """A member of any type counts against the size cap before tarfile
    skips it (red team: a 2.7 KiB archive with an unknown-type member
    claiming 2 GiB cost 8 s of intake; the script exits 1 over 2 s)."""
    script = os.path.join(hu.ROOT, "tests", "fixtures", "attacks", "intake",
                          "slow_skip_bomb.py")
    rc, out, err = hu.run([sys.executable, script], timeout=300)
    t.record("newcomer: intake: an unknown-type tar member claiming 2 GiB "
             "is a note on its row (archive bomb, not graded) in under 2 s",
             rc == 0 and "archive bomb" in out and "not graded" in out,
             "rc=%d %s %s" % (rc, out, err[-500:]))


def rewind_bomb(t):
    """Wanted files are read in archive order (red team: 240 MiB of padding
    and the step files in reverse order cost 23 s of intake, one rewind of
    the compressed stream per file)."""
    script = os.path.join(hu.ROOT, "tests", "fixtures", "attacks", "intake",
                          "rewind_bomb.py")
    rc, out, err = hu.run([sys.executable, script], timeout=300)
    t.record("newcomer: intake: a 1 MiB tar.gz whose files come in reverse "
             "order is read in one pass (every file taken, under 8 s)",
             rc == 0, "rc=%d %s %s" % (rc, out, err[-500:]))


def zip_directory_bomb(t):
    """A zip's central directory is capped before zipfile parses it (red
    team, 2026-11-24: a million 47-byte entries cost 5.9 s and 380 MB of
    intake, 12.7 s for two such archives; the script exits 1 over 1 s)."""
    script = os.path.join(hu.ROOT, "tests", "fixtures", "attacks", "intake",
                          "zip_directory_bomb.py")
    rc, out, err = hu.run([sys.executable, script], timeout=300)
    t.record("newcomer: intake: a zip listing a million entries (its end "
             "record claiming them or one) is a note naming the cap, not "
             "graded, in under 1 s",
             rc == 0 and "more than 10000 entries" in out
             and "not graded" in out, "rc=%d %s %s" % (rc, out, err[-500:]))



def pax_global_bomb(t):
    """pax global headers are capped by their keys before the next header
    is read (red team, 2026-11-24: tarfile copies the archive's global
    keys into every later member; 100 headers of 3,800 keys in 0.9 MB
    cost 4.1 s and 707 MB of intake, 300 cost 34 s and 5.4 GB); one
    global header with one key (git archive) is still read. The script
    (with class_run.py) measures each entry's intake alone under a memory
    cap, then grades the class with an honest folder, no GPU; it exits 0
    when the attack is stopped and the honest rows are graded."""
    script = os.path.join(hu.ROOT, "tests", "fixtures", "attacks", "intake",
                          "pax_global_bomb.py")
    rc, out, err = hu.run([sys.executable, script], timeout=300)
    t.record("newcomer: intake: a tar.gz of 100 pax global headers of "
             "3,800 keys is a note naming them on its row (not graded, "
             "under 1 s and 100 MB); a git archive and the honest folder "
             "are graded, the class exits 3",
             rc == 0 and "mallory.tar.gz row: refused by name" in out
             and "git.tar.gz row: taken, no note" in out
             and "grade exit 3" in out, "rc=%d %s %s"
             % (rc, out, err[-500:]))


def pax_keys_bomb(t):
    """A member's pax keys, the extension headers before one member and
    all of them together are capped (red team, 2026-11-24: 300 members
    with a pax header of 3,800 keys each cost 2.2 s and 115 MB of intake,
    1000 cost 446 MB; 300 pax headers in a row recursed to Python's
    limit; 1000 pax values of 63 KiB were all kept); a macOS tar's dozen
    keys per file are still read."""
    script = os.path.join(hu.ROOT, "tests", "fixtures", "attacks", "intake",
                          "pax_keys_bomb.py")
    rc, out, err = hu.run([sys.executable, script], timeout=300)
    t.record("newcomer: intake: tar.gz files whose members carry pax "
             "headers of 3,800 keys or of 63 KiB, or 300 pax headers in a "
             "row, are a note naming them on their row (not graded, under "
             "1 s and 100 MB); a macOS tar and the honest folder are "
             "graded, the class exits 3",
             rc == 0 and "mallory.tar.gz row: refused by name" in out
             and "chain.tar.gz row: refused by name" in out
             and "values.tar.gz row: refused by name" in out
             and "mac.tar.gz row: taken, no note" in out
             and "grade exit 3" in out, "rc=%d %s %s"
             % (rc, out, err[-500:]))


def zip_method_bomb(t):
    """Zip members compressed with bzip2 or LZMA are refused before they
    are read (red team, 2026-11-24: zipfile inflates them whole, whatever
    they claim: a 4.6 KB zip cost 39 s and 12.3 GB of intake)."""
    script = os.path.join(hu.ROOT, "tests", "fixtures", "attacks", "intake",
                          "zip_method_bomb.py")
    rc, out, err = hu.run([sys.executable, script], timeout=300)
    t.record("newcomer: intake: a zip member in bzip2 or LZMA (128 MiB "
             "claiming 100 bytes) is a note naming its method (not graded, "
             "under 1 s and 100 MB); the zip's deflated file and the honest "
             "folder are graded, the class exits 3",
             rc == 0 and "bzip.zip row: refused by name; steps ['v2']" in out
             and "lzma.zip row: refused by name; steps ['v2']" in out
             and "grade exit 3" in out, "rc=%d %s %s"
             % (rc, out, err[-500:]))


def sparse_bomb(t):
    """GNU sparse members are refused before tarfile reads their map (red
    team, 2026-11-24: a 200 KB tar.gz whose sparse 1.0 map ran to the
    end of 200 MiB cost 88 s of intake)."""
    script = os.path.join(hu.ROOT, "tests", "fixtures", "attacks", "intake",
                          "sparse_bomb.py")
    rc, out, err = hu.run([sys.executable, script], timeout=300)
    t.record("newcomer: intake: GNU sparse members (1.0, 0.1, 0.0, old "
             "type S with a 32 MiB map) are a note naming them on their "
             "row (not graded, under 1 s and 100 MB); the honest folder is "
             "graded, the class exits 3",
             rc == 0 and out.count("row: refused by name") == 4
             and "grade exit 3" in out, "rc=%d %s %s"
             % (rc, out, err[-500:]))


def odd_entries(t):
    """An entry that is itself a link (to another student's archive) or a
    pipe is a note, never read (red team, 2026-11-23: a pipe named x.zip
    blocked the intake for good; a link read a file outside the entry)."""
    tmp = tempfile.mkdtemp(prefix="cudalab-entries-")
    try:
        subs = os.path.join(tmp, "subs")
        os.makedirs(subs)
        import zipfile
        with zipfile.ZipFile(os.path.join(subs, "alice.zip"), "w") as z:
            z.writestr("saxpy_v1.cu", "// alice's own work\n")
        os.symlink(os.path.join(subs, "alice.zip"),
                   os.path.join(subs, "mallory.zip"))
        os.mkfifo(os.path.join(subs, "pipe.zip"))
        code = ("import sys, json; sys.path.insert(0, %r)\n"
                "import submissions\n"
                "rec = submissions.intake(%r, {'saxpy': ['saxpy_v1.cu']}, %r)\n"
                "print(json.dumps({s['student']: [s['notes'], sorted(s['labs'])]"
                " for s in rec['students']}))\n"
                % (os.path.join(hu.ROOT, "tools"), subs,
                   os.path.join(tmp, "out")))
        rc, out, err = hu.run([sys.executable, "-c", code], timeout=60)
        try:
            rows = json.loads(out)
        except ValueError:
            rows = {}
        mallory, pipe = rows.get("mallory", [[], []]), rows.get("pipe", [[], []])
        t.record("newcomer: intake: an entry that is a link (to another "
                 "student) or a pipe is a note on its row, not read",
                 rc == 0 and rows.get("alice", [[], []])[1] == ["saxpy"]
                 and not mallory[1] and "symbolic link" in str(mallory[0])
                 and not pipe[1] and "not a folder or a file" in str(pipe[0]),
                 "rc=%d %s %s" % (rc, out, err[-500:]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def hostile_intake(t, state):
    """Crafted archives and names: each is a note on its own row, the class
    is graded, the gradebook files parse and are neutralised."""
    import tarfile
    import xml.etree.ElementTree as ET
    import zipfile
    import planted_class
    env = dict(NO_GPU, CUDALAB_STATE=state)
    files = planted_class._files()
    with hu.Scratch() as s:
        subs = os.path.join(s.path, "subs")
        os.makedirs(subs)

        def zipped(name):
            path = os.path.join(subs, name)
            with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
                for fname, data in sorted(files.items()):
                    z.writestr(fname, data)
            return path
        _zip_patch(zipped("enc.zip"), "saxpy_v1.cu", flag=1)
        _zip_patch(zipped("aes.zip"), "saxpy_v1.cu", method=99)
        _zip_patch(zipped("garbled.zip"), "saxpy_v1.cu", garble=True)
        trunc = zipped("trunc.zip")
        with open(trunc, "r+b") as f:
            f.truncate(os.path.getsize(trunc) // 2)
        with tarfile.open(os.path.join(subs, "latin.tar.gz"), "w:gz",
                          encoding="utf-8", errors="surrogateescape") as tf:
            for fname, data in sorted(files.items()):
                info = tarfile.TarInfo(fname)
                info.size = len(data)
                tf.addfile(info, io.BytesIO(data))
            info = tarfile.TarInfo("caf\udce9.cu")
            info.size = 1
            tf.addfile(info, io.BytesIO(b"x"))
        _long_name_tar(os.path.join(subs, "longname.tar.gz"), 8 << 20)
        for sid in ("bob", "_bob", "=HYPERLINK(1)", "@SUM(1)", "-1",
                    "ffff"):
            planted_class._folder(os.path.join(subs, sid), files)
        with open(os.path.join(subs, "ffff", "saxpy_v2.cu"), "wb") as f:
            f.write('#error "bad \uffff\x01 char"\n'.encode("utf-8"))
        out = os.path.join(s.path, "grades")
        rc, o, e = hu.run(RUN + ["grade", subs, "--labs", "saxpy", "--out",
                                 out], env=env, timeout=900)
        t.record("newcomer: intake: crafted archives do not stop the class "
                 "run (exit 3: graded, no GPU; no traceback)",
                 rc == 3 and "Traceback" not in e,
                 "rc=%d\n%s\n%s" % (rc, o[-1000:], e[-2000:]))
        try:
            with open(os.path.join(out, "gradebook.json")) as f:
                rows = {r["source"]: r for r in json.load(f)["students"]}
        except (OSError, ValueError) as err:
            t.record("newcomer: intake: gradebook.json written", False,
                     str(err))
            return
        for source, words in (
                ("enc.zip", "saxpy_v1.cu cannot be read (it is encrypted"),
                ("aes.zip", "compression method 99 (AES encryption)"),
                ("garbled.zip", "saxpy_v1.cu cannot be read ("),
                ("trunc.zip", "cannot be read: "),
                ("latin.tar.gz", "other file(s) ignored (e.g. caf\ufffd.cu)"),
                ("longname.tar.gz", "GNU long name of 8388608 bytes")):
            row = rows.get(source, {})
            notes = "; ".join(row.get("notes", []))
            graded = [r["verdict"] for r in row.get("labs", {}).get(
                "saxpy", [])]
            t.record("newcomer: intake: %s is a note on its row (%s)"
                     % (source, words), words in notes, json.dumps(row)[:800])
            if source in ("enc.zip", "aes.zip", "garbled.zip",
                          "latin.tar.gz"):
                t.record("newcomer: intake: %s: the readable files are "
                         "still graded" % source,
                         graded.count("not_graded") == (
                             5 if source == "latin.tar.gz" else 4),
                         str(graded))
        ids = {r["source"]: r["student"] for r in rows.values()}
        t.record("newcomer: intake: `_bob` beside `bob` does not take the id "
                 "bob (bob keeps it, _bob is bob-2)",
                 ids.get("bob") == "bob" and ids.get("_bob") == "bob-2",
                 str(ids))
        with open(os.path.join(out, "gradebook.csv"), newline="") as f:
            table = list(csv.reader(f))
        cells = [c for row in table[1:] for c in row]
        risky = [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t",
                                               "\r")]
        t.record("newcomer: gradebook.csv: no cell begins with = + - @ "
                 "(formulas neutralised with ')",
                 not risky and "'=HYPERLINK(1)" in cells
                 and "'@SUM(1)" in cells and "'-1" in cells, str(risky))
        try:
            text = open(os.path.join(out, "junit.xml"), encoding="utf-8"
                        ).read()
            root = ET.fromstring(text)
            ok = "\uffff" not in text and "\x01" not in text and any(
                "bad" in (f.get("message") or "")
                for f in root.iter("failure"))
            detail = text[:300]
        except (OSError, ET.ParseError, ValueError) as err:
            ok, detail = False, str(err)
        t.record("newcomer: junit.xml parses with U+FFFF and a control "
                 "character in a compile error (they are removed)", ok,
                 detail)


def _as_user():
    """(uid, gid) of a user that is not root, to run a read-only checkout
    as: this user when not root, else a `cudalab-ro` account made here
    (None and why, when neither is possible)."""
    if os.geteuid() != 0:
        return (os.getuid(), os.getgid()), None
    import pwd
    try:
        pw = pwd.getpwnam("cudalab-ro")
    except KeyError:
        if not shutil.which("useradd"):
            return None, "running as root and there is no useradd"
        rc = subprocess.call(["useradd", "--system", "--no-create-home",
                              "--shell", "/usr/sbin/nologin", "cudalab-ro"],
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        if rc != 0:
            return None, "useradd cudalab-ro failed (exit %d)" % rc
        pw = pwd.getpwnam("cudalab-ro")
    return (pw.pw_uid, pw.pw_gid), None


def _copy_checkout(dest, with_programs):
    """The checkout's files (tracked and new, not ignored) in dest, and its
    built programs when with_programs (a pre-built install)."""
    names = subprocess.run(["git", "-C", hu.ROOT, "ls-files", "--cached",
                            "--others", "--exclude-standard", "-z"],
                           stdout=subprocess.PIPE).stdout.split(b"\0")
    for name in names:
        name = name.decode()
        src = os.path.join(hu.ROOT, name)
        if not name or not os.path.isfile(src):
            continue
        os.makedirs(os.path.dirname(os.path.join(dest, name)), exist_ok=True)
        shutil.copy2(src, os.path.join(dest, name))
    if with_programs:
        os.makedirs(os.path.join(dest, "build"))
        for prog in ("cudalab-grader", "cudalab-ui", "devprobe"):
            shutil.copy(os.path.join(hu.ROOT, "build", prog),
                        os.path.join(dest, "build", prog))


def read_only_install(t):
    """A checkout nobody may write (chmod -R a-w), run by a user who is not
    root: build outputs and progress go to a per-user folder, said once;
    `--src ~/mywork` works on a pre-built tree and on one never built."""
    who, why = _as_user()
    if who is None:
        t.skip("newcomer: a read-only checkout", why)
        return
    uid, gid = who
    tmp = tempfile.mkdtemp(prefix="cudalab-ro-")
    os.chmod(tmp, 0o755)
    try:
        home = os.path.join(tmp, "home")
        work = os.path.join(home, "mywork")
        os.makedirs(work)
        for k in (1, 2):
            shutil.copy(os.path.join(hu.ROOT, "labs", "saxpy",
                                     "saxpy_v%d.cu" % k), work)
        for dirpath, _, files in os.walk(home):
            os.chown(dirpath, uid, gid)
            for f in files:
                os.chown(os.path.join(dirpath, f), uid, gid)
        env = {k: v for k, v in os.environ.items()
               if k not in ("CUDALAB_STATE", "CUDALAB_BUILD",
                            "XDG_CACHE_HOME", "CUDALAB_COMMIT")}
        env.update(NO_GPU, HOME=home)
        # the other user cannot reach root's own Python or tools (a pyenv
        # under /root): the system's, and PATH without what it cannot read
        python = sys.executable
        if uid != os.getuid():
            python = "/usr/bin/python3"
            if not os.path.exists(python):
                t.skip("newcomer: a read-only checkout", "no /usr/bin/python3"
                       " for the user cudalab-ro")
                return
            env["PATH"] = ":".join(d for d in env.get("PATH", "").split(":")
                                   if not d.startswith("/root"))
        for prebuilt in (True, False):
            tree = os.path.join(tmp, "pre" if prebuilt else "src", "cudalab")
            _copy_checkout(tree, prebuilt)
            subprocess.call(["chmod", "-R", "a-w,a+rX", tree])
            what = "pre-built" if prebuilt else "never built"

            def run_py(*args):
                p = subprocess.run([python, os.path.join(tree,
                                                                 "run.py")]
                                   + list(args), stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True,
                                   env=env, user=uid, group=gid,
                                   extra_groups=[], cwd=home, timeout=900)
                return p.returncode, p.stdout, p.stderr
            rc, out, err = run_py("test", "saxpy", "--src", work, "--step",
                                  "1", "--plain")
            caches = glob_cache(home)
            t.record("newcomer: a read-only %s checkout as a user: `test "
                     "saxpy --src ~/mywork` grades (exit 3 without a GPU), "
                     "says once where outputs go" % what,
                     rc == 3 and "NOT GRADED" in out
                     and err.count("is not writable for you") == 1
                     and "cannot create" not in err + out
                     and "problem with cudalab itself" not in err
                     and len(caches) == 1,
                     "rc=%d\n%s\n%s\ncaches %s" % (rc, out[-1200:],
                                                   err[-1500:], caches))
            rc, out, err = run_py("test", "saxpy", "--src", work, "--step",
                                  "2", "--plain")
            state = [os.path.join(c, "state") for c in caches]
            t.record("newcomer: a read-only %s checkout: the second run does "
                     "not repeat the notice; steps and progress are in the "
                     "per-user folder" % what,
                     rc == 3 and "not writable" not in err and state
                     and os.path.isdir(os.path.join(state[0], "runs"))
                     and os.path.isdir(os.path.join(caches[0], "steps")),
                     "rc=%d %s\n%s" % (rc, err[-800:], caches))
            shutil.rmtree(os.path.join(home, ".cache"), ignore_errors=True)
    finally:
        subprocess.call(["chmod", "-R", "u+w", tmp])
        shutil.rmtree(tmp, ignore_errors=True)


def glob_cache(home):
    base = os.path.join(home, ".cache", "cudalab")
    return sorted(os.path.join(base, d) for d in os.listdir(base)) \
        if os.path.isdir(base) else []


def run(t):
    state = tempfile.mkdtemp(prefix="cudalab-state-")
    try:
        record_refuses_unmeasured(t)
        no_gpu_reason(t, state)
        times_in_c_locale(t)
        slurm_script(t)
        grade_without_gpu(t, state)
        long_name_memory(t)
        slow_skip_bomb(t)
        odd_entries(t)
        rewind_bomb(t)
        zip_directory_bomb(t)
        pax_global_bomb(t)
        pax_keys_bomb(t)
        zip_method_bomb(t)
        sparse_bomb(t)
        hostile_intake(t, state)
        read_only_install(t)
    finally:
        shutil.rmtree(state, ignore_errors=True)
