"""Arch suite (no GPU needed): every lab builds for every GPU generation the
kit supports, and a step that needs more than a GPU has says so.

The archs are the issue-21 list: Turing (sm_75, T4) to Blackwell (sm_100,
sm_120). Each file is compiled device-side only (`nvcc -fatbin`, one nvcc
with one -gencode per arch): the front end once, then cicc and ptxas per
arch, which is where an arch breaks a kernel; the host side does not depend
on the arch and the CLI suite builds it anyway.

What runs by default (about a minute of CPU on an idle machine): every
lab's harness for all seven archs, and every reference solution for the
oldest arch its step can take and the newest (sm_120): features appear and
disappear at the ends of the range. CUDALAB_ARCH_MATRIX=full compiles every
solution for all seven archs, plus the starters, the vendor programs and
every test fixture that is meant to compile (about ten minutes on 2 cores).

A step's needs come from the grader (`cudalab-grader list --json`: C owns
lab.json): a step that needs compute capability 8.0 is not compiled below it.
"""
import concurrent.futures
import json
import os
import subprocess
import tempfile

import harness_util as hu

ARCHS = ["sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120"]


def cc(arch):
    return int(arch.split("_")[1])


def gencodes(archs):
    out = []
    for a in archs:
        out += ["-gencode", "arch=compute_%d,code=%s" % (cc(a), a)]
    return out


def compile_fatbin(path, lab, archs, outdir):
    """(ok, nvcc's first error lines) for path built for archs."""
    out = os.path.join(outdir, path.replace("/", "_") + ".fatbin")
    args = (["nvcc"] + gencodes(archs) +
            ["-std=c++17", "-O3", "-I" + os.path.join(hu.ROOT, "common"),
             "-I" + os.path.join(hu.ROOT, "labs", lab), "-fatbin",
             os.path.join(hu.ROOT, path), "-o", out])
    try:
        proc = subprocess.run(args, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True,
                              timeout=600)
    except subprocess.TimeoutExpired:
        return False, "nvcc ran longer than 600 s"
    errors = [line for line in proc.stdout.splitlines() if "error" in line]
    return proc.returncode == 0, "\n".join(errors[:6]) or proc.stdout[-800:]


def lab_steps():
    rc, out, err = hu.run([hu.GRADER, "--root", hu.ROOT, "list", "--json"],
                          env={"CUDALAB_STATE": tempfile.gettempdir()})
    if rc != 0:
        return None, err
    return json.loads(out), ""


def nvcc_archs(t):
    rc, out, err = hu.run(["nvcc", "--list-gpu-code"])
    have = set(out.split())
    missing = [a for a in ARCHS if a not in have]
    t.record("arch: this nvcc builds for every supported arch (%s)"
             % " ".join(ARCHS), rc == 0 and not missing,
             "missing: %s (the README's GPU list promises them)\n%s"
             % (" ".join(missing), err))
    return [a for a in ARCHS if a in have]


def matrix_jobs(labs, archs, full):
    """[(name, path, lab, archs)] to compile."""
    jobs = []
    for lab in labs:
        name = lab["name"]
        jobs.append(("%s harness" % name, "labs/%s/harness.cu" % name, name,
                     archs))
        if full and os.path.exists(os.path.join(hu.ROOT, "labs", name,
                                                "vendor.cu")):
            jobs.append(("%s vendor" % name, "labs/%s/vendor.cu" % name,
                         name, archs))
        for step in lab["step_list"]:
            need = step.get("needs_cc")
            need = int(need.replace(".", "")) if need else 0
            can = [a for a in archs if cc(a) >= need]
            sol_archs = can if full else sorted({can[0], can[-1]}, key=cc)
            jobs.append(("%s %s solution" % (name, step["id"]),
                         "solutions/%s/%s" % (name, step["file"]), name,
                         sol_archs))
            if full:
                jobs.append(("%s %s starter" % (name, step["id"]),
                             "labs/%s/%s" % (name, step["file"]), name, can))
    if full:
        base = os.path.join(hu.ROOT, "tests", "fixtures")
        for name in sorted(os.listdir(base)):
            folder = os.path.join(base, name)
            if not os.path.exists(os.path.join(hu.ROOT, "labs", name)):
                continue
            for f in sorted(os.listdir(folder)):
                path = os.path.join(folder, f)
                want = hu.fixture_expectations(path) if f.endswith(".cu") \
                    else {}
                if not f.endswith(".cu") or want.get("verdict") in (
                        "compile_error", "rejected"):
                    continue
                jobs.append(("%s fixture %s" % (name, f),
                             "tests/fixtures/%s/%s" % (name, f), name, archs))
    return jobs


def job_name(job):
    return "arch: %s builds for %s" % (job[0], " ".join(job[3]))


def build_matrix(t, archs):
    labs, err = lab_steps()
    t.record("arch: `cudalab-grader list --json` gives every lab's steps",
             labs is not None and len(labs) >= 7, err)
    if not labs:
        return
    full = os.environ.get("CUDALAB_ARCH_MATRIX") == "full"
    jobs = [(job_name(j), ) + j for j in matrix_jobs(labs, archs, full)]
    jobs = [j for j in jobs if t.wanted(j[0])]  # run_tests.py WORD
    with tempfile.TemporaryDirectory(prefix="cudalab-arch-") as outdir, \
            concurrent.futures.ThreadPoolExecutor(
                max_workers=os.cpu_count() or 2) as pool:
        results = list(pool.map(
            lambda j: compile_fatbin(j[2], j[3], j[4], outdir), jobs))
    for (name, _, path, _, _), (ok, detail) in zip(jobs, results):
        t.record(name, ok, "%s\n%s" % (path, detail))
    if not full:  # a note, not a skip: skips are for the GPU suite
        print("# arch: solutions at their oldest arch and sm_120 only; "
              "CUDALAB_ARCH_MATRIX=full builds every solution, starter, "
              "vendor program and fixture for all seven archs")


def needs_are_real(t):
    """prefetch v6 declares cp.async (8.0): below 8.0 the same source
    compiles, but with a synchronous copy, so its check could never pass."""
    src = os.path.join(hu.ROOT, "solutions", "prefetch", "prefetch_v6.cu")
    ptx = {}
    with tempfile.TemporaryDirectory(prefix="cudalab-arch-") as d:
        for arch in ("sm_75", "sm_80"):
            out = os.path.join(d, arch + ".ptx")
            rc, _, err = hu.run(["nvcc", "-arch=" + arch, "-std=c++17",
                                 "-I" + os.path.join(hu.ROOT, "common"),
                                 "-I" + os.path.join(hu.ROOT, "labs",
                                                     "prefetch"),
                                 "-ptx", src, "-o", out])
            ptx[arch] = open(out).read() if rc == 0 else ""
    t.record("arch: prefetch v6 needs 8.0 for a reason: its PTX has "
             "cp.async at sm_80 and none at sm_75",
             "cp.async" in ptx["sm_80"] and ptx["sm_75"]
             and "cp.async" not in ptx["sm_75"], "")


def run(t):
    archs = nvcc_archs(t)
    needs_are_real(t)
    build_matrix(t, archs)
