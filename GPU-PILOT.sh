#!/bin/bash
# The judge's GPU pilot (issue 16, items 1 and 2), one paste: sections 0-5
# about 3-4 minutes on an H100, 6 (the other four labs) about 5 more, 7
# (PILOT_FULL=1: every lab's planted bugs) about 20 more. Run from the root
# of the `judge` worktree:
#     bash GPU-PILOT.sh
# Everything goes to $OUT/judge-pilot.txt (OUT defaults to /tmp) and the
# end of it to the terminal. Paste that file into GPU-RESULTS.md.
# What each part must show is in GPU-PILOT.md.
cd "$(dirname "$0")" || exit 1
OUT=${OUT:-/tmp}
LOG=$OUT/judge-pilot.txt
mkdir -p "$OUT"
: >"$LOG"
say() { echo "=== $*" | tee -a "$LOG"; }
run() { timeout "$1" "${@:2}" >>"$LOG" 2>&1; echo "(rc=$?)" >>"$LOG"; }

say "0 build"
run 300 make -j16
tail -3 "$LOG"

say "1 saxpy references, two processes"
run 240 python3 run.py test saxpy --src solutions/saxpy --plain

clock_facts() { # the judge's clock and NVML of lab $1's last run
	echo "--- clock and NVML of $1" >>"$LOG"
	LAB=$1 python3 - >>"$LOG" 2>&1 <<'EOF'
import json, os
for line in open(".cudalab/runs/%s-last.jsonl" % os.environ["LAB"]):
    try:
        e = json.loads(line)
    except ValueError:
        continue
    if e.get("event") == "integrity":
        print(e.get("step"), e.get("check"), "ok=%s" % e.get("ok"),
              "event_us=%.1f host_us=%.1f gap_us=%.1f null_us=%.1f" % (
                  e.get("event_us") or 0, e.get("host_us") or 0,
                  e.get("gap_us") or 0, e.get("null_us") or 0),
              (e.get("message") or "")[:200])
    elif e.get("event") == "gpu_state":
        print(e.get("step"), "gpu_state", e.get("condition"),
              "active=%s own=%s contexts=%s" % (
                  e.get("active_processes"), e.get("own_processes"),
                  e.get("processes")), (e.get("message") or "")[:160])
    elif e.get("event") == "step_end":
        print(e.get("step"), "END", e.get("verdict"),
              "%.1f %% of copy" % (e.get("pct_of_copy") or 0),
              (e.get("summary") or "")[:200])
EOF
}

say "2 the judge's clock (integrity) and NVML (gpu_state) of that run"
clock_facts saxpy

say "3 one step by hand: two processes vs --in-process (timed only)"
exe=$(ls -t build/steps/saxpy/v5-*/step 2>/dev/null | head -1)
echo "exe=$exe" >>"$LOG"
if [ -n "$exe" ]; then
	run 60 sh -c "$exe --result-fd 1 --timed-only | grep -E '\"(timing|integrity|gpu_state|harness_end|error)\"'"
	run 60 sh -c "$exe --result-fd 1 --timed-only --in-process | grep -E '\"(timing|harness_end|error)\"'"
fi

say "4 attacks the judge closes (each as saxpy v1)"
for f in libc_walk_system stdout_fileno_forge frame_walk \
	libc_gadget_syscall skip_timed_calls line_directive_host_asm; do
	d=$(mktemp -d)
	cp "tests/fixtures/attacks/saxpy/$f.cu" "$d/saxpy_v1.cu"
	echo "--- $f: wants $(sed -n 2,3p "tests/fixtures/attacks/saxpy/$f.cu" | tr '\n' ' ')" >>"$LOG"
	run 90 sh -c "python3 run.py test saxpy --step v1 --src $d --time-limit 30 --plain 2>&1 | grep -A3 -E '^v1 '"
	rm -rf "$d"
done

say "5 reduction and transpose references (two processes)"
run 150 python3 run.py test reduction --src solutions/reduction --plain
run 120 python3 run.py test transpose --src solutions/transpose --plain
clock_facts reduction # gap_us of longer, several-launch calls: about saxpy's?
clock_facts transpose

say "6 the other labs' references (two processes; prefetch v2-v7 run memcheck staged)"
for lab in haxpy memtuning prefetch coalescing; do
	echo "--- $lab" >>"$LOG"
	run 200 python3 run.py test $lab --src solutions/$lab --plain
done

say "7 (if time allows) the GPU suite's planted bugs and attacks of every lab"
if [ -n "$PILOT_FULL" ]; then
	run 1500 python3 -c 'import sys; sys.path.insert(0, "tests")
import harness_util as hu, test_gpu
t = hu.Tally(["planted bug"]); test_gpu.run(t); print(t.summary())'
else
	echo "(skipped: PILOT_FULL=1 bash GPU-PILOT.sh runs it, ~20 min)" >>"$LOG"
fi

say "done"
tail -80 "$LOG"
echo "(whole log: $LOG)"
