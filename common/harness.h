/*
 * harness — the runtime every lab's harness.cu is built on.
 *
 * A step executable is: the student's file (kernels + launcher) + the lab's
 * harness.cu (cases, CPU reference, bytes moved) + this runtime. The runtime
 * owns the process: command line, device, events, inputs, buffers, timing.
 *
 * Command line (the grader passes these; all optional when run by hand):
 *   --result-fd N   write events to fd N (default: stdout). The student's
 *                   stdout/stderr are never parsed.
 *   --seed S        seed of every random input (default: fresh, from the
 *                   clock); printed in every case event, so a failure can be
 *                   replayed with --seed S --case NAME.
 *   --case NAME     run only the correctness case called NAME.
 *   --bench         longer measurement: a tighter stopping rule, several
 *                   rounds.
 *   --reps R        a fixed number of timed calls instead of the stopping
 *                   rule (e.g. a sweep point); --warmup W --rounds K
 *                   override the rest of the timing plan.
 *   --gpu-lock-fd N an open descriptor of this GPU's lock file (the grader
 *                   opens it: the sandbox has no path to it; gpulock.h).
 *                   All GPU work of the process holds it shared, timing
 *                   exclusive. Without it (a run by hand) nothing is locked.
 *   --step ID       the step id to put in events.
 *   --no-timing     correctness only.
 *   --extra-size S  one more correctness case of size S (repeatable, at most
 *                   16): the instructor's hidden cases. "N" for 1-D labs,
 *                   "RxC" for 2-D ones; the harness rejects what it cannot
 *                   read.
 *   --profile       only the timed-size case, no timing: for running under
 *                   a profiler. A lab marks that case by ending its name
 *                   with "(timed size)".
 *   --timed-only    only the timed-size case, then timing (and the check
 *                   with fresh inputs after it): a quick measurement, e.g.
 *                   one point of a sweep.
 *
 * Errors: every CUDA call goes through HX_CHECK; a failure emits an "error"
 * event (kind "cuda", the call, file:line and the driver's words) and exits
 * with status 3 without "harness_end", so the grader reports a crash.
 * Events are documented in event.h.
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

/* Parse the command line, open the result channel, select device 0. */
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
 * Call student code once and check it: fn(ctx), then hx_check_call(what).
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
 * Time fn(ctx) with CUDA events on the default stream, holding the GPU lock
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
