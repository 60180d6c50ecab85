/*
 * The details of the selected step: everything the grader said about it,
 * as a scrollable list of lines built fresh from the state.
 */
#include "demangle.h"
#include "event.h"
#include "panels.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct line {
	char text[512];
	enum style style;
	int indent;
};

struct lines {
	struct line *v;
	int n, cap;
};

static void add(struct lines *l, int indent, enum style st, const char *fmt,
		...) __attribute__((format(printf, 4, 5)));

static void add(struct lines *l, int indent, enum style st, const char *fmt,
		...)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		struct line *v = realloc(l->v, sizeof(*v) * (size_t)l->cap);
		if (!v)
			return;
		l->v = v;
	}
	struct line *x = &l->v[l->n++];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(x->text, sizeof(x->text), fmt, ap);
	va_end(ap);
	x->style = st;
	x->indent = indent;
}

/* The source line a diagnostic points at, when the file is readable. */
static int source_line(const char *file, long line, char *out, size_t len)
{
	FILE *f = fopen(file, "r");
	if (!f)
		return 0;
	char buf[512];
	long n = 0;
	int found = 0;
	while (fgets(buf, sizeof(buf), f))
		if (++n == line) {
			buf[strcspn(buf, "\n")] = '\0';
			for (char *p = buf; *p; p++)
				if (*p == '\t')
					*p = ' ';
			snprintf(out, len, "%s", buf);
			found = 1;
			break;
		}
	fclose(f);
	return found;
}

static void build(const struct ui_state *s, const struct ui_step *st,
		  struct lines *l, const struct render_opts *o)
{
	/* µ only where the terminal can show it (LANG=C: "us") */
	const char *us = o->unicode ? "µs" : "us";
	enum style vs;
	const char *label = st->phase == PH_DONE
				    ? verdict_text(st->verdict, &vs)
				    : verdict_label(st, &vs);
	add(l, 0, ST_BOLD, "%s · %s · %s", st->id, st->title, st->file);
	/* a summary that already starts with its label is shown once */
	if (!strncmp(st->summary, label, strlen(label)))
		add(l, 0, vs, "%s", st->summary);
	else
		add(l, 0, vs, "%s%s%s", label, st->summary[0] ? ": " : "",
		    st->summary);
	if (st->implemented == 0)
		add(l, 0, ST_WARN, "not implemented: %s still calls "
				   "CUDALAB_TODO() (the starter's stub)",
		    st->todo);
	else if (st->implemented == 1)
		add(l, 0, ST_NORMAL, "builds; without a GPU only the checks "
				     "below that read the build are judged");
	if (st->has_timing)
		add(l, 0, ST_NORMAL,
		    "%.1f %s median %s %.0f GB/s %s %.1f%% of copy (%.0f GB/s)%s",
		    st->median_us, us, o->unicode ? "·" : "-", st->gbps,
		    o->unicode ? "·" : "-", st->pct_of_copy, s->copy_gbps,
		    st->speedup > 0 ? "" : "");

	size_t i;
	json_t *e;
	if (json_array_size(st->timings) > 1) {
		/* bandwidth against the variants (stride, offset ...): one bar
		 * each, 30 cells = 100 % of the copy bandwidth */
		add(l, 0, ST_ACCENT, "Timings (bar: %% of copy, useful bytes)");
		json_array_foreach(st->timings, i, e) {
			char bar[3 * 40 + 1] = "";
			double pct = event_num(e, "pct_of_copy");
			int cells = (int)(30 * pct / 100 + 0.5);
			for (int k = 0; k < cells && k < 40; k++)
				strcat(bar, o->unicode ? "█" : "#");
			add(l, 2, ST_NORMAL, "%-10s %8.1f %s  %5.0f GB/s  %5.1f%%  %s",
			    event_str(e, "variant"), event_num(e, "median_us"), us,
			    event_num(e, "gbps"), pct, bar);
		}
	}
	if (json_array_size(st->checks)) {
		add(l, 0, ST_ACCENT, "Checks (measured against required)");
		json_array_foreach(st->checks, i, e)
		{
			const char *status = event_str(e, "status");
			enum style cs = !strcmp(status, "pass") ? ST_PASS
					: !strcmp(status, "fail") ? ST_FAIL
								  : ST_WARN;
			int gpu = json_is_true(json_object_get(e, "needs_gpu"));
			add(l, 2, cs, "%-4s %s",
			    !strcmp(status, "pass")   ? "ok"
			    : !strcmp(status, "fail") ? "FAIL"
			    : gpu		      ? "GPU"
						      : "n/m",
			    event_str(e, "message"));
		}
	}
	if (json_array_size(st->cases)) {
		add(l, 0, ST_ACCENT, "Wrong results");
		json_array_foreach(st->cases, i, e)
		{
			add(l, 2, ST_FAIL, "case %s: %s", event_str(e, "name"),
			    event_str(e, "message"));
			size_t j;
			json_t *m;
			json_array_foreach(json_object_get(e, "first"), j, m)
				add(l, 4, ST_NORMAL, "index %lld: expected %s, got %s%s%s",
				    json_integer_value(json_object_get(m, "index")),
				    event_str(m, "expected"), event_str(m, "got"),
				    *event_str(m, "note") ? " — " : "", event_str(m, "note"));
			add(l, 4, ST_DIM, "replay: python3 run.py test %s --step %s --seed %s",
			    s->lab, st->id, event_str(e, "seed"));
		}
	}
	json_array_foreach(st->guards, i, e)
	{
		if (!i)
			add(l, 0, ST_ACCENT, "Writes outside the arrays");
		add(l, 2, ST_FAIL, "%s", event_str(e, "message"));
	}
	json_array_foreach(st->errors, i, e)
	{
		if (!i)
			add(l, 0, ST_ACCENT, "Errors");
		add(l, 2, ST_FAIL, "%s", event_str(e, "message"));
	}
	if (json_array_size(st->diagnostics)) {
		add(l, 0, ST_ACCENT, "Compiler");
		json_array_foreach(st->diagnostics, i, e)
		{
			const char *sev = event_str(e, "severity");
			long ln = (long)event_num(e, "line");
			const char *file = event_str(e, "file");
			const char *base = strrchr(file, '/');
			add(l, 2, strcmp(sev, "error") ? ST_WARN : ST_FAIL,
			    "%s %s%s%.0ld%s %s", sev, base ? base + 1 : file,
			    ln > 0 ? ":" : "", ln > 0 ? ln : 0L, ln > 0 ? ":" : "",
			    event_str(e, "message"));
			char src[512];
			if (ln > 0 && source_line(file, ln, src, sizeof(src)))
				add(l, 4, ST_DIM, "%5ld | %s", ln, src);
		}
	}
	if (json_array_size(st->resources)) {
		char dm[400];
		add(l, 0, ST_ACCENT, "Resources (per thread / per block)");
		json_array_foreach(st->resources, i, e)
			add(l, 2, ST_NORMAL,
			    "%s: %lld registers, %lld B spilled, %lld B shared, "
			    "%lld B stack",
			    demangle(event_str(e, "name"), dm, sizeof(dm)),
			    json_integer_value(json_object_get(e, "registers")),
			    json_integer_value(json_object_get(e, "spill_store_bytes")) +
				    json_integer_value(json_object_get(e, "spill_load_bytes")),
			    json_integer_value(json_object_get(e, "shared_bytes")),
			    json_integer_value(json_object_get(e, "stack_bytes")));
	}
	if (st->launch) {
		json_t *g = json_object_get(st->launch, "grid");
		json_t *b = json_object_get(st->launch, "block");
		add(l, 0, ST_ACCENT, "Launch at the timed size");
		add(l, 2, ST_NORMAL,
		    "%lld launch(es) · grid %lldx%lldx%lld · block %lldx%lldx%lld "
		    "· %.2f waves · %.2f elements/thread · %s stream",
		    json_integer_value(json_object_get(st->launch, "launches")),
		    json_integer_value(json_array_get(g, 0)),
		    json_integer_value(json_array_get(g, 1)),
		    json_integer_value(json_array_get(g, 2)),
		    json_integer_value(json_array_get(b, 0)),
		    json_integer_value(json_array_get(b, 1)),
		    json_integer_value(json_array_get(b, 2)),
		    event_num(st->launch, "waves"), event_num(st->launch, "elements_per_thread"),
		    json_is_true(json_object_get(st->launch, "default_stream"))
			    ? "default"
			    : "ANOTHER");
	}
	if (st->ptx) {
		add(l, 0, ST_ACCENT, "PTX");
		add(l, 2, ST_NORMAL,
		    "%d global loads (widest %d B, %d non-coherent) · %d stores "
		    "(widest %d B) · %d async copies",
		    (int)event_num(st->ptx, "global_loads"), (int)event_num(st->ptx, "max_load_bytes"),
		    (int)event_num(st->ptx, "nc_loads"), (int)event_num(st->ptx, "global_stores"),
		    (int)event_num(st->ptx, "max_store_bytes"),
		    (int)event_num(st->ptx, "async_copies"));
	}
	if (st->profile) {
		add(l, 0, ST_ACCENT, "Profile (Nsight Compute)");
		if (json_is_true(json_object_get(st->profile, "measured")))
			add(l, 2, ST_NORMAL, "%.2f instructions per element",
			    event_num(st->profile, "inst_per_element"));
		else
			add(l, 2, ST_WARN, "not measured: %s",
			    event_str(st->profile, "reason"));
	}
	if (json_array_size(st->sweep)) {
		/* one bar per value, on the step's own scale, best marked */
		double best = 0;
		json_array_foreach(st->sweep, i, e)
			if (json_is_true(json_object_get(e, "ok")) &&
			    event_num(e, "speedup_vs_baseline") > best)
				best = event_num(e, "speedup_vs_baseline");
		add(l, 0, ST_ACCENT, "%s sweep (speedup over the baseline; each "
				     "value a separate build)",
		    event_str(json_array_get(st->sweep, 0), "define"));
		json_array_foreach(st->sweep, i, e) {
			char bar[3 * 40 + 1] = "";
			double x = event_num(e, "speedup_vs_baseline");
			if (!json_is_true(json_object_get(e, "ok"))) {
				add(l, 2, ST_FAIL, "%s=%-3lld failed: %s",
				    event_str(e, "define"),
				    (long long)event_num(e, "value"),
				    event_str(e, "message"));
				continue;
			}
			int cells = best > 0 ? (int)(30 * x / best + 0.5) : 0;
			for (int k = 0; k < cells && k < 40; k++)
				strcat(bar, "█");
			add(l, 2, x == best ? ST_PASS : ST_NORMAL,
			    "%s=%-3lld %5.2f×  %s%s", event_str(e, "define"),
			    (long long)event_num(e, "value"), x, bar,
			    x == best ? "  best" : "");
		}
	}
	if (st->nhistory > 0) {
		char past[256] = "";
		for (int k = 0; k < st->nhistory; k++)
			snprintf(past + strlen(past), sizeof(past) - strlen(past),
				 "%s%.0f", k ? " " : "", st->history[k]);
		add(l, 0, ST_ACCENT, "History (GB/s, oldest first)");
		add(l, 2, ST_NORMAL, "%s", past);
	}
	if (st->hint[0]) {
		add(l, 0, ST_ACCENT, "Hint");
		add(l, 2, ST_NORMAL, "%s", st->hint);
	}
}

void panel_details(const struct ui_state *s, struct canvas *c, int top,
		   int bottom, const struct render_opts *o)
{
	const struct ui_step *st = ui_state_selected(s);
	if (!st)
		return;
	struct lines l = {0};
	build(s, st, &l, o);
	/* wrap each line into screen rows, then show from the scroll offset */
	struct canvas *tall = canvas_new(l.n * 6 + 1, c->cols);
	int rows = 0;
	for (int i = 0; tall && i < l.n; i++)
		rows = draw_wrapped(tall, rows, tall->rows, l.v[i].indent,
				    l.v[i].text, l.v[i].style);
	int visible = bottom - top;
	int scroll = s->scroll;
	if (scroll > rows - visible)
		scroll = rows - visible > 0 ? rows - visible : 0;
	for (int r = 0; tall && r < visible && scroll + r < rows; r++)
		for (int x = 0; x < c->cols; x++)
			c->cells[(top + r) * c->cols + x] =
				tall->cells[(scroll + r) * tall->cols + x];
	if (rows > visible)
		canvas_printf(c, top - 1, c->cols - 16, ST_DIM, -1,
			      "lines %d-%d/%d", scroll + 1,
			      scroll + visible < rows ? scroll + visible : rows,
			      rows);
	canvas_free(tall);
	free(l.v);
}
