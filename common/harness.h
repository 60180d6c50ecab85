/*
 * harness — the runtime every lab's harness.cu is built on: a lab driver
 * and a judge that lives outside the student's process.
 *
 * A step executable is: the student's file (kernels + launcher) + the lab's
 * harness.cu (cases, inputs, reference, bytes moved) + this runtime. A lab
 * does not write main's protocol: it fills a struct hx_lab and calls
 * hx_lab_main (below), which owns the order every lab follows:
 *
 *   1. the cases in the order declared, the timed-size case last;
 *   2. per case: the lab's setup makes buffers and inputs, the driver
 *      poisons outputs (0xFF: NaN), fingerprints the read-only inputs, asks
 *      the student's process to make the call, checks the guard zones of
 *      every buffer, that read-only inputs are unchanged, and the lab's
 *      check; the timed case's launches are recorded and reported;
 *   3. timing only when every case passed (a wrong kernel's speed means
 *      nothing), with the timed case's buffers: the lab's timing hook or,
 *      without one, the timed case's own call, reported as "student";
 *   4. after timing, the timed case again with fresh inputs in the very
 *      buffers the timed calls used (stale output from a launcher that
 *      skipped or cached work shows here);
 *   5. harness_end.
 * Like nvbench's state.exec: the lab says what one case is, the driver
 * owns the loop and every guarantee, written once.
 *
 * Two processes. hx_lab_main, before any CUDA call, makes a socketpair and
 * forks. The parent is the JUDGE: it owns the result channel, the GPU lock
 * descriptor, NVML, every buffer (cudaMalloc, guard zones), the inputs, the
 * checks, the timing loop and every event. The child is the STUDENT'S
 * PROCESS: it closes every descriptor but 0, 1, 2 and its socket, dies with
 * its parent (PR_SET_PDEATHSIG), makes its CUDA context only when the judge
 * holds the GPU lock, maps the judge's buffers through CUDA IPC
 * and, on request only, runs one of the lab's student calls (which calls
 * the launcher) and replies. The judge is not dumpable (PR_SET_DUMPABLE 0),
 * so the child can neither ptrace it nor read /proc/PPID/mem or its fds.
 * Whatever student code does to its own process (global constructors,
 * functions defined under a library's name, walking from stdout to libc,
 * forging FILE descriptors, writing into its callers' stack frames, raw
 * system calls) happens in a process that holds no result channel and
 * writes no event. Both processes are one executable, so nothing of the
 * student's object may run before the fork: its only static initialiser
 * (nvcc's registration, __sti____cudaRegisterAll, which the object check
 * keeps nvcc's) is moved by the grader from .init_array to the section
 * hx_register before the link, and the driver runs it in the child
 * (2026-11-27: nvcc's stub had called a student's operator& there, in the
 * process that becomes the judge; grader/objcheck.h). A child that dies, exits, hangs past the time limit or
 * answers garbage is a crash of the step, named as such by the judge.
 * Correctness-only runs (--profile, --no-timing: the ones under ncu and
 * compute-sanitizer) are staged: the student's process copies the shared
 * allocations into allocations of its own, calls the launcher on those and
 * copies them back, so the tools see plain memory of that process.
 * --in-process (by hand only; the grader passes it only when its
 * environment says CUDALAB_JUDGE=in-process, the documented fallback for a
 * machine without CUDA IPC) runs both sides in one process, without fork,
 * for debuggers.
 *
 * What the judge still trusts from the student's process, and why:
 *   - the per-call times it measures with CUDA events in its own context
 *     (events of another process cannot time its work). They are bounded:
 *     the judge's own clock around every timed call (from the request to
 *     the end of a kernel of the judge's own launched after the reply: the
 *     GPU runs it only when the student's context has no work left or its
 *     time slice ends, so a child that replies before its work is done
 *     gains nothing; labdriver.cu, judge_fence), less the
 *     clock's zero (an empty kernel's round trip, measured before the
 *     student's code first runs), must not be far
 *     above the claimed time (else "timing not trusted",
 *     naming both figures; this is also the old off-stream audit: work the
 *     events did not see shows on the judge's clock; HX_CLOCK_SLACK_US
 *     below); and the grader's
 *     physics bound (no step beats the measured copy bandwidth for the
 *     bytes it must move, verdict.c) caps what the claimed times can say.
 *   - its launch records (grid, block, kernels launched): the recorder
 *     runs where the launches happen. A forged record can only claim a
 *     shape or name a kernel of the student's own PTX; outputs, guards and
 *     times are judged without it.
 *   - that it ran the request it was asked to: it does not matter, only
 *     the outputs the judge reads back through its own mappings do.
 * Skipping or caching work cannot pay: before every timed call the judge
 * makes new inputs on the GPU in its own context (the lab's perturb hook,
 * keyed by a value from getrandom that the child never sees before the
 * call), and after every timed call it checks a random sample of the
 * outputs (the lab's spot hook); a wrong sample fails the step naming the
 * call. Labs without the hooks are timed on unchanging inputs and only the
 * after-timing check guards them (named in their README).
 *
 * Command line (the grader passes these; all optional when run by hand):
 *   --result-fd N   write events to fd N (default: stdout). The student's
 *                   stdout/stderr are never parsed.
 *   --seed S        seed of every random input (default: fresh, from the
 *                   clock); printed in every case event, so a failure can be
 *                   replayed with --seed S --case NAME. (Timed calls' inputs
 *                   are keyed by getrandom, not by the seed.)
 *   --case NAME     run only the correctness case called NAME.
 *   --bench         longer measurement: a tighter stopping rule, several
 *                   rounds.
 *   --reps R        a fixed number of timed calls instead of the stopping
 *                   rule (e.g. a sweep point); --warmup W --rounds K
 *                   override the rest of the timing plan.
 *   --gpu-lock-fd N an open descriptor of this GPU's lock file (the grader
 *                   opens it: the sandbox has no path to it; gpulock.h).
 *                   All GPU work of the judge holds it shared, timing
 *                   exclusive. Without it (a run by hand) nothing is locked.
 *                   The student's process never holds it.
 *   --step ID       the step id to put in events.
 *   --no-timing     correctness only.
 *   --extra-size S  one more correctness case of size S (repeatable, at most
 *                   16): the instructor's hidden cases. "N" for 1-D labs,
 *                   "RxC" for 2-D ones; the harness rejects what it cannot
 *                   read. --extra-size-file F: the same, one a line, read
 *                   and removed before student code runs.
 *   --profile       only the timed-size case, no timing: for running under
 *                   a profiler. A lab marks that case by ending its name
 *                   with "(timed size)" (hx_add_timed_case does).
 *   --timed-only    only the timed-size case, then timing (and the check
 *                   with fresh inputs after it): a quick measurement, e.g.
 *                   one point of a sweep.
 *   --in-process    no second process (debugging only; see above).
 *
 * Errors: every CUDA call goes through HX_CHECK; a failure emits an "error"
 * event (kind "cuda", the call, file:line and the driver's words) and exits
 * with status 3 without "harness_end", so the grader reports a crash. A
 * CUDA error in the student's call is reported the same way, with the
 * call's description and the student's process's error text.
 * Events are documented in event.h.
 *
 * Programs with no student code (labs/X/vendor.cu, devprobe) use hx_init
 * and the judge's toolkit below directly, in one process.
 */
#ifndef CUDALAB_HARNESS_H
#define CUDALAB_HARNESS_H

#include <cuda_runtime.h>
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "cudalab.h"
#include "gpustate.h"
#include "stats.h"

/* ==== the lab driver ===================================================== */

#define HX_MAX_BUFS 8  /* buffers of one case (and its timing) */
#define HX_MAX_IARGS 8 /* integer scalars of one request */
#define HX_MAX_FARGS 4 /* real scalars of one request */

/*
 * What a student call sees, in the student's process: device pointers to
 * the buffers the request names (in the request's order, each at the
 * buffer's data plus the request's byte offset) and the request's scalars.
 */
struct hx_args {
	void *buf[HX_MAX_BUFS];
	long long i[HX_MAX_IARGS];
	double f[HX_MAX_FARGS];
};

/*
 * A student call: runs ONLY in the student's process; calls the lab's
 * launcher with a's pointers and scalars and returns (no checking, no CUDA
 * calls of its own: the runtime checks the launch, synchronizes and, when
 * timing, records the events around it). E.g.
 *   static void call_saxpy(const struct hx_args *a)
 *   { saxpy((int)a->i[0], (float)a->f[0], (const float *)a->buf[0],
 *           (float *)a->buf[1]); }
 */
typedef void (*hx_student_fn)(const struct hx_args *a);

/*
 * A request: which student call (index into hx_lab.calls), which of the
 * case's buffers (indices returned by hx_buf), at which extra byte offset
 * from each buffer's data (0 normally; e.g. haxpy's offsets 0..7 elements;
 * offset + the launcher's reach must stay inside the buffer's allocation,
 * the judge refuses an offset past the buffer's end), and the scalars.
 */
struct hx_request {
	int call;
	int nbuf;
	int buf[HX_MAX_BUFS];
	unsigned long long buf_offset[HX_MAX_BUFS];
	long long i[HX_MAX_IARGS];
	double f[HX_MAX_FARGS];
	const char *what; /* the call in words, for messages, e.g.
			     "saxpy(n=33, alpha=-2.5)"; copied */
};

/*
 * A case: its name (unique; "(timed size)" ends the timed case's), the
 * elements it reports as n, and parameters the lab's hooks read (sizes,
 * data kind, alpha, offsets: whatever the lab needs).
 */
struct hx_case {
	char name[96];
	long long n;
	long long p[8];
	double a[4];
	int timed;       /* set by hx_add_timed_case */
	int again;       /* set by the driver on the after-timing re-check */
};

/* Buffers: what the driver does with one before and after each call. */
enum hx_role {
	HX_IN,      /* read-only input: the lab fills it; the driver checks it
		       is unchanged after every call (a fingerprint on the GPU) */
	HX_OUT,     /* output: the driver fills it with 0xFF (NaN) before
		       every call, so an unwritten element shows */
	HX_INOUT,   /* read and written (saxpy's y): the lab fills it */
	HX_SCRATCH, /* the launcher's to use: 0xFF before every call, its
		       contents never checked (only its guards) */
	HX_IN_EXACT, /* read-only input, offset 0, no guard zones, in an
			allocation of exactly its bytes where the launcher
			runs under compute-sanitizer (the student's process's
			staged copy; --in-process the judge's own): a read
			past its end leaves the allocation, where memcheck
			sees it (prefetch's sanitizer case). The judge's
			shared one is a 2 MiB block of its own (CUDA IPC
			shares whole blocks). Unchanged-check as HX_IN. */
};

struct hx_plan; /* the case list being declared (opaque) */
struct hx_run;  /* one case being run: its buffers and request (opaque) */

/* Declare a case (printf-style name); returns it for its parameters. At
 * most 600 cases; names are cut at 95 bytes. */
struct hx_case *hx_add_case(struct hx_plan *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Declare THE timed-size case (at most one; the driver runs it last, adds
 * " (timed size)" to its name, records its launches, times it). */
struct hx_case *hx_add_timed_case(struct hx_plan *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Judge side, inside the setup and timing hooks: a guarded device buffer
 * of `bytes` at `offset` bytes past a 256-byte boundary (hx_buffer_new),
 * elements of elem_size bytes (for guard messages). Returns its index
 * (0, 1, ... in order of creation). Buffers are freed by the driver at the
 * end of the case into the reuse pool (hx_buffer_free), so the re-check
 * after timing gets the very allocations the timed calls used.
 */
int hx_buf(struct hx_run *r, const char *name, size_t bytes, size_t offset,
	   size_t elem_size, enum hx_role role);
/* The judge's own view of buffer i (data: the judge's device pointer). */
struct hx_buffer *hx_buf_get(struct hx_run *r, int i);
/* The request the driver sends for this case (set it in setup). */
struct hx_request *hx_run_request(struct hx_run *r);
/* The case being run. */
const struct hx_case *hx_run_case(const struct hx_run *r);
/* The lab's own pointer (hx_lab.ctx). */
void *hx_run_lab_ctx(const struct hx_run *r);

/*
 * Copy `count` elements of elem_size bytes at the given element indices of
 * buffer i (relative to its data plus byte_offset) to host memory `out`,
 * with one gather on the GPU: for spot checks of a huge output.
 * count <= HX_SPOT_MAX.
 */
#define HX_SPOT_MAX 256
void hx_buf_sample(struct hx_run *r, int i, unsigned long long byte_offset,
		   size_t elem_size, const size_t *index, int count, void *out);

/*
 * count random indices in [0, n) for a spot check, drawn by the judge from
 * getrandom when called (after the call): nothing the student's process
 * saw (not even the inputs' key) tells which elements will be read.
 */
void hx_spot_indices(size_t n, size_t *index, int count);
#define HX_SPOT_SAMPLES 64 /* a good count: 64 elements, ~30 us */

/*
 * Fill buffer i's data (plus byte_offset) with `count` floats, element k
 * = hx_key_float(key, k, lo_exp, hi_exp), on the GPU (the judge's context).
 * The same function runs on the host, so a check needs no host copy.
 */
void hx_buf_fill_floats(struct hx_run *r, int i,
			unsigned long long byte_offset, size_t count,
			unsigned long long key, int lo_exp, int hi_exp);

/* splitmix64 of (key, k): the one mixing step of every keyed input. */
static inline __host__ __device__ unsigned long long
hx_key_bits(unsigned long long key, unsigned long long k)
{
	unsigned long long z = key + 0x9E3779B97F4A7C15ull * (k + 1);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* A float of random sign and magnitude in [2^lo_exp, 2^hi_exp) from
 * hx_key_bits(key, k): host and device give the same bits. */
static inline __host__ __device__ float
hx_key_float(unsigned long long key, unsigned long long k, int lo_exp,
	     int hi_exp)
{
	unsigned long long bits = hx_key_bits(key, k);
	unsigned span = (unsigned)(hi_exp - lo_exp);
	unsigned e = (unsigned)(127 + lo_exp +
				(int)(((bits >> 32) * (unsigned long long)span) >>
				      32));
	unsigned u = ((unsigned)(bits & 1) << 31) | (e << 23) |
		     (unsigned)((bits >> 8) & 0x7FFFFF);
	union {
		unsigned u;
		float f;
	} v;
	v.u = u;
	return v.f;
}

/*
 * Time the student's request (the judge's loop; see the top and
 * hx_time_calls for the stopping rule, rounds, NVML and the GPU lock):
 * before each timed call lab->perturb(r, req, key) with a fresh key, then
 * the L2 flush, then the call in the student's process timed by its events
 * and by the judge's clock; after it lab->spot(r, req, key, m). A failing
 * spot check, a call the judge's clock disowns, or an error ends the run
 * (events name the call); so does a crash of the student's process.
 * what: e.g. "saxpy" or "haxpy at offset 3". Only from the timing hook
 * (or the driver's default timing).
 */
struct hx_timing hx_time_student(struct hx_run *r, const struct hx_request *req,
				 const char *what);

/*
 * The lab. Hooks marked (judge) run in the judge: they may use everything
 * in this header except hx_lab_main; they never call student code (only
 * hx_time_student and the driver send requests). Kernels a lab's harness
 * runs in the judge outside timing (input generators, reference sums) are
 * named hx_*: ncu's kernel filter (grader/profiler.c) skips that prefix, so
 * a --profile run measures the student's kernels only.
 */
struct hx_lab {
	/* the student calls, by index (hx_request.call) */
	const hx_student_fn *calls;
	int ncalls;
	void *ctx; /* handed to the hooks through hx_run_lab_ctx */

	/* (judge) declare the cases with hx_add_case / hx_add_timed_case;
	 * read hx_opts()->extra_sizes for the hidden ones. May hx_die (e.g.
	 * a launcher the step's file does not define). */
	void (*cases)(struct hx_plan *p);

	/* (judge) make the case's buffers (hx_buf), fill its inputs, set its
	 * request (hx_run_request). c->again is set on the after-timing
	 * re-check: then make fresh inputs (its name differs from the timed
	 * case's, so the case's random stream does too). */
	void (*setup)(struct hx_run *r, const struct hx_case *c);

	/* (judge) after the call: compare outputs with the reference, count
	 * mismatches in m (hx_mismatch), explain a failure in msg (students'
	 * terms). Guards and read-only inputs are the driver's. */
	void (*check)(struct hx_run *r, const struct hx_case *c,
		      struct hx_mismatches *m, char *msg, size_t msglen);

	/* (judge) the bytes one call of the timed case must move (reads +
	 * writes, each once): the GB/s of the default timing. */
	double (*bytes)(const struct hx_case *c);

	/* (judge, optional) before timed call `key`: make the request's
	 * inputs new, on the GPU (hx_buf_fill_floats or a kernel of the
	 * lab's own named hx_*). NULL: inputs stay as they are. */
	void (*perturb)(struct hx_run *r, const struct hx_request *req,
			unsigned long long key);

	/* (judge, optional) after timed call `key`: check a random sample of
	 * the outputs (indices from hx_spot_indices, values through
	 * hx_buf_sample) against what perturb's inputs for `key` give;
	 * count checked elements in m->checked and mismatches in m. */
	void (*spot)(struct hx_run *r, const struct hx_request *req,
		     unsigned long long key, struct hx_mismatches *m);

	/* (judge, optional) the timing plan, called once when every case
	 * passed and timing is on, with the timed case's run: time with
	 * hx_time_student (the student) and hx_time_calls (the lab's own
	 * baseline kernels, run by the judge), hold hx_gpu_exclusive_begin/
	 * end around side-by-side timings, report with hx_timing_report*;
	 * more buffers may be made with hx_buf. Returns 1, or 0 to fail the
	 * step (after emitting why). NULL: hx_time_student on the timed
	 * case's request, reported as "student" with bytes(c). */
	int (*timing)(struct hx_run *r, const struct hx_case *c);

	/* (judge, optional) the re-check after timing: fill `again` (a copy
	 * of the timed case, again=1, name ending "(after timing, fresh
	 * inputs)") differently, e.g. another offset. */
	void (*recheck)(const struct hx_case *timed, struct hx_case *again);
};

/*
 * The whole step: options, the student's process, the protocol above;
 * returns main's exit status (0 all passed, 1 a case failed; errors exit 3
 * from inside). Call it from main and return its value:
 *   int main(int argc, char **argv) { return hx_lab_main(argc, argv, &lab); }
 */
int hx_lab_main(int argc, char **argv, const struct hx_lab *lab);

/*
 * The judge's clock bound on claimed times. For every timed call the judge
 * has its own clock from request to reply (host) and the child's claim
 * (events); host - claim is the round trip's overhead, plus whatever the
 * claim left out. The clock's zero is the same overhead for calls of one
 * empty kernel of the judge's, measured once when the step starts, before
 * any student code runs in that process (labdriver.cu, empty_round_trips:
 * on an H100 about 150 us, nearly all of it the GPU switching contexts).
 * The smallest overhead over a round's calls, less the zero, is the gap:
 * work the claim did not count (a lie, or work on another stream or after
 * the events). Minimums, so that a busy CPU that delays some replies
 * cannot accuse honest code. The gap must not exceed HX_CLOCK_SLACK_US +
 * HX_CLOCK_FRACTION x the claimed median, else the "integrity" event
 * (check "judge_clock") fails the step naming both figures -- unless the
 * calls are within the bound of what the same empty calls cost now, which
 * is NOT GRADED (the judge cannot bound them), not a failure. The slack
 * covers the jitter of two processes' round trips; the fraction, clock
 * granularity on long calls. Honest gaps (the GPU suite's judge_clock_honest
 * on every lab's references and step matrices): before the fence
 * (labdriver.cu, judge_fence) at most 13.4 us on the H100 and 8.2 us on
 * the H200; with it (2026-11-24, 6f011c5) at most 31.9 us on the H100 (a
 * long call, within its 5 %; medians 7.8 us) and 21.5 us on the H200
 * (55 and 47 runs), against the 20 us the slack then was: it is 30 us
 * since, so that an honest short call keeps a margin (the physics bound
 * still stops a claim faster than 1.15x copy whatever the slack). The
 * event carries gap_us, null_us (the zero) and empty_now_us.
 */
#define HX_CLOCK_FRACTION 0.05
#define HX_CLOCK_SLACK_US 30.0
/* And every call on its own: its claim may not exceed the judge's clock
 * around it by more than the grain of two clocks (HX_CLOCK_GRAIN_US +
 * 0.1 %): an honest call's events lie inside that interval, which also
 * holds the clock's zero (~150 us on the H100). A red team (2026-11-27,
 * reasoned, not run: it needs a student's process taken over to speak
 * the wire itself) made the smallest gap negative with one claim longer
 * than its call, and so freed every other claim. */
#define HX_CLOCK_GRAIN_US 2.0
/* And the middle of the calls: the minimum bounds only the one call kept
 * honest, so a process that shortened every other claim passed it. The
 * median overhead of the graded round's calls, less the median of the
 * empty calls (the same empty calls as the zero), may not exceed
 * HX_CLOCK_MEDIAN_SLACK_US + HX_CLOCK_FRACTION x the claimed median. The
 * claimed median can be shortened only by shortening at least half the
 * claims, which lifts at least half the overheads, so the graded figure
 * is off by at most that bound. A median is what a busy CPU moves (late
 * replies), so over the bound is NOT GRADED (the judge cannot tell a lie
 * from a loaded machine), never a failure; the event carries
 * median_gap_us, null_median_us, empty_now_median_us and central_ok.
 * Honest medians (the GPU suite's judge_clock_honest, every reference
 * and step matrix of saxpy, coalescing, haxpy, transpose, reduction,
 * memtuning and prefetch's first steps; 2026-11-27, c7cf87c and 78f7e2b,
 * three H100s, 63 timings): at most 34.7 us over the empty calls'
 * (prefetch v1's reference, a long call, also inside its 5 %), 28.6 us
 * for transpose v1's, most 10-20 us; 8 students at once (shared_saxpy)
 * kept every lone verdict. A process that lies on all calls but a few
 * gains at most 50 us + 5 %, against 30 us + 5 % for one that lies on
 * all of them. Not yet measured on an H200 (the lent machine was an H100
 * each time). */
#define HX_CLOCK_MEDIAN_SLACK_US 50.0

/* ==== the judge's toolkit (also for programs with no student code) ===== */

/* ---- process, options, device ---------------------------------------- */

struct hx_options {
	uint64_t seed;
	const char *only_case; /* NULL: all cases */
	const char *step;      /* NULL: events carry no step */
	int bench;
	int timing;            /* 0 with --no-timing or --profile */
	int profile;
	int timed_only;
	int warmup, reps, rounds; /* reps -1: the stopping rule decides */
	/* --extra-size S (repeatable): sizes an instructor adds to the lab's
	 * cases (hidden cases); each harness says how it reads S. */
	const char *extra_sizes[16];
	int n_extra_sizes;
};

/*
 * The i-th --extra-size as one length ("N", 1..max) or as a shape ("RxC",
 * each 1..max). A value that does not read ends the run with a "usage"
 * error naming it.
 */
int hx_extra_size_1d(int i, long max);
void hx_extra_size_2d(int i, long max, int *rows, int *cols);

/* Parse the command line, open the result channel, select device 0: one
 * process, for programs with no student code (hx_lab_main does this for a
 * lab, in the judge, after starting the student's process). */
void hx_init(int argc, char **argv);
const struct hx_options *hx_opts(void);
const cudaDeviceProp *hx_device(void);

/* Emit one event (takes the reference). Adds "step" when --step was given. */
void hx_emit(json_t *ev);

/* Report a harness-level error event and exit(3). printf-style. */
void hx_die(const char *kind, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));

/* Emit harness_end and return the process exit status (0 if all_ok). */
int hx_finish(int all_ok);

void hx_check_cuda(cudaError_t err, const char *call, const char *file,
		   int line);
#define HX_CHECK(call) hx_check_cuda((call), #call, __FILE__, __LINE__)

/*
 * After calling student code: surfaces a launch error and any error that
 * happened while the work ran (illegal address, trap), with `what` (e.g.
 * "saxpy(n=33)") in the message. Synchronizes the device.
 */
void hx_check_call(const char *what);

/* ---- inputs ----------------------------------------------------------- */

/*
 * splitmix64, counter-based: value k of a stream is a pure function of
 * (seed, case name, k), so a harness can regenerate any input element
 * instead of keeping gigabytes of host copies (see hx_rng_float_at).
 */
struct hx_rng {
	uint64_t state;
};
struct hx_rng hx_rng_for(const char *case_name); /* seed x case name */
uint64_t hx_rng_next(struct hx_rng *r);
double hx_rng_uniform(struct hx_rng *r);          /* [0, 1) */
/* A float of random sign and magnitude in [2^lo_exp, 2^hi_exp). */
float hx_rng_float(struct hx_rng *r, int lo_exp, int hi_exp);
/* Element k of r's stream as such a float, without advancing r. */
float hx_rng_float_at(const struct hx_rng *r, uint64_t k, int lo_exp,
		      int hi_exp);

/*
 * Run fn(ctx, begin, end) over [0, n) split across the CPU's cores (up to
 * 16 threads; one when n is small). fn must only write its own range.
 */
typedef void (*hx_range_fn)(void *ctx, size_t begin, size_t end);
void hx_parallel_for(size_t n, hx_range_fn fn, void *ctx);

/* ---- guarded device buffers ----------------------------------------- */

/*
 * A device allocation with guard zones of HX_GUARD_BYTES on both sides,
 * filled with the buffer's guard byte (HX_GUARD_BYTE or just below).
 * `data` is `offset` bytes past a 256-byte boundary (0 for normal use;
 * labs that test alignment pass others).
 * Guards are checked with hx_buffer_check_guards after student code ran.
 *
 * The zones catch reads as well as writes. 0x7F in every byte is a huge
 * value of every element type a lab uses: 3.4e38 as float and as bf16,
 * 1.4e306 as double, 2.1e9 as int32 (and not a NaN, which a comparison
 * written as !(err > tol) would let through). Each buffer name gets its
 * own byte from 0x7F down to 0x78 (as huge: 2e34 as float at 0x78), so a
 * guard value read past one buffer and written past another is still seen. A kernel that reads past
 * an input's end (an unguarded float4 tail of a reduction) adds it to a
 * sum, or copies it, and the case fails. 4 MiB on each side: an index
 * 2^20 floats past the end (y[n + 262144]) still lands in the zone; the
 * cost is 8 MiB per buffer, small beside 2^27-element buffers, and the
 * zones are compared on the GPU, so checking them costs no copy. What
 * lands beyond 4 MiB is another allocation's or unmapped memory (an
 * illegal-address crash) and is not claimed to be caught.
 */
#define HX_GUARD_BYTES ((size_t)4 << 20)
#define HX_GUARD_BYTE 0x7F
struct hx_buffer {
	const char *name;
	unsigned char *alloc;
	void *data;
	size_t bytes;
	size_t offset;
	unsigned char guard; /* the byte of both zones (see above) */
};
struct hx_buffer hx_buffer_new(const char *name, size_t bytes, size_t offset);
/*
 * hx_buffer_free keeps the last few freed allocations and hx_buffer_new
 * hands one back when the size and offset match, so a case run after timing
 * gets the very pointers the timed calls saw: a launcher that caches results
 * by pointer then shows stale output instead of passing.
 */
void hx_buffer_free(struct hx_buffer *b);
/* Fill the data with 0xFF bytes: NaN as float, bf16 and double. */
void hx_buffer_poison(struct hx_buffer *b);
void hx_buffer_upload(struct hx_buffer *b, const void *host);
void hx_buffer_download(const struct hx_buffer *b, void *host);
/*
 * Compare both guard zones with their pattern. On damage, emits a "guard"
 * event saying how many elements before/after were written and the first
 * offending element index (negative = before the start), then restores the
 * pattern. Returns 1 when the guards are intact, 0 when damaged.
 */
int hx_buffer_check_guards(struct hx_buffer *b, size_t elem_size);

/* ---- checking --------------------------------------------------------- */

#define HX_MAX_REPORTED 8
/* Collects mismatches of one case; keeps the first HX_MAX_REPORTED. */
struct hx_mismatches {
	size_t checked;
	size_t count;
	json_t *first; /* array of {index expected got note?} */
};
void hx_mismatches_init(struct hx_mismatches *m);
/*
 * Count one mismatch. Values are reported as text (NaN and Inf are not JSON
 * numbers); format them only when hx_mismatch_wanted(m) says this one will
 * be kept, and pass NULLs otherwise: formatting millions of wrong elements
 * would cost more than the whole test.
 */
void hx_mismatch(struct hx_mismatches *m, size_t index, const char *expected,
		 const char *got, const char *note);
int hx_mismatch_wanted(const struct hx_mismatches *m);
/*
 * Emit the "case" event for case `name` and free m's list. `message` explains
 * a failure in a student's terms (may be NULL). Returns 1 if the case passed.
 */
int hx_case_end(const char *name, size_t n, struct hx_mismatches *m,
		const char *message);
/* True when the case should run (no --case, or --case equals name). */
int hx_case_selected(const char *name);

/* ---- launches made by student code ---------------------------------- */

/*
 * Every kernel launch in the process passes through a recorder (the step is
 * linked with --wrap for the CUDA runtime's launch entry points: <<<>>>'s
 * __cudaLaunchKernel, cudaLaunchKernel, cudaLaunchKernelExC (what
 * cudaLaunchKernelEx calls) and cudaLaunchCooperativeKernel). The other
 * ways to start work (graphs, streams, the driver API) are not on the list
 * of functions a student's object may call (grader/objcheck.h), so the
 * recorder sees every launch a step makes. Between
 * hx_launches_begin() and hx_launches_end() it records grid, block, dynamic
 * shared memory, stream, and how many blocks of that kernel fit on one SM.
 * Outside that window it only forwards the launch.
 */
struct hx_launch {
	char kernel[128]; /* demangled, for people */
	char symbol[256]; /* as compiled (mangled): the PTX .entry name */
	unsigned grid[3], block[3];
	size_t shared_bytes;
	int default_stream;
	int blocks_per_sm;
};
void hx_launches_begin(void);
/* Stop recording; returns the number of launches (at most max copied). */
int hx_launches_end(struct hx_launch *out, int max);
/*
 * Emit the "launch" event for a call that processed `elements` elements:
 * elements per thread and waves are computed from the largest launch. Returns
 * 0 when every launch was on the default stream, else emits nothing more and
 * returns -1 (the caller fails the step: its work would not be timed).
 */
int hx_launch_report(const struct hx_launch *l, int count, double elements);

/*
 * In-process only (not for labs, whose student code runs in the student's
 * process through hx_lab_main):
 * call code once and check it: fn(ctx), then hx_check_call(what).
 * When record_elements > 0 the call's launches are recorded and reported
 * (hx_launch_report) as processing that many elements: do that for the
 * timed size, which is where launch shape is judged.
 */
void hx_call(void (*fn)(void *ctx), void *ctx, const char *what,
	     double record_elements);

/* ---- timing ------------------------------------------------------------ */

typedef void (*hx_call_fn)(void *ctx);

/*
 * The stopping rule (stats.h): batches of 10 calls until the 95 % interval
 * of the median is within TARGET of it (relative half-width), at least MIN
 * calls, at most MAX calls or SECONDS of measured GPU time per round.
 * Why 0.5 %: the verdict compares figures with bars set at least 10 % apart;
 * a steady kernel on an idle H100 gets there in the minimum 20 calls, which
 * is fewer than the fixed 30 of before.
 */
#define HX_STOP_MIN 20
#define HX_STOP_MAX 300
#define HX_STOP_TARGET 0.005
#define HX_STOP_SECONDS 1.0
#define HX_BENCH_STOP_MIN 50
#define HX_BENCH_STOP_MAX 2000
#define HX_BENCH_STOP_TARGET 0.0025
#define HX_BENCH_STOP_SECONDS 4.0

struct hx_timing {
	int reps;                    /* calls timed in the last round */
	int rounds;
	struct sample_stats us;      /* over all reps of the last round, with
					the 95 % interval of its median */
	double round_median_us[16];  /* median of each round */
	const char *stop;            /* "converged" | "count_cap" |
					"time_cap" | "fixed" (--reps) */
	int gpu_condition;           /* enum gpu_condition of the last
					attempt: GPU_OURS when it was ours */
	char gpu_message[512];       /* why not, in words */
};

/*
 * Time fn(ctx) IN THIS PROCESS (the judge's baseline kernels, a vendor
 * library, the copy ceiling: never student code, which hx_time_student
 * times) with CUDA events on the default stream, holding the GPU lock
 * exclusive (hx_gpu_exclusive_begin): `warmup` untimed calls, then `rounds`
 * rounds, each of batches of calls until the stopping rule says the median
 * is known well enough (or exactly --reps calls); each call is preceded by a
 * write of 2x the L2 size so no call finds its inputs in L2. Events are read
 * after each batch, so host work never falls inside a timed interval.
 *
 * Then an audit: a few more calls, each timed twice, by the events and by
 * the host clock around a full device synchronization. Work the events did
 * not see (another stream, work still running when the launcher returned
 * and the events recorded) shows as host time far above event time; the
 * "integrity" event reports both medians and ok=false in that case, which
 * fails the step.
 *
 * The GPU's state (gpustate.h) is read from NVML while the batches run: when
 * another process worked on the GPU, or its clocks were held down, the whole
 * measurement is taken again (up to 3 attempts, a second apart). Every
 * attempt ends with a "gpu_state" event; when the last one still found the
 * GPU busy or throttled it has final=true, and the grader does not grade the
 * step (never a FAIL). A failed audit counts against the step only when NVML
 * saw nobody else (gpustate_audit_trusted); otherwise no failing "integrity"
 * event is sent and the step is "GPU busy".
 */
struct hx_timing hx_time_calls(hx_call_fn fn, void *ctx, const char *what);

/*
 * Hold the GPU lock exclusive across several hx_time_calls (nesting
 * counts), e.g. to time a student's kernel and a baseline side by side with
 * nobody in between. Each synchronizes the device first. Without
 * --gpu-lock-fd they do nothing.
 */
void hx_gpu_exclusive_begin(void);
void hx_gpu_exclusive_end(void);

/*
 * Emit a "timing" event. bytes: the bytes the operation must move (reads +
 * writes, each once). who: "student" or "vendor"; name may be NULL. It
 * carries the interval of the median (ci_low_us, ci_high_us) and why the
 * measurement stopped (stop).
 */
void hx_timing_report(const char *who, const char *name, double n,
		      double bytes, const struct hx_timing *t);
/*
 * The same for one variant of the timed call (e.g. "offset 3"): a lab that
 * times several variants reports each; the first is the step's headline
 * figure and the grader also keeps the worst (metric pct_of_copy_worst).
 */
void hx_timing_report_variant(const char *who, const char *name,
			      const char *variant, double n, double bytes,
			      const struct hx_timing *t);

/*
 * The size of a lab's timed case on this GPU: timed_count() (timed_size.h,
 * the one rule: >= 8x the L2 moved, <= a quarter of the free memory held)
 * with this device's L2 and free memory. min_count: HX_TIMED_MIN for a
 * streaming kernel's elements (a call long enough to time well); moved and
 * held: bytes per element moved by a call and held in device buffers.
 * When the free memory cannot hold 8x the L2 the run ends NOT GRADED
 * (error kind "gpu_memory", naming both figures). A 2-D case takes a square
 * of about the returned count (hx_timed_side).
 */
#define HX_TIMED_MIN ((size_t)1 << 25)
size_t hx_timed_elements(size_t min_count, size_t moved, size_t held);

/* The side of a square timed case of elements moving `moved` and holding
 * `held` bytes each: the rule above for side * side elements, with side a
 * multiple of 32 (whole tiles; side * side >= the count). */
int hx_timed_side(size_t moved, size_t held);

#endif
