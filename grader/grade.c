#include "grade.h"
#include "build.h"
#include "device.h"
#include "event.h"
#include "manifest.h"
#include "metric.h"
#include "runner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* What one run of a step executable told us. */
struct step_run {
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
	json_t *vendor_timing; /* timing event of the vendor program */
	int harness_end;
	int off_stream;
	char garbage[256];     /* a line that was not an event */
};

static void emit(event_sink sink, void *arg, json_t *ev)
{
	sink(arg, ev);
	json_decref(ev);
}

static void keep_first(json_t **slot, json_t *ev)
{
	if (!*slot)
		*slot = json_incref(ev);
}

static void on_harness_event(struct step_run *r, json_t *ev)
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
	} else if (!strcmp(kind, "harness_end")) {
		r->harness_end = 1;
	} else if (!strcmp(kind, "launch")) {
		static const char *const names[] = {
			"elements_per_thread", "waves", "grid_blocks",
			"block_threads", "launches", NULL};
		for (const char *const *n = names; *n; n++) {
			json_t *v = json_object_get(ev, *n);
			if (json_is_number(v))
				json_object_set_new(r->metrics, *n,
						    json_real(json_number_value(v)));
		}
		if (!json_is_true(json_object_get(ev, "default_stream")))
			r->off_stream = 1;
	} else if (!strcmp(kind, "timing")) {
		double gbps = json_number_value(json_object_get(ev, "gbps"));
		if (r->copy_gbps > 0)
			json_object_set_new(ev, "pct_of_copy",
					    json_real(100 * gbps / r->copy_gbps));
		const char *who = json_string_value(json_object_get(ev, "who"));
		if (who && !strcmp(who, "vendor")) {
			keep_first(&r->vendor_timing, ev);
		} else {
			json_object_set_new(r->metrics, "gbps", json_real(gbps));
			json_object_set(r->metrics, "median_us",
					json_object_get(ev, "median_us"));
			if (r->copy_gbps > 0)
				json_object_set_new(
					r->metrics, "pct_of_copy",
					json_real(100 * gbps / r->copy_gbps));
		}
	}
	if (strcmp(kind, "harness_end"))
		r->sink(r->sink_arg, ev);
}

/* Runner callback: split the result channel into lines, one event each. */
static void on_result_bytes(void *arg, const char *data, size_t len)
{
	struct step_run *r = arg;
	strbuf_add(&r->pending, data, len);
	char *start = r->pending.buf, *nl;
	while ((nl = memchr(start, '\n', r->pending.len -
						   (size_t)(start - r->pending.buf)))) {
		*nl = '\0';
		char why[256];
		json_t *ev = *start ? event_parse(start, why, sizeof(why)) : NULL;
		if (ev) {
			on_harness_event(r, ev);
			json_decref(ev);
		} else if (*start && !r->garbage[0]) {
			snprintf(r->garbage, sizeof(r->garbage), "%.60s (%s)",
				 start, why);
		}
		start = nl + 1;
	}
	size_t rest = r->pending.len - (size_t)(start - r->pending.buf);
	memmove(r->pending.buf, start, rest);
	r->pending.len = rest;
	r->pending.buf[rest] = '\0';
}

static void step_run_release(struct step_run *r)
{
	strbuf_release(&r->pending);
	json_decref(r->metrics);
	json_decref(r->failed_case);
	json_decref(r->guard);
	json_decref(r->error);
	json_decref(r->todo);
	json_decref(r->vendor_timing);
}

/* The environment a step runs in: only what CUDA and the loader need. */
static const char *const *step_environment(char store[][512], size_t max)
{
	static const char *const keep[] = {
		"PATH", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES",
		"NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES",
		"CUDA_DEVICE_ORDER", "TMPDIR", NULL};
	static const char *env[16];
	size_t k = 0;
	for (const char *const *name = keep; *name && k + 2 < max; name++) {
		const char *v = getenv(*name);
		if (!v)
			continue;
		snprintf(store[k], 512, "%s=%s", *name, v);
		env[k] = store[k];
		k++;
	}
	env[k++] = "HOME=/tmp";
	env[k] = NULL;
	return env;
}

/* Run an executable built by build.c, forwarding its events. */
static void run_executable(const struct grade_opts *o, const char *exe,
			   const char *step_id, double limit_s,
			   struct step_run *r, struct child *c)
{
	char step_arg[128];
	snprintf(step_arg, sizeof(step_arg), "%s", step_id);
	const char *argv[16];
	int k = 0;
	argv[k++] = exe;
	argv[k++] = "--result-fd";
	argv[k++] = "3";
	argv[k++] = "--step";
	argv[k++] = step_arg;
	if (o->seed) {
		argv[k++] = "--seed";
		argv[k++] = o->seed;
	}
	if (o->bench)
		argv[k++] = "--bench";
	argv[k] = NULL;
	char store[16][512];
	c->argv = argv;
	c->env = step_environment(store, 16);
	c->result_fd = 3;
	c->on_result = on_result_bytes;
	c->on_result_arg = r;
	c->wall_limit_s = limit_s;
	c->cpu_limit_s = (long)limit_s + 30;
	c->file_limit_bytes = 64L << 20;
	c->out_limit = 16 * 1024;
	if (child_run(c) < 0 && !r->error)
		r->error = json_pack("{s:s, s:s, s:s}", "event", "error", "kind",
				     "harness", "message", c->error);
	if (r->pending.len) /* a last line without newline */
		on_result_bytes(r, "\n", 1);
}

static void add_static_metrics(json_t *metrics, const struct step_build *b)
{
	static const struct {
		const char *metric, *fact;
	} ptx[] = {{"ptx_max_load_bytes", "max_load_bytes"},
		   {"ptx_max_store_bytes", "max_store_bytes"},
		   {"ptx_nc_loads", "nc_loads"}};
	for (size_t i = 0; i < sizeof(ptx) / sizeof(ptx[0]); i++) {
		json_t *v = json_object_get(b->ptx, ptx[i].fact);
		if (json_is_integer(v))
			json_object_set_new(metrics, ptx[i].metric,
					    json_real((double)json_integer_value(v)));
	}
	double regs = 0, spill = 0, shared = 0;
	size_t i;
	json_t *k;
	json_array_foreach(b->resources, i, k)
	{
		double r = (double)json_integer_value(json_object_get(k, "registers"));
		double s = (double)json_integer_value(json_object_get(k, "shared_bytes"));
		regs = r > regs ? r : regs;
		shared = s > shared ? s : shared;
		spill += (double)json_integer_value(
				 json_object_get(k, "spill_store_bytes")) +
			 (double)json_integer_value(
				 json_object_get(k, "spill_load_bytes"));
	}
	if (json_array_size(b->resources)) {
		json_object_set_new(metrics, "registers", json_real(regs));
		json_object_set_new(metrics, "spill_bytes", json_real(spill));
		json_object_set_new(metrics, "shared_bytes", json_real(shared));
	}
}

/* Evaluate the step's checks; emits a check event for each. Returns the
 * first failed (or, failing none, the first unmeasured) check's message. */
static void evaluate_checks(const struct step_spec *s, json_t *metrics,
			    event_sink sink, void *arg, char *fail_msg,
			    size_t fail_len, char *unmeasured, size_t un_len)
{
	for (size_t i = 0; i < s->nchecks; i++) {
		const struct check_spec *c = &s->checks[i];
		const struct metric_info *m = metric_find(c->metric);
		json_t *v = json_object_get(metrics, c->metric);
		const char *op = c->op == CHECK_AT_LEAST ? ">=" : "<=";
		char id[96];
		snprintf(id, sizeof(id), "%s %s %g", c->metric, op, c->bound);
		json_t *ev = json_pack("{s:s, s:s, s:s, s:s, s:f, s:s, s:s}",
				       "event", "check", "step", s->id, "id",
				       id, "metric", c->metric, "required",
				       c->bound, "op", op, "unit", m->unit);
		if (!json_is_number(v)) {
			char why[256];
			snprintf(why, sizeof(why),
				 "%s was not measured (it comes from the %s, "
				 "which did not report it)", c->metric,
				 m->source);
			json_object_set_new(ev, "status",
					    json_string("not_measured"));
			json_object_set_new(ev, "message", json_string(why));
			if (!*unmeasured)
				snprintf(unmeasured, un_len, "%s", why);
			emit(sink, arg, ev);
			continue;
		}
		double x = json_number_value(v);
		int ok = c->op == CHECK_AT_LEAST ? x >= c->bound : x <= c->bound;
		json_object_set_new(ev, "measured", json_real(x));
		json_object_set_new(ev, "status",
				    json_string(ok ? "pass" : "fail"));
		char msg[512];
		snprintf(msg, sizeof(msg), "%s: %.4g%s%s, needs %s %g — %s",
			 c->metric, x, *m->unit ? " " : "", m->unit, op,
			 c->bound, c->why);
		json_object_set_new(ev, "message", json_string(msg));
		if (!ok && !*fail_msg)
			snprintf(fail_msg, fail_len, "%s", msg);
		emit(sink, arg, ev);
	}
}

static const char *first_error(const json_t *diagnostics, char *buf,
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

/* Decide a ran step's verdict; fills summary. */
static const char *decide(const struct step_run *r, const struct child *c,
			  const char *check_fail, const char *unmeasured,
			  char *summary, size_t len)
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
		snprintf(summary, len, "crashed: %s",
			 json_string_value(json_object_get(r->error, "message")));
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
		if (c->exited)
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
	if (r->off_stream) {
		snprintf(summary, len,
			 "launched work on a stream other than the default "
			 "stream: the harness checks and times stream 0, so "
			 "enqueue your kernels there (no cudaStreamCreate)");
		return "fail";
	}
	if (*check_fail) {
		snprintf(summary, len, "%s", check_fail);
		return "fail";
	}
	if (*unmeasured) {
		snprintf(summary, len, "NOT GRADED: %s", unmeasured);
		return "not_graded";
	}
	snprintf(summary, len, "correct, and every check passed");
	return "pass";
}

static void iso_now(char *buf, size_t len)
{
	time_t t = time(NULL);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
}

static void run_vendor(const struct grade_opts *o,
		       const struct lab_manifest *lab,
		       const struct build_env *env, double copy_gbps,
		       event_sink sink, void *arg)
{
	char exe[4096], err[2048];
	if (build_vendor(env, lab, exe, sizeof(exe), err, sizeof(err)) < 0) {
		emit(sink, arg,
		     json_pack("{s:s, s:s, s:s, s:s}", "event", "error", "step",
			       "vendor", "kind", "harness", "message", err));
		return;
	}
	struct step_run r = {.step_id = "vendor", .copy_gbps = copy_gbps,
			     .sink = sink, .sink_arg = arg,
			     .metrics = json_object()};
	struct child c = CHILD_INIT;
	run_executable(o, exe, "vendor", lab->time_limit_s, &r, &c);
	if (r.error)
		sink(arg, r.error);
	child_release(&c);
	step_run_release(&r);
}

int grade_lab(const struct grade_opts *o, event_sink sink, void *arg,
	      char *err, size_t errlen)
{
	char lab_dir[4096];
	snprintf(lab_dir, sizeof(lab_dir), "%s/labs/%s", o->root, o->lab);
	if (access(lab_dir, F_OK) != 0) {
		snprintf(err, errlen, "no lab called \"%s\" (see `list`)",
			 o->lab);
		return -1;
	}
	struct lab_manifest lab;
	if (manifest_load(lab_dir, &lab, err, errlen) < 0)
		return -1;
	size_t first = 0, count = lab.nsteps;
	if (o->step) {
		const struct step_spec *s = manifest_step(&lab, o->step);
		if (!s) {
			snprintf(err, errlen, "lab %s has no step \"%s\" (steps: "
					      "1..%zu or their ids)",
				 lab.name, o->step, lab.nsteps);
			manifest_free(&lab);
			return -1;
		}
		first = manifest_step_index(&lab, s);
		count = 1;
	}
	const char *src_dir = o->src_dir ? o->src_dir : lab_dir;
	if (access(src_dir, R_OK) != 0) {
		snprintf(err, errlen, "cannot read the folder %s", src_dir);
		manifest_free(&lab);
		return -1;
	}

	struct build_env env = {.root = o->root, .build_dir = o->build_dir,
				.nvcc = "nvcc", .jobs = o->jobs,
				.compile_limit_s = 300};
	if (build_env_init(&env, err, errlen) < 0) {
		manifest_free(&lab);
		return -1;
	}

	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	char started[32];
	iso_now(started, sizeof(started));
	json_t *steps_list = json_array();
	for (size_t i = first; i < first + count; i++)
		json_array_append_new(steps_list,
				      json_pack("{s:s, s:s, s:s}", "id",
						lab.steps[i].id, "title",
						lab.steps[i].title, "file",
						lab.steps[i].file));
	emit(sink, arg,
	     json_pack("{s:s, s:i, s:s, s:s, s:s, s:s, s:o, s:s}", "event",
		       "run_begin", "schema", EVENT_SCHEMA, "lab", lab.name,
		       "title", lab.title, "mode", o->bench ? "bench" : "test",
		       "started", started, "steps", steps_list, "source",
		       src_dir));

	/* The device first: it decides the arch we compile for. */
	char probe[4096];
	snprintf(probe, sizeof(probe), "%s/devprobe", o->build_dir);
	json_t *device;
	if (o->pretend_no_device)
		device = json_pack("{s:s, s:b, s:s}", "event", "device",
				   "available", 0, "reason",
				   "CUDALAB_NO_DEVICE is set");
	else
		device = device_probe(probe, o->state_dir, o->bench, err, errlen);
	if (!device) {
		manifest_free(&lab);
		return -1;
	}
	int have_device = json_is_true(json_object_get(device, "available"));
	char arch[32];
	device_arch(device, o->arch_fallback, arch, sizeof(arch));
	env.arch = arch;
	json_object_set_new(device, "arch", json_string(arch));
	double copy_gbps = json_number_value(json_object_get(device, "copy_gbps"));
	sink(arg, device);

	/* Build every selected step (in parallel, cached). */
	struct step_build *builds = calloc(count, sizeof(*builds));
	for (size_t i = 0; i < count; i++) {
		builds[i].step = &lab.steps[first + i];
		snprintf(builds[i].source, sizeof(builds[i].source), "%s/%s",
			 src_dir, builds[i].step->file);
		emit(sink, arg,
		     json_pack("{s:s, s:s, s:s, s:s}", "event", "compile", "step",
			       builds[i].step->id, "status", "started", "file",
			       builds[i].step->file));
	}
	if (build_steps(&env, &lab, builds, count, err, errlen) < 0) {
		free(builds);
		json_decref(device);
		manifest_free(&lab);
		return -1;
	}
	for (size_t i = 0; i < count; i++) {
		struct step_build *b = &builds[i];
		const char *status = !b->ok ? "failed" : b->cached ? "cached" : "ok";
		emit(sink, arg,
		     json_pack("{s:s, s:s, s:s, s:f, s:O, s:s}", "event",
			       "compile", "step", b->step->id, "status", status,
			       "seconds", b->seconds, "diagnostics",
			       b->diagnostics, "output", strbuf_str(&b->log)));
		if (b->ok) {
			emit(sink, arg,
			     json_pack("{s:s, s:s, s:O}", "event", "resources",
				       "step", b->step->id, "kernels",
				       b->resources));
			json_t *ptx = json_deep_copy(b->ptx);
			json_object_set_new(ptx, "event", json_string("ptx"));
			json_object_set_new(ptx, "step", json_string(b->step->id));
			emit(sink, arg, ptx);
		}
	}

	/* Run, measure, check. */
	int passed = 0, failed = 0, not_graded = 0;
	double first_median = 0;
	for (size_t i = 0; i < count; i++) {
		struct step_build *b = &builds[i];
		const struct step_spec *s = b->step;
		emit(sink, arg,
		     json_pack("{s:s, s:s, s:s, s:s}", "event", "step_begin",
			       "step", s->id, "title", s->title, "file",
			       s->file));
		char summary[1024] = "";
		const char *verdict;
		struct step_run r = {.step_id = s->id, .copy_gbps = copy_gbps,
				     .sink = sink, .sink_arg = arg,
				     .metrics = json_object()};
		add_static_metrics(r.metrics, b);
		struct child c = CHILD_INIT;
		double seconds = 0;
		if (!b->ok) {
			char e[600];
			snprintf(summary, sizeof(summary),
				 "does not compile: %s",
				 first_error(b->diagnostics, e, sizeof(e)));
			verdict = "compile_error";
		} else if (!have_device) {
			snprintf(summary, sizeof(summary),
				 "NOT GRADED: no CUDA device (%s)",
				 json_string_value(
					 json_object_get(device, "reason")));
			verdict = "not_graded";
		} else {
			double limit = o->time_limit_s > 0 ? o->time_limit_s
							   : lab.time_limit_s;
			run_executable(o, b->exe, s->id, limit, &r, &c);
			seconds = c.seconds;
			json_t *med = json_object_get(r.metrics, "median_us");
			if (first + i == 0 && json_is_number(med))
				first_median = json_number_value(med);
			if (first_median > 0 && json_is_number(med))
				json_object_set_new(
					r.metrics, "speedup_vs_first",
					json_real(first_median /
						  json_number_value(med)));
			char check_fail[600] = "", unmeasured[300] = "";
			int ran_clean = r.harness_end && !r.error && !r.todo &&
					!r.failed_case && !r.guard &&
					!c.timed_out;
			if (ran_clean)
				evaluate_checks(s, r.metrics, sink, arg,
						check_fail, sizeof(check_fail),
						unmeasured, sizeof(unmeasured));
			verdict = decide(&r, &c, check_fail, unmeasured, summary,
					 sizeof(summary));
		}
		json_t *end = json_pack("{s:s, s:s, s:s, s:s, s:f}", "event",
					"step_end", "step", s->id, "verdict",
					verdict, "summary", summary, "seconds",
					seconds);
		if (strcmp(verdict, "pass"))
			json_object_set_new(end, "hint", json_string(s->hint));
		static const char *const shown[] = {
			"median_us", "gbps", "pct_of_copy", "speedup_vs_first",
			"elements_per_thread", "waves", "registers", NULL};
		for (const char *const *m = shown; *m; m++)
			if (json_object_get(r.metrics, *m))
				json_object_set(end, *m,
						json_object_get(r.metrics, *m));
		if (c.out.len)
			json_object_set_new(end, "program_output",
					    json_string(strbuf_str(&c.out)));
		emit(sink, arg, end);
		passed += !strcmp(verdict, "pass");
		not_graded += !strcmp(verdict, "not_graded");
		failed += strcmp(verdict, "pass") && strcmp(verdict, "not_graded");
		child_release(&c);
		step_run_release(&r);
	}

	if (o->bench && have_device && lab.vendor_source)
		run_vendor(o, &lab, &env, copy_gbps, sink, arg);

	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	const char *verdict = failed ? "fail" : not_graded ? "not_graded" : "pass";
	emit(sink, arg,
	     json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:f}", "event",
		       "run_end", "lab", lab.name, "verdict", verdict, "passed",
		       passed, "failed", failed, "not_graded", not_graded,
		       "total", (int)count, "seconds",
		       (double)(t1.tv_sec - t0.tv_sec) +
			       (t1.tv_nsec - t0.tv_nsec) / 1e9));
	for (size_t i = 0; i < count; i++)
		step_build_release(&builds[i]);
	free(builds);
	json_decref(device);
	manifest_free(&lab);
	return failed ? 1 : not_graded ? 3 : 0;
}
