#include "explain.h"
#include "sandbox.h"
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

static void compiler_facts(json_t *resources, json_t *facts)
{
	facts_from_resources(json_object_get(resources, "kernels"), facts);
}

/* Every global memory instruction of the step's PTX, by source line: the
 * "accesses" event (event.h). */
static json_t *memory_event(const char *step, json_t *ptx, const char *source,
			    json_t *facts)
{
	facts_from_ptx(ptx, facts);
	json_t *ev = json_pack("{s:s, s:s, s:s}", "event", "accesses", "step",
			       step, "ptx_file", event_str(ptx, "ptx_file"));
	struct strbuf text = STRBUF_INIT, src = STRBUF_INIT;
	if (strbuf_read_file(&text, event_str(ptx, "ptx_file")) < 0) {
		json_object_set_new(ev, "shown", json_false());
		strbuf_release(&text);
		return ev;
	}
	json_object_set_new(ev, "shown", json_true());
	strbuf_read_file(&src, source);
	json_t *ops = ptx_memory_ops(text.buf);
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
	json_t *rows = json_array();
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
		json_array_append_new(rows, json_pack(
			"{s:s, s:I, s:s, s:I, s:b, s:s}", "where", where, "count",
			json_integer_value(json_object_get(g, "count")),
			"kind", event_str(o, "kind"), "bytes",
			json_integer_value(json_object_get(o, "bytes")), "nc",
			json_is_true(json_object_get(o, "nc")), "code", code));
	}
	json_object_set_new(ev, "ops", rows);
	json_decref(groups);
	json_decref(ops);
	strbuf_release(&text);
	strbuf_release(&src);
	return ev;
}


/* The step's kept machine code: what the memory instructions became
 * (sass.h), as the "sass" event. */
static json_t *sass_event(const char *step, const char *cubin)
{
	char why[256];
	struct sass_counts c;
	json_t *ev = json_pack("{s:s, s:s, s:b}", "event", "sass", "step",
			       step, "shown", 0);
	if (access(cubin, R_OK) != 0) {
		snprintf(why, sizeof(why), "no machine code at %s", cubin);
		json_object_set_new(ev, "reason", json_string(why));
		return ev;
	}
	if (sass_read(cubin, &c, why, sizeof(why)) < 0) {
		json_object_set_new(ev, "reason", json_string(why));
		return ev;
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
	json_object_set_new(ev, "shown", json_true());
	json_object_set_new(ev, "summary",
			    json_string(sb.len ? strbuf_str(&sb)
					       : "no global memory instructions"));
	json_object_set_new(ev, "local_loads", json_integer(c.local_loads));
	json_object_set_new(ev, "local_stores", json_integer(c.local_stores));
	strbuf_release(&sb);
	return ev;
}

/* --- counters --------------------------------------------------------- */

#define HAVE(m) (pr->have[m])
#define V(m) (pr->value[m])

/* The facts of what ncu measured for one step, into facts, and the
 * figures the "profile" event carries beside the counters (work, fp64);
 * returns 1 and fills pt when the step has a place on the roofline (2:
 * against the FP64 ceiling). */
static int counter_facts(const struct profile_result *pr, double copy_gbps,
			 json_t *facts, json_t *ev, struct roofline_point *pt)
{
	double n = pr->elements;
	double dram = V(PM_DRAM_READ) + V(PM_DRAM_WRITE);
	double secs = V(PM_DURATION);
	profile_facts(pr, n, copy_gbps, facts);

	/* stall reasons as shares of the stalled warp-cycles ("selected" is
	 * the cycle a warp issues: not a stall), for the event */
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
		json_t *stalls = json_array();
		for (int a = 0; a < nstall; a++)
			json_array_append_new(stalls, json_pack("{s:s, s:f}",
				"reason", pm_stall_reason(order[a]),
				"pct", 100 * V(PM_STALL_FIRST + order[a]) / total));
		json_object_set_new(ev, "stalls", stalls);
	}

	double f32 = profile_flops(pr, 0), f64 = profile_flops(pr, 1);
	int fp64 = f64 > f32;
	double work = fp64 ? f64 : f32;
	if (!HAVE(PM_FFMA) || !HAVE(PM_DFMA))
		return 0;
	json_object_set_new(ev, "flops", json_real(work));
	json_object_set_new(ev, "fp64", json_boolean(fp64));
	if (work <= 0 || dram <= 0 || secs <= 0)
		return 0;
	pt->flops_per_byte = work / dram;
	pt->flops_per_s = work / secs;
	return 1 + fp64; /* 2: against the FP64 ceiling */
}

/* The "profile" event of explain: what ncu measured (counters by their ncu
 * names, base units), or why not. */
static json_t *profile_event(const char *step, const struct profile_result *pr)
{
	json_t *ev = json_pack("{s:s, s:s, s:s, s:s, s:b}", "event", "profile",
			       "step", step, "tool", "ncu", "set", "explain",
			       "measured", pr->measured);
	if (!pr->measured) {
		json_object_set_new(ev, "reason", json_string(pr->reason));
		return ev;
	}
	json_object_set_new(ev, "elements", json_real(pr->elements));
	json_object_set_new(ev, "kernels", json_integer(pr->kernels));
	json_object_set_new(ev, "longest", json_string(pr->longest));
	json_t *counters = json_object();
	for (int m = 0; m < PM_COUNT; m++)
		if (pr->have[m])
			json_object_set_new(counters, pm_info(m)->ncu_name,
					    json_real(pr->value[m]));
	json_object_set_new(ev, "counters", counters);
	return ev;
}

/* The lab's advice rules that hold on facts: the "advice" event; see
 * advice.h. */
static json_t *advice_event(const char *step, const struct lab_manifest *lab,
			    json_t *facts)
{
	int unchecked = 0;
	json_t *hints = json_array(), *needs = json_array();
	for (size_t i = 0; i < lab->nadvice; i++) {
		const struct advice_spec *a = &lab->advice[i];
		char missing[64];
		enum advice_match m = advice_eval(a->when, facts, missing,
						  sizeof(missing));
		if (m == ADVICE_UNKNOWN) {
			int seen = 0;
			size_t j;
			json_t *x;
			json_array_foreach(needs, j, x)
				seen |= !strcmp(json_string_value(x), missing);
			if (!seen)
				json_array_append_new(needs, json_string(missing));
			unchecked++;
			continue;
		}
		if (m != ADVICE_TRUE)
			continue;
		const struct step_spec *see = a->see ? manifest_step(lab, a->see) : NULL;
		json_t *h = json_pack("{s:s, s:s}", "hint", a->hint, "because",
				      a->when);
		/* a given kernel with the step's problem (coalescing v3's
		 * starter) is sent to the step itself: that is its fix; a
		 * stub never gets here (explain_lab says "not implemented") */
		if (see) {
			json_object_set_new(h, "see", json_string(see->id));
			json_object_set_new(h, "see_title", json_string(see->title));
		}
		json_array_append_new(hints, h);
	}
	return json_pack("{s:s, s:s, s:s, s:o, s:i, s:o, s:i}", "event",
			 "advice", "step", step, "lab", lab->name, "hints",
			 hints, "unchecked", unchecked, "needs", needs,
			 "rules", (int)lab->nadvice);
}

/* The "roofline" event: the chart's data, and the SVG written (--plot). */
static json_t *roofline_event(const struct explain_opts *e,
			      const struct roofline *rl, int gpu)
{
	json_t *ev = json_pack("{s:s}", "event", "roofline");
	if (rl->npoints > 0 && rl->npeaks > 0) {
		json_t *peaks = json_array(), *points = json_array();
		for (int i = 0; i < rl->npeaks; i++)
			json_array_append_new(peaks, json_pack(
				"{s:s, s:f}", "label", rl->peak_label[i],
				"flops_per_s", rl->peak[i]));
		for (int i = 0; i < rl->npoints; i++)
			json_array_append_new(points, json_pack(
				"{s:s, s:f, s:f, s:i}", "label", rl->point[i].label,
				"flops_per_byte", rl->point[i].flops_per_byte,
				"flops_per_s", rl->point[i].flops_per_s, "peak",
				rl->point[i].peak));
		json_object_set_new(ev, "title", json_string(rl->title));
		json_object_set_new(ev, "bandwidth", json_real(rl->bandwidth));
		json_object_set_new(ev, "bandwidth_label",
				    json_string(rl->bandwidth_label));
		json_object_set_new(ev, "peaks", peaks);
		json_object_set_new(ev, "points", points);
		if (e->plot) {
			char err[512];
			json_object_set_new(ev, "plot", json_string(e->plot));
			if (roofline_svg(rl, e->plot, err, sizeof(err)) < 0)
				json_object_set_new(ev, "plot_error",
						    json_string(err));
		}
		return ev;
	}
	if (!e->plot) {
		json_decref(ev);
		return NULL;
	}
	json_object_set_new(ev, "reason", json_string(
		!gpu || e->no_counters
			? "the counters were not measured"
			: "no step did floating-point work that reached DRAM"));
	return ev;
}

/*
 * The run's events pass through to the caller's sink as grade_lab sends
 * them, and are kept (explain reads the build's facts from them), except
 * run_end, which waits for the explanations: they are a phase of the same
 * run. run_begin says mode "explain".
 */
struct passthrough {
	event_sink sink;
	void *arg;
	json_t *events;
	json_t *run_end;
};

static void pass_on(void *arg, json_t *ev)
{
	struct passthrough *p = arg;
	const char *kind = event_kind(ev);
	json_array_append(p->events, ev);
	if (!strcmp(kind, "run_end")) {
		json_decref(p->run_end);
		p->run_end = json_incref(ev);
		return;
	}
	if (!strcmp(kind, "run_begin")) {
		json_t *copy = json_copy(ev);
		json_object_set_new(copy, "mode", json_string("explain"));
		p->sink(p->arg, copy);
		json_decref(copy);
		return;
	}
	p->sink(p->arg, ev);
}

static void send(struct passthrough *p, json_t *ev)
{
	if (!ev)
		return;
	json_array_append(p->events, ev);
	p->sink(p->arg, ev);
	json_decref(ev);
}

/* How step `id` of the run stands before it is explained: the "explain"
 * event, status "explained" when it is. */
static json_t *step_status(json_t *events, json_t *step, const char *source,
			   const char *lab)
{
	const char *id = event_str(step, "id");
	json_t *ev = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "event",
			       "explain", "step", id, "lab", lab, "title",
			       event_str(step, "title"), "file",
			       event_str(step, "file"), "source", source);
	json_t *lint = find(events, "lint", id);
	json_t *compile = find(events, "compile", id);
	const char *status = "explained";
	if (lint) {
		json_t *p = json_array_get(json_object_get(lint, "problems"), 0);
		status = "rejected";
		json_object_set_new(ev, "line", json_integer(json_integer_value(
						       json_object_get(p, "line"))));
		json_object_set_new(ev, "message",
				    json_string(event_str(p, "message")));
	} else if (compile && !strcmp(event_str(compile, "status"), "skipped")) {
		/* the target cannot take the step: nothing to explain */
		status = "not_built";
		json_object_set_new(ev, "message",
				    json_string(event_str(compile, "reason")));
	} else if (compile && !strcmp(event_str(compile, "status"), "failed")) {
		json_t *d = json_array_get(json_object_get(compile, "diagnostics"), 0);
		status = "compile_error";
		json_object_set_new(ev, "error_file",
				    json_string(event_str(d, "file")));
		json_object_set_new(ev, "line", json_integer(json_integer_value(
						       json_object_get(d, "line"))));
		json_object_set_new(ev, "message",
				    json_string(event_str(d, "message")));
	} else {
		int todo = step_todo_line(source);
		if (todo) {
			/* a stub's build says nothing about the step, and its
			 * hints would point at the step itself */
			status = "not_implemented";
			json_object_set_new(ev, "line", json_integer(todo));
		}
	}
	json_object_set_new(ev, "status", json_string(status));
	return ev;
}

/* One explain run: what its steps share, from the build's events. */
struct explain_run {
	const struct grade_opts *o;
	const struct explain_opts *e;
	struct passthrough *pt;
	json_t *events;             /* the build's events, kept */
	struct lab_manifest lab;
	json_t *device;             /* the "device" event */
	int gpu;                    /* a CUDA device answered */
	double copy_gbps;           /* its measured copy bandwidth */
	struct sandbox *sb;         /* ncu's box, or NULL: none */
	char box_parent[PATH_MAX];  /* where the box's folders go */
	struct roofline rl;
};

/* The box ncu runs the student's program in, as the build did (grade_lab's
 * "sandbox" event says whether one started here): NULL when none, or
 * when the counters are not read at all. */
static struct sandbox *explain_box(const struct explain_run *x)
{
	json_t *sbev = find(x->events, "sandbox", NULL);
	char probe[PATH_MAX];
	snprintf(probe, sizeof(probe), "%s/devprobe", x->o->build_dir);
	struct sandbox *sb = NULL;
	if (!x->gpu || x->e->no_counters ||
	    !json_is_true(json_object_get(sbev, "on")) ||
	    !(sb = calloc(1, sizeof(*sb))))
		return NULL;
	const char *pargv[] = {probe, NULL};
	if (!sandbox_probe(sb, pargv, "\"available\":true")) {
		free(sb);
		return NULL;
	}
	if (!realpath(x->o->root, sb->hide))
		sb->hide[0] = 0;
	return sb;
}

/* The roofline's frame: the device's name and its measured copy. */
static void roofline_frame(struct explain_run *x)
{
	struct roofline *rl = &x->rl;
	*rl = (struct roofline){.npeaks = 0};
	snprintf(rl->title, sizeof(rl->title), "%s on %s", x->lab.name,
		 event_str(x->device, "name"));
	snprintf(rl->bandwidth_label, sizeof(rl->bandwidth_label),
		 "measured copy");
	rl->bandwidth = x->copy_gbps * 1e9;
}

/* Step id's point on the roofline (placed: counter_facts' answer), and
 * the FP32/FP64 peaks from the first step whose counters have them. */
static void roofline_place(struct roofline *rl, const char *id, int placed,
			   struct roofline_point pt,
			   const struct profile_result *pr)
{
	if (!placed || rl->bandwidth <= 0 || rl->npoints >= ROOFLINE_MAX_POINTS)
		return;
	snprintf(pt.label, sizeof(pt.label), "%s", id);
	pt.peak = placed - 1;
	rl->point[rl->npoints++] = pt;
	if (!rl->npeaks && pr->have[PM_PEAK_FFMA] && pr->have[PM_PEAK_DFMA] &&
	    pr->have[PM_SM_HZ]) {
		double hz = pr->value[PM_SM_HZ];
		rl->peak[0] = 2 * pr->value[PM_PEAK_FFMA] * hz;
		rl->peak[1] = 2 * pr->value[PM_PEAK_DFMA] * hz;
		snprintf(rl->peak_label[0], sizeof(rl->peak_label[0]),
			 "FP32 FMA peak");
		snprintf(rl->peak_label[1], sizeof(rl->peak_label[1]),
			 "FP64 FMA peak");
		rl->npeaks = 2;
	}
}

/* Read step id's counters under ncu, or say in pr->reason why not. */
static void explain_profile(const struct explain_run *x, const char *id,
			    struct profile_result *pr)
{
	if (x->e->no_counters) {
		snprintf(pr->reason, sizeof(pr->reason), "--no-counters");
	} else if (!x->gpu) {
		snprintf(pr->reason, sizeof(pr->reason), "no CUDA device (%s)",
			 event_str(x->device, "reason"));
	} else {
		json_t *compile = find(x->events, "compile", id);
		profile_step(x->sb, x->box_parent, event_str(compile, "exe"),
			     x->o->time_limit_s > 0 ? x->o->time_limit_s : 120,
			     PROFILE_EXPLAIN,
			     json_string_value(json_object_get(x->device,
							       "uuid")),
			     pr);
	}
}

/* One step's explanation: its status, then (when it built) its memory,
 * SASS, profile and advice events. Returns whether it was rejected or
 * did not compile. */
static int explain_step(struct explain_run *x, json_t *step,
			const char *src_dir)
{
	const char *id = event_str(step, "id");
	char source[4096];
	snprintf(source, sizeof(source), "%s/%s", src_dir,
		 event_str(step, "file"));
	json_t *status = step_status(x->events, step, source, x->lab.name);
	const char *st = event_str(status, "status");
	int explained = !strcmp(st, "explained");
	int failed = !strcmp(st, "rejected") || !strcmp(st, "compile_error");
	json_incref(status);
	send(x->pt, status);
	json_decref(status);
	if (!explained)
		return failed;
	json_t *facts = json_object();
	json_t *res = find(x->events, "resources", id);
	json_t *ptx = find(x->events, "ptx", id);
	if (res)
		compiler_facts(res, facts);
	if (ptx) {
		send(x->pt, memory_event(id, ptx, source, facts));
		send(x->pt, sass_event(id, event_str(ptx, "cubin_file")));
	}
	struct profile_result pr = {.measured = 0};
	explain_profile(x, id, &pr);
	json_t *prof = profile_event(id, &pr);
	struct roofline_point pt = {.flops_per_byte = 0};
	int placed = 0;
	if (pr.measured)
		placed = counter_facts(&pr, x->copy_gbps, facts, prof, &pt);
	json_object_set(prof, "facts", facts);
	send(x->pt, prof);
	roofline_place(&x->rl, id, placed, pt, &pr);
	send(x->pt, advice_event(id, &x->lab, facts));
	json_decref(facts);
	return failed;
}

int explain_lab(const struct grade_opts *o, const struct explain_opts *e,
		event_sink sink, void *arg, char *err, size_t errlen)
{
	struct grade_opts b = *o;
	b.build_only = 1;
	struct passthrough pt_sink = {sink, arg, json_array(), NULL};
	struct explain_run x = {.o = o, .e = e, .pt = &pt_sink,
				.events = pt_sink.events};
	int rc = grade_lab(&b, pass_on, &pt_sink, err, errlen);
	char lab_dir[4096];
	snprintf(lab_dir, sizeof(lab_dir), "%s/labs/%s", o->root, o->lab);
	if (rc >= 0 && manifest_load(lab_dir, &x.lab, err, errlen) < 0)
		rc = -1;
	if (rc < 0) {
		json_decref(x.events);
		json_decref(pt_sink.run_end);
		return rc;
	}
	json_t *begin = find(x.events, "run_begin", NULL);
	x.device = find(x.events, "device", NULL);
	x.gpu = json_is_true(json_object_get(x.device, "available"));
	x.copy_gbps = json_number_value(json_object_get(x.device, "copy_gbps"));
	roofline_frame(&x);
	snprintf(x.box_parent, sizeof(x.box_parent), "%s/box", o->build_dir);
	x.sb = explain_box(&x);
	int failed = 0;
	size_t i;
	json_t *step;
	json_array_foreach(json_object_get(begin, "steps"), i, step)
		failed |= explain_step(&x, step, event_str(begin, "source"));
	send(&pt_sink, roofline_event(e, &x.rl, x.gpu));
	if (pt_sink.run_end)
		sink(arg, pt_sink.run_end);
	json_decref(pt_sink.run_end);
	free(x.sb);
	manifest_free(&x.lab);
	json_decref(x.events);
	return failed;
}
