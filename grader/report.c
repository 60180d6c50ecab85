#include "report.h"
#include "facts.h"
#include "event.h"

#include <string.h>

#include "demangle.h"
#include "profiler.h"
#include "roofline.h"
#include "strbuf.h"

#define C_RESET "\033[0m"
#define C_BOLD "\033[1m"
#define C_DIM "\033[2m"
#define C_RED "\033[31m"
#define C_GREEN "\033[32m"
#define C_YELLOW "\033[33m"

void report_init(struct report *r, FILE *out, int color, int verbose)
{
	memset(r, 0, sizeof(*r));
	r->out = out;
	r->color = color;
	r->verbose = verbose;
	r->log = json_array();
	r->details = json_array();
	r->sweeps = json_array();
	r->waited_shown = -1;
	r->built = json_object();
}

void report_release(struct report *r)
{
	json_decref(r->log);
	json_decref(r->device);
	json_decref(r->vendor);
	json_decref(r->details);
	json_decref(r->sweeps);
	json_decref(r->built);
}

static void remember(struct report *r, json_t *ev)
{
	json_array_append(r->log, ev);
	const char *k = event_kind(ev);
	if (!strcmp(k, "resources") || !strcmp(k, "ptx")) {
		const char *step = event_str(ev, "step");
		json_t *b = json_object_get(r->built, step);
		if (!b) {
			b = json_object();
			json_object_set_new(r->built, step, b);
		}
		json_object_set(b, k, ev);
	} else if (!strcmp(k, "sweep")) {
		json_array_append(r->sweeps, ev);
	} else if (!strcmp(k, "device")) {
		json_decref(r->device);
		r->device = json_incref(ev);
	} else if (!strcmp(k, "timing")) {
		const char *who = json_string_value(json_object_get(ev, "who"));
		if (who && !strcmp(who, "vendor")) {
			if (!r->vendor)
				r->vendor = json_array();
			json_array_append(r->vendor, ev);
		}
	}
}

/* The sweep as a table: a row per step, a column per value; each cell the
 * speedup over the baseline (or the % of copy when there is none). */
static void print_sweep(struct report *r)
{
	size_t n = json_array_size(r->sweeps), i;
	if (!n)
		return;
	json_t *ev, *values = json_array(), *steps = json_array();
	json_array_foreach(r->sweeps, i, ev) {
		json_t *v = json_object_get(ev, "value"), *s = json_object_get(ev, "step");
		size_t j;
		json_t *x;
		int seen_v = 0, seen_s = 0;
		json_array_foreach(values, j, x) seen_v |= json_equal(x, v);
		json_array_foreach(steps, j, x) seen_s |= json_equal(x, s);
		if (!seen_v)
			json_array_append(values, v);
		if (!seen_s)
			json_array_append(steps, s);
	}
	int speedup = json_object_get(json_array_get(r->sweeps, 0),
				      "speedup_vs_baseline") != NULL;
	fprintf(r->out, "\n%s sweep: %s at the timed size, each value "
			"a separate build\n%-5s",
		event_str(json_array_get(r->sweeps, 0), "define"),
		speedup ? "speedup over the baseline (same process)"
			: "% of copy", "");
	size_t j, k;
	json_t *v, *s;
	json_array_foreach(values, j, v)
		fprintf(r->out, " %5lld", (long long)json_integer_value(v));
	fputc('\n', r->out);
	json_array_foreach(steps, k, s) {
		fprintf(r->out, "%-5s", json_string_value(s));
		json_array_foreach(values, j, v) {
			const json_t *cell = NULL;
			json_array_foreach(r->sweeps, i, ev)
				if (json_equal(json_object_get(ev, "step"), s) &&
				    json_equal(json_object_get(ev, "value"), v))
					cell = ev;
			if (cell && json_is_true(json_object_get(cell, "ok")))
				fprintf(r->out, " %5.2f",
					event_num(cell, speedup ? "speedup_vs_baseline"
								: "pct_of_copy"));
			else
				fprintf(r->out, " %5s", cell ? "fail" : "-");
		}
		fputc('\n', r->out);
	}
	json_array_foreach(r->sweeps, i, ev)
		if (!json_is_true(json_object_get(ev, "ok")))
			fprintf(r->out, "  %s %s=%lld: %s\n", event_str(ev, "step"),
				event_str(ev, "define"),
				(long long)event_num(ev, "value"),
				event_str(ev, "message"));
	json_decref(values);
	json_decref(steps);
}

void report_json(void *arg, json_t *ev)
{
	struct report *r = arg;
	remember(r, ev);
	event_write(r->out, ev);
}

static const char *col(const struct report *r, const char *code)
{
	return r->color ? code : "";
}

static void print_device(struct report *r, json_t *ev)
{
	FILE *o = r->out;
	if (!json_is_true(json_object_get(ev, "available"))) {
		fprintf(o, "GPU    %snone%s: %s (compiling for %s)\n",
			col(r, C_YELLOW), col(r, C_RESET), event_str(ev, "reason"),
			event_str(ev, "arch"));
		return;
	}
	fprintf(o, "GPU    %s · %d SMs · CC %s · L2 %.0f MiB · driver %s\n",
		event_str(ev, "name"), (int)event_num(ev, "sm_count"), event_str(ev, "cc"),
		event_num(ev, "l2_bytes") / 1048576.0, event_str(ev, "driver"));
	fprintf(o, "copy   %.0f GB/s (%s, %s) — the ceiling every %% below "
		   "refers to\n",
		event_num(ev, "copy_gbps"), event_str(ev, "copy_method"), event_str(ev, "copy_source"));
	const char *cond = event_str(ev, "copy_condition");
	if (*cond && strcmp(cond, "ours"))
		fprintf(o, "       %snot a clean measurement%s: %s (measured "
			   "again next run)\n",
			col(r, C_YELLOW), col(r, C_RESET),
			event_str(ev, "copy_message"));
	if (json_is_false(json_object_get(ev, "gpu_lock")))
		fprintf(o, "       %sno GPU lock%s: %s — timing is not "
			   "serialised with other runs on this GPU\n",
			col(r, C_YELLOW), col(r, C_RESET),
			event_str(ev, "gpu_lock_error"));
}

/* Say what the silence is while nvcc works: the first compile of a lab
 * also builds its harness, several seconds before any step is done. */
static void print_compile_phase(struct report *r, json_t *ev)
{
	const char *status = event_str(ev, "status");
	if (!strcmp(status, "started")) {
		if (r->compiling++ == 0) {
			fprintf(r->out, "build  compiling the step files with "
					"nvcc (unchanged files come from the "
					"cache; a lab's first build also "
					"compiles its harness: ~10 s) ...\n");
			fflush(r->out);
		}
		return;
	}
	if (r->compiled++ == 0)
		fprintf(r->out, "build  done: %d step file(s)\n", r->compiling);
}

/* nvcc at work: the harness's files once, then each step as it ends. */
static void print_build_progress(struct report *r, json_t *ev)
{
	const char *what = event_str(ev, "what");
	if (!strcmp(what, "harness"))
		fprintf(r->out, "build  compiling the lab's harness: %s "
				"(%d/%d, once per harness and GPU arch)\n",
			event_str(ev, "file"), (int)event_num(ev, "done") + 1,
			(int)event_num(ev, "total"));
	else
		fprintf(r->out, "build  %s %s (%d/%d)\n", event_str(ev, "step"),
			!strcmp(what, "failed") ? "does not compile" : "compiled",
			(int)event_num(ev, "done"), (int)event_num(ev, "total"));
	fflush(r->out);
}

static void print_compile(struct report *r, json_t *ev)
{
	const char *status = event_str(ev, "status");
	if (!strcmp(status, "started"))
		return;
	json_t *diags = json_object_get(ev, "diagnostics");
	size_t i;
	json_t *d;
	json_array_foreach(diags, i, d)
	{
		const char *sev = event_str(d, "severity");
		int err = !strcmp(sev, "error");
		if (!err && !r->verbose)
			continue;
		long line = (long)event_num(d, "line");
		fprintf(r->out, "  %s%s%s ", col(r, err ? C_RED : C_YELLOW), sev,
			col(r, C_RESET));
		if (line > 0)
			fprintf(r->out, "%s:%ld: ", event_str(d, "file"), line);
		fprintf(r->out, "%s\n", event_str(d, "message"));
	}
}

static void print_case(struct report *r, json_t *ev)
{
	if (json_is_true(json_object_get(ev, "ok")))
		return;
	fprintf(r->out, "  %scase %s%s: %s\n", col(r, C_RED), event_str(ev, "name"),
		col(r, C_RESET),
		*event_str(ev, "message") ? event_str(ev, "message") : "wrong result");
	size_t i;
	json_t *m;
	json_array_foreach(json_object_get(ev, "first"), i, m)
	{
		fprintf(r->out, "      y[%lld]: expected %s, got %s%s%s\n",
			json_integer_value(json_object_get(m, "index")),
			event_str(m, "expected"), event_str(m, "got"),
			*event_str(m, "note") ? "  — " : "", event_str(m, "note"));
	}
	long long shown = (long long)json_array_size(json_object_get(ev, "first"));
	long long total = (long long)event_num(ev, "mismatches");
	if (total > shown)
		fprintf(r->out, "      ... and %lld more\n", total - shown);
	fprintf(r->out, "      replay: python3 run.py test %s --step %s "
			"--seed %s\n",
		r->lab, event_str(ev, "step"), event_str(ev, "seed"));
}

static void print_detail(struct report *r, json_t *ev)
{
	const char *k = event_kind(ev);
	if (!strcmp(k, "case")) {
		print_case(r, ev);
	} else if (!strcmp(k, "guard")) {
		fprintf(r->out, "  %sout of bounds%s: %s\n", col(r, C_RED),
			col(r, C_RESET), event_str(ev, "message"));
	} else if (!strcmp(k, "check")) {
		const char *st = event_str(ev, "status");
		int pass = !strcmp(st, "pass");
		fprintf(r->out, "  %s%s%s %s\n", col(r, pass ? C_GREEN : C_RED),
			pass ? "ok  " : !strcmp(st, "fail") ? "FAIL" : "n/m ",
			col(r, C_RESET), event_str(ev, "message"));
	}
}

/*
 * A step waiting for the GPU lock (another run is timing on that GPU): the
 * first report opens a line under the step, later ones add the seconds
 * every 10 s, so a long wait is visible and a short one costs one line.
 */
static void print_waiting(struct report *r, json_t *ev)
{
	int waited = (int)event_num(ev, "waited_s");
	if (r->waited_shown < 0) {
		fprintf(r->out, "\n      waiting for the GPU (another run is "
			"timing on it): %d s", waited);
		r->waited_shown = waited;
	} else if (waited >= r->waited_shown + 10) {
		fprintf(r->out, " … %d s", waited);
		r->waited_shown = waited;
	}
	fflush(r->out);
}


/* The problems after the first of the step's "lint" event (the summary
 * quotes the first and says "and more"), one line each. */
static void print_more_problems(struct report *r, const char *step)
{
	json_t *lint = NULL;
	size_t i;
	json_t *e;
	json_array_foreach(r->log, i, e)
		if (!strcmp(event_kind(e), "lint") &&
		    !strcmp(event_str(e, "step"), step))
			lint = e;
	json_array_foreach(json_object_get(lint, "problems"), i, e) {
		if (i == 0)
			continue;
		long long line = (long long)event_num(e, "line");
		if (line > 0)
			fprintf(r->out, "  and: %s:%lld: %s\n",
				event_str(lint, "file"), line,
				event_str(e, "message"));
		else
			fprintf(r->out, "  and: %s\n", event_str(e, "message"));
	}
}

/* The build's facts of a step: its kernels' resources, its PTX's global
 * memory instructions. One line each, or every kernel and fact (verbose). */
static void print_built(struct report *r, const char *step)
{
	json_t *b = json_object_get(r->built, step);
	if (!b)
		return;
	json_t *kernels = json_object_get(json_object_get(b, "resources"),
					  "kernels");
	size_t i, n = json_array_size(kernels);
	json_t *k;
	json_array_foreach(kernels, i, k)
	{
		if (!r->verbose && i > 0) {
			fprintf(r->out, " (+%zu more kernel%s: --verbose)",
				n - 1, n > 2 ? "s" : "");
			break;
		}
		char name[512];
		if (r->verbose)
			demangle(event_str(k, "name"), name, sizeof(name));
		else
			demangle_short(event_str(k, "name"), name,
				       sizeof(name));
		double spill = event_num(k, "spill_store_bytes") +
			       event_num(k, "spill_load_bytes");
		fprintf(r->out, "%s  kernel %s: %d registers, %.0f B spilled, "
				"%.0f B shared, %.0f B stack",
			i ? "\n" : "", name, (int)event_num(k, "registers"),
			spill, event_num(k, "shared_bytes"),
			event_num(k, "stack_bytes"));
	}
	if (n)
		fputc('\n', r->out);
	json_t *p = json_object_get(b, "ptx");
	if (!p)
		return;
	double loads = event_num(p, "global_loads");
	double stores = event_num(p, "global_stores");
	fprintf(r->out, "  memory %.0f global load(s) up to %.0f B wide, "
			"%.0f read-only (.nc); %.0f store(s) up to %.0f B",
		loads, event_num(p, "max_load_bytes"), event_num(p, "nc_loads"),
		stores, event_num(p, "max_store_bytes"));
	if (event_num(p, "async_copies") > 0)
		fprintf(r->out, "; %.0f async copies",
			event_num(p, "async_copies"));
	fprintf(r->out, " (PTX, each instruction once)\n");
	if (r->verbose) {
		/* by their fact names (facts.h), as checks and hints say */
		static const char *const more[] = {"ptx_barriers", "ptx_shuffles",
						   "ptx_rem_ops", NULL};
		json_t *facts = json_object();
		facts_from_ptx(p, facts);
		fprintf(r->out, "  ptx   ");
		for (const char *const *m = more; *m; m++)
			fprintf(r->out, " %s %.0f", *m, event_num(facts, *m));
		json_decref(facts);
		fprintf(r->out, "  (%s)\n", event_str(p, "ptx_file"));
	}
}

static void print_step_end(struct report *r, json_t *ev)
{
	const char *v = event_str(ev, "verdict");
	if (r->waited_shown >= 0) { /* the step's line was interrupted */
		fprintf(r->out, "\n%s%-5s%s %-38s ", col(r, C_BOLD), r->step,
			col(r, C_RESET), r->step_title);
		r->waited_shown = -1;
	}
	int pass = !strcmp(v, "pass");
	int ng = !strcmp(v, "not_graded");
	char label[32];
	snprintf(label, sizeof(label), "%s", v);
	for (char *p = label; *p; p++)
		*p = *p == '_' ? ' ' : (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
	fprintf(r->out, "%s%-15s%s", col(r, pass ? C_GREEN : ng ? C_YELLOW : C_RED),
		label, col(r, C_RESET));
	json_t *impl = json_object_get(ev, "implemented");
	if (json_is_false(impl))
		fprintf(r->out, " · not implemented (%s:%d still calls "
				"CUDALAB_TODO())",
			event_str(ev, "todo_file"), (int)event_num(ev, "todo_line"));
	else if (json_is_true(impl))
		fprintf(r->out, " · builds%s",
			event_num(ev, "static_checks_failed") > 0
				? ", but a check judged from the build fails"
				: "");
	if (json_is_number(json_object_get(ev, "median_us")))
		fprintf(r->out, " %9.1f us  %6.0f GB/s  %5.1f%% of copy",
			event_num(ev, "median_us"), event_num(ev, "gbps"), event_num(ev, "pct_of_copy"));
	if (json_is_number(json_object_get(ev, "speedup_vs_baseline")))
		fprintf(r->out, "  %.2fx vs the baseline (same run)",
			event_num(ev, "speedup_vs_baseline"));
	else if (json_is_number(json_object_get(ev, "speedup_vs_first")))
		fprintf(r->out, "  %.2fx vs step 1", event_num(ev, "speedup_vs_first"));
	fprintf(r->out, "\n");
	if (!json_is_false(json_object_get(ev, "implemented")) || r->verbose)
		print_built(r, event_str(ev, "step"));
	size_t i;
	json_t *d;
	char need_gpu[512] = "";
	json_array_foreach(r->details, i, d)
	{
		if (json_is_true(json_object_get(d, "needs_gpu"))) {
			size_t l = strlen(need_gpu);
			snprintf(need_gpu + l, sizeof(need_gpu) - l, "%s%s",
				 l ? ", " : "", event_str(d, "id"));
			continue;
		}
		print_detail(r, d);
	}
	if (need_gpu[0])
		fprintf(r->out, "  %sneeds a GPU%s %s\n", col(r, C_YELLOW),
			col(r, C_RESET), need_gpu);
	json_array_clear(r->details);
	if (!pass) {
		fprintf(r->out, "  %s\n", event_str(ev, "summary"));
		print_more_problems(r, event_str(ev, "step"));
	}
	if (!pass && !ng && *event_str(ev, "hint"))
		fprintf(r->out, "  %shint:%s %s\n", col(r, C_DIM), col(r, C_RESET),
			event_str(ev, "hint"));
}

/* --- explain (grader/explain.h): the same words explain printed itself -- */

/* The kernels' resources under an explained step's heading. */
static void explain_compiler(struct report *r, const char *step)
{
	json_t *res = json_object_get(json_object_get(r->built, step),
				      "resources");
	size_t i;
	json_t *k;
	json_array_foreach(json_object_get(res, "kernels"), i, k) {
		char name[400];
		fprintf(r->out, "  compiler  %s: %lld registers, %lld B spilled, "
				"%lld B shared memory, %lld B stack\n",
			demangle(event_str(k, "name"), name, sizeof(name)),
			json_integer_value(json_object_get(k, "registers")),
			json_integer_value(json_object_get(k, "spill_store_bytes")) +
				json_integer_value(json_object_get(k, "spill_load_bytes")),
			json_integer_value(json_object_get(k, "shared_bytes")),
			json_integer_value(json_object_get(k, "stack_bytes")));
	}
}

static void print_explain_step(struct report *r, json_t *ev)
{
	FILE *o = r->out;
	const char *st = event_str(ev, "status");
	fprintf(o, "\n%s %s — %s  (%s)\n", event_str(ev, "lab"),
		event_str(ev, "step"), event_str(ev, "title"),
		event_str(ev, "source"));
	if (!strcmp(st, "rejected"))
		fprintf(o, "  rejected  line %lld: %s\n",
			(long long)event_num(ev, "line"), event_str(ev, "message"));
	else if (!strcmp(st, "not_built"))
		fprintf(o, "  not built: %s\n", event_str(ev, "message"));
	else if (!strcmp(st, "compile_error"))
		fprintf(o, "  does not compile: %s:%lld: %s\n",
			event_str(ev, "error_file"), (long long)event_num(ev, "line"),
			event_str(ev, "message"));
	else if (!strcmp(st, "not_implemented"))
		fprintf(o, "  not implemented: %s:%d still calls "
			   "CUDALAB_TODO(); write the step (its section "
			   "in labs/%s/README.md says what it must do), "
			   "then explain it\n",
			event_str(ev, "file"), (int)event_num(ev, "line"),
			event_str(ev, "lab"));
	else
		explain_compiler(r, event_str(ev, "step"));
}

static void print_accesses(struct report *r, json_t *ev)
{
	FILE *o = r->out;
	if (!json_is_true(json_object_get(ev, "shown"))) {
		fprintf(o, "  memory    not shown: the PTX (%s) cannot be "
			   "read\n", event_str(ev, "ptx_file"));
		return;
	}
	fprintf(o, "  memory    global accesses in the PTX (static: each "
		   "instruction once, however often it runs)\n");
	size_t i;
	json_t *op;
	json_array_foreach(json_object_get(ev, "ops"), i, op) {
		const char *kind = event_str(op, "kind");
		fprintf(o, "    %-22s %3lldx %-5s %2lld B %-14s | %s\n",
			event_str(op, "where"), (long long)event_num(op, "count"),
			kind, (long long)event_num(op, "bytes"),
			json_is_true(json_object_get(op, "nc")) ? "read-only path"
			: !strcmp(kind, "async")		? "global->shared"
								: "",
			event_str(op, "code"));
	}
	json_t *ptx = json_object_get(json_object_get(r->built,
						      event_str(ev, "step")),
				      "ptx");
	fprintf(o, "            %lld load(s), widest %lld B, %lld read-only; "
		   "%lld store(s), widest %lld B; %lld asynchronous copies\n",
		(long long)event_num(ptx, "global_loads"),
		(long long)event_num(ptx, "max_load_bytes"),
		(long long)event_num(ptx, "nc_loads"),
		(long long)event_num(ptx, "global_stores"),
		(long long)event_num(ptx, "max_store_bytes"),
		(long long)event_num(ptx, "async_copies"));
}

static void print_sass(struct report *r, json_t *ev)
{
	if (json_is_true(json_object_get(ev, "shown")))
		fprintf(r->out, "  sass      machine code (cuobjdump), all "
				"paths: %s\n", event_str(ev, "summary"));
	else
		fprintf(r->out, "  sass      not shown: %s\n",
			event_str(ev, "reason"));
}

/* A counter of explain's profile event by its ncu name (profiler.h). */
#define HAVE(m) (json_object_get(counters, pm_info(m)->ncu_name) != NULL)
#define V(m) json_number_value(json_object_get(counters, pm_info(m)->ncu_name))
#define FACT(name) event_num(facts, name)

static const char *const not_measured = "not measured (ncu reported no value)";

/* The counters' heading line: the case, the launches, the SM clock. */
static void print_counters_head(FILE *out, json_t *ev, json_t *counters)
{
	double n = event_num(ev, "elements");
	int kernels = (int)event_num(ev, "kernels");
	fprintf(out, "  counters  Nsight Compute on the timed-size case (n = "
		     "%.0f), %d kernel launch(es)%s%s, SM clock %.2f GHz as "
		     "found\n",
		n, kernels, kernels > 1 ? ", longest " : "",
		kernels > 1 ? event_str(ev, "longest") : "", V(PM_SM_HZ) / 1e9);
}

static void print_dram(FILE *out, json_t *counters, json_t *facts)
{
	double dram = V(PM_DRAM_READ) + V(PM_DRAM_WRITE);
	double secs = V(PM_DURATION);
	if (!HAVE(PM_DRAM_PCT)) {
		fprintf(out, "    DRAM          %s\n", not_measured);
		return;
	}
	fprintf(out, "    DRAM          %.1f %% of its peak throughput",
		FACT("dram_pct"));
	if (json_object_get(facts, "dram_bytes_per_element"))
		fprintf(out, "; %.1f MB moved = %.2f B per element",
			dram / 1e6, FACT("dram_bytes_per_element"));
	if (json_object_get(facts, "dram_pct_of_copy")) {
		double pct = FACT("dram_pct_of_copy");
		fprintf(out, "; %.0f GB/s in %.1f us = %.0f %% of the "
			     "measured copy bandwidth%s",
			dram / secs / 1e9, secs * 1e6, pct,
			pct >= 85 ? ": at the memory roof, only moving "
				    "fewer bytes makes it much faster"
				  : "");
	}
	fputc('\n', out);
}

static void print_occupancy(FILE *out, json_t *counters, json_t *facts)
{
	if (HAVE(PM_OCC_ACHIEVED))
		fprintf(out, "    occupancy     %.1f %% achieved, %.0f %% allowed "
			     "by the launch; limited by: %s (blocks/SM allowed "
			     "by registers %.0f, shared memory %.0f, block "
			     "size %.0f, block slots %.0f); %.0f registers/"
			     "thread, %.0f-thread blocks, %.2f waves\n",
			FACT("achieved_occupancy_pct"), V(PM_OCC_THEORETICAL),
			event_str(facts, "occupancy_limiter"),
			V(PM_LIMIT_REGISTERS), V(PM_LIMIT_SHARED),
			V(PM_LIMIT_WARPS), V(PM_LIMIT_BLOCKS), V(PM_REGISTERS),
			V(PM_BLOCK_SIZE), V(PM_WAVES));
	else
		fprintf(out, "    occupancy     %s\n", not_measured);
}

/* Global loads and stores, instructions, shared memory and the caches. */
static void print_traffic(FILE *out, json_t *counters, json_t *facts,
			  double n)
{
	static const struct {
		const char *label, *fact;
		enum pm_metric sectors, requests;
	} traffic[] = {{"global loads ", "load_sectors_per_request",
			PM_LD_SECTORS, PM_LD_REQUESTS},
		       {"global stores", "store_sectors_per_request",
			PM_ST_SECTORS, PM_ST_REQUESTS}};
	for (size_t i = 0; i < 2; i++) {
		enum pm_metric s = traffic[i].sectors, q = traffic[i].requests;
		if (!HAVE(s) || !HAVE(q))
			fprintf(out, "    %s %s\n", traffic[i].label, not_measured);
		else if (V(q) == 0)
			fprintf(out, "    %s none\n", traffic[i].label);
		else
			fprintf(out, "    %s %.2f sectors of 32 B per warp request "
				     "(%.0f requests)\n",
				traffic[i].label, FACT(traffic[i].fact), V(q));
	}

	if (json_object_get(facts, "inst_per_element"))
		fprintf(out, "    instructions  %.2f per element (%.0f warp "
			     "instructions x 32 / n)\n",
			FACT("inst_per_element"), V(PM_WARP_INST));
	else
		fprintf(out, "    instructions  %s\n",
			n > 0 ? not_measured : "not measured (the harness "
					       "reported no element count)");
	if (json_object_get(facts, "bank_conflicts_per_element")) {
		double c = V(PM_CONFLICTS_LD) + V(PM_CONFLICTS_ST);
		fprintf(out, "    shared memory %.0f bank conflicts (loads %.0f, "
			     "stores %.0f) = %.3f per element\n",
			c, V(PM_CONFLICTS_LD), V(PM_CONFLICTS_ST),
			FACT("bank_conflicts_per_element"));
	} else {
		fprintf(out, "    shared memory %s\n", not_measured);
	}
	if (json_object_get(facts, "l1_hit_pct"))
		fprintf(out, "    caches        L1 hit %.1f %%, L2 hit %.1f %% "
			     "of sectors\n", FACT("l1_hit_pct"), FACT("l2_hit_pct"));
	else
		fprintf(out, "    caches        %s\n", not_measured);
}

static void print_stalls(FILE *out, json_t *ev)
{
	json_t *stalls = json_object_get(ev, "stalls");
	if (!json_array_size(stalls)) {
		fprintf(out, "    stalls        %s\n", not_measured);
		return;
	}
	fprintf(out, "    stalls        ");
	size_t i;
	json_t *s;
	json_array_foreach(stalls, i, s)
		if (i < 3)
			fprintf(out, "%s%s %.0f %%", i ? ", " : "",
				event_str(s, "reason"), event_num(s, "pct"));
	fprintf(out, " of stalled warp-cycles\n");
}

static void print_work(FILE *out, json_t *ev, json_t *facts)
{
	if (!json_object_get(ev, "flops")) {
		fprintf(out, "    work          %s\n", not_measured);
		return;
	}
	double work = event_num(ev, "flops");
	if (work <= 0) {
		fprintf(out, "    work          no floating-point operations: a "
			     "data mover, whose ceiling is the copy bandwidth\n");
		return;
	}
	fprintf(out, "    work          %.3g %s FLOP (FMA = 2)", work,
		json_is_true(json_object_get(ev, "fp64")) ? "FP64" : "FP32/16");
	if (json_object_get(facts, "flops_per_byte"))
		fprintf(out, " = %.3g FLOP per DRAM byte", FACT("flops_per_byte"));
	fputc('\n', out);
}

static void print_counters(struct report *r, json_t *ev)
{
	FILE *out = r->out;
	json_t *counters = json_object_get(ev, "counters");
	json_t *facts = json_object_get(ev, "facts");
	print_counters_head(out, ev, counters);
	print_dram(out, counters, facts);
	print_occupancy(out, counters, facts);
	print_traffic(out, counters, facts, event_num(ev, "elements"));
	print_stalls(out, ev);
	print_work(out, ev, facts);
}

#undef HAVE
#undef V
#undef FACT

static void print_profile(struct report *r, json_t *ev)
{
	if (!json_is_true(json_object_get(ev, "measured")))
		fprintf(r->out, "  counters  not measured: %s\n",
			event_str(ev, "reason"));
	else
		print_counters(r, ev);
}

/* text after a label, wrapped at 78 columns under the label's width */
static void print_wrapped(FILE *out, const char *label, const char *text)
{
	const int indent = 12, width = 78;
	int col = fprintf(out, "  %-*s", indent - 2, label);
	const char *p = text;
	while (*p) {
		size_t len = strcspn(p, " ");
		if (col > indent && col + 1 + (int)len > width) {
			fprintf(out, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', out);
			col++;
		}
		col += fprintf(out, "%.*s", (int)len, p);
		p += len;
		while (*p == ' ')
			p++;
	}
	fputc('\n', out);
}

static void print_advice(struct report *r, json_t *ev)
{
	size_t i;
	json_t *h;
	json_t *hints = json_object_get(ev, "hints");
	json_array_foreach(hints, i, h) {
		struct strbuf text = STRBUF_INIT;
		strbuf_addf(&text, "%s", event_str(h, "hint"));
		if (*event_str(h, "see"))
			strbuf_addf(&text, " -> step %s, \"%s\", in labs/%s/README.md.",
				    event_str(h, "see"), event_str(h, "see_title"),
				    event_str(ev, "lab"));
		strbuf_addf(&text, " [because %s]", event_str(h, "because"));
		print_wrapped(r->out, "hint", strbuf_str(&text));
		strbuf_release(&text);
	}
	int unchecked = (int)event_num(ev, "unchecked");
	int rules = (int)event_num(ev, "rules");
	if (!json_array_size(hints) && !unchecked && rules)
		fprintf(r->out, "  hint      none of the lab's %d hints applies\n",
			rules);
	if (unchecked) {
		struct strbuf line = STRBUF_INIT;
		strbuf_addf(&line, "%d more not checked: they need ", unchecked);
		json_t *need;
		json_array_foreach(json_object_get(ev, "needs"), i, need)
			strbuf_addf(&line, "%s%s", i ? ", " : "",
				    json_string_value(need));
		strbuf_addf(&line, ", which were not measured");
		print_wrapped(r->out, "hint", strbuf_str(&line));
		strbuf_release(&line);
	}
}

static void print_roofline(struct report *r, json_t *ev)
{
	FILE *out = r->out;
	json_t *points = json_object_get(ev, "points");
	if (!json_array_size(points)) {
		fprintf(out, "\nroofline: no plot: %s\n", event_str(ev, "reason"));
		return;
	}
	struct roofline rl = {.npeaks = 0};
	snprintf(rl.title, sizeof(rl.title), "%s", event_str(ev, "title"));
	snprintf(rl.bandwidth_label, sizeof(rl.bandwidth_label), "%s",
		 event_str(ev, "bandwidth_label"));
	rl.bandwidth = event_num(ev, "bandwidth");
	size_t i;
	json_t *x;
	json_array_foreach(json_object_get(ev, "peaks"), i, x) {
		if (rl.npeaks == ROOFLINE_MAX_PEAKS)
			break;
		snprintf(rl.peak_label[rl.npeaks], sizeof(rl.peak_label[0]),
			 "%s", event_str(x, "label"));
		rl.peak[rl.npeaks++] = event_num(x, "flops_per_s");
	}
	json_array_foreach(points, i, x) {
		if (rl.npoints == ROOFLINE_MAX_POINTS)
			break;
		struct roofline_point *p = &rl.point[rl.npoints++];
		snprintf(p->label, sizeof(p->label), "%s", event_str(x, "label"));
		p->flops_per_byte = event_num(x, "flops_per_byte");
		p->flops_per_s = event_num(x, "flops_per_s");
		p->peak = (int)event_num(x, "peak");
		if (p->peak < 0 || p->peak >= rl.npeaks)
			p->peak = 0;
	}
	fprintf(out, "\nroofline (Nsight Compute work and DRAM bytes, kernel "
		     "duration under the profiler)\n");
	roofline_text(&rl, out, 64, 16);
	if (*event_str(ev, "plot_error"))
		fprintf(out, "  plot not written: %s\n", event_str(ev, "plot_error"));
	else if (*event_str(ev, "plot"))
		fprintf(out, "  plot written to %s\n", event_str(ev, "plot"));
}

/* explain's run: only its own events are printed, as they arrive */
static void explain_text(struct report *r, json_t *ev)
{
	const char *k = event_kind(ev);
	if (!strcmp(k, "explain"))
		print_explain_step(r, ev);
	else if (!strcmp(k, "accesses"))
		print_accesses(r, ev);
	else if (!strcmp(k, "sass"))
		print_sass(r, ev);
	else if (!strcmp(k, "profile"))
		print_profile(r, ev);
	else if (!strcmp(k, "advice"))
		print_advice(r, ev);
	else if (!strcmp(k, "roofline"))
		print_roofline(r, ev);
	fflush(r->out);
}

void report_text(void *arg, json_t *ev)
{
	struct report *r = arg;
	FILE *o = r->out;
	remember(r, ev);
	const char *k = event_kind(ev);
	if (!strcmp(k, "run_begin"))
		r->explain = !strcmp(event_str(ev, "mode"), "explain");
	if (r->explain) {
		explain_text(r, ev);
		return;
	}
	if (!strcmp(k, "run_begin")) {
		snprintf(r->lab, sizeof(r->lab), "%s", event_str(ev, "lab"));
		fprintf(o, "%scudalab · %s%s — %s (%s)\n", col(r, C_BOLD),
			event_str(ev, "lab"), col(r, C_RESET), event_str(ev, "title"),
			event_str(ev, "mode"));
	} else if (!strcmp(k, "device")) {
		print_device(r, ev);
	} else if (!strcmp(k, "sandbox") &&
		   !json_is_true(json_object_get(ev, "on")) &&
		   !getenv("CUDALAB_SANDBOX_SAID")) {
		/* said once (run.py sets CUDALAB_SANDBOX_SAID after the first
		 * lab): the code runs unconfined (grade.h) */
		fprintf(o, "%ssandbox: off%s (%s): the code runs without it\n",
			col(r, C_DIM), col(r, C_RESET), event_str(ev, "reason"));
	} else if (!strcmp(k, "progress") &&
		   !strcmp(event_str(ev, "phase"), "build")) {
		print_build_progress(r, ev);
	} else if (!strcmp(k, "compile")) {
		print_compile_phase(r, ev);
		print_compile(r, ev);
	} else if (!strcmp(k, "step_begin")) {
		json_array_clear(r->details);
		snprintf(r->step, sizeof(r->step), "%s", event_str(ev, "step"));
		snprintf(r->step_title, sizeof(r->step_title), "%s",
			 event_str(ev, "title"));
		r->waited_shown = -1;
		fprintf(o, "\n%s%-5s%s %-38s ", col(r, C_BOLD), event_str(ev, "step"),
			col(r, C_RESET), event_str(ev, "title"));
		fflush(o);
	} else if (!strcmp(k, "case") || !strcmp(k, "guard") ||
		   !strcmp(k, "check")) {
		/* without a device, the checks judged from the build are the
		 * only verdicts there are: show the passing ones too */
		int no_device = r->device && !json_is_true(json_object_get(
						     r->device, "available"));
		int shown = !strcmp(k, "guard") ||
			    (!strcmp(k, "case") &&
			     !json_is_true(json_object_get(ev, "ok"))) ||
			    (!strcmp(k, "check") &&
			     (strcmp(event_str(ev, "status"), "pass") ||
			      r->verbose || no_device));
		if (shown)
			json_array_append(r->details, ev);
	} else if (!strcmp(k, "progress") &&
		   !strcmp(event_str(ev, "phase"), "waiting for the GPU")) {
		print_waiting(r, ev);
	} else if (!strcmp(k, "step_end")) {
		print_step_end(r, ev);
	} else if (!strcmp(k, "error") && !strcmp(event_str(ev, "step"), "vendor")) {
		fprintf(o, "\nvendor comparison failed: %s\n", event_str(ev, "message"));
	} else if (!strcmp(k, "run_end")) {
		print_sweep(r);
		size_t i;
		json_t *vt;
		json_array_foreach(r->vendor, i, vt)
		{
			json_t *v = vt;
			fprintf(o, "\nvendor %s%s%s: %.1f us  %.0f GB/s  %.1f%% of copy\n",
				event_str(v, "name"), *event_str(v, "variant") ? " · " : "",
				event_str(v, "variant"), event_num(v, "median_us"), event_num(v, "gbps"),
				event_num(v, "pct_of_copy"));
			/* the ratios are the grader's (verdict.c) */
			const char *key;
			json_t *t;
			json_object_foreach(json_object_get(v, "vs_steps"), key, t)
			{
				double ratio = json_number_value(t);
				fprintf(o, "  %-5s %.3fx the vendor's bandwidth%s\n",
					key, ratio,
					ratio > 1 ? " — faster than the library" : "");
			}
		}
		const char *v = event_str(ev, "verdict");
		fprintf(o, "\n%s%s%s: %d passed, %d failed, %d not graded of %d "
			   "step(s) in %.1f s\n",
			col(r, !strcmp(v, "pass") ? C_GREEN : !strcmp(v, "fail") ? C_RED : C_YELLOW),
			!strcmp(v, "not_graded") ? "NOT GRADED" : !strcmp(v, "pass") ? "PASS" : "FAIL",
			col(r, C_RESET), (int)event_num(ev, "passed"), (int)event_num(ev, "failed"),
			(int)event_num(ev, "not_graded"), (int)event_num(ev, "total"),
			event_num(ev, "seconds"));
		if (!strcmp(v, "not_graded") && r->device &&
		    !json_is_true(json_object_get(r->device, "available")))
			fprintf(o, "NOT GRADED: no CUDA device (%s)\n",
				event_str(r->device, "reason"));
	}
	fflush(o);
}
