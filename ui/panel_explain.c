/*
 * The explain view: what `explain` found for a step (grader/explain.h),
 * drawn in place from its events (common/event.h) while they arrive —
 * the build's resources and memory accesses, the SASS, the counters and
 * the hints, then the roofline's points. Labels as in the text report
 * (compiler, memory, sass, counters, hint). Scrolls by item (↑↓, PgUp/PgDn).
 */
#include "demangle.h"
#include "event.h"
#include "panels.h"
#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define INDENT 12 /* where the text after a label starts */

struct lines {
	struct canvas *c;
	int row, bottom, skip;
};

/* One item: a label and its text, wrapped under the text's column. */
static void item(struct lines *l, const char *label, enum style st,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void item(struct lines *l, const char *label, enum style st,
		 const char *fmt, ...)
{
	if (l->skip > 0) {
		l->skip--;
		return;
	}
	if (l->row >= l->bottom)
		return;
	char text[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	canvas_text(l->c, l->row, 2, label, !strcmp(label, "hint")
						    ? ST_ACCENT : ST_BOLD, INDENT - 2);
	if (!text[0] && !label[0]) { /* a blank line */
		l->row++;
		return;
	}
	/* an unlabelled item's leading spaces indent it */
	int indent = (int)strspn(text, " ");
	l->row = draw_wrapped(l->c, l->row, l->bottom,
			      *label ? INDENT : 2 + indent, text + indent, st);
}

/* The kernels' resources of step: from the explain run, else the step's. */
static const json_t *resources(const struct ui_state *s, const char *step)
{
	const json_t *found = NULL, *ev;
	size_t i;
	json_array_foreach(s->explain.events, i, ev)
		if (!strcmp(event_kind(ev), "resources") &&
		    !strcmp(event_str(ev, "step"), step))
			found = json_object_get(ev, "kernels");
	for (int k = 0; !found && k < s->nsteps; k++)
		if (!strcmp(s->steps[k].id, step))
			found = s->steps[k].resources;
	return found;
}

static void step_heading(const struct ui_state *s, struct lines *l,
			 const json_t *ev)
{
	const char *st = event_str(ev, "status");
	item(l, "", ST_NORMAL, "%s", "");
	item(l, "", ST_BOLD, "%s — %s  (%s)", event_str(ev, "step"),
	     event_str(ev, "title"), event_str(ev, "file"));
	if (!strcmp(st, "rejected")) {
		item(l, "rejected", ST_FAIL, "line %d: %s",
		     (int)event_num(ev, "line"), event_str(ev, "message"));
	} else if (!strcmp(st, "not_built")) {
		item(l, "not built", ST_WARN, "%s", event_str(ev, "message"));
	} else if (!strcmp(st, "compile_error")) {
		item(l, "error", ST_FAIL, "does not compile: %s:%d: %s",
		     event_str(ev, "error_file"), (int)event_num(ev, "line"),
		     event_str(ev, "message"));
	} else if (!strcmp(st, "not_implemented")) {
		item(l, "todo", ST_WARN, "not implemented: %s:%d still calls "
		     "CUDALAB_TODO(); write the step, then explain it",
		     event_str(ev, "file"), (int)event_num(ev, "line"));
	} else {
		size_t i;
		const json_t *k;
		json_array_foreach(resources(s, event_str(ev, "step")), i, k) {
			char name[300];
			item(l, "compiler", ST_NORMAL, "%s: %.0f registers, %.0f B "
			     "spilled, %.0f B shared memory, %.0f B stack",
			     demangle(event_str(k, "name"), name, sizeof(name)),
			     event_num(k, "registers"),
			     event_num(k, "spill_store_bytes") +
				     event_num(k, "spill_load_bytes"),
			     event_num(k, "shared_bytes"), event_num(k, "stack_bytes"));
		}
	}
}

static void accesses(struct lines *l, const json_t *ev)
{
	if (!json_is_true(json_object_get(ev, "shown"))) {
		item(l, "memory", ST_WARN, "not shown: the PTX (%s) cannot be read",
		     event_str(ev, "ptx_file"));
		return;
	}
	item(l, "memory", ST_NORMAL, "global accesses in the PTX (each "
	     "instruction once)");
	size_t i;
	const json_t *op;
	json_array_foreach(json_object_get(ev, "ops"), i, op) {
		const char *kind = event_str(op, "kind");
		item(l, "", ST_DIM, "  %-20s %3.0fx %-5s %2.0f B %-14s | %s",
		     event_str(op, "where"), event_num(op, "count"), kind,
		     event_num(op, "bytes"),
		     json_is_true(json_object_get(op, "nc")) ? "read-only path"
		     : !strcmp(kind, "async")		     ? "global->shared"
							     : "",
		     event_str(op, "code"));
	}
}

/* The counters, as the facts the hints are judged on. */
static void counters(struct lines *l, const json_t *ev)
{
	if (!json_is_true(json_object_get(ev, "measured"))) {
		item(l, "counters", ST_WARN, "not measured: %s",
		     event_str(ev, "reason"));
		return;
	}
	const json_t *f = json_object_get(ev, "facts");
	item(l, "counters", ST_NORMAL, "Nsight Compute on the timed-size case "
	     "(n = %.0f), %.0f kernel launch(es)", event_num(ev, "elements"),
	     event_num(ev, "kernels"));
	static const struct {
		const char *fact, *label, *fmt;
	} shown[] = {
		{"dram_pct", "DRAM", "%.1f %% of its peak throughput"},
		{"dram_pct_of_copy", "DRAM", "%.0f %% of the measured copy bandwidth"},
		{"achieved_occupancy_pct", "occupancy", "%.1f %% achieved"},
		{"load_sectors_per_request", "loads", "%.2f sectors of 32 B per warp request"},
		{"store_sectors_per_request", "stores", "%.2f sectors of 32 B per warp request"},
		{"inst_per_element", "instr.", "%.2f per element"},
		{"bank_conflicts_per_element", "shared", "%.3f bank conflicts per element"},
		{"l1_hit_pct", "L1", "%.1f %% hit"},
		{"l2_hit_pct", "L2", "%.1f %% hit"},
		{"flops_per_byte", "work", "%.3g FLOP per DRAM byte"},
	};
	for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++) {
		if (!json_is_number(json_object_get(f, shown[i].fact)))
			continue;
		char figure[96];
		snprintf(figure, sizeof(figure), shown[i].fmt,
			 event_num(f, shown[i].fact));
		item(l, "", ST_NORMAL, "  %-10s %s", shown[i].label, figure);
	}
	if (*event_str(f, "occupancy_limiter"))
		item(l, "", ST_NORMAL, "  %-10s limited by: %s", "occupancy",
		     event_str(f, "occupancy_limiter"));
	if (*event_str(f, "top_stall"))
		item(l, "", ST_NORMAL, "  %-10s top stall: %s", "stalls",
		     event_str(f, "top_stall"));
}

static void advice(struct lines *l, const json_t *ev)
{
	size_t i;
	const json_t *h;
	const json_t *hints = json_object_get(ev, "hints");
	json_array_foreach(hints, i, h) {
		if (*event_str(h, "see"))
			item(l, "hint", ST_NORMAL, "%s -> step %s, \"%s\". "
			     "[because %s]", event_str(h, "hint"),
			     event_str(h, "see"), event_str(h, "see_title"),
			     event_str(h, "because"));
		else
			item(l, "hint", ST_NORMAL, "%s [because %s]",
			     event_str(h, "hint"), event_str(h, "because"));
	}
	int unchecked = (int)event_num(ev, "unchecked");
	if (!json_array_size(hints) && !unchecked && event_num(ev, "rules") > 0)
		item(l, "hint", ST_DIM, "none of the lab's %.0f hints applies",
		     event_num(ev, "rules"));
	if (unchecked) {
		struct strbuf sb = STRBUF_INIT;
		const json_t *n;
		json_array_foreach(json_object_get(ev, "needs"), i, n)
			strbuf_addf(&sb, "%s%s", i ? ", " : "", json_string_value(n));
		item(l, "hint", ST_DIM, "%d more not checked: they need %s, which "
		     "were not measured", unchecked, strbuf_str(&sb));
		strbuf_release(&sb);
	}
}

static void roofline(struct lines *l, const json_t *ev)
{
	const json_t *points = json_object_get(ev, "points");
	item(l, "", ST_NORMAL, "%s", "");
	if (!json_array_size(points)) {
		item(l, "roofline", ST_DIM, "no plot: %s", event_str(ev, "reason"));
		return;
	}
	size_t i;
	const json_t *p;
	json_array_foreach(points, i, p)
		item(l, "roofline", ST_NORMAL, "%s: %.3g FLOP/byte, %.1f GFLOP/s",
		     event_str(p, "label"), event_num(p, "flops_per_byte"),
		     event_num(p, "flops_per_s") / 1e9);
	if (*event_str(ev, "plot"))
		item(l, "", ST_DIM, "  plot %s%s", event_str(ev, "plot"),
		     *event_str(ev, "plot_error") ? " not written" : "");
}

void panel_explain(const struct ui_state *s, struct canvas *c, int top,
		   int bottom)
{
	const struct ui_explain *x = &s->explain;
	struct lines l = {c, top, bottom, 0};
	if (x->running)
		canvas_printf(c, l.row++, 2, ST_WARN, -1, "explain %s: building "
			      "and measuring (Nsight Compute takes a few seconds "
			      "per step) ...", x->step);
	else
		canvas_printf(c, l.row++, 2, ST_BOLD, -1, "explain %s", x->step[0] ? x->step
			      : "(recorded)");
	if (x->problem[0])
		canvas_text(c, l.row++, 2, x->problem, ST_FAIL, -1);
	l.skip = s->scroll;
	size_t i;
	const json_t *ev;
	json_array_foreach(x->events, i, ev) {
		const char *k = event_kind(ev);
		if (!strcmp(k, "explain"))
			step_heading(s, &l, ev);
		else if (!strcmp(k, "accesses"))
			accesses(&l, ev);
		else if (!strcmp(k, "sass"))
			item(&l, "sass", ST_NORMAL, "%s%s",
			     json_is_true(json_object_get(ev, "shown"))
				     ? "" : "not shown: ",
			     json_is_true(json_object_get(ev, "shown"))
				     ? event_str(ev, "summary")
				     : event_str(ev, "reason"));
		else if (!strcmp(k, "profile"))
			counters(&l, ev);
		else if (!strcmp(k, "advice"))
			advice(&l, ev);
		else if (!strcmp(k, "roofline"))
			roofline(&l, ev);
	}
}
