/*
 * The steps table and, under it, the selected step's summary and hint and
 * the run's summary. Column widths follow the terminal width.
 */
#include "panels.h"

#include <stdio.h>
#include <string.h>

#define W_STATE 12
#define W_TIME 9
#define W_GBPS 5
#define W_PCT 6
#define W_SPEED 6
#define W_HISTORY 16

struct columns {
	int id, title, state, time, gbps, bar, pct, speed, history;
	int id_w, title_w, bar_w;
};

/* The id column fits the longest step id ("haxpy") and a space. */
static int id_width(const struct ui_state *s)
{
	int w = 4;
	for (int i = 0; i < s->nsteps; i++) {
		int n = (int)strlen(s->steps[i].id) + 1;
		w = n > w ? n : w;
	}
	return w > 12 ? 12 : w;
}

static struct columns layout(const struct ui_state *s, int cols)
{
	struct columns k;
	int W_ID = id_width(s);
	k.id_w = W_ID;
	int fixed = W_ID + 1 + W_STATE + 1 + W_TIME + 1 + W_GBPS + 1 + 1 +
		    W_PCT + 1 + W_SPEED;
	int history = cols >= 120 ? W_HISTORY + 1 : 0;
	int room = cols - fixed - history - 1;
	k.bar_w = room / 2 > 40 ? 40 : room / 2;
	if (k.bar_w < 10)
		k.bar_w = 10;
	k.title_w = room - k.bar_w;
	if (k.title_w > 34) {
		k.bar_w += k.title_w - 34;
		k.title_w = 34;
	}
	if (k.bar_w > 50)
		k.bar_w = 50;
	k.id = 0;
	k.title = k.id + W_ID;
	k.state = k.title + k.title_w + 1;
	k.time = k.state + W_STATE + 1;
	k.gbps = k.time + W_TIME + 1;
	k.bar = k.gbps + W_GBPS + 1;
	k.pct = k.bar + k.bar_w + 1;
	k.speed = k.pct + W_PCT + 1;
	k.history = history ? k.speed + W_SPEED + 2 : -1;
	return k;
}

static double bar_scale(const struct ui_state *s)
{
	double scale = 110;
	for (int i = 0; i < s->nsteps; i++) {
		if (s->steps[i].pct_of_copy + 5 > scale)
			scale = s->steps[i].pct_of_copy + 5;
		if (s->steps[i].threshold_pct + 10 > scale)
			scale = s->steps[i].threshold_pct + 10;
	}
	return scale;
}

static void step_row(const struct ui_state *s, const struct ui_step *st,
		     struct canvas *c, int row, const struct columns *k,
		     double scale, const struct render_opts *o)
{
	enum style vs;
	const char *label = verdict_label(st, &vs);
	canvas_text(c, row, k->id, st->id, ST_BOLD, k->id_w - 1);
	canvas_text(c, row, k->title, st->title, ST_NORMAL, k->title_w);
	canvas_text(c, row, k->state, label, vs, W_STATE);
	if (st->has_timing) {
		canvas_printf(c, row, k->time, ST_NORMAL, W_TIME, "%7.1f%s",
			      st->median_us, o->unicode ? "µs" : "us");
		canvas_printf(c, row, k->gbps, ST_NORMAL, W_GBPS, "%5.0f",
			      st->gbps);
		int pass = st->threshold_pct < 0 ||
			   st->pct_of_copy >= st->threshold_pct;
		draw_bar(c, row, k->bar, k->bar_w, st->pct_of_copy, scale,
			 st->threshold_pct, pass ? ST_PASS : ST_FAIL, o);
		canvas_printf(c, row, k->pct, ST_NORMAL, W_PCT, "%5.1f%%",
			      st->pct_of_copy);
		if (st->speedup > 0)
			canvas_printf(c, row, k->speed, ST_NORMAL, W_SPEED,
				      "%5.2f×", st->speedup);
	} else if (st->phase == PH_RUNNING) {
		draw_bar(c, row, k->bar, k->bar_w, st->progress_frac * 100, 100,
			 -1, ST_WARN, o);
		canvas_text(c, row, k->pct, st->progress, ST_WARN, -1);
	} else {
		/* the threshold alone, so the target is visible before a run */
		if (st->threshold_pct >= 0)
			draw_bar(c, row, k->bar, k->bar_w, 0, scale,
				 st->threshold_pct, ST_DIM, o);
	}
	if (k->history >= 0 && st->nhistory > 1)
		draw_sparkline(c, row, k->history, W_HISTORY, st->history,
			       st->nhistory, o);
	(void)s;
}

int panel_steps(const struct ui_state *s, struct canvas *c, int top,
		const struct render_opts *o)
{
	struct columns k = layout(s, c->cols);
	double scale = bar_scale(s);
	canvas_text(c, top - 1, k.title, "step", ST_DIM, -1);
	canvas_text(c, top - 1, k.state, "state", ST_DIM, -1);
	canvas_text(c, top - 1, k.time, "     time", ST_DIM, -1);
	canvas_text(c, top - 1, k.gbps, " GB/s", ST_DIM, -1);
	canvas_text(c, top - 1, k.bar,
		    k.bar_w < 24   ? "% of copy"
		    : o->unicode ? "% of copy  (┃ threshold)"
				   : "% of copy  (| threshold)",
		    ST_DIM, k.bar_w);
	canvas_text(c, top - 1, k.speed, "vs 1", ST_DIM, -1);
	if (k.history >= 0)
		canvas_text(c, top - 1, k.history, "history", ST_DIM, -1);

	int row = top;
	int max_rows = c->rows - top - 6;
	int first = s->selected >= max_rows ? s->selected - max_rows + 1 : 0;
	for (int i = first; i < s->nsteps && row < top + max_rows; i++, row++) {
		step_row(s, &s->steps[i], c, row, &k, scale, o);
		if (i == s->selected)
			canvas_style(c, row, k.id, k.id_w + k.title_w,
				     ST_SELECTED);
	}
	if (s->has_vendor) {
		canvas_text(c, row, k.id, "lib", ST_DIM, k.id_w - 1);
		canvas_text(c, row, k.title, s->vendor_name, ST_DIM, k.title_w);
		canvas_printf(c, row, k.gbps, ST_DIM, W_GBPS, "%5.0f",
			      s->vendor_gbps);
		draw_bar(c, row, k.bar, k.bar_w, s->vendor_pct, scale, -1,
			 ST_DIM, o);
		canvas_printf(c, row, k.pct, ST_DIM, W_PCT, "%5.1f%%",
			      s->vendor_pct);
		row++;
	}

	/* the selected step, in words */
	row++;
	const struct ui_step *st = ui_state_selected(s);
	int limit = c->rows - 2 - (s->stream_problem[0] ? 1 : 0) -
		    (s->bad_line[0] ? 1 : 0);
	if (st && st->summary[0] && strcmp(st->verdict, "pass")) {
		enum style vs;
		verdict_label(st, &vs);
		row = draw_wrapped(c, row, limit - 1, 0, st->summary, vs);
		if (st->hint[0] && strcmp(st->verdict, "not_graded"))
			row = draw_wrapped(c, row, limit - 1, 0, st->hint, ST_DIM);
	} else if (st && st->phase == PH_DONE) {
		canvas_printf(c, row++, 0, ST_PASS, -1, "%s: %s.", st->id,
			      st->summary);
	}
	/* the selected step's checks, measured against required */
	size_t i;
	json_t *e;
	if (st)
		json_array_foreach(st->checks, i, e)
		{
			if (row >= limit - 1)
				break;
			const char *status =
				json_string_value(json_object_get(e, "status"));
			int ok = status && !strcmp(status, "pass");
			int bad = status && !strcmp(status, "fail");
			int col = canvas_text(
				c, row, 2,
				ok ? "ok   " : bad ? "FAIL " : "n/m  ",
				ok ? ST_PASS : bad ? ST_FAIL : ST_WARN, -1);
			canvas_text(c, row++, col,
				    json_string_value(json_object_get(e, "message")),
				    ST_NORMAL, -1);
		}
	if (s->run_ended && row < limit) {
		const char *v = !strcmp(s->run_verdict, "pass") ? "PASS"
				: !strcmp(s->run_verdict, "fail") ? "FAIL"
								  : "NOT GRADED";
		enum style vs = !strcmp(s->run_verdict, "pass") ? ST_PASS
				: !strcmp(s->run_verdict, "fail") ? ST_FAIL
								  : ST_WARN;
		int col = canvas_text(c, limit, 0, v, vs, -1);
		canvas_printf(c, limit, col, ST_NORMAL, -1,
			      ": %d passed, %d failed, %d not graded of %d",
			      s->passed, s->failed, s->not_graded, s->total);
	}
	return row;
}
