#include "grade.h"
#include "lint.h"
#include "build.h"
#include "calibration.h"
#include "capability.h"
#include "device.h"
#include "event.h"
#include "manifest.h"
#include "facts.h"
#include "profiler.h"
#include "runner.h"
#include "gpulock.h"
#include "sandbox.h"
#include "strvec.h"
#include "verdict.h"

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* One "check" event per result of verdict_checks*(), then release them. */
static void emit_checks(struct check_summary *checks, event_sink sink,
			void *arg)
{
	for (size_t i = 0; i < checks->n; i++)
		emit(sink, arg, event_check(&checks->results[i]));
	check_summary_release(checks);
}

/* Bench, or a check on a counter: count the instructions the step
 * executes per element, by kind (ncu). */
static void profile_instructions(struct sandbox *sb, const char *box_parent,
				 const char *build_dir, const char *exe,
				 const char *step, const char *gpu_uuid,
				 double limit, struct step_outcome *r,
				 event_sink sink, void *arg)
{
	struct profile_result pr;
	char key[17], cache[PATH_MAX];
	snprintf(cache, sizeof(cache), "%s/counters", build_dir);
	int keyed = profile_cache_key(exe, gpu_uuid, PROFILE_CHECKS, key) == 0;
	int cached = keyed && profile_cache_load(cache, key, &pr) == 0;
	/* the slowest timed variant: the profiled case may be any of them
	 * (haxpy profiles the misaligned offset 1, its headline figure is
	 * offset 0) */
	json_t *med = json_object_get(r->metrics, "median_us_worst");
	if (!json_is_number(med))
		med = json_object_get(r->metrics, "median_us");
	double timed_us = json_is_number(med) ? json_number_value(med) : 0;
	if (!cached)
		profile_step(sb, box_parent, exe, limit, PROFILE_CHECKS,
			     gpu_uuid, &pr);
	/* the counts decide checks only if they are of the timed kernels:
	 * the profiled call's kernels (ncu's durations) may not run much
	 * longer than the timed median (verdict.h) */
	double us = pr.have[PM_DURATION] ? pr.value[PM_DURATION] * 1e6 : 0;
	int not_timed = us > 0 && timed_us > 0 &&
			us > VERDICT_PROFILED_OVER_TIMED * timed_us;
	/* a run that is not the timed one is not kept: the next run
	 * profiles again */
	if (!cached && keyed && !not_timed)
		profile_cache_store(cache, key, &pr);
	json_t *ev = event_profile(step, "ncu", pr.measured);
	if (cached)
		json_object_set_new(ev, "cached", json_true());
	if (pr.measured) {
		/* the facts (profiler.h: the one derivation); the event
		 * reports them with ncu's raw counts */
		json_t *facts = json_object();
		/* per element of the case ncu profiled (its own n, as its
		 * events said: the timed size depends on the memory free when
		 * the step starts), not of the timed run's */
		profile_facts(&pr, pr.elements > 0 ? pr.elements : r->timed_n,
			      0, facts);
		json_object_set_new(ev, "warp_instructions",
				    json_real(pr.warp_instructions));
		json_object_set_new(ev, "kernels", json_integer(pr.kernels));
		if (us > 0)
			json_object_set_new(ev, "profiled_us", json_real(us));
		if (us > 0 && timed_us > 0)
			json_object_set_new(ev, "profiled_over_timed",
					    json_real(us / timed_us));
		if (not_timed && !r->profile_not_timed)
			r->profile_not_timed = json_incref(ev);
		json_object_set_new(ev, "inst_per_element",
				    json_real(event_num(facts, "inst_per_element")));
		json_object_set_new(ev, "bank_conflicts",
				    json_real(pr.bank_conflicts));
		json_object_set_new(
			ev, "bank_conflicts_per_element",
			json_real(event_num(facts, "bank_conflicts_per_element")));
		/* and every other fact it derived (the memory instructions
		 * by kind): the facts table owns their names */
		json_object_update_missing(ev, facts);
		json_object_update(r->metrics, facts);
		json_decref(facts);
	} else {
		json_object_set_new(ev, "reason", json_string(pr.reason));
	}
	emit(sink, arg, ev);
}

/*
 * Run the step under each of the lab's compute-sanitizer tools on its
 * sanitize case (profiler.h: sanitizer_run, in the box, the count read from
 * the tool's own report file); sets the metric sanitizer_errors (their sum)
 * when every tool ran, and emits one "sanitizer" event per tool.
 */
static void sanitize(struct sandbox *sb, const char *box_parent,
		     const struct lab_manifest *lab, const char *exe,
		     const char *step, const char *gpu_uuid, double limit,
		     struct step_outcome *r,
		     event_sink sink, void *arg)
{
	long total = 0;
	int all_ran = 1;
	for (char **tool = lab->sanitize_tools; tool && *tool; tool++) {
		struct sanitizer_result sr;
		sanitizer_run(sb, box_parent, *tool, exe, lab->sanitize_case,
			      gpu_uuid,
			      limit * 4, &sr);
		emit(sink, arg, event_sanitizer(step, *tool, sr.errors,
						sr.reason, sr.report));
		all_ran &= sr.errors >= 0;
		total += sr.errors > 0 ? sr.errors : 0;
	}
	if (all_ran)
		json_object_set_new(r->metrics, "sanitizer_errors",
				    json_real((double)total));
}

/* The environment a step runs in: only what CUDA and the loader need. */
static const char *const *step_environment(struct strvec *env)
{
	static const char *const keep[] = {
		"PATH", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES",
		"NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES",
		"CUDA_DEVICE_ORDER", NULL};
	for (const char *const *name = keep; *name; name++) {
		const char *v = getenv(*name);
		if (v)
			strvec_pushf(env, "%s=%s", *name, v);
	}
	strvec_pushl(env, "HOME=/tmp",
		     "TMPDIR=/tmp", /* the box's own (sandbox.h) */ NULL);
	return strvec_argv(env);
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

	/* every problem of the file, up to a page of them */
	enum { MAX_PROBLEMS = 64 };
	struct lint_problem p[MAX_PROBLEMS];
	char err[512] = "";
	int n = access(b->source, F_OK) == 0
			? lint_file(b->source, names, p, MAX_PROBLEMS, err,
				    sizeof(err))
			: 0;
	for (int i = 1; i < nn; i++)
		free((char *)names[i]);
	if (n == 0)
		return 0;
	json_t *list = json_array();
	if (n < 0) {
		snprintf(why, len, "%s", err);
		json_array_append_new(list,
				      event_lint_problem(0, json_string(err)));
	} else {
		snprintf(why, len, "%s:%d: %s%s", b->step->file, p[0].line,
			 p[0].message,
			 n > 1 ? " (and more: see the list of problems)" : "");
		for (int i = 0; i < n && i < MAX_PROBLEMS; i++)
			json_array_append_new(
				list, event_lint_problem(
					      p[i].line,
					      json_string(p[i].message)));
	}
	emit(sink, arg, event_lint(b->step->id, b->step->file, "text",
				   n < 0 ? 1 : n, list));
	return 1;
}

/* Run an executable built by build.c, forwarding its events. */
static void run_executable(const struct grade_opts *o, struct sandbox *sb,
			   const char *gpu_uuid, const char *exe,
			   const char *step_id, char *const *extra_sizes,
			   double limit_s, struct step_outcome *r,
			   struct child *c, int timed_only)
/* timed_only: 0 the whole run; 1 a sweep point (timed case, short plan);
 * 2 a close call measured again (timed case, the bench plan) */
{
	struct strvec argv = STRVEC_INIT, env = STRVEC_INIT;
	strvec_pushl(&argv, exe, "--result-fd", "3", "--step", step_id, NULL);
	/* The GPU lock (common/gpulock.h): a fresh open for each child, at
	 * fd 4, as the sandbox has no path to the lock folder. */
	int lock_fd = device_lock_pass(c, gpu_uuid);
	if (lock_fd >= 0)
		strvec_pushl(&argv, "--gpu-lock-fd", DEVICE_LOCK_FD_ARG, NULL);
	if (o->seed)
		strvec_pushl(&argv, "--seed", o->seed, NULL);
	if (timed_only == 1) /* one point of a sweep: a shorter timing plan */
		strvec_pushl(&argv, "--timed-only", "--reps", "15", NULL);
	else if (timed_only == 2) /* measuring a close call again */
		strvec_pushl(&argv, "--timed-only", "--bench", NULL);
	else if (o->bench)
		strvec_push(&argv, "--bench");
	/* The judge runs the launcher in a process of its own (common/
	 * harness.h). CUDALAB_JUDGE=in-process in the grader's environment
	 * is the fallback to the old single process, for a machine where the
	 * two-process judge cannot run (CUDA IPC refused): it re-opens the
	 * attacks the judge closes, so it is never the default and nothing
	 * but that variable turns it on. */
	const char *judge = getenv("CUDALAB_JUDGE");
	if (judge && !strcmp(judge, "in-process"))
		strvec_push(&argv, "--in-process");
	/* The step's own folder: its working directory in the box (the only
	 * place it may write), and where the hidden sizes wait for the
	 * harness (never on the command line, which `ps` shows to anyone). */
	char box_parent[PATH_MAX], scratch[PATH_MAX + 32] = "",
	     sizes[PATH_MAX + 64];
	int boxed = sb && sb->on;
	snprintf(box_parent, sizeof(box_parent), "%s/box", o->build_dir);
	struct box box;
	box_for_run(&box);
	if (sandbox_folder(boxed ? sb : NULL, box.uid, box_parent, 0, scratch,
			   sizeof(scratch)) < 0) {
		scratch[0] = 0;
		if (!r->error)
			r->error = event_error(NULL, "harness",
					       "cannot create the step's folder "
					       "under build/box");
		goto out;
	}
	if (extra_sizes && *extra_sizes && !timed_only) {
		snprintf(sizes, sizeof(sizes), "%s/extra-sizes", scratch);
		FILE *f = fopen(sizes, "w");
		for (char *const *x = extra_sizes; f && *x; x++)
			fprintf(f, "%s\n", *x);
		/* readable by the step alone: 0600, its uid's when boxed */
		if (!(f && fclose(f) == 0 && chmod(sizes, 0600) == 0 &&
		      (!boxed || !sb->as_root ||
		       chown(sizes, (uid_t)box.uid, (gid_t)box.gid) == 0))) {
			if (!r->error)
				r->error = event_error(
					NULL, "harness",
					"cannot hand the hidden sizes to the step");
			sandbox_remove(scratch);
			goto out;
		}
		strvec_pushl(&argv, "--extra-size-file", sizes, NULL);
	}
	box_ro(&box, exe);
	box.rw = scratch;
	box.keep_fd = 3;
	box.lock_fd = lock_fd >= 0 ? 4 : -1;
	c->argv = boxed ? sandbox_argv(sb, &box, NULL, strvec_argv(&argv))
		      : strvec_argv(&argv);
	c->env = step_environment(&env);
	c->result_fd = 3;
	c->on_result = outcome_feed;
	c->on_result_arg = r;
	c->wall_limit_s = limit_s;
	/* waiting for the GPU lock is not the step's time (at most 10 min) */
	c->extend_s = &r->gpu_waited_s;
	c->max_extend_s = 600;
	c->cpu_limit_s = (long)limit_s + STEP_CPU_EXTRA_S;
	c->file_limit_bytes = STEP_FILE_LIMIT;
	c->out_limit = STEP_OUTPUT_LIMIT;
	if (child_run(c) < 0 && !r->error)
		r->error = event_error(NULL, "harness", c->error);
	outcome_feed(r, "\n", 1); /* a last line without newline */
	sandbox_remove(scratch);
out:
	if (lock_fd >= 0)
		close(lock_fd);
	c->argv = NULL; /* the vectors end here */
	c->env = NULL;
	strvec_clear(&argv);
	strvec_clear(&env);
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
		      const char *gpu_uuid, const struct build_env *env,
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
		emit(sink, arg, event_error(NULL, "harness", err));
		n = 0;
	}
	double limit = o->time_limit_s > 0 ? o->time_limit_s
					   : lab->time_limit_s;
	for (size_t k = 0; k < n; k++) {
		struct step_build *p = &pts[k];
		int value = value_of[k];
		emit(sink, arg, event_progress(p->step->id, "sweep", (int)k,
					       (int)n, NULL));
		json_t *ev = event_sweep(p->step->id, lab->sweep_define, value);
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
		run_executable(o, sb, gpu_uuid, p->exe, p->step->id, NULL, limit,
			       &r, &c, 1);
		const char *withheld = outcome_timing_withheld(&r, &c);
		json_t *med = json_object_get(r.metrics, "median_us");
		json_object_set_new(ev, "ok",
				    json_boolean(!withheld && json_is_number(med)));
		if (withheld || !json_is_number(med)) {
			char why[600];
			verdict_decide(&r, &c, NULL, why, sizeof(why));
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
	struct check_summary checks;
	int failed = verdict_checks_static(b->step, r->metrics, &checks);
	emit_checks(&checks, sink, arg);
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
	emit(p->sink, p->arg, event_build_progress(what, part, done, total));
}

static void iso_now(char *buf, size_t len)
{
	time_t t = time(NULL);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
}

static void run_vendor(const struct grade_opts *o, const char *gpu_uuid,
		       const struct lab_manifest *lab,
		       const struct build_env *env, double copy_gbps,
		       json_t *timings, event_sink sink, void *arg)
{
	char exe[4096], err[2048];
	if (build_vendor(env, lab, exe, sizeof(exe), err, sizeof(err)) < 0) {
		emit(sink, arg, event_error("vendor", "harness", err));
		return;
	}
	struct step_outcome r;
	outcome_init(&r, "vendor", copy_gbps, sink, arg);
	r.run_timings = timings; /* its timing gets vs_steps */
	struct child c = CHILD_INIT;
	run_executable(o, NULL, gpu_uuid, exe, "vendor", NULL,
		       lab->time_limit_s, &r, &c, 0);
	if (r.error)
		sink(arg, r.error);
	child_release(&c);
	outcome_release(&r);
}

/* calibrate: keep a passing reference's figure (calibration.h). */
static void keep_calibration(const struct grade_opts *o, const json_t *device,
			     const struct lab_manifest *lab,
			     const struct step_spec *s, struct step_outcome *r,
			     event_sink sink, void *arg)
{
	json_t *entry = calibration_entry_from(r->metrics, r->timed_n);
	if (!entry)
		return;
	char err[1024];
	int in_tree = strcmp(o->calibrate_into, o->state_dir) != 0;
	if (calibration_store(o->calibrate_into, in_tree, device, lab->name,
			      s->id, entry, getenv("CUDALAB_COMMIT"), err,
			      sizeof(err)) < 0)
		emit(sink, arg, event_error(s->id, "harness", err));
	else
		emit(sink, arg,
		     event_calibration(s->id, json_object_get(entry, "gbps"),
				       json_object_get(entry, "ci_rel"),
				       o->calibrate_into));
	/* the reference against its own figure: its bars are judged too */
	calibration_apply(entry, r->metrics);
	json_decref(entry);
}

/* Whether a check of s is relative to the step's reference solution. */
static int needs_reference(const struct step_spec *s)
{
	for (size_t k = 0; k < s->nchecks; k++)
		if (!strncmp(s->checks[k].metric, "pct_of_reference", 16))
			return 1;
	return 0;
}

/*
 * Time the lab's reference solution of step s on this GPU, in a run of its
 * own (never in the student's process), and keep its figure in the state
 * folder (calibration.h). Returns the new entry, or NULL with why.
 */
static json_t *measure_reference(const struct grade_opts *o,
				 struct sandbox *sb,
				 const struct build_env *env,
				 const struct lab_manifest *lab,
				 const json_t *device,
				 const struct step_spec *s, event_sink sink,
				 void *arg, char *why, size_t len)
{
	struct step_build b;
	memset(&b, 0, sizeof(b));
	b.step = s;
	snprintf(b.source, sizeof(b.source), "%s/solutions/%s/%s", o->root,
		 lab->name, s->file);
	char key[192];
	calibration_key(device, key, sizeof(key));
	if (access(b.source, R_OK) != 0) {
		snprintf(why, len,
			 "no reference figure for this GPU (%s) and no "
			 "reference solution (solutions/%s/%s) to time one: "
			 "run `python3 run.py calibrate %s` in a cudalab tree "
			 "that has them", key, lab->name, s->file, lab->name);
		return NULL;
	}
	emit(sink, arg,
	     event_progress(s->id, "calibrating", 0, 1,
			    "timing the reference solution of this step on "
			    "this GPU (once per GPU and driver)"));
	char err[1024] = "";
	json_t *entry = NULL;
	if (build_steps(env, lab, &b, 1, err, sizeof(err)) < 0 || !b.ok) {
		snprintf(why, len, "the reference solution %s did not build "
			 "here: %s", b.source, err[0] ? err : "compile error");
		step_build_release(&b);
		return NULL;
	}
	struct step_outcome r;
	outcome_init(&r, s->id, 0, discard_event, NULL);
	struct child c = CHILD_INIT;
	double limit = o->time_limit_s > 0 ? o->time_limit_s : lab->time_limit_s;
	run_executable(o, sb, event_str(device, "uuid"), b.exe, s->id, NULL,
		       limit, &r, &c, 0);
	const char *withheld = outcome_timing_withheld(&r, &c);
	if (withheld) {
		char what[600];
		verdict_decide(&r, &c, NULL, what, sizeof(what));
		snprintf(why, len, "the reference solution of %s could not be "
			 "timed on this GPU (%s)", s->id, what);
	} else {
		entry = calibration_entry_from(r.metrics, r.timed_n);
		const char *commit = getenv("CUDALAB_COMMIT");
		if (!entry)
			snprintf(why, len, "the reference solution of %s "
				 "reported no timing", s->id);
		else if (calibration_store(o->state_dir, 0, device, lab->name,
					   s->id, entry, commit, err,
					   sizeof(err)) < 0)
			emit(sink, arg, event_error(s->id, "harness", err));
	}
	child_release(&c);
	outcome_release(&r);
	step_build_release(&b);
	return entry;
}

/*
 * pct_of_reference for a step that ran: from the reference figure kept for
 * this GPU, timed now if nobody has one and the step's checks need it.
 * Where there is none, metrics get "why:pct_of_reference".
 */
static void compare_with_reference(const struct grade_opts *o,
				   struct sandbox *sb,
				   const struct build_env *env,
				   const struct lab_manifest *lab,
				   const json_t *device,
				   const struct step_spec *s,
				   struct step_outcome *r, event_sink sink,
				   void *arg)
{
	if (!json_is_number(json_object_get(r->metrics, "gbps")))
		return;
	const char *where = NULL;
	char why[600] = "";
	json_t *ref = calibration_find(o->root, o->state_dir, device,
				       lab->name, s->id, &where);
	if (!ref && needs_reference(s) && !o->calibrate_into)
		ref = measure_reference(o, sb, env, lab, device, s, sink, arg,
					why, sizeof(why));
	if (ref)
		calibration_apply(ref, r->metrics);
	else if (why[0]) {
		json_object_set_new(r->metrics, "why:pct_of_reference",
				    json_string(why));
		json_object_set_new(r->metrics, "why:pct_of_reference_worst",
				    json_string(why));
	}
	json_decref(ref);
}

/*
 * A figure within its noise of a bar is measured again (timed-only runs:
 * the timed case, the timing, the re-check with fresh inputs), at most
 * REMEASURE times; the later figures replace the first when that run was
 * clean and its timing trusted. What is still too close is "too close to
 * call" (verdict.h).
 */
#define REMEASURE 2
static void remeasure_close_calls(const struct grade_opts *o,
				  struct sandbox *sb,
				  const struct build_env *env,
				  const struct lab_manifest *lab,
				  const json_t *device, const char *exe,
				  const struct step_spec *s, double limit,
				  struct step_outcome *r, event_sink sink,
				  void *arg)
{
	static const char *const timing_metrics[] = {
		"median_us", "median_us_worst", "gbps", "median_ci_rel",
		"gbps_worst",
		"pct_of_copy", "pct_of_copy_worst", "baseline_us",
		"baseline_ci_rel", "speedup_vs_baseline",
		"speedup_vs_baseline_noise", NULL};
	for (int k = 0; k < REMEASURE && verdict_has_close_call(s, r->metrics);
	     k++) {
		emit(sink, arg,
		     event_progress(s->id, "remeasure", k, REMEASURE,
				    "a figure is within its noise of its bar: "
				    "measuring again"));
		struct step_outcome again;
		outcome_init(&again, s->id, r->copy_gbps, discard_event, NULL);
		struct child c = CHILD_INIT;
		run_executable(o, sb, event_str(device, "uuid"), exe, s->id,
			       NULL, limit, &again, &c, 2);
		int usable = !outcome_timing_withheld(&again, &c) &&
			     json_is_number(json_object_get(again.metrics,
							    "median_us"));
		if (usable) {
			for (const char *const *m = timing_metrics; *m; m++)
				if (json_object_get(again.metrics, *m))
					json_object_set(r->metrics, *m,
							json_object_get(
								again.metrics, *m));
			compare_with_reference(o, sb, env, lab, device, s, r,
					       sink, arg);
		}
		child_release(&c);
		outcome_release(&again);
		if (!usable)
			break;
	}
}

/*
 * Fills beyond[i] for each step first + i the target cannot take: the
 * toolkit does not build for its arch (then every step), or the step needs
 * a higher compute capability (manifest_step_beyond). The target is the
 * GPU, or without one the arch asked for (CUDALAB_ARCH): a GPU-less
 * machine then shows which steps that GPU can take. Returns 1 when the
 * toolkit lacks the arch, else 0.
 */
static int target_limits(const struct build_env *env,
			 const struct lab_manifest *lab, const json_t *device,
			 const char *arch, size_t first, size_t count,
			 char (*beyond)[400])
{
	int cc = cc_from_arch(arch);
	char target[160], cc_s[16];
	cc_format(cc, cc_s, sizeof(cc_s));
	if (json_is_true(json_object_get(device, "available")))
		snprintf(target, sizeof(target), "this GPU is %s", cc_s);
	else
		snprintf(target, sizeof(target), "the target %s (CUDALAB_ARCH, "
			 "no GPU here) is %s", arch, cc_s);
	char span[64];
	if (build_arch_supported(env, arch, span, sizeof(span)) == 0) {
		int lo = 0;
		if (sscanf(span, "sm_%d", &lo) != 1) /* "sm_75 to sm_121" */
			lo = 0;
		for (size_t i = 0; i < count; i++)
			snprintf(beyond[i], sizeof(beyond[i]),
				 "%s (%s), and this CUDA compiler (%s) builds "
				 "only for %s: %s", target, arch,
				 env->nvcc_version, span,
				 cc < lo ? "install a CUDA Toolkit that still "
					   "supports this GPU"
					 : "install a newer CUDA Toolkit");
		return 1;
	}
	for (size_t i = 0; i < count; i++) {
		char why[300];
		if (manifest_step_beyond(&lab->steps[first + i], cc, why,
					 sizeof(why)))
			snprintf(beyond[i], sizeof(beyond[i]), "%s; %s", why,
				 target);
	}
	return 0;
}

/*
 * One grading run, phase by phase: open (the request, the manifest, the
 * build environment, run_begin), device (the probe, what the target can
 * take, the sandbox), build (lint, compile, the build events), steps (run,
 * measure, check, step_end), extras (bench: vendor, sweep) and close
 * (run_end). Each phase fills its part of the struct; grade_lab() calls
 * them in order and run_release() frees whatever was made, however far it
 * got: the one cleanup path.
 */
struct grade_run {
	const struct grade_opts *o;
	event_sink sink;
	void *arg;
	char *err;
	size_t errlen;
	/* open */
	char lab_dir[4096];
	struct lab_manifest lab;
	size_t first, count;   /* the selected steps: lab.steps[first..) */
	char src_dir[PATH_MAX];
	struct build_progress progress;
	struct build_env env;
	struct timespec t0;
	double step_limit;     /* wall seconds per step run */
	/* device */
	char probe[4096];      /* devprobe */
	json_t *device;        /* the device event, as sent */
	int have_device;
	char arch[32];
	double copy_gbps;
	const char *gpu_uuid;  /* the GPU lock every step program takes */
	char (*beyond)[400];   /* why the target cannot take step i ("") */
	int toolkit_lacks;
	struct sandbox *sb;
	char box_parent[PATH_MAX];
	/* build */
	struct step_build *builds; /* count entries, each released */
	char (*rejected)[600]; /* why step i was not compiled/linked ("") */
	/* steps */
	int passed, failed, not_graded;
	double first_median;
	json_t *timings;       /* the steps' timings, for the vendor's
				  vs_steps (step_outcome.run_timings) */
};

static void run_release(struct grade_run *run)
{
	for (size_t i = 0; run->builds && i < run->count; i++)
		step_build_release(&run->builds[i]);
	free(run->builds);
	free(run->rejected);
	free(run->beyond);
	free(run->sb);
	json_decref(run->device);
	json_decref(run->timings);
	manifest_free(&run->lab);
}

/* The run_begin event: the lab, its selected steps and checks, limits. */
static json_t *run_begin_event(const struct grade_run *run)
{
	const struct lab_manifest *lab = &run->lab;
	json_t *steps_list = json_array();
	for (size_t i = run->first; i < run->first + run->count; i++) {
		const struct step_spec *st = &lab->steps[i];
		json_t *checks = json_array();
		for (size_t k = 0; k < st->nchecks; k++)
			json_array_append_new(
				checks,
				json_pack("{s:s, s:s, s:f}", "metric",
					  st->checks[k].metric, "op",
					  st->checks[k].op == CHECK_AT_LEAST ? ">="
									      : "<=",
					  "bound", st->checks[k].bound));
		json_t *entry = json_pack("{s:s, s:s, s:s, s:s, s:o}", "id",
					  st->id, "title", st->title, "file",
					  st->file, "hint", st->hint, "checks",
					  checks);
		if (st->needs) {
			json_t *needs = json_array();
			for (char **nm = st->needs; *nm; nm++)
				json_array_append_new(needs, json_string(*nm));
			char cc_s[16];
			cc_format(st->needs_cc, cc_s, sizeof(cc_s));
			json_object_set_new(entry, "needs", needs);
			json_object_set_new(entry, "needs_cc", json_string(cc_s));
		}
		json_array_append_new(steps_list, entry);
	}
	char started[32];
	iso_now(started, sizeof(started));
	const char *commit = getenv("CUDALAB_COMMIT");
	json_t *begin = event_run_begin(
		lab->name, lab->title, run->o->bench ? "bench" : "test",
		started, steps_list, run->src_dir,
		commit && *commit ? commit : "unknown");
	json_object_set_new(
		begin, "limits",
		json_pack("{s:f, s:f, s:f, s:I, s:i}", "time_limit_s",
			  run->step_limit, "cpu_limit_s",
			  run->step_limit + STEP_CPU_EXTRA_S, "compile_limit_s",
			  run->env.compile_limit_s, "file_limit_bytes",
			  (json_int_t)STEP_FILE_LIMIT, "output_limit_bytes",
			  STEP_OUTPUT_LIMIT));
	return begin;
}

/* Phase open: the request (-2 when wrong), the manifest and the build
 * environment (-1), then run_begin. */
static int run_open(struct grade_run *run)
{
	const struct grade_opts *o = run->o;
	snprintf(run->lab_dir, sizeof(run->lab_dir), "%s/labs/%s", o->root,
		 o->lab);
	if (access(run->lab_dir, F_OK) != 0) {
		snprintf(run->err, run->errlen,
			 "no lab called \"%s\" (see `list`)", o->lab);
		return -2;
	}
	if (manifest_load(run->lab_dir, &run->lab, run->err, run->errlen) < 0)
		return -1;
	run->count = run->lab.nsteps;
	if (o->step) {
		const struct step_spec *s = manifest_step(&run->lab, o->step);
		if (!s) {
			snprintf(run->err, run->errlen,
				 "lab %s has no step \"%s\" (steps: 1..%zu or "
				 "their ids)",
				 run->lab.name, o->step, run->lab.nsteps);
			return -2;
		}
		run->first = manifest_step_index(&run->lab, s);
		run->count = 1;
	}
	/* an absolute path: the compile and the run see the student's files
	 * at the same path inside their boxes, whatever the grader's cwd */
	const char *src_dir = o->src_dir ? o->src_dir : run->lab_dir;
	if (access(src_dir, R_OK) != 0 || !realpath(src_dir, run->src_dir)) {
		snprintf(run->err, run->errlen, "cannot read the folder %s",
			 src_dir);
		return -2;
	}
	run->progress = (struct build_progress){run->sink, run->arg};
	run->env = (struct build_env){.root = o->root,
				      .build_dir = o->build_dir,
				      .nvcc = "nvcc",
				      .jobs = o->jobs,
				      .compile_limit_s = 300,
				      .on_progress = on_build_progress,
				      .progress_arg = &run->progress};
	if (build_env_init(&run->env, run->err, run->errlen) < 0)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &run->t0);
	run->step_limit = o->time_limit_s > 0 ? o->time_limit_s
					      : run->lab.time_limit_s;
	snprintf(run->box_parent, sizeof(run->box_parent), "%s/box",
		 o->build_dir);
	emit(run->sink, run->arg, run_begin_event(run));
	return 0;
}

/* The device event: a test's stand-in, none, or devprobe's. */
static json_t *device_event(struct grade_run *run)
{
	const struct grade_opts *o = run->o;
	snprintf(run->probe, sizeof(run->probe), "%s/devprobe", o->bin_dir);
	if (o->pretend_no_device)
		return event_no_device("CUDALAB_NO_DEVICE is set");
	if (!o->device_facts)
		return device_probe(run->probe, o->state_dir, o->bench,
				    run->err, run->errlen);
	json_error_t jerr;
	json_t *device = json_load_file(o->device_facts, 0, &jerr);
	if (!json_is_object(device)) {
		json_decref(device);
		snprintf(run->err, run->errlen, "CUDALAB_DEVICE_FACTS: %s: %s",
			 o->device_facts, jerr.text);
		return NULL;
	}
	json_object_set_new(device, "event", json_string("device"));
	return device;
}

/* Untrusted code (the compile too) runs in a box (sandbox.h); the policy
 * when none can start is grade.h's. Emits the "sandbox" event. */
static int open_sandbox(struct grade_run *run)
{
	const struct grade_opts *o = run->o;
	struct sandbox *sb = run->sb = calloc(1, sizeof(*sb));
	if (!sb) {
		snprintf(run->err, run->errlen, "out of memory");
		return -1;
	}
	if (o->sandbox != SANDBOX_OFF) {
		const char *pargv[] = {run->probe, NULL};
		/* a build alone needs no GPU in the box */
		sandbox_probe(sb, pargv,
			      run->have_device && !o->build_only
				      ? "\"available\":true"
				      : NULL);
		/* the tree itself is covered in every box (sandbox.h) */
		if (!realpath(o->root, sb->hide))
			sb->hide[0] = 0;
	} else {
		snprintf(sb->reason, sizeof(sb->reason),
			 "--unsandboxed: the instructor turned the sandbox off");
	}
	emit(run->sink, run->arg,
	     event_sandbox(sb->on,
			   !sb->on ? NULL
			   : sb->as_root
				   ? "bubblewrap; programs as a uid of their box's own, "
				     "tools' reports out of their reach"
				   : "bubblewrap in a user namespace; "
				     "one uid for tools and programs",
			   sb->on ? NULL : sb->reason));
	if (!sb->on && o->sandbox == SANDBOX_REQUIRED) {
		snprintf(run->err, run->errlen,
			 "the sandbox cannot start, so nothing is graded: %s "
			 "(install bubblewrap, or pass --unsandboxed to grade "
			 "without it: every row then says so)", sb->reason);
		return -1;
	}
	run->env.sb = sb->on ? sb : NULL;
	return 0;
}

/* Phase device: the device first (it decides the arch we compile for),
 * what the target can take, the sandbox. */
static int run_device(struct grade_run *run)
{
	json_t *device = run->device = device_event(run);
	if (!device)
		return -1;
	run->have_device = json_is_true(json_object_get(device, "available"));
	if (!run->have_device) {
		/* said once, here, for the whole run: what is missing (the
		 * probe's reason) and what is still done without it; each
		 * step only says it was not run */
		char why[1024];
		snprintf(why, sizeof(why), "%s; without a GPU each step is "
			 "still built and checked statically (compile errors, "
			 "registers, spills, PTX facts), but not run or timed",
			 json_string_value(json_object_get(device, "reason")));
		json_object_set_new(device, "reason", json_string(why));
	}
	device_arch(device, run->o->arch_fallback, run->arch,
		    sizeof(run->arch));
	run->env.arch = run->arch;
	json_object_set_new(device, "arch", json_string(run->arch));
	run->copy_gbps = json_number_value(json_object_get(device, "copy_gbps"));
	run->gpu_uuid = device_lock_check(device);
	run->sink(run->arg, device);

	/* What the target can take: steps it cannot are neither built nor
	 * run, and are NOT GRADED with the reason (beyond[i]). */
	run->beyond = calloc(run->count, sizeof(*run->beyond));
	if (!run->beyond) {
		snprintf(run->err, run->errlen, "out of memory");
		return -1;
	}
	run->toolkit_lacks = target_limits(&run->env, &run->lab, device,
					   run->arch, run->first, run->count,
					   run->beyond);
	return open_sandbox(run);
}

/* The object check's rejection of build b (objcheck.h): compiled, not
 * linked; a "lint" event of check "object", the reason in why. */
static void object_rejected(struct grade_run *run, const struct step_build *b,
			    char *why, size_t len)
{
	size_t more = json_array_size(b->rejected) - 1;
	snprintf(why, len, "%s: %s%s", b->step->file,
		 json_string_value(json_array_get(b->rejected, 0)),
		 more ? " (and more: see the list of problems)" : "");
	json_t *list = json_array();
	size_t k;
	json_t *m;
	json_array_foreach(b->rejected, k, m)
		json_array_append_new(list,
				      event_lint_problem(0, json_incref(m)));
	emit(run->sink, run->arg,
	     event_lint(b->step->id, b->step->file, "object",
			(int)json_array_size(list), list));
}

/* What one build gave: compile, resources and ptx events. */
static void build_events(struct grade_run *run, const struct step_build *b)
{
	const char *status = !b->ok ? "failed" : b->cached ? "cached" : "ok";
	emit(run->sink, run->arg,
	     event_compile_result(b->step->id, status, b->seconds,
				  b->diagnostics, strbuf_str(&b->log),
				  b->ok ? b->exe : NULL));
	if (!b->ok)
		return;
	emit(run->sink, run->arg, event_resources(b->step->id, b->resources));
	char ptx_path[PATH_MAX * 2], cubin_path[PATH_MAX * 2];
	step_ptx_path(b->dir, b->source, ptx_path, sizeof(ptx_path));
	step_cubin_path(b->dir, b->source, run->arch, cubin_path,
			sizeof(cubin_path));
	emit(run->sink, run->arg,
	     event_ptx(b->step->id, b->ptx, ptx_path, cubin_path));
}

/* Lint every file the target can take; compile the clean ones (in
 * parallel, cached). -1 when the harness itself does not build. */
static int compile_clean(struct grade_run *run)
{
	struct step_build *clean = calloc(run->count, sizeof(*clean));
	if (!clean) {
		snprintf(run->err, run->errlen, "out of memory");
		return -1;
	}
	size_t nclean = 0;
	for (size_t i = 0; i < run->count; i++) {
		if (run->beyond[i][0] ||
		    lint_step(run->lab_dir, &run->builds[i], run->sink, run->arg,
			      run->rejected[i], sizeof(run->rejected[i])))
			continue;
		clean[nclean++] = run->builds[i];
	}
	int rc = nclean ? build_steps(&run->env, &run->lab, clean, nclean,
				      run->err, run->errlen)
			: 0;
	/* back into place either way: build_steps leaves every entry
	 * releasable, and run_release() releases them */
	for (size_t i = 0, k = 0; i < run->count; i++)
		if (!run->rejected[i][0] && !run->beyond[i][0])
			run->builds[i] = clean[k++];
	free(clean);
	return rc < 0 ? -1 : 0;
}

/* Phase build: compile events, lint, compile, what each build gave. */
static int run_build(struct grade_run *run)
{
	run->builds = calloc(run->count, sizeof(*run->builds));
	run->rejected = calloc(run->count, sizeof(*run->rejected));
	if (!run->builds || !run->rejected) {
		snprintf(run->err, run->errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < run->count; i++) {
		struct step_build *b = &run->builds[i];
		b->step = &run->lab.steps[run->first + i];
		snprintf(b->source, sizeof(b->source), "%s/%s", run->src_dir,
			 b->step->file);
		emit(run->sink, run->arg,
		     run->beyond[i][0]
			     ? event_compile_skipped(b->step->id, b->step->file,
						     run->beyond[i])
			     : event_compile_started(b->step->id,
						     b->step->file));
	}
	if (compile_clean(run) < 0)
		return -1;
	for (size_t i = 0; i < run->count; i++) {
		struct step_build *b = &run->builds[i];
		if (run->rejected[i][0] || run->beyond[i][0])
			continue;
		if (b->rejected)
			object_rejected(run, b, run->rejected[i],
					sizeof(run->rejected[i]));
		else
			build_events(run, b);
	}
	return 0;
}

/* What one step was told, and what is kept for its step_end. */
struct step_verdict {
	char summary[1024];
	const char *verdict;
	double seconds;
	json_t *end_facts;  /* static facts for step_end (owned) */
};

/* Run, measure and check a built step on the device (r and c filled). */
static void run_and_check(struct grade_run *run, size_t i,
			  struct step_outcome *r, struct child *c,
			  struct step_verdict *v)
{
	const struct grade_opts *o = run->o;
	const struct step_build *b = &run->builds[i];
	const struct step_spec *s = b->step;
	struct sandbox *boxed = run->sb->on ? run->sb : NULL;
	run_executable(o, run->sb, run->gpu_uuid, b->exe, s->id,
		       run->lab.hidden_sizes, run->step_limit, r, c, 0);
	v->seconds = c->seconds;
	json_t *med = json_object_get(r->metrics, "median_us");
	if (run->first + i == 0 && json_is_number(med))
		run->first_median = json_number_value(med);
	if (run->first_median > 0 && json_is_number(med))
		json_object_set_new(r->metrics, "speedup_vs_first",
				    json_real(run->first_median /
					      json_number_value(med)));
	int counters = o->bench, sanitized = 0;
	for (size_t k = 0; k < s->nchecks; k++) {
		counters |= fact_needs_profiler(s->checks[k].metric);
		sanitized |= !strcmp(s->checks[k].metric, "sanitizer_errors");
	}
	if (counters && outcome_ran_clean(r, c) && r->timed_n > 0)
		profile_instructions(boxed, run->box_parent, o->build_dir,
				     b->exe, s->id,
				     run->gpu_uuid, run->step_limit, r,
				     run->sink, run->arg);
	if (sanitized && run->lab.sanitize_tools && outcome_ran_clean(r, c))
		sanitize(boxed, run->box_parent, &run->lab, b->exe, s->id,
			 run->gpu_uuid, run->step_limit, r, run->sink, run->arg);
	int clean = outcome_ran_clean(r, c);
	/* calibrate: the reference's figure is kept first, so its own
	 * pct_of_reference check compares with it */
	if (o->calibrate_into && clean && !outcome_timing_withheld(r, c))
		keep_calibration(o, run->device, &run->lab, s, r, run->sink,
				 run->arg);
	else
		compare_with_reference(o, run->sb, &run->env, &run->lab,
				       run->device, s, r, run->sink, run->arg);
	if (clean && !outcome_timing_withheld(r, c))
		remeasure_close_calls(o, run->sb, &run->env, &run->lab,
				      run->device, b->exe, s, run->step_limit,
				      r, run->sink, run->arg);
	struct check_summary checks;
	if (clean)
		verdict_checks(s, r->metrics, &checks);
	v->verdict = verdict_decide(r, c, clean ? &checks : NULL, v->summary,
				    sizeof(v->summary));
	if (clean)
		emit_checks(&checks, run->sink, run->arg);
}

/* The verdict of step i: from what stopped it before running, or from
 * its run. */
static void judge_step(struct grade_run *run, size_t i,
		       struct step_outcome *r, struct child *c,
		       struct step_verdict *v)
{
	const struct step_build *b = &run->builds[i];
	if (run->beyond[i][0]) {
		snprintf(v->summary, sizeof(v->summary), "NOT GRADED: %s",
			 run->beyond[i]);
		v->verdict = "not_graded";
	} else if (run->rejected[i][0]) {
		snprintf(v->summary, sizeof(v->summary), "rejected: %s",
			 run->rejected[i]);
		v->verdict = "rejected";
	} else if (!b->ok) {
		char e[600];
		snprintf(v->summary, sizeof(v->summary), "does not compile: %s",
			 verdict_first_error(b->diagnostics, e, sizeof(e)));
		v->verdict = "compile_error";
	} else if (!run->have_device) {
		snprintf(v->summary, sizeof(v->summary),
			 "not run: no CUDA device (see the GPU line)");
		v->verdict = "not_graded";
		judge_without_device(b, r, v->end_facts, run->sink, run->arg);
	} else {
		run_and_check(run, i, r, c, v);
	}
}

/* The step_end event of step i. */
static json_t *step_end_event(struct grade_run *run, size_t i,
			      const struct step_outcome *r,
			      const struct child *c,
			      const struct step_verdict *v)
{
	const struct step_spec *s = run->builds[i].step;
	json_t *end = event_step_end(s->id, v->verdict, v->summary, v->seconds);
	if (strcmp(v->verdict, "pass") && !run->beyond[i][0])
		json_object_set_new(end, "hint", json_string(s->hint));
	json_object_update(end, v->end_facts);
	const char *withheld = outcome_timing_withheld(r, c);
	for (const char *const *m = facts_on_step_end(0); *m; m++)
		if (json_object_get(r->metrics, *m))
			json_object_set(end, *m, json_object_get(r->metrics, *m));
	for (const char *const *m = facts_on_step_end(1); *m && !withheld; m++)
		if (json_object_get(r->metrics, *m))
			json_object_set(end, *m, json_object_get(r->metrics, *m));
	if (withheld && json_object_get(r->metrics, "median_us"))
		json_object_set_new(end, "timing_withheld",
				    json_string(withheld));
	if (r->phases) /* where the step's time went (event.h) */
		json_object_set(end, "phases", r->phases);
	if (c->out.len)
		json_object_set_new(end, "program_output",
				    json_string(strbuf_str(&c->out)));
	return end;
}

/* Phase steps: one step, from step_begin to step_end. */
static void run_step(struct grade_run *run, size_t i)
{
	const struct step_build *b = &run->builds[i];
	const struct step_spec *s = b->step;
	emit(run->sink, run->arg, event_step_begin(s->id, s->title, s->file));
	struct step_outcome r;
	outcome_init(&r, s->id, run->copy_gbps, run->sink, run->arg);
	r.run_timings = run->timings;
	outcome_add_static(&r, b->resources, b->ptx);
	struct child c = CHILD_INIT;
	struct step_verdict v = {.summary = "", .end_facts = json_object()};
	judge_step(run, i, &r, &c, &v);
	emit(run->sink, run->arg, step_end_event(run, i, &r, &c, &v));
	run->passed += !strcmp(v.verdict, "pass");
	run->not_graded += !strcmp(v.verdict, "not_graded");
	run->failed += strcmp(v.verdict, "pass") &&
		       strcmp(v.verdict, "not_graded");
	json_decref(v.end_facts);
	child_release(&c);
	outcome_release(&r);
}

/* Phase extras (bench): the vendor library, the sweep. */
static void run_extras(struct grade_run *run)
{
	const struct grade_opts *o = run->o;
	if (!o->bench || !run->have_device)
		return;
	if (run->lab.vendor_source && !run->toolkit_lacks)
		run_vendor(o, run->gpu_uuid, &run->lab, &run->env,
			   run->copy_gbps, run->timings, run->sink, run->arg);
	if (run->lab.sweep_define)
		run_sweep(o, run->sb, run->gpu_uuid, &run->env, &run->lab,
			  run->builds, run->count, run->copy_gbps, run->sink,
			  run->arg);
}

/* Phase close: run_end; returns the run's exit status (grade.h). */
static int run_close(struct grade_run *run)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	const char *verdict = run->failed       ? "fail"
			      : run->not_graded ? "not_graded"
						: "pass";
	emit(run->sink, run->arg,
	     event_run_end(run->lab.name, verdict, run->passed, run->failed,
			   run->not_graded, (int)run->count,
			   (double)(t1.tv_sec - run->t0.tv_sec) +
				   (t1.tv_nsec - run->t0.tv_nsec) / 1e9));
	return run->failed ? 1 : run->not_graded ? 3 : 0;
}

int grade_lab(const struct grade_opts *o, event_sink sink, void *arg,
	      char *err, size_t errlen)
{
	struct grade_run run;
	memset(&run, 0, sizeof(run));
	run.o = o;
	run.sink = sink;
	run.arg = arg;
	run.err = err;
	run.errlen = errlen;
	run.timings = json_object();
	int rc = run_open(&run);
	if (rc == 0)
		rc = run_device(&run);
	if (rc == 0)
		rc = run_build(&run);
	if (rc == 0 && !o->build_only) {
		for (size_t i = 0; i < run.count; i++)
			run_step(&run, i);
		run_extras(&run);
		rc = run_close(&run);
	}
	run_release(&run);
	return rc;
}
