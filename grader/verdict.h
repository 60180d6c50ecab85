/*
 * verdict — from what a step run reported to the step's verdict.
 *
 * A step_outcome collects one run of a step executable: it is fed the raw
 * bytes of the harness's result channel (outcome_feed, the runner's
 * on_result callback), splits them into events, keeps the facts that decide
 * the verdict (first failed case, guard damage, CUDA error, todo marker,
 * whether the harness reached its end, launches off the default stream),
 * turns measurements into metrics (the step facts of common/facts.h), adds
 * "step" and pct_of_copy to each event and forwards it to the sink. A line that is not an event is
 * remembered: the result channel is the grader's, so garbage on it means the
 * run cannot be trusted.
 *
 * verdict_checks() evaluates a step's lab.json checks against the metrics,
 * returning one result each (the caller emits them as "check" events:
 * verdict.c only forwards the harness's own events, through the outcome's
 * sink); verdict_decide() then names the verdict
 * (event.h lists them) with a one-line summary a student can act on. The
 * order of precedence: timeout, not implemented, crash (CUDA error, garbage
 * on the channel, early exit or signal), wrong result, out-of-bounds write,
 * off-stream launch, failed timing audit, a timing beyond physics, failed
 * check, a check too close to call (not graded), unmeasured check (not
 * graded), pass.
 */
#ifndef CUDALAB_VERDICT_H
#define CUDALAB_VERDICT_H

#include <jansson.h>
#include <stddef.h>

#include "event.h"
#include "jsonl.h"
#include "manifest.h"
#include "runner.h"
#include "strbuf.h"

/*
 * A step's GB/s above this many times the measured copy bandwidth was not
 * timed honestly: the bytes a step "must move" are counted once each, and
 * on the GPUs measured no honest reference exceeds 1.02x copy (saxpy v5
 * on the H100: 101.7 %); a read-only kernel may beat a copy by a little,
 * hence the slack.
 */
#define VERDICT_PHYSICS_SLACK 1.15
/*
 * The kernels ncu counted (the profiled run of the timed case, profiler.h)
 * may run at most this many times as long as the timed median (of the
 * slowest timed variant: haxpy profiles offset 1, its headline is offset
 * 0): the counts that decide a check must be of the kernels that were
 * timed. Measured on every reference with a counter check, 2026-11-24:
 * 0.990 to 1.000 on the H100, 0.979 to 1.003 on the H200 (README "Facts
 * from what ran"); a launcher that ran a slow honest kernel when
 * profiled: 4.5x. Above it the step is NOT GRADED, not failed: a GPU
 * shared with programs outside cudalab can slow the profiled run too (a
 * shared GPU is nobody's fault).
 *
 * One-sided on purpose: every timing bar is a `min` on speed, so a timed
 * call slower than the profiled one only costs its author. What the bound
 * leaves is a launcher that tells the profiled run from the timed one and
 * runs, under the clock, a kernel at most this much faster than the one
 * counted, which must itself be correct and meet every counter bar: the
 * step's technique written and run, its author gaining at most 25 % of
 * speed.
 */
#define VERDICT_PROFILED_OVER_TIMED 1.25
/* Spread of a ratio of two kernels timed side by side in one process. */
#define VERDICT_SAME_PROCESS_SPREAD 0.005

struct step_outcome {
	const char *step_id;
	double copy_gbps;
	event_sink sink;
	void *sink_arg;
	struct jsonl_reader lines; /* the result channel, line by line */
	json_t *metrics;       /* metric name -> number */
	json_t *failed_case;   /* first failing case event */
	json_t *guard;         /* first guard event */
	json_t *error;         /* error event */
	json_t *todo;          /* todo event */
	json_t *integrity;     /* first failed timing audit */
	json_t *gpu_not_ours;  /* first final "gpu_state" that was not "ours":
				  the GPU was busy or throttled through every
				  attempt, so the step is not graded */
	json_t *vendor_timing; /* timing event of the vendor program */
	json_t *run_timings;   /* borrowed, NULL: none kept. The run's student
				  timings, variant ("" for none) -> step ->
				  GB/s (each step's first of a variant);
				  outcome_timing adds to it, and a vendor
				  timing gets vs_steps from it */
	json_t *beyond_physics; /* a student timing faster than the GPU
				   can copy (VERDICT_PHYSICS_SLACK) */
	json_t *profile_not_timed; /* the profile event whose kernels ran
				      longer than VERDICT_PROFILED_OVER_TIMED
				      x the timed median */
	double gpu_waited_s;   /* seconds spent waiting for the GPU lock so
				  far ("waiting for the GPU" progress): the
				  runner adds them to the step's time limit */
	double gpu_wait_now;   /* the current wait's seconds */
	json_t *phases;        /* where the step program's time went, from
				  harness_end: seconds init_s timing_s
				  gpu_wait_s (NULL when it sent none) */
	json_t *ptx_kernels;   /* the step's PTX facts per kernel (ptx.h):
				  the launch event picks the launched ones */
	double timed_n;        /* elements of the timed call (0: not timed) */
	int harness_end;
	int off_stream;
	char garbage[256];     /* a line that was not an event */
};

/* sink and arg receive every forwarded event (not owned by the sink). */
void outcome_init(struct step_outcome *o, const char *step_id,
		  double copy_gbps, event_sink sink, void *arg);
void outcome_release(struct step_outcome *o);

/* Feed result-channel bytes (arg is the outcome). A final partial line is
 * processed by outcome_feed(o, "\n", 1). */
void outcome_feed(void *arg, const char *data, size_t len);

/* Metrics known without running: PTX facts and the compiler's resources.
 * The PTX metrics are of every kernel of the file until the run's "launch"
 * event names the kernels the timed call launched: from then on they are
 * of those kernels only (a kernel compiled but never launched lends no
 * fact, ptx_facts_launched). */
void outcome_add_static(struct step_outcome *o, const json_t *resources,
			const json_t *ptx);

/* True when the run ended normally with no failed case: checks apply. */
int outcome_ran_clean(const struct step_outcome *o, const struct child *c);
/* Why the step's timing figures must not be reported (not correct, off
 * the timed stream, failed audit), or NULL when they are trustworthy. */
const char *outcome_timing_withheld(const struct step_outcome *o,
				    const struct child *c);

/*
 * What the checks of one step found: one result per check, in the
 * manifest's order (the fields of its "check" event: the caller emits
 * event_check(&results[i])), and the message of the first failed check, of
 * the first check too close to call, and of the first one that could not
 * be measured ("" when none). verdict_checks*() allocate results; release
 * with check_summary_release().
 */
struct check_summary {
	char fail[600];
	char close[600];
	char unmeasured[300];
	struct event_check *results;
	size_t n;
};
void check_summary_release(struct check_summary *out);

/*
 * Evaluate every check of s against metrics, into out (data: it emits
 * nothing): each with the measured value, its margin (how far on the
 * passing side of the bar, in the metric's unit and as margin_pct of the
 * bar) and, for a timing figure, its noise. A metric M may come with
 * M_noise (metrics from timings: calibration.h, and speedup_vs_baseline
 * from both timings' intervals); a value within its noise of the bar is
 * "close": neither pass nor fail. A metric that could not be measured may
 * come with "why:M", the reason in words.
 */
void verdict_checks(const struct step_spec *s, const json_t *metrics,
		    struct check_summary *out);

/* True when some check's value lies within its noise of its bar: the
 * caller measures again before deciding. */
int verdict_has_close_call(const struct step_spec *s, const json_t *metrics);

/*
 * Without a device: judge the checks whose metric is known from the build
 * alone (PTX facts, the compiler's resources) exactly as verdict_checks
 * would, and give each other check the status "not_measured" with
 * needs_gpu ("pct_of_copy needs a GPU ..."). Returns how many static checks
 * failed (the first one's message in out->fail). The step stays not
 * graded: what needs a device was not judged.
 */
int verdict_checks_static(const struct step_spec *s, const json_t *metrics,
			  struct check_summary *out);

/* x for a message: an integer when whole (16384), else 4 significant
 * digits (2.75, 0.05). Returns buf. */
const char *verdict_number(double x, char *buf, size_t len);


/* checks may be NULL (the step was not checked). */
const char *verdict_decide(const struct step_outcome *r,
			   const struct child *c,
			   const struct check_summary *checks, char *summary,
			   size_t len);

/* "file.cu:12: message" of the first error diagnostic. */
const char *verdict_first_error(const json_t *diagnostics, char *buf,
				size_t len);

#endif
