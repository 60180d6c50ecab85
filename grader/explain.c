#include "explain.h"
#include "sandbox.h"
#include "demangle.h"
#include "advice.h"
#include "facts.h"
#include "event.h"
#include "manifest.h"
#include "profiler.h"
#include "ptx.h"
#include "roofline.h"
#include "sass.h"
#include "strbuf.h"

#include <jansson.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

static void collect(void *arg, json_t *ev)
{
	json_array_append((json_t *)arg, ev);
}

/* The last event of kind for step (borrowed), or NULL. */
static json_t *find(json_t *events, const char *kind, const char *step)
{
	json_t *found = NULL, *ev;
	size_t i;
	json_array_foreach(events, i, ev)
		if (!strcmp(event_kind(ev), kind) &&
		    (!step || !strcmp(event_str(ev, "step"), step)))
			found = ev;
	return found;
}

/* Line lineno of the text in sb (1-based), trimmed, into buf. */
static const char *source_line(const struct strbuf *sb, long lineno,
			       char *buf, size_t len)
{
	const char *p = sb->buf ? sb->buf : "";
	for (long n = 1; n < lineno && *p; n++) {
		p = strchr(p, '\n');
		p = p ? p + 1 : "";
	}
	while (*p == ' ' || *p == '\t')
		p++;
	snprintf(buf, len, "%.*s", (int)strcspn(p, "\n"), p);
	return buf;
}

static void print_compiler(FILE *out, json_t *resources, json_t *facts)
{
	size_t i;
	json_t *k;
	facts_from_resources(json_object_get(resources, "kernels"), facts);
	json_array_foreach(json_object_get(resources, "kernels"), i, k) {
		char name[400];
		fprintf(out, "  compiler  %s: %lld registers, %lld B spilled, "
			     "%lld B shared memory, %lld B stack\n",
			demangle(event_str(k, "name"), name, sizeof(name)),
			json_integer_value(json_object_get(k, "registers")),
			json_integer_value(json_object_get(k, "spill_store_bytes")) +
				json_integer_value(json_object_get(k, "spill_load_bytes")),
			json_integer_value(json_object_get(k, "shared_bytes")),
			json_integer_value(json_object_get(k, "stack_bytes")));
	}
}

/* Every global memory instruction of the step's PTX, by source line. */
static void print_memory(FILE *out, json_t *ptx, const char *source,
			 json_t *facts)
{
	facts_from_ptx(ptx, facts);
	struct strbuf text = STRBUF_INIT, src = STRBUF_INIT;
	if (strbuf_read_file(&text, event_str(ptx, "ptx_file")) < 0) {
		fprintf(out, "  memory    not shown: the PTX (%s) cannot be "
			     "read\n", event_str(ptx, "ptx_file"));
		strbuf_release(&text);
		return;
	}
	strbuf_read_file(&src, source);
	json_t *ops = ptx_memory_ops(text.buf);
	fprintf(out, "  memory    global accesses in the PTX (static: each "
		     "instruction once, however often it runs)\n");
	/* one row per (line, kind, width, path), in first-seen order: a
	 * line's two loads, or an unrolled loop's copies, become a count */
	json_t *groups = json_array();
	size_t i, j;
	json_t *o, *g;
	json_array_foreach(ops, i, o) {
		json_t *hit = NULL;
		json_array_foreach(groups, j, g)
			if (json_equal(json_object_get(g, "op"), o))
				hit = g;
		if (hit)
			json_object_set_new(hit, "count",
					    json_integer(json_integer_value(json_object_get(hit, "count")) + 1));
		else
			json_array_append_new(groups, json_pack("{s:O, s:i}", "op", o,
								"count", 1));
	}
	char src_path[4096];
	snprintf(src_path, sizeof(src_path), "%s", source);
	json_array_foreach(groups, i, g) {
		o = json_object_get(g, "op");
		long line = (long)json_integer_value(json_object_get(o, "line"));
		const char *file = event_str(o, "file");
		char where[96] = "?", code[160] = "";
		if (line > 0) {
			/* the line may be in a header (an inlined function);
			 * the step's own file may be named by another folder's
			 * path (a cached build of the same content, compiled
			 * from elsewhere, perhaps since deleted): the file
			 * being explained has the same text */
			const char *fb = strrchr(file, '/');
			const char *sb = strrchr(source, '/');
			if (!strcmp(fb ? fb + 1 : file, sb ? sb + 1 : source))
				file = source;
			if (strcmp(file, src_path)) {
				strbuf_release(&src);
				strbuf_read_file(&src, file);
				snprintf(src_path, sizeof(src_path), "%s", file);
			}
			const char *base = strrchr(file, '/');
			snprintf(where, sizeof(where), "%s:%ld",
				 base ? base + 1 : file, line);
			source_line(&src, line, code, sizeof(code));
		}
		const char *kind = event_str(o, "kind");
		fprintf(out, "    %-22s %3lldx %-5s %2lld B %-14s | %s\n", where,
			json_integer_value(json_object_get(g, "count")), kind,
			json_integer_value(json_object_get(o, "bytes")),
			json_is_true(json_object_get(o, "nc")) ? "read-only path"
			: !strcmp(kind, "async")	       ? "global->shared"
							       : "",
			code);
	}
	json_decref(groups);
	fprintf(out, "            %lld load(s), widest %lld B, %lld read-only; "
		     "%lld store(s), widest %lld B; %lld asynchronous copies\n",
		(long long)event_num(ptx, "global_loads"),
		(long long)event_num(ptx, "max_load_bytes"),
		(long long)event_num(ptx, "nc_loads"),
		(long long)event_num(ptx, "global_stores"),
		(long long)event_num(ptx, "max_store_bytes"),
		(long long)event_num(ptx, "async_copies"));
	json_decref(ops);
	strbuf_release(&text);
	strbuf_release(&src);
}


/* The step's kept machine code: what the memory instructions became
 * (sass.h). */
static void print_sass(FILE *out, const char *cubin)
{
	char why[256];
	struct sass_counts c;
	if (access(cubin, R_OK) != 0) {
		fprintf(out, "  sass      not shown: no machine code at %s\n",
			cubin);
		return;
	}
	if (sass_read(cubin, &c, why, sizeof(why)) < 0) {
		fprintf(out, "  sass      not shown: %s\n", why);
		return;
	}
	struct strbuf sb = STRBUF_INIT;
	static const char *const what[] = {"LDG", "STG", "LDGSTS"};
	for (int kind = 0; kind < 3; kind++) {
		const int *count = kind == 0 ? c.loads : kind == 1 ? c.stores : c.async;
		int first = 1;
		for (int w = SASS_WIDTHS - 1; w >= 0; w--) {
			if (!count[w])
				continue;
			strbuf_addf(&sb, "%s%s %d B x%d", first ? (sb.len ? "; " : "") : ",",
				    first ? what[kind] : "", sass_width_bytes(w), count[w]);
			if (kind == 0 && c.nc_loads[w])
				strbuf_addf(&sb, " (%d read-only)", c.nc_loads[w]);
			first = 0;
		}
	}
	if (c.local_loads || c.local_stores)
		strbuf_addf(&sb, "; local memory (spills or a stack array): %d "
			    "loads, %d stores", c.local_loads, c.local_stores);
	fprintf(out, "  sass      machine code (cuobjdump), all paths: %s\n",
		sb.len ? strbuf_str(&sb) : "no global memory instructions");
	strbuf_release(&sb);
}

/* --- counters --------------------------------------------------------- */

#define HAVE(m) (pr->have[m])
#define V(m) (pr->value[m])

static const char *not_measured = "not measured (ncu reported no value)";

/* Print what ncu measured for one step and add it to facts; returns 1 and
 * fills pt when the step has a place on the roofline. */
static int print_counters(FILE *out, const struct profile_result *pr,
			  double copy_gbps, json_t *facts,
			  struct roofline_point *pt)
{
	double n = pr->elements;
	profile_facts(pr, n, copy_gbps, facts);
	fprintf(out, "  counters  Nsight Compute on the timed-size case (n = "
		     "%.0f), %d kernel launch(es)%s%s, SM clock %.2f GHz as "
		     "found\n",
		n, pr->kernels, pr->kernels > 1 ? ", longest " : "",
		pr->kernels > 1 ? pr->longest : "", V(PM_SM_HZ) / 1e9);
	double dram = V(PM_DRAM_READ) + V(PM_DRAM_WRITE);
	double secs = V(PM_DURATION);
	if (HAVE(PM_DRAM_PCT)) {
		fprintf(out, "    DRAM          %.1f %% of its peak throughput",
			V(PM_DRAM_PCT));
		if (HAVE(PM_DRAM_READ) && HAVE(PM_DRAM_WRITE) && n > 0) {
			fprintf(out, "; %.1f MB moved = %.2f B per element",
				dram / 1e6, dram / n);
		}
		if (HAVE(PM_DURATION) && secs > 0 && copy_gbps > 0) {
			double pct = 100 * dram / secs / 1e9 / copy_gbps;
			fprintf(out, "; %.0f GB/s in %.1f us = %.0f %% of the "
				     "measured copy bandwidth%s",
				dram / secs / 1e9, secs * 1e6, pct,
				pct >= 85 ? ": at the memory roof, only moving "
					    "fewer bytes makes it much faster"
					  : "");
		}
		fputc('\n', out);
	} else {
		fprintf(out, "    DRAM          %s\n", not_measured);
	}

	const char *limiter = profile_occupancy_limiter(pr);
	if (HAVE(PM_OCC_ACHIEVED)) {
		fprintf(out, "    occupancy     %.1f %% achieved, %.0f %% allowed "
			     "by the launch; limited by: %s (blocks/SM allowed "
			     "by registers %.0f, shared memory %.0f, block "
			     "size %.0f, block slots %.0f); %.0f registers/"
			     "thread, %.0f-thread blocks, %.2f waves\n",
			V(PM_OCC_ACHIEVED), V(PM_OCC_THEORETICAL), limiter,
			V(PM_LIMIT_REGISTERS), V(PM_LIMIT_SHARED),
			V(PM_LIMIT_WARPS), V(PM_LIMIT_BLOCKS), V(PM_REGISTERS),
			V(PM_BLOCK_SIZE), V(PM_WAVES));
	} else {
		fprintf(out, "    occupancy     %s\n", not_measured);
	}

	static const struct {
		const char *label, *fact;
		enum pm_metric sectors, requests;
	} traffic[] = {{"global loads ", "load_sectors_per_request",
			PM_LD_SECTORS, PM_LD_REQUESTS},
		       {"global stores", "store_sectors_per_request",
			PM_ST_SECTORS, PM_ST_REQUESTS}};
	for (size_t i = 0; i < 2; i++) {
		enum pm_metric s = traffic[i].sectors, r = traffic[i].requests;
		if (!HAVE(s) || !HAVE(r)) {
			fprintf(out, "    %s %s\n", traffic[i].label, not_measured);
		} else if (V(r) == 0) {
			fprintf(out, "    %s none\n", traffic[i].label);
		} else {
			double per = V(s) / V(r);
			fprintf(out, "    %s %.2f sectors of 32 B per warp request "
				     "(%.0f requests)\n",
				traffic[i].label, per, V(r));
		}
	}

	if (HAVE(PM_WARP_INST) && n > 0) {
		double per = V(PM_WARP_INST) * 32 / n;
		fprintf(out, "    instructions  %.2f per element (%.0f warp "
			     "instructions x 32 / n)\n", per, V(PM_WARP_INST));
	} else {
		fprintf(out, "    instructions  %s\n",
			n > 0 ? not_measured : "not measured (the harness "
					       "reported no element count)");
	}
	if (HAVE(PM_CONFLICTS_LD) && HAVE(PM_CONFLICTS_ST) && n > 0) {
		double c = V(PM_CONFLICTS_LD) + V(PM_CONFLICTS_ST);
		fprintf(out, "    shared memory %.0f bank conflicts (loads %.0f, "
			     "stores %.0f) = %.3f per element\n",
			c, V(PM_CONFLICTS_LD), V(PM_CONFLICTS_ST), c / n);
	} else {
		fprintf(out, "    shared memory %s\n", not_measured);
	}
	if (HAVE(PM_L1_HIT) && HAVE(PM_L2_HIT)) {
		fprintf(out, "    caches        L1 hit %.1f %%, L2 hit %.1f %% "
			     "of sectors\n", V(PM_L1_HIT), V(PM_L2_HIT));
	} else {
		fprintf(out, "    caches        %s\n", not_measured);
	}

	/* stall reasons as shares of the stalled warp-cycles ("selected" is
	 * the cycle a warp issues: not a stall) */
	double total = 0;
	int order[PM_NSTALLS], nstall = 0;
	for (int i = 0; i < PM_NSTALLS; i++)
		if (HAVE(PM_STALL_FIRST + i) && strcmp(pm_stall_reason(i), "selected"))
			total += V(PM_STALL_FIRST + i), order[nstall++] = i;
	if (total > 0) {
		for (int a = 0; a < nstall; a++) /* by share, largest first */
			for (int b = a + 1; b < nstall; b++)
				if (V(PM_STALL_FIRST + order[b]) > V(PM_STALL_FIRST + order[a])) {
					int t = order[a];
					order[a] = order[b], order[b] = t;
				}
		fprintf(out, "    stalls        ");
		for (int a = 0; a < nstall; a++) {
			const char *r = pm_stall_reason(order[a]);
			double pct = 100 * V(PM_STALL_FIRST + order[a]) / total;
			if (a < 3)
				fprintf(out, "%s%s %.0f %%", a ? ", " : "", r, pct);
		}
		fprintf(out, " of stalled warp-cycles\n");
	} else {
		fprintf(out, "    stalls        %s\n", not_measured);
	}

	double f32 = profile_flops(pr, 0), f64 = profile_flops(pr, 1);
	int fp64 = f64 > f32;
	double work = fp64 ? f64 : f32;
	if (!HAVE(PM_FFMA) || !HAVE(PM_DFMA)) {
		fprintf(out, "    work          %s\n", not_measured);
		return 0;
	}
	if (work <= 0) {
		fprintf(out, "    work          no floating-point operations: a "
			     "data mover, whose ceiling is the copy bandwidth\n");
		return 0;
	}
	fprintf(out, "    work          %.3g %s FLOP (FMA = 2)", work,
		fp64 ? "FP64" : "FP32/16");
	if (dram > 0) {
		fprintf(out, " = %.3g FLOP per DRAM byte", work / dram);
	}
	fputc('\n', out);
	if (dram <= 0 || secs <= 0)
		return 0;
	pt->flops_per_byte = work / dram;
	pt->flops_per_s = work / secs;
	return 1 + fp64; /* 2: against the FP64 ceiling */
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

/* The lab's advice rules that hold on facts, after them; see advice.h. */
static void print_hints(FILE *out, const struct lab_manifest *lab,
			json_t *facts)
{
	int shown = 0, unchecked = 0;
	char needs[512] = "";
	for (size_t i = 0; i < lab->nadvice; i++) {
		const struct advice_spec *a = &lab->advice[i];
		char missing[64];
		enum advice_match m = advice_eval(a->when, facts, missing,
						  sizeof(missing));
		if (m == ADVICE_UNKNOWN) {
			if (!strstr(needs, missing) &&
			    strlen(needs) + strlen(missing) + 3 < sizeof(needs))
				snprintf(needs + strlen(needs),
					 sizeof(needs) - strlen(needs), "%s%s",
					 *needs ? ", " : "", missing);
			unchecked++;
			continue;
		}
		if (m != ADVICE_TRUE)
			continue;
		const struct step_spec *see = a->see ? manifest_step(lab, a->see) : NULL;
		struct strbuf text = STRBUF_INIT;
		strbuf_addf(&text, "%s", a->hint);
		/* a given kernel with the step's problem (coalescing v3's
		 * starter) is sent to the step itself: that is its fix; a
		 * stub never gets here (explain_lab says "not implemented") */
		if (see)
			strbuf_addf(&text, " -> step %s, \"%s\", in labs/%s/README.md.",
				    see->id, see->title, lab->name);
		strbuf_addf(&text, " [because %s]", a->when);
		print_wrapped(out, "hint", strbuf_str(&text));
		strbuf_release(&text);
		shown++;
	}
	if (!shown && !unchecked && lab->nadvice)
		fprintf(out, "  hint      none of the lab's %zu hints applies\n",
			lab->nadvice);
	if (unchecked) {
		char line[768];
		snprintf(line, sizeof(line), "%d more not checked: they need %s, "
			 "which were not measured", unchecked, needs);
		print_wrapped(out, "hint", line);
	}
}

static void print_roofline(FILE *out, const struct explain_opts *e,
			   struct roofline *rl)
{
	fprintf(out, "\nroofline (Nsight Compute work and DRAM bytes, kernel "
		     "duration under the profiler)\n");
	roofline_text(rl, out, 64, 16);
	if (e->plot) {
		char err[512];
		if (roofline_svg(rl, e->plot, err, sizeof(err)) < 0)
			fprintf(out, "  plot not written: %s\n", err);
		else
			fprintf(out, "  plot written to %s\n", e->plot);
	}
}

int explain_lab(const struct grade_opts *o, const struct explain_opts *e,
		FILE *out, char *err, size_t errlen)
{
	struct grade_opts b = *o;
	b.build_only = 1;
	json_t *events = json_array();
	int rc = grade_lab(&b, collect, events, err, errlen);
	if (rc < 0) {
		json_decref(events);
		return rc;
	}
	char lab_dir[4096];
	snprintf(lab_dir, sizeof(lab_dir), "%s/labs/%s", o->root, o->lab);
	struct lab_manifest lab;
	if (manifest_load(lab_dir, &lab, err, errlen) < 0) {
		json_decref(events);
		return -1;
	}
	json_t *begin = find(events, "run_begin", NULL);
	json_t *device = find(events, "device", NULL);
	int gpu = json_is_true(json_object_get(device, "available"));
	double copy_gbps = json_number_value(json_object_get(device, "copy_gbps"));
	const char *src_dir = event_str(begin, "source");
	struct roofline rl = {.npeaks = 0};
	snprintf(rl.title, sizeof(rl.title), "%s on %s", lab.name,
		 event_str(device, "name"));
	snprintf(rl.bandwidth_label, sizeof(rl.bandwidth_label),
		 "measured copy");
	rl.bandwidth = copy_gbps * 1e9;
	/* ncu runs the student's program: in a box, as the build did
	 * (grade_lab's "sandbox" event says whether one started here) */
	struct sandbox *sb = NULL;
	json_t *sbev = find(events, "sandbox", NULL);
	char box_parent[PATH_MAX], probe[PATH_MAX];
	snprintf(box_parent, sizeof(box_parent), "%s/box", o->build_dir);
	snprintf(probe, sizeof(probe), "%s/devprobe", o->build_dir);
	if (gpu && !e->no_counters &&
	    json_is_true(json_object_get(sbev, "on")) &&
	    (sb = calloc(1, sizeof(*sb)))) {
		const char *pargv[] = {probe, NULL};
		if (!sandbox_probe(sb, pargv, "\"available\":true")) {
			free(sb);
			sb = NULL;
		} else if (!realpath(o->root, sb->hide)) {
			sb->hide[0] = 0;
		}
	}
	int failed = 0;
	size_t i;
	json_t *step;
	json_array_foreach(json_object_get(begin, "steps"), i, step) {
		const char *id = event_str(step, "id");
		char source[4096];
		snprintf(source, sizeof(source), "%s/%s", src_dir,
			 event_str(step, "file"));
		fprintf(out, "\n%s %s — %s  (%s)\n", event_str(begin, "lab"), id,
			event_str(step, "title"), source);
		json_t *lint = find(events, "lint", id);
		json_t *compile = find(events, "compile", id);
		if (lint) {
			json_t *p = json_array_get(json_object_get(lint, "problems"), 0);
			fprintf(out, "  rejected  line %lld: %s\n",
				json_integer_value(json_object_get(p, "line")),
				event_str(p, "message"));
			failed = 1;
			continue;
		}
		if (compile && !strcmp(event_str(compile, "status"), "skipped")) {
			/* the target cannot take the step: nothing to explain */
			fprintf(out, "  not built: %s\n",
				event_str(compile, "reason"));
			continue;
		}
		if (compile && !strcmp(event_str(compile, "status"), "failed")) {
			json_t *d = json_array_get(
				json_object_get(compile, "diagnostics"), 0);
			fprintf(out, "  does not compile: %s:%lld: %s\n",
				event_str(d, "file"),
				json_integer_value(json_object_get(d, "line")),
				event_str(d, "message"));
			failed = 1;
			continue;
		}
		int todo = step_todo_line(source);
		if (todo) {
			/* a stub's build says nothing about the step, and its
			 * hints would point at the step itself */
			fprintf(out, "  not implemented: %s:%d still calls "
				     "CUDALAB_TODO(); write the step (its section "
				     "in labs/%s/README.md says what it must do), "
				     "then explain it\n",
				event_str(step, "file"), todo, lab.name);
			continue;
		}
		json_t *facts = json_object();
		json_t *res = find(events, "resources", id);
		json_t *ptx = find(events, "ptx", id);
		if (res)
			print_compiler(out, res, facts);
		if (ptx) {
			print_memory(out, ptx, source, facts);
			print_sass(out, event_str(ptx, "cubin_file"));
		}
		if (e->no_counters) {
			fprintf(out, "  counters  not measured: --no-counters\n");
		} else if (!gpu) {
			fprintf(out, "  counters  not measured: no CUDA device "
				     "(%s)\n", event_str(device, "reason"));
		} else {
			struct profile_result pr;
			profile_step(sb, box_parent, event_str(compile, "exe"),
				     o->time_limit_s > 0 ? o->time_limit_s : 120,
				     PROFILE_EXPLAIN,
				     json_string_value(json_object_get(device,
								       "uuid")),
				     &pr);
			struct roofline_point pt = {.flops_per_byte = 0};
			int placed = 0;
			if (!pr.measured)
				fprintf(out, "  counters  not measured: %s\n", pr.reason);
			else
				placed = print_counters(out, &pr, copy_gbps,
							facts, &pt);
			if (placed && rl.bandwidth > 0 &&
			    rl.npoints < ROOFLINE_MAX_POINTS) {
				snprintf(pt.label, sizeof(pt.label), "%s", id);
				pt.peak = placed - 1;
				rl.point[rl.npoints++] = pt;
				if (!rl.npeaks && pr.have[PM_PEAK_FFMA] &&
				    pr.have[PM_PEAK_DFMA] && pr.have[PM_SM_HZ]) {
					double hz = pr.value[PM_SM_HZ];
					rl.peak[0] = 2 * pr.value[PM_PEAK_FFMA] * hz;
					rl.peak[1] = 2 * pr.value[PM_PEAK_DFMA] * hz;
					snprintf(rl.peak_label[0], sizeof(rl.peak_label[0]),
						 "FP32 FMA peak");
					snprintf(rl.peak_label[1], sizeof(rl.peak_label[1]),
						 "FP64 FMA peak");
					rl.npeaks = 2;
				}
			}
		}
		print_hints(out, &lab, facts);
		json_decref(facts);
	}
	if (rl.npoints > 0 && rl.npeaks > 0)
		print_roofline(out, e, &rl);
	else if (e->plot)
		fprintf(out, "\nroofline: no plot: %s\n",
			!gpu || e->no_counters
				? "the counters were not measured"
				: "no step did floating-point work that reached DRAM");
	free(sb);
	manifest_free(&lab);
	json_decref(events);
	return failed;
}
