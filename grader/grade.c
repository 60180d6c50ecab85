#include "grade.h"
#include "lint.h"
#include "build.h"
#include "device.h"
#include "event.h"
#include "manifest.h"
#include "metric.h"
#include "profiler.h"
#include "runner.h"
#include "sandbox.h"
#include "verdict.h"

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The limits of one step run besides its wall clock (run_executable);
 * run_begin states them, so a gradebook records what a run was held to. */
#define STEP_CPU_EXTRA_S 30          /* CPU seconds on top of the wall limit */
#define STEP_FILE_LIMIT (64L << 20)  /* bytes a step may write to a file */
#define STEP_OUTPUT_LIMIT (16 * 1024) /* bytes of its output kept */

static void emit(event_sink sink, void *arg, json_t *ev)
{
	sink(arg, ev);
	json_decref(ev);
}

/* Bench: count the instructions the step executes per element (ncu). */
static void profile_instructions(const char *exe, const char *step,
				 double limit, struct step_outcome *r,
				 event_sink sink, void *arg)
{
	struct profile_result pr;
	profile_step(exe, limit, PROFILE_CHECKS, &pr);
	json_t *ev = json_pack("{s:s, s:s, s:s, s:b}", "event", "profile",
			       "step", step, "tool", "ncu", "measured",
			       pr.measured);
	if (pr.measured) {
		double per = pr.warp_instructions * 32 / r->timed_n;
		json_object_set_new(ev, "warp_instructions",
				    json_real(pr.warp_instructions));
		json_object_set_new(ev, "kernels", json_integer(pr.kernels));
		double bank = pr.bank_conflicts / r->timed_n;
		json_object_set_new(ev, "inst_per_element", json_real(per));
		json_object_set_new(ev, "bank_conflicts",
				    json_real(pr.bank_conflicts));
		json_object_set_new(ev, "bank_conflicts_per_element",
				    json_real(bank));
		json_object_set_new(r->metrics, "inst_per_element",
				    json_real(per));
		json_object_set_new(r->metrics, "bank_conflicts_per_element",
				    json_real(bank));
	} else {
		json_object_set_new(ev, "reason", json_string(pr.reason));
	}
	emit(sink, arg, ev);
}

/* The number after `key` in text (e.g. "ERROR SUMMARY: 3 errors"), or -1. */
static long count_after(const char *text, const char *key)
{
	const char *p = strstr(text, key);
	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

/*
 * Run the step under each of the lab's compute-sanitizer tools on its
 * sanitize case; sets the metric sanitizer_errors (their sum) when every
 * tool ran, and emits one "sanitizer" event per tool.
 */
static void sanitize(const struct lab_manifest *lab, const char *exe,
		     const char *step, double limit, struct step_outcome *r,
		     event_sink sink, void *arg)
{
	long total = 0;
	int all_ran = 1;
	for (char **tool = lab->sanitize_tools; tool && *tool; tool++) {
		const char *argv[] = {"compute-sanitizer", "--tool", *tool,
				      "--print-limit", "20", exe, "--case",
				      lab->sanitize_case, "--no-timing",
				      "--result-fd", "3", NULL};
		struct child c = CHILD_INIT;
		c.argv = argv;
		c.result_fd = 3;
		c.out_limit = 256 * 1024;
		c.wall_limit_s = limit * 4;
		json_t *ev = json_pack("{s:s, s:s, s:s}", "event", "sanitizer",
				       "step", step, "tool", *tool);
		char how[160];
		long errors = -1;
		if (child_run(&c) < 0) {
			json_object_set_new(ev, "reason",
					    json_string("compute-sanitizer not "
							"found on PATH"));
		} else {
			const char *out = strbuf_str(&c.out);
			errors = count_after(out, "ERROR SUMMARY: ");
			long hazards = count_after(out, "SUMMARY: ");
			if (strstr(out, "RACECHECK SUMMARY: ") && hazards > errors)
				errors = hazards;
			if (errors < 0)
				json_object_set_new(
					ev, "reason",
					json_string(child_describe_end(
						&c, how, sizeof(how))));
			size_t len = c.out.len;
			json_object_set_new(ev, "output",
					    json_string(out + (len > 4000
								   ? len - 4000
								   : 0)));
		}
		json_object_set_new(ev, "measured", json_boolean(errors >= 0));
		if (errors >= 0)
			json_object_set_new(ev, "errors", json_integer(errors));
		emit(sink, arg, ev);
		child_release(&c);
		all_ran &= errors >= 0;
		total += errors > 0 ? errors : 0;
	}
	if (all_ran)
		json_object_set_new(r->metrics, "sanitizer_errors",
				    json_real((double)total));
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

/*
 * Lint the student's file of one step (lint.h). A file that breaks the rules
 * gets a "lint" event listing every problem and is not compiled: returns 1
 * with "file:line: reason" of the first in why. A missing file is left to
 * the build, which reports it like any compiler would.
 */
static int lint_step(const char *lab_dir, const struct step_build *b,
		     event_sink sink, void *arg, char *why, size_t len)
{
	/* quoted includes: the lab's headers and the runtime's cudalab.h */
	const char *names[66];
	int nn = 0;
	names[nn++] = "cudalab.h";
	DIR *d = opendir(lab_dir);
	struct dirent *e;
	while (d && (e = readdir(d)) && nn < 64) {
		size_t l = strlen(e->d_name);
		if (l > 2 && !strcmp(e->d_name + l - 2, ".h"))
			names[nn++] = strdup(e->d_name);
	}
	if (d)
		closedir(d);
	names[nn] = NULL;

	struct lint_problem p[16];
	char err[512] = "";
	int n = access(b->source, F_OK) == 0
			? lint_file(b->source, names, p, 16, err, sizeof(err))
			: 0;
	for (int i = 1; i < nn; i++)
		free((char *)names[i]);
	if (n == 0)
		return 0;
	json_t *list = json_array();
	if (n < 0) {
		snprintf(why, len, "%s", err);
		json_array_append_new(list, json_pack("{s:i, s:s}", "line", 0,
						      "message", err));
	} else {
		snprintf(why, len, "%s:%d: %s", b->step->file, p[0].line,
			 p[0].message);
		for (int i = 0; i < n && i < 16; i++)
			json_array_append_new(
				list, json_pack("{s:i, s:s}", "line", p[i].line,
						"message", p[i].message));
	}
	emit(sink, arg,
	     json_pack("{s:s, s:s, s:s, s:i, s:o}", "event", "lint", "step",
		       b->step->id, "file", b->step->file, "count",
		       n < 0 ? 1 : n, "problems", list));
	return 1;
}

/* Run an executable built by build.c, forwarding its events. */
static void run_executable(const struct grade_opts *o, struct sandbox *sb,
			   const char *exe,
			   const char *step_id, char *const *extra_sizes,
			   double limit_s, struct step_outcome *r,
			   struct child *c, int timed_only)
{
	char step_arg[128];
	snprintf(step_arg, sizeof(step_arg), "%s", step_id);
	const char *argv[48];
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
	if (timed_only) { /* one point of a sweep: a shorter timing plan */
		argv[k++] = "--timed-only";
		argv[k++] = "--reps";
		argv[k++] = "15";
	}
	else if (o->bench)
		argv[k++] = "--bench";
	for (char *const *x = extra_sizes; x && *x && k < 44 && !timed_only;
	     x++) {
		argv[k++] = "--extra-size";
		argv[k++] = *x;
	}
	argv[k] = NULL;
	char store[16][512];
	c->argv = sb && sb->on ? sandbox_argv(sb, argv) : argv;
	c->env = step_environment(store, 16);
	c->result_fd = 3;
	c->on_result = outcome_feed;
	c->on_result_arg = r;
	c->wall_limit_s = limit_s;
	c->cpu_limit_s = (long)limit_s + STEP_CPU_EXTRA_S;
	c->file_limit_bytes = STEP_FILE_LIMIT;
	c->out_limit = STEP_OUTPUT_LIMIT;
	if (child_run(c) < 0 && !r->error)
		r->error = json_pack("{s:s, s:s, s:s}", "event", "error", "kind",
				     "harness", "message", c->error);
	if (r->pending.len) /* a last line without newline */
		outcome_feed(r, "\n", 1);
}

static void discard_event(void *arg, json_t *ev)
{
	(void)arg;
	(void)ev;
}

/* Whether the file at path mentions the identifier name. */
static int file_mentions(const char *path, const char *name)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	char line[1024];
	int found = 0;
	size_t len = strlen(name);
	while (!found && fgets(line, sizeof(line), f))
		for (const char *p = strstr(line, name); p && !found;
		     p = strstr(p + 1, name))
			found = (p == line || !(isalnum((unsigned char)p[-1]) ||
						p[-1] == '_')) &&
				!(isalnum((unsigned char)p[len]) || p[len] == '_');
	fclose(f);
	return found;
}

/*
 * Bench, for a lab with a "sweep": every built step whose file uses the
 * sweep's macro is rebuilt with -DNAME=value for each value (in parallel,
 * cached) and timed at the timed size only (--timed-only). One "sweep"
 * event per point; a point that fails says why instead of a time.
 */
static void run_sweep(const struct grade_opts *o, struct sandbox *sb,
		      const struct build_env *env,
		      const struct lab_manifest *lab,
		      const struct step_build *builds, size_t count,
		      double copy_gbps, event_sink sink, void *arg)
{
	size_t max = count * (size_t)lab->nsweep_values, n = 0;
	struct step_build *pts = calloc(max ? max : 1, sizeof(*pts));
	int *value_of = calloc(max ? max : 1, sizeof(*value_of));
	if (!pts || !value_of) {
		free(pts);
		free(value_of);
		return;
	}
	for (size_t i = 0; i < count; i++) {
		if (!builds[i].ok || !file_mentions(builds[i].source,
						    lab->sweep_define))
			continue;
		for (int v = 0; v < lab->nsweep_values; v++) {
			value_of[n] = lab->sweep_values[v];
			struct step_build *p = &pts[n++];
			p->step = builds[i].step;
			snprintf(p->source, sizeof(p->source), "%s",
				 builds[i].source);
			snprintf(p->define, sizeof(p->define), "%s=%d",
				 lab->sweep_define, lab->sweep_values[v]);
		}
	}
	char err[512] = "";
	size_t built = n; /* entries to release, whatever happens below */
	if (n && build_steps(env, lab, pts, n, err, sizeof(err)) < 0) {
		emit(sink, arg, json_pack("{s:s, s:s, s:s}", "event", "error",
					  "kind", "harness", "message", err));
		n = 0;
	}
	double limit = o->time_limit_s > 0 ? o->time_limit_s
					   : lab->time_limit_s;
	for (size_t k = 0; k < n; k++) {
		struct step_build *p = &pts[k];
		int value = value_of[k];
		emit(sink, arg,
		     json_pack("{s:s, s:s, s:s, s:i, s:i}", "event",
			       "progress", "step", p->step->id, "phase",
			       "sweep", "done", (int)k, "total", (int)n));
		json_t *ev = json_pack("{s:s, s:s, s:s, s:i}", "event",
				       "sweep", "step", p->step->id, "define",
				       lab->sweep_define, "value", value);
		if (!p->ok) {
			char e[600];
			json_object_set_new(ev, "ok", json_false());
			json_object_set_new(
				ev, "message",
				json_string(verdict_first_error(
					p->diagnostics, e, sizeof(e))));
			emit(sink, arg, ev);
			continue;
		}
		struct step_outcome r;
		outcome_init(&r, p->step->id, copy_gbps, discard_event, NULL);
		struct child c = CHILD_INIT;
		run_executable(o, sb, p->exe, p->step->id, NULL, limit, &r, &c,
			       1);
		const char *withheld = outcome_timing_withheld(&r, &c);
		json_t *med = json_object_get(r.metrics, "median_us");
		json_object_set_new(ev, "ok",
				    json_boolean(!withheld && json_is_number(med)));
		if (withheld || !json_is_number(med)) {
			char why[600];
			verdict_decide(&r, &c, "", "", why, sizeof(why));
			json_object_set_new(ev, "message", json_string(why));
		} else {
			static const char *const keep[] = {
				"median_us", "speedup_vs_baseline",
				"pct_of_copy", NULL};
			for (const char *const *m = keep; *m; m++)
				if (json_object_get(r.metrics, *m))
					json_object_set(ev, *m,
							json_object_get(r.metrics, *m));
		}
		emit(sink, arg, ev);
		child_release(&c);
		outcome_release(&r);
	}
	for (size_t k = 0; k < built; k++)
		step_build_release(&pts[k]);
	free(pts);
	free(value_of);
}

/* (grade.h) Read from the text, outside comments and strings: the harness
 * reports the same marker when it runs; this finds it without running
 * anything, so a student without a GPU still learns which steps are
 * written. */
int step_todo_line(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	static const char mark[] = "CUDALAB_TODO";
	int line = 1, found = 0, in_block = 0, in_line = 0, quote = 0;
	int ch, prev = 0;
	char ident[64];
	size_t il = 0;
	while (!found && (ch = fgetc(f)) != EOF) {
		if (in_block) {
			in_block = !(prev == '*' && ch == '/');
		} else if (in_line) {
			in_line = ch != '\n';
		} else if (quote) {
			if (ch == quote && prev != '\\')
				quote = 0;
		} else if (prev == '/' && ch == '*') {
			in_block = 1;
			ch = 0; /* the star opens; it cannot also close */
		} else if (prev == '/' && ch == '/') {
			in_line = 1;
		} else if (ch == '"' || ch == '\'') {
			quote = ch;
		}
		int word = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
			   (ch >= '0' && ch <= '9') || ch == '_';
		if (word && !in_block && !in_line && !quote) {
			if (il + 1 < sizeof(ident))
				ident[il++] = (char)ch;
		} else if (il) {
			ident[il] = '\0';
			found = !strcmp(ident, mark);
			il = 0;
		}
		if (!found && ch == '\n')
			line++;
		prev = ch;
	}
	fclose(f);
	return found ? line : 0;
}

/*
 * Without a device: what the build alone tells about a step. Emits the
 * checks judged from the PTX and the compiler (verdict_checks_static) and
 * records on end whether the step is written ("implemented", and the
 * CUDALAB_TODO() line of a stub), so a report can say "not implemented"
 * or "builds" beside NOT GRADED.
 */
static void judge_without_device(const struct step_build *b,
				 struct step_outcome *r, json_t *end_facts,
				 event_sink sink, void *arg)
{
	int todo = step_todo_line(b->source);
	json_object_set_new(end_facts, "implemented", json_boolean(!todo));
	if (todo) {
		json_object_set_new(end_facts, "todo_file",
				    json_string(b->step->file));
		json_object_set_new(end_facts, "todo_line", json_integer(todo));
		return; /* a stub's PTX says nothing about the step */
	}
	char fail[600] = "";
	int failed = verdict_checks_static(b->step, r->metrics, sink, arg,
					   fail, sizeof(fail));
	json_object_set_new(end_facts, "static_checks_failed",
			    json_integer(failed));
}

/* build_env.on_progress: a "progress" event in the "build" phase, so the
 * reporters say what nvcc is doing while it works. */
struct build_progress {
	event_sink sink;
	void *arg;
};

static void on_build_progress(void *arg, const char *what, const char *part,
			      int done, int total)
{
	struct build_progress *p = arg;
	int harness = !strcmp(what, "harness");
	json_t *ev = json_pack("{s:s, s:s, s:s, s:s, s:i, s:i}", "event",
			       "progress", "phase", "build", "what", what,
			       harness ? "file" : "step", part, "done", done,
			       "total", total);
	emit(p->sink, p->arg, ev);
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
	struct step_outcome r;
	outcome_init(&r, "vendor", copy_gbps, sink, arg);
	struct child c = CHILD_INIT;
	run_executable(o, NULL, exe, "vendor", NULL, lab->time_limit_s, &r,
		       &c, 0);
	if (r.error)
		sink(arg, r.error);
	child_release(&c);
	outcome_release(&r);
}

int grade_lab(const struct grade_opts *o, event_sink sink, void *arg,
	      char *err, size_t errlen)
{
	char lab_dir[4096];
	snprintf(lab_dir, sizeof(lab_dir), "%s/labs/%s", o->root, o->lab);
	if (access(lab_dir, F_OK) != 0) {
		snprintf(err, errlen, "no lab called \"%s\" (see `list`)",
			 o->lab);
		return -2;
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
			return -2;
		}
		first = manifest_step_index(&lab, s);
		count = 1;
	}
	const char *src_dir = o->src_dir ? o->src_dir : lab_dir;
	if (access(src_dir, R_OK) != 0) {
		snprintf(err, errlen, "cannot read the folder %s", src_dir);
		manifest_free(&lab);
		return -2;
	}

	struct build_progress progress = {sink, arg};
	struct build_env env = {.root = o->root, .build_dir = o->build_dir,
				.nvcc = "nvcc", .jobs = o->jobs,
				.compile_limit_s = 300,
				.on_progress = on_build_progress,
				.progress_arg = &progress};
	if (build_env_init(&env, err, errlen) < 0) {
		manifest_free(&lab);
		return -1;
	}

	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	char started[32];
	iso_now(started, sizeof(started));
	json_t *steps_list = json_array();
	for (size_t i = first; i < first + count; i++) {
		const struct step_spec *st = &lab.steps[i];
		json_t *checks = json_array();
		for (size_t k = 0; k < st->nchecks; k++)
			json_array_append_new(
				checks,
				json_pack("{s:s, s:s, s:f}", "metric",
					  st->checks[k].metric, "op",
					  st->checks[k].op == CHECK_AT_LEAST ? ">="
									      : "<=",
					  "bound", st->checks[k].bound));
		json_array_append_new(steps_list,
				      json_pack("{s:s, s:s, s:s, s:s, s:o}", "id",
						st->id, "title", st->title,
						"file", st->file, "hint",
						st->hint, "checks", checks));
	}
	const char *commit = getenv("CUDALAB_COMMIT");
	json_t *begin = json_pack(
		"{s:s, s:i, s:s, s:s, s:s, s:s, s:o, s:s, s:s}", "event",
		"run_begin", "schema", EVENT_SCHEMA, "lab", lab.name, "title",
		lab.title, "mode", o->bench ? "bench" : "test", "started",
		started, "steps", steps_list, "source", src_dir, "commit",
		commit && *commit ? commit : "unknown");
	double step_limit = o->time_limit_s > 0 ? o->time_limit_s
						: lab.time_limit_s;
	json_object_set_new(
		begin, "limits",
		json_pack("{s:f, s:f, s:f, s:I, s:i}", "time_limit_s",
			  step_limit, "cpu_limit_s",
			  step_limit + STEP_CPU_EXTRA_S, "compile_limit_s",
			  env.compile_limit_s, "file_limit_bytes",
			  (json_int_t)STEP_FILE_LIMIT, "output_limit_bytes",
			  STEP_OUTPUT_LIMIT));
	emit(sink, arg, begin);

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

	/* Untrusted code: bubblewrap when it can run a CUDA program here. */
	struct sandbox *sb = NULL;
	if (o->sandbox && have_device) {
		sb = calloc(1, sizeof(*sb));
		char probe[4096];
		snprintf(probe, sizeof(probe), "%s/devprobe", o->build_dir);
		const char *pargv[] = {probe, NULL};
		if (sb)
			sandbox_probe(sb, pargv, "\"available\":true");
		emit(sink, arg,
		     sb && sb->on
			     ? json_pack("{s:s, s:b}", "event", "sandbox", "on", 1)
			     : json_pack("{s:s, s:b, s:s}", "event", "sandbox",
					 "on", 0, "reason",
					 sb ? sb->reason : "out of memory"));
	}

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
	/* Lint every file; only the clean ones go to the compiler. */
	char(*rejected)[600] = calloc(count, sizeof(*rejected));
	struct step_build *clean = calloc(count, sizeof(*clean));
	size_t nclean = 0;
	for (size_t i = 0; i < count; i++) {
		if (lint_step(lab_dir, &builds[i], sink, arg, rejected[i],
			      sizeof(rejected[i])))
			continue;
		clean[nclean++] = builds[i];
	}
	if (build_steps(&env, &lab, clean, nclean, err, errlen) < 0) {
		free(clean);
		free(rejected);
		free(sb);
		free(builds);
		json_decref(device);
		manifest_free(&lab);
		return -1;
	}
	for (size_t i = 0, k = 0; i < count; i++)
		if (!rejected[i][0])
			builds[i] = clean[k++];
	free(clean);
	for (size_t i = 0; i < count; i++) {
		struct step_build *b = &builds[i];
		if (rejected[i][0])
			continue;
		const char *status = !b->ok ? "failed" : b->cached ? "cached" : "ok";
		json_t *ev = json_pack("{s:s, s:s, s:s, s:f, s:O, s:s}", "event",
				       "compile", "step", b->step->id, "status",
				       status, "seconds", b->seconds,
				       "diagnostics", b->diagnostics, "output",
				       strbuf_str(&b->log));
		if (b->ok)
			json_object_set_new(ev, "exe", json_string(b->exe));
		emit(sink, arg, ev);
		if (b->ok) {
			emit(sink, arg,
			     json_pack("{s:s, s:s, s:O}", "event", "resources",
				       "step", b->step->id, "kernels",
				       b->resources));
			json_t *ptx = json_deep_copy(b->ptx);
			json_object_set_new(ptx, "event", json_string("ptx"));
			json_object_set_new(ptx, "step", json_string(b->step->id));
			char path[PATH_MAX * 2];
			step_ptx_path(b->dir, b->source, path, sizeof(path));
			json_object_set_new(ptx, "ptx_file", json_string(path));
			step_cubin_path(b->dir, b->source, arch, path, sizeof(path));
			json_object_set_new(ptx, "cubin_file", json_string(path));
			emit(sink, arg, ptx);
		}
	}

	if (o->build_only) {
		for (size_t i = 0; i < count; i++)
			step_build_release(&builds[i]);
		free(builds);
		free(rejected);
		free(sb);
		json_decref(device);
		manifest_free(&lab);
		return 0;
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
		struct step_outcome r;
		outcome_init(&r, s->id, copy_gbps, sink, arg);
		outcome_add_static(&r, b->resources, b->ptx);
		struct child c = CHILD_INIT;
		double seconds = 0;
		json_t *static_facts = json_object();
		if (rejected[i][0]) {
			snprintf(summary, sizeof(summary), "rejected: %s",
				 rejected[i]);
			verdict = "rejected";
		} else if (!b->ok) {
			char e[600];
			snprintf(summary, sizeof(summary),
				 "does not compile: %s",
				 verdict_first_error(b->diagnostics, e, sizeof(e)));
			verdict = "compile_error";
		} else if (!have_device) {
			snprintf(summary, sizeof(summary),
				 "NOT GRADED: no CUDA device (%s)",
				 json_string_value(
					 json_object_get(device, "reason")));
			verdict = "not_graded";
			judge_without_device(b, &r, static_facts, sink, arg);
		} else {
			double limit = o->time_limit_s > 0 ? o->time_limit_s
							   : lab.time_limit_s;
			run_executable(o, sb, b->exe, s->id, lab.hidden_sizes,
				       limit, &r, &c, 0);
			seconds = c.seconds;
			json_t *med = json_object_get(r.metrics, "median_us");
			if (first + i == 0 && json_is_number(med))
				first_median = json_number_value(med);
			if (first_median > 0 && json_is_number(med))
				json_object_set_new(
					r.metrics, "speedup_vs_first",
					json_real(first_median /
						  json_number_value(med)));
			int counters = o->bench;
			for (size_t k = 0; k < s->nchecks; k++)
				counters |= metric_needs_profiler(s->checks[k].metric);
			if (counters && outcome_ran_clean(&r, &c) && r.timed_n > 0)
				profile_instructions(b->exe, s->id, limit, &r,
						     sink, arg);
			int sanitized = 0;
			for (size_t k = 0; k < s->nchecks; k++)
				sanitized |= !strcmp(s->checks[k].metric,
						     "sanitizer_errors");
			if (sanitized && lab.sanitize_tools &&
			    outcome_ran_clean(&r, &c))
				sanitize(&lab, b->exe, s->id, limit, &r, sink,
					 arg);
			char check_fail[600] = "", unmeasured[300] = "";
			if (outcome_ran_clean(&r, &c))
				verdict_checks(s, r.metrics, sink, arg,
						check_fail, sizeof(check_fail),
						unmeasured, sizeof(unmeasured));
			verdict = verdict_decide(&r, &c, check_fail, unmeasured, summary,
					 sizeof(summary));
		}
		json_t *end = json_pack("{s:s, s:s, s:s, s:s, s:f}", "event",
					"step_end", "step", s->id, "verdict",
					verdict, "summary", summary, "seconds",
					seconds);
		if (strcmp(verdict, "pass"))
			json_object_set_new(end, "hint", json_string(s->hint));
		json_object_update(end, static_facts);
		json_decref(static_facts);
		static const char *const shown[] = {
			"elements_per_thread", "waves", "registers",
			"occupancy_pct", "inst_per_element", NULL};
		static const char *const timed[] = {
			"median_us", "gbps", "pct_of_copy", "speedup_vs_first",
			"speedup_vs_baseline", NULL};
		for (const char *const *m = shown; *m; m++)
			if (json_object_get(r.metrics, *m))
				json_object_set(end, *m,
						json_object_get(r.metrics, *m));
		const char *withheld = outcome_timing_withheld(&r, &c);
		for (const char *const *m = timed; *m && !withheld; m++)
			if (json_object_get(r.metrics, *m))
				json_object_set(end, *m,
						json_object_get(r.metrics, *m));
		if (withheld && json_object_get(r.metrics, "median_us"))
			json_object_set_new(end, "timing_withheld",
					    json_string(withheld));
		if (c.out.len)
			json_object_set_new(end, "program_output",
					    json_string(strbuf_str(&c.out)));
		emit(sink, arg, end);
		passed += !strcmp(verdict, "pass");
		not_graded += !strcmp(verdict, "not_graded");
		failed += strcmp(verdict, "pass") && strcmp(verdict, "not_graded");
		child_release(&c);
		outcome_release(&r);
	}

	if (o->bench && have_device && lab.vendor_source)
		run_vendor(o, &lab, &env, copy_gbps, sink, arg);
	if (o->bench && have_device && lab.sweep_define)
		run_sweep(o, sb, &env, &lab, builds, count, copy_gbps, sink,
			  arg);

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
	free(rejected);
	free(sb);
	json_decref(device);
	manifest_free(&lab);
	return failed ? 1 : not_graded ? 3 : 0;
}
