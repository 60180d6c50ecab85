#include "verdict.h"
#include "facts.h"
#include "ptx.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <signal.h>
#include <string.h>
/* What one run of a step executable told us. */


static void keep_first(json_t **slot, json_t *ev)
{
	if (!*slot)
		*slot = json_incref(ev);
}

/*
 * The relative half-width of a timing's median: from the harness's
 * confidence interval of the median when it sends one (ci_low_us,
 * ci_high_us), else estimated from the spread of the repetitions (the
 * median's standard error is about 1.25 sigma / sqrt(reps); 1.96 of them
 * for 95 %), else the spread of the rounds' medians.
 */
static double timing_ci_rel(const json_t *ev)
{
	double med = event_num(ev, "median_us");
	if (med <= 0)
		return 0;
	json_t *lo = json_object_get(ev, "ci_low_us");
	json_t *hi = json_object_get(ev, "ci_high_us");
	if (json_is_number(lo) && json_is_number(hi))
		return (json_number_value(hi) - json_number_value(lo)) /
		       (2 * med);
	double reps = event_num(ev, "reps");
	double rel = reps > 0 ? 2.46 * event_num(ev, "cv") / sqrt(reps) : 0;
	double rounds = event_num(ev, "rounds_cv");
	return rounds > rel ? rounds : rel;
}

/* A student timing into the run's (run_timings): the step's first of
 * its variant. */
static void keep_run_timing(struct step_outcome *r, const json_t *ev,
			    double gbps)
{
	if (!r->run_timings)
		return;
	const char *variant = event_str(ev, "variant");
	json_t *steps = json_object_get(r->run_timings, variant);
	if (!steps) {
		steps = json_object();
		json_object_set_new(r->run_timings, variant, steps);
	}
	if (!json_object_get(steps, r->step_id))
		json_object_set_new(steps, r->step_id, json_real(gbps));
}

/* The vendor sentence's figure, computed here once: vs_steps on the
 * vendor's timing, step -> the step's bandwidth over the vendor's, for
 * every step of the run timed at the same variant. */
static void vendor_vs_steps(struct step_outcome *r, json_t *ev, double gbps)
{
	json_t *steps = r->run_timings
		? json_object_get(r->run_timings, event_str(ev, "variant"))
		: NULL;
	if (!json_object_size(steps) || gbps <= 0)
		return;
	json_t *vs = json_object();
	const char *step;
	json_t *g;
	json_object_foreach(steps, step, g)
		json_object_set_new(vs, step,
				    json_real(json_number_value(g) / gbps));
	json_object_set_new(ev, "vs_steps", vs);
}

/* A timing event: the step's figures, the baseline's, the worst
 * variant's, and whether it beat physics. */
static void outcome_timing(struct step_outcome *r, json_t *ev)
{
	double gbps = json_number_value(json_object_get(ev, "gbps"));
	if (r->copy_gbps > 0)
		json_object_set_new(ev, "pct_of_copy",
				    json_real(100 * gbps / r->copy_gbps));
	const char *who = json_string_value(json_object_get(ev, "who"));
	double ci = timing_ci_rel(ev);
	if (who && !strcmp(who, "vendor")) {
		vendor_vs_steps(r, ev, gbps);
		keep_first(&r->vendor_timing, ev);
	} else if (who && !strcmp(who, "reference")) {
		/* the lab's own baseline, timed in this process */
		json_object_set(r->metrics, "baseline_us",
				json_object_get(ev, "median_us"));
		json_object_set_new(r->metrics, "baseline_ci_rel",
				    json_real(ci));
	} else {
		keep_run_timing(r, ev, gbps);
		json_t *lowest = json_object_get(r->metrics, "gbps_worst");
		if (!lowest || gbps < json_number_value(lowest))
			json_object_set_new(r->metrics, "gbps_worst",
					    json_real(gbps));
		json_t *slowest = json_object_get(r->metrics, "median_us_worst");
		double us = json_number_value(json_object_get(ev, "median_us"));
		if (!slowest || us > json_number_value(slowest))
			json_object_set_new(r->metrics, "median_us_worst",
					    json_real(us));
		/* physics: nothing moves its bytes faster than the
		 * GPU copies them (plus what a read-mostly kernel
		 * gains over a copy): a faster figure was not timed */
		if (r->copy_gbps > 0 &&
		    gbps > VERDICT_PHYSICS_SLACK * r->copy_gbps)
			keep_first(&r->beyond_physics, ev);
		double pct = r->copy_gbps > 0 ? 100 * gbps / r->copy_gbps
					       : 0;
		json_t *worst = json_object_get(r->metrics,
						"pct_of_copy_worst");
		if (r->copy_gbps > 0 &&
		    (!worst || pct < json_number_value(worst)))
			json_object_set_new(r->metrics,
					    "pct_of_copy_worst",
					    json_real(pct));
		/* the first timing is the step's headline figure */
		if (!json_object_get(r->metrics, "median_us")) {
			r->timed_n = json_number_value(
				json_object_get(ev, "n"));
			json_object_set_new(r->metrics, "gbps",
					    json_real(gbps));
			json_object_set(r->metrics, "median_us",
					json_object_get(ev, "median_us"));
			json_object_set_new(r->metrics, "median_ci_rel",
					    json_real(ci));
			if (r->copy_gbps > 0)
				json_object_set_new(r->metrics,
						    "pct_of_copy",
						    json_real(pct));
		}
	}
}

/* speedup_vs_baseline and its noise, once both timings are known. */
static void outcome_speedup(struct step_outcome *r)
{
	json_t *base = json_object_get(r->metrics, "baseline_us");
	json_t *mine = json_object_get(r->metrics, "median_us");
	if (json_is_number(base) && json_is_number(mine) &&
	    json_number_value(mine) > 0) {
		double sp = json_number_value(base) /
			    json_number_value(mine);
		double cb = json_number_value(json_object_get(
			r->metrics, "baseline_ci_rel"));
		double cs = json_number_value(json_object_get(
			r->metrics, "median_ci_rel"));
		json_object_set_new(r->metrics, "speedup_vs_baseline",
				    json_real(sp));
		/* both timed in this process, side by side */
		json_object_set_new(
			r->metrics, "speedup_vs_baseline_noise",
			json_real(sp * (sqrt(cb * cb + cs * cs) +
					VERDICT_SAME_PROCESS_SPREAD)));
	}
}

/* harness_end: the run reached its end, and where its time went. */
static void outcome_harness_end(struct step_outcome *r, const json_t *ev)
{
	r->harness_end = 1;
	static const char *const phase[] = {"seconds", "init_s",
					    "timing_s", "gpu_wait_s",
					    NULL};
	for (const char *const *p = phase; *p; p++) {
		json_t *v = json_object_get(ev, *p);
		if (!json_is_number(v))
			continue;
		if (!r->phases)
			r->phases = json_object();
		json_object_set_new(r->phases, *p,
				    json_real(json_number_value(v)));
	}
}

/* launch: its facts (facts.h), the stream, the launched kernels' PTX. */
static void outcome_launch(struct step_outcome *r, const json_t *ev)
{
	facts_from_launch(ev, r->metrics);
	if (!json_is_true(json_object_get(ev, "default_stream")))
		r->off_stream = 1;
	/* facts from what ran: the launched kernels' PTX only */
	json_t *launched = json_object_get(ev, "kernels");
	if (r->ptx_kernels && json_is_array(launched)) {
		json_t *facts =
			ptx_facts_launched(r->ptx_kernels, launched);
		facts_from_ptx(facts, r->metrics);
		json_decref(facts);
	}
}

static void outcome_event(struct step_outcome *r, json_t *ev)
{
	const char *kind = event_kind(ev);
	json_object_set_new(ev, "step", json_string(r->step_id));
	if (!strcmp(kind, "case")) {
		if (!json_is_true(json_object_get(ev, "ok")))
			keep_first(&r->failed_case, ev);
	} else if (!strcmp(kind, "guard")) {
		keep_first(&r->guard, ev);
	} else if (!strcmp(kind, "error")) {
		keep_first(&r->error, ev);
	} else if (!strcmp(kind, "todo")) {
		keep_first(&r->todo, ev);
	} else if (!strcmp(kind, "integrity")) {
		if (!json_is_true(json_object_get(ev, "ok")))
			keep_first(&r->integrity, ev);
	} else if (!strcmp(kind, "progress") &&
		   !strcmp(event_str(ev, "phase"), "waiting for the GPU")) {
		/* waited_s counts from the start of each wait */
		double w = event_num(ev, "waited_s");
		if (w < r->gpu_wait_now)
			r->gpu_wait_now = 0; /* a new wait */
		r->gpu_waited_s += w - r->gpu_wait_now;
		r->gpu_wait_now = w;
	} else if (!strcmp(kind, "gpu_state")) {
		if (json_is_true(json_object_get(ev, "final")) &&
		    strcmp(event_str(ev, "condition"), "ours"))
			keep_first(&r->gpu_not_ours, ev);
	} else if (!strcmp(kind, "harness_end")) {
		outcome_harness_end(r, ev);
	} else if (!strcmp(kind, "launch")) {
		outcome_launch(r, ev);
	} else if (!strcmp(kind, "timing")) {
		outcome_timing(r, ev);
		outcome_speedup(r);
	}
	if (strcmp(kind, "harness_end"))
		r->sink(r->sink_arg, ev);
}

static void outcome_line(void *arg, json_t *ev)
{
	outcome_event(arg, ev);
}

static void outcome_garbage(void *arg, long lineno, const char *why,
			    const char *line)
{
	struct step_outcome *r = arg;
	(void)lineno;
	if (!r->garbage[0])
		snprintf(r->garbage, sizeof(r->garbage), "%.60s (%s)", line, why);
}

/* Runner callback: the result channel, one event a line (jsonl.h). */
void outcome_feed(void *arg, const char *data, size_t len)
{
	struct step_outcome *r = arg;
	jsonl_feed(&r->lines, data, len);
}

void outcome_release(struct step_outcome *r)
{
	jsonl_release(&r->lines);
	json_decref(r->metrics);
	json_decref(r->failed_case);
	json_decref(r->guard);
	json_decref(r->error);
	json_decref(r->todo);
	json_decref(r->integrity);
	json_decref(r->gpu_not_ours);
	json_decref(r->phases);
	json_decref(r->vendor_timing);
	json_decref(r->beyond_physics);
	json_decref(r->profile_not_timed);
	json_decref(r->ptx_kernels);
	r->ptx_kernels = NULL;
}


void outcome_init(struct step_outcome *o, const char *step_id,
		  double copy_gbps, event_sink sink, void *arg)
{
	memset(o, 0, sizeof(*o));
	o->step_id = step_id;
	o->copy_gbps = copy_gbps;
	o->sink = sink;
	o->sink_arg = arg;
	o->metrics = json_object();
	o->lines = (struct jsonl_reader)JSONL_READER_INIT;
	o->lines.events = 1;
	o->lines.on_value = outcome_line;
	o->lines.on_bad = outcome_garbage;
	o->lines.arg = o;
}

int outcome_ran_clean(const struct step_outcome *o, const struct child *c)
{
	return o->harness_end && !o->error && !o->todo && !o->failed_case &&
	       !o->guard && !o->garbage[0] && !c->timed_out;
}

const char *outcome_timing_withheld(const struct step_outcome *o,
				    const struct child *c)
{
	if (!outcome_ran_clean(o, c))
		return "the run did not finish correct, so its timing measures "
		       "nothing";
	if (o->off_stream)
		return "work was launched off the default stream, so the timed "
		       "stream did not see it";
	if (o->gpu_not_ours)
		return "the GPU was not ours while timing (busy or throttled), "
		       "so the times measure more than this kernel";
	if (o->integrity)
		return "the timing audit failed: the events did not time the "
		       "work";
	if (o->profile_not_timed)
		return "the kernels the profiler counted are not the ones "
		       "timed";
	if (o->beyond_physics)
		return "faster than this GPU can copy the bytes the step must "
		       "move: the work was not timed";
	return NULL;
}

void outcome_add_static(struct step_outcome *o, const json_t *resources,
			const json_t *ptx)
{
	facts_from_ptx(ptx, o->metrics);
	json_t *kernels = json_object_get(ptx, "kernels");
	if (json_is_object(kernels)) {
		json_decref(o->ptx_kernels);
		o->ptx_kernels = json_incref(kernels);
	}
	facts_from_resources(resources, o->metrics);
}

const char *verdict_number(double x, char *buf, size_t len)
{
	/* whole numbers as integers (16384 B, not 1.638e+04 B); else four
	 * significant digits, never in exponent form for everyday sizes */
	if (x == (double)(long long)x && x > -1e15 && x < 1e15)
		snprintf(buf, len, "%lld", (long long)x);
	else if ((x > -1e-3 && x < 1e-3) || x >= 1e9 || x <= -1e9)
		snprintf(buf, len, "%.4g", x);
	else {
		int digits = 0;
		for (double a = x < 0 ? -x : x; a >= 1 && digits < 4; a /= 10)
			digits++;
		snprintf(buf, len, "%.*f", 4 - digits > 0 ? 4 - digits : 0, x);
		/* drop trailing zeros after the point: 2.50 -> 2.5 */
		char *dot = strchr(buf, '.');
		if (dot) {
			char *e = buf + strlen(buf) - 1;
			while (e > dot && *e == '0')
				*e-- = '\0';
			if (e == dot)
				*e = '\0';
		}
	}
	return buf;
}

/* The check's fields every status shares (event.h's check event). */
static void check_head(const struct step_spec *s, const struct check_spec *c,
		       const struct fact_info *m, struct event_check *out)
{
	memset(out, 0, sizeof(*out));
	out->step = s->id;
	out->metric = c->metric;
	out->op = c->op == CHECK_AT_LEAST ? ">=" : "<=";
	out->unit = m->unit;
	out->required = c->bound;
	snprintf(out->id, sizeof(out->id), "%s %s %g", c->metric, out->op,
		 c->bound);
}

static int summary_alloc(const struct step_spec *s, struct check_summary *out)
{
	memset(out, 0, sizeof(*out));
	out->results = calloc(s->nchecks ? s->nchecks : 1,
			      sizeof(*out->results));
	return out->results ? 0 : -1;
}

void check_summary_release(struct check_summary *out)
{
	free(out->results);
	out->results = NULL;
	out->n = 0;
}

int verdict_checks_static(const struct step_spec *s, const json_t *metrics,
			  struct check_summary *out)
{
	int failed = 0;
	if (summary_alloc(s, out) < 0)
		return 0;
	for (size_t i = 0; i < s->nchecks; i++) {
		const struct check_spec *c = &s->checks[i];
		const struct fact_info *m = fact_find(c->metric);
		struct event_check *r = &out->results[out->n++];
		const char *partial = fact_static_incomplete(c->metric,
							     metrics);
		if (fact_is_static(m) && !partial) {
			/* one check at a time through the ordinary judge */
			struct step_spec one = *s;
			one.checks = (struct check_spec *)c;
			one.nchecks = 1;
			struct check_summary cs;
			verdict_checks(&one, metrics, &cs);
			if (cs.n)
				*r = cs.results[0];
			if (cs.fail[0]) {
				failed++;
				if (!out->fail[0])
					snprintf(out->fail, sizeof(out->fail),
						 "%s", cs.fail);
			}
			check_summary_release(&cs);
			continue;
		}
		check_head(s, c, m, r);
		r->status = "not_measured";
		if (partial)
			snprintf(r->message, sizeof(r->message),
				 "%s needs a GPU (%s)", c->metric, partial);
		else
			snprintf(r->message, sizeof(r->message),
				 "%s needs a GPU (it comes from the %s)",
				 c->metric, m->source);
		r->message[255] = '\0'; /* as the event always had */
		r->needs_gpu = 1;
	}
	return failed;
}

/* The uncertainty of metric M ("M_noise", verdict.h), 0 when none. */
static double metric_noise(const json_t *metrics, const char *metric)
{
	char key[96];
	snprintf(key, sizeof(key), "%s_noise", metric);
	return json_number_value(json_object_get(metrics, key));
}

/* A check whose metric has no figure: why, in words. */
static void check_unmeasured(const struct check_spec *c,
			     const struct fact_info *m, const json_t *metrics,
			     struct event_check *r, struct check_summary *out)
{
	char key[96];
	snprintf(key, sizeof(key), "why:%s", c->metric);
	const char *because = json_string_value(json_object_get(metrics, key));
	if (because)
		snprintf(r->message, sizeof(r->message),
			 "%s was not measured: %s", c->metric, because);
	else
		snprintf(r->message, sizeof(r->message),
			 "%s was not measured (it comes from the %s, which did "
			 "not report it)",
			 c->metric, m->source);
	/* a message of at most 255 bytes, as the event always had */
	r->message[255] = '\0';
	r->status = "not_measured";
	if (!out->unmeasured[0])
		snprintf(out->unmeasured, sizeof(out->unmeasured), "%s",
			 r->message);
}

/* A measured check: pass, fail or too close to call, with its margin. */
static void check_measured(const struct check_spec *c,
			   const struct fact_info *m, const json_t *metrics,
			   double x, struct event_check *r,
			   struct check_summary *out)
{
	double noise = metric_noise(metrics, c->metric);
	int ok = c->op == CHECK_AT_LEAST ? x >= c->bound : x <= c->bound;
	/* how far on the right side of the bar, as a share of it */
	double margin = c->op == CHECK_AT_LEAST ? x - c->bound : c->bound - x;
	int close = noise > 0 && fabs(x - c->bound) <= noise;
	r->has_measured = 1;
	r->measured = x;
	r->margin = margin;
	r->has_margin_pct = c->bound != 0;
	r->margin_pct = c->bound != 0 ? 100 * margin / fabs(c->bound) : 0;
	r->noise = noise > 0 ? noise : 0;
	/* the same bar in the copy bandwidth's terms, for displays that draw
	 * % of copy: bar x the reference's % of copy */
	if (!strncmp(c->metric, "pct_of_reference", 16) && x > 0) {
		json_t *copy = json_object_get(metrics,
					       strstr(c->metric, "_worst")
						       ? "pct_of_copy_worst"
						       : "pct_of_copy");
		if (json_is_number(copy)) {
			r->has_required_pct_of_copy = 1;
			r->required_pct_of_copy =
				c->bound * json_number_value(copy) / x;
		}
	}
	r->status = close ? "close" : ok ? "pass" : "fail";
	char xs[32], bs[32], ms[32];
	if (close)
		snprintf(r->message, sizeof(r->message),
			 "%s: %s%s%s +/- %.2g, needs %s %s — too close to "
			 "call: the bar is inside the measurement's "
			 "uncertainty",
			 c->metric, verdict_number(x, xs, sizeof(xs)),
			 *m->unit ? " " : "", m->unit, noise, r->op,
			 verdict_number(c->bound, bs, sizeof(bs)));
	else
		snprintf(r->message, sizeof(r->message),
			 "%s: %s%s%s, needs %s %s (margin %s%s) — %s",
			 c->metric, verdict_number(x, xs, sizeof(xs)),
			 *m->unit ? " " : "", m->unit, r->op,
			 verdict_number(c->bound, bs, sizeof(bs)),
			 margin >= 0 ? "+" : "",
			 verdict_number(margin, ms, sizeof(ms)), c->why);
	if (close && !out->close[0])
		snprintf(out->close, sizeof(out->close), "%s", r->message);
	if (!ok && !close && !out->fail[0])
		snprintf(out->fail, sizeof(out->fail), "%s", r->message);
}

/* Evaluate the step's checks (verdict.h): data, no events. */
void verdict_checks(const struct step_spec *s, const json_t *metrics,
		    struct check_summary *out)
{
	if (summary_alloc(s, out) < 0)
		return;
	for (size_t i = 0; i < s->nchecks; i++) {
		const struct check_spec *c = &s->checks[i];
		const struct fact_info *m = fact_find(c->metric);
		json_t *v = json_object_get(metrics, c->metric);
		struct event_check *r = &out->results[out->n++];
		check_head(s, c, m, r);
		if (!json_is_number(v))
			check_unmeasured(c, m, metrics, r, out);
		else
			check_measured(c, m, metrics, json_number_value(v), r,
				       out);
	}
}

int verdict_has_close_call(const struct step_spec *s, const json_t *metrics)
{
	for (size_t i = 0; i < s->nchecks; i++) {
		const struct check_spec *c = &s->checks[i];
		json_t *v = json_object_get(metrics, c->metric);
		double noise = metric_noise(metrics, c->metric);
		if (json_is_number(v) && noise > 0 &&
		    fabs(json_number_value(v) - c->bound) <= noise)
			return 1;
	}
	return 0;
}

const char *verdict_first_error(const json_t *diagnostics, char *buf,
			       size_t len)
{
	size_t i;
	json_t *d;
	json_array_foreach(diagnostics, i, d)
	{
		const char *sev = json_string_value(json_object_get(d, "severity"));
		if (!sev || strcmp(sev, "error"))
			continue;
		const char *file = json_string_value(json_object_get(d, "file"));
		const char *base = file ? strrchr(file, '/') : NULL;
		long line = (long)json_integer_value(json_object_get(d, "line"));
		const char *msg = json_string_value(json_object_get(d, "message"));
		if (line > 0)
			snprintf(buf, len, "%s:%ld: %s", base ? base + 1 : file,
				 line, msg);
		else
			snprintf(buf, len, "%s", msg);
		return buf;
	}
	snprintf(buf, len, "the compiler failed");
	return buf;
}

/* How the run ended, when that decides the verdict (timeout, stub,
 * crash); NULL when the harness reached its end. */
static const char *decide_run_end(const struct step_outcome *r,
				  const struct child *c, char *summary,
				  size_t len)
{
	char how[160];
	if (c->timed_out) {
		snprintf(summary, len,
			 "ran longer than %.0f s and was killed: an endless "
			 "loop, or a kernel that never finishes?",
			 c->wall_limit_s);
		return "timeout";
	}
	if (r->todo) {
		snprintf(summary, len,
			 "not implemented: %s:%lld still calls CUDALAB_TODO(); "
			 "write the step, then delete that line",
			 json_string_value(json_object_get(r->todo, "file")),
			 json_integer_value(json_object_get(r->todo, "line")));
		return "not_implemented";
	}
	if (r->error) {
		const char *kind = json_string_value(json_object_get(r->error, "kind"));
		const char *msg = json_string_value(json_object_get(r->error, "message"));
		/* a lab with a launcher per step (coalescing) finds a missing
		 * one at run time, where others fail to link: the same verdict */
		if (kind && !strcmp(kind, "launcher")) {
			snprintf(summary, len, "%s", msg);
			return "compile_error";
		}
		/* the GPU has no room for a timed case 8x its L2
		 * (hx_timed_elements): a fact about the GPU, not the code */
		if (kind && !strcmp(kind, "gpu_memory")) {
			snprintf(summary, len, "NOT GRADED: %s", msg);
			return "not_graded";
		}
		snprintf(summary, len, "crashed: %s", msg);
		return "crash";
	}
	if (r->garbage[0]) {
		snprintf(summary, len,
			 "the result channel carried something that is not an "
			 "event: %s", r->garbage);
		return "crash";
	}
	if (!r->harness_end) {
		child_describe_end(c, how, sizeof(how));
		/* a sandbox (bwrap) reports its child's signal N as 128+N */
		int signalled = c->exited && c->exit_code > 128 &&
				c->exit_code < 128 + 65;
		if (signalled)
			snprintf(how, sizeof(how), "signal %d (%s), reported as "
				 "exit code %d", c->exit_code - 128,
				 strsignal(c->exit_code - 128), c->exit_code);
		if (c->exited && !signalled)
			snprintf(summary, len,
				 "the program ended before the harness finished "
				 "(%s): does your code call exit() or abort()?",
				 how);
		else
			snprintf(summary, len,
				 "the program died before the harness finished "
				 "(%s)", how);
		return "crash";
	}
	return NULL;
}

/* What the run's results and timing audit say, when they decide it (a
 * wrong result, a write out of bounds, an untrusted timing); NULL when
 * they leave it to the checks. */
static const char *decide_results(const struct step_outcome *r, char *summary,
				  size_t len)
{
	if (r->failed_case) {
		const char *msg = json_string_value(
			json_object_get(r->failed_case, "message"));
		json_t *first = json_array_get(
			json_object_get(r->failed_case, "first"), 0);
		char detail[200] = "";
		if (first)
			snprintf(detail, sizeof(detail),
				 "; first: index %lld expected %s got %s",
				 json_integer_value(json_object_get(first, "index")),
				 json_string_value(json_object_get(first, "expected")),
				 json_string_value(json_object_get(first, "got")));
		snprintf(summary, len, "wrong result for %s: %s%s",
			 json_string_value(json_object_get(r->failed_case, "name")),
			 msg ? msg : "mismatches", detail);
		return "fail";
	}
	if (r->guard) {
		snprintf(summary, len, "out-of-bounds write: %s",
			 json_string_value(json_object_get(r->guard, "message")));
		return "fail";
	}
	if (r->gpu_not_ours) { /* a shared GPU is nobody's fault: never FAIL */
		snprintf(summary, len, "NOT GRADED: %s (measured %d times)",
			 event_str(r->gpu_not_ours, "message"),
			 (int)event_num(r->gpu_not_ours, "attempt"));
		return "not_graded";
	}
	if (r->profile_not_timed) { /* an attack, or a shared GPU: never FAIL */
		snprintf(summary, len,
			 "NOT GRADED: the kernels the profiler counted ran %.2fx "
			 "as long as the timed calls (%.0f us against a median "
			 "of %.0f us; at most %.2fx): the counted run is not "
			 "the timed one (a launcher that does other work when "
			 "profiled), or the GPU was busy while ncu ran; run "
			 "again on an idle GPU",
			 event_num(r->profile_not_timed, "profiled_over_timed"),
			 event_num(r->profile_not_timed, "profiled_us"),
			 event_num(r->profile_not_timed, "profiled_us") /
				 event_num(r->profile_not_timed,
					   "profiled_over_timed"),
			 VERDICT_PROFILED_OVER_TIMED);
		return "not_graded";
	}
	if (r->off_stream) {
		snprintf(summary, len,
			 "launched work on a stream other than the default "
			 "stream: the harness checks and times stream 0, so "
			 "enqueue your kernels there (no cudaStreamCreate)");
		return "fail";
	}
	if (r->integrity) {
		snprintf(summary, len, "timing not trusted: %s",
			 event_str(r->integrity, "message"));
		return "fail";
	}
	if (r->beyond_physics) {
		snprintf(summary, len,
			 "timing not trusted: %.0f GB/s is more than %.2fx the "
			 "%.0f GB/s this GPU copies at: no kernel moves the bytes "
			 "its step must move that fast, so the timed calls did "
			 "not do the work (skipped or cached calls?)",
			 event_num(r->beyond_physics, "gbps"),
			 VERDICT_PHYSICS_SLACK, r->copy_gbps);
		return "fail";
	}
	return NULL;
}

/* Decide a ran step's verdict; fills summary. */
const char *verdict_decide(const struct step_outcome *r, const struct child *c,
			   const struct check_summary *checks, char *summary,
			   size_t len)
{
	static const struct check_summary none;
	if (!checks)
		checks = &none;
	const char *v = decide_run_end(r, c, summary, len);
	if (!v)
		v = decide_results(r, summary, len);
	if (v)
		return v;
	if (checks->fail[0]) {
		snprintf(summary, len, "%s", checks->fail);
		return "fail";
	}
	if (checks->close[0]) {
		snprintf(summary, len, "NOT GRADED: %s", checks->close);
		return "not_graded";
	}
	if (checks->unmeasured[0]) {
		snprintf(summary, len, "NOT GRADED: %s", checks->unmeasured);
		return "not_graded";
	}
	snprintf(summary, len, "correct, and every check passed");
	return "pass";
}

