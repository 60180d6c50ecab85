"""Time `run.py grade` on the 40-entry planted class: python3 tests/time_class.py GPUS
(e.g. 0 or 0,1). Prints the throughput and any wrong verdict; writes OUT/class2.txt."""
import json, os, subprocess, sys, time
sys.path.insert(0, "tests"); sys.path.insert(0, "tools")
import planted_class, submissions
out = os.environ.get("OUT", "build")
subs = "/tmp/class-subs"
want = planted_class.make_class(subs, gpu=True)
t0 = time.time()
p = subprocess.run([sys.executable, "run.py", "grade", subs, "--labs", "saxpy", "--out", "/tmp/class-out",
                    "--time-limit", "20", "--gpus", sys.argv[1]], capture_output=True, text=True)
took = time.time() - t0
rows = {r["student"]: r for r in json.load(open("/tmp/class-out/gradebook.json"))["students"]}
bad = {s: planted_class.check_row(rows[submissions.student_id(s)], e) for s, e in want.items()}
bad = {k: v for k, v in bad.items() if v}
line = "gpus=%s: %d submissions in %.0f s = %.1f/min, rc=%d, wrong=%s, %s" % (
    sys.argv[1], len(want), took, 60 * len(want) / took, p.returncode, bad,
    [x for x in p.stderr.splitlines() if x.startswith("sandbox")])
print(line); open(os.path.join(out, "class2.txt"), "w").write(line + "\n" + p.stderr[-3000:])
