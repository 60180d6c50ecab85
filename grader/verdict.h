/*
 * verdict — from what a step run reported to the step's verdict.
 *
 * A step_outcome collects one run of a step executable: it is fed the raw
 * bytes of the harness's result channel (outcome_feed, the runner's
 * on_result callback), splits them into events, keeps the facts that decide
 * the verdict (first failed case, guard damage, CUDA error, todo marker,
 * whether the harness reached its end, launches off the default stream),
 * turns measurements into metrics (metric.h), adds "step" and pct_of_copy
 * to each event and forwards it to the sink. A line that is not an event is
 * remembered: the result channel is the grader's, so garbage on it means the
 * run cannot be trusted.
 *
 * verdict_checks() evaluates a step's lab.json checks against the metrics,
 * emitting one "check" event each; verdict_decide() then names the verdict
 * (event.h lists them) with a one-line summary a student can act on. The
 * order of precedence: timeout, not implemented, crash (CUDA error, garbage
 * on the channel, early exit or signal), wrong result, out-of-bounds write,
 * off-stream launch, failed timing audit, failed check, unmeasured check (not graded), pass.
 */
#ifndef CUDALAB_VERDICT_H
#define CUDALAB_VERDICT_H

#include <jansson.h>
#include <stddef.h>

#include "event.h"
#include "manifest.h"
#include "runner.h"
#include "strbuf.h"

struct step_outcome {
	const char *step_id;
	double copy_gbps;
	event_sink sink;
	void *sink_arg;
	struct strbuf pending; /* a partial line from the result channel */
	json_t *metrics;       /* metric name -> number */
	json_t *failed_case;   /* first failing case event */
	json_t *guard;         /* first guard event */
	json_t *error;         /* error event */
	json_t *todo;          /* todo event */
	json_t *integrity;     /* first failed timing audit */
	json_t *vendor_timing; /* timing event of the vendor program */
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

/* Metrics known without running: PTX facts and the compiler's resources. */
void outcome_add_static(struct step_outcome *o, const json_t *resources,
			const json_t *ptx);

/* True when the run ended normally with no failed case: checks apply. */
int outcome_ran_clean(const struct step_outcome *o, const struct child *c);
/* Why the step's timing figures must not be reported (not correct, off
 * the timed stream, failed audit), or NULL when they are trustworthy. */
const char *outcome_timing_withheld(const struct step_outcome *o,
				    const struct child *c);

void verdict_checks(const struct step_spec *s, json_t *metrics,
		    event_sink sink, void *arg, char *fail_msg,
		    size_t fail_len, char *unmeasured, size_t un_len);

/*
 * Without a device: judge the checks whose metric is known from the build
 * alone (PTX facts, the compiler's resources) exactly as verdict_checks
 * would, and emit each other check as "not_measured" with needs_gpu true
 * ("pct_of_copy needs a GPU ..."). Returns how many static checks failed
 * (the first one's message in fail_msg). The step stays not graded: what
 * needs a device was not judged.
 */
int verdict_checks_static(const struct step_spec *s, json_t *metrics,
			  event_sink sink, void *arg, char *fail_msg,
			  size_t fail_len);

/* x for a message: an integer when whole (16384), else 4 significant
 * digits (2.75, 0.05). Returns buf. */
const char *verdict_number(double x, char *buf, size_t len);

const char *verdict_decide(const struct step_outcome *r,
			   const struct child *c, const char *check_fail,
			   const char *unmeasured, char *summary, size_t len);

/* "file.cu:12: message" of the first error diagnostic. */
const char *verdict_first_error(const json_t *diagnostics, char *buf,
				size_t len);

#endif
