/*
 * The class view: a graded class's bandwidth per step (class_view.h).
 *
 *   row 0     title: students, the gradebook's path
 *   row 2     column heads
 *   rows 3..  one row per lab step: passed/submitted, min/median/max % of
 *             copy, and a histogram of the class's % of copy (one column
 *             per bin, height = students in the bin; bins under the step's
 *             threshold red, at or over it green, the threshold's column
 *             marked), then an axis row
 *   below     the selected step: its verdict counts and every student,
 *             best % of copy first, with a bar and the threshold marked
 *   last row  keys
 * It reads the book and never changes it.
 */
#include "class_view.h"
#include "panels.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define W_LAB 10
#define W_STEP 5
#define W_PASSED 7
#define W_NUM 6
#define W_NAME 20
#define W_VERDICT 12

/* One scale for every row, so histograms can be compared down the page. */
static double class_scale(const struct classbook *b)
{
	double scale = 110;
	for (int i = 0; i < b->nsteps; i++) {
		const struct cb_step *st = &b->steps[i];
		if (st->measured && st->max + 5 > scale)
			scale = st->max + 5;
		if (st->threshold + 10 > scale)
			scale = st->threshold + 10;
	}
	/* a forged figure must not squash everyone else's bars: over 200%
	 * of copy lands in the last bin */
	return scale > 200 ? 200 : ceil(scale / 10) * 10;
}

/* A % of copy in five columns: "101.9", " 999+" past what fits. */
static const char *pct5(double v, char *buf, size_t len)
{
	if (v >= 999.95)
		snprintf(buf, len, " 999+");
	else
		snprintf(buf, len, "%5.1f", v);
	return buf;
}

static void draw_histogram(struct canvas *c, int row, int col, int width,
			   const struct cb_step *st, double scale,
			   const struct render_opts *o)
{
	static const char *const blocks[] = {"▁", "▂", "▃", "▄",
					     "▅", "▆", "▇", "█"};
	static const char ascii[] = "._-:=+*#";
	int bins[256];
	if (width > 256)
		width = 256;
	classbook_histogram(st, scale, bins, width);
	int most = 0;
	for (int i = 0; i < width; i++)
		most = bins[i] > most ? bins[i] : most;
	int mark = st->threshold >= 0
			   ? (int)(st->threshold / scale * width)
			   : -1;
	if (mark >= width)
		mark = width - 1;
	for (int i = 0; i < width; i++) {
		if (!bins[i]) {
			if (i == mark)
				canvas_text(c, row, col + i, o->unicode ? "┃" : "|",
					    ST_ACCENT, 1);
			else
				canvas_text(c, row, col + i, o->unicode ? "·" : " ",
					    ST_DIM, 1);
			continue;
		}
		/* any student shows: the smallest bar is one eighth */
		int level = (int)ceil(8.0 * bins[i] / most) - 1;
		char g[2] = {ascii[level], 0};
		enum style s = i == mark ? ST_ACCENT
			       : mark >= 0 && i < mark ? ST_FAIL
						       : ST_PASS;
		canvas_text(c, row, col + i, o->unicode ? blocks[level] : g, s, 1);
	}
}

static void draw_axis(struct canvas *c, int row, int col, int width,
		      double scale)
{
	int last = -10;
	for (int pct = 0; pct <= (int)scale; pct += 25) {
		int at = (int)(pct / scale * width);
		char label[8];
		int n = snprintf(label, sizeof(label), "%d%%", pct);
		if (at < last + 2 || at + n > width)
			continue;
		canvas_text(c, row, col + at, label, ST_DIM, n);
		last = at + n;
	}
}

static void draw_step_row(struct canvas *c, int row, const struct cb_step *st,
			  int selected, int hist_col, int hist_w, double scale,
			  const struct render_opts *o)
{
	enum style base = selected ? ST_SELECTED : ST_NORMAL;
	if (selected)
		canvas_fill(c, row, 0, hist_col - 1, " ", ST_SELECTED);
	canvas_text(c, row, 0, st->lab, base, W_LAB - 1);
	canvas_text(c, row, W_LAB, st->id, selected ? ST_SELECTED : ST_BOLD,
		    W_STEP - 1);
	int col = W_LAB + W_STEP;
	canvas_printf(c, row, col, base, W_PASSED, "%3d/%-3d", st->passed,
		      st->submitted);
	col += W_PASSED + 1;
	char a[16], m[16], z[16];
	if (st->measured)
		canvas_printf(c, row, col, base, 3 * W_NUM, "%s %s %s",
			      pct5(st->min, a, sizeof(a)),
			      pct5(st->median, m, sizeof(m)),
			      pct5(st->max, z, sizeof(z)));
	else
		canvas_text(c, row, col, "   not measured", ST_DIM, 3 * W_NUM);
	draw_histogram(c, row, hist_col, hist_w, st, scale, o);
}

static void draw_students(const struct class_view *v, struct canvas *c,
			  int top, int bottom, double scale,
			  const struct render_opts *o)
{
	const struct cb_step *st = &v->book.steps[v->selected];
	char head[256];
	if (st->threshold >= 0)
		snprintf(head, sizeof(head), " %s %s · %s · needs >= %g%% of copy ",
			 st->lab, st->id, st->title, st->threshold);
	else
		snprintf(head, sizeof(head), " %s %s · %s ", st->lab, st->id,
			 st->title);
	canvas_fill(c, top, 0, c->cols, o->unicode ? "─" : "-", ST_DIM);
	canvas_text(c, top, 2, head, ST_ACCENT, c->cols - 4);
	int row = top + 1, col = 0;
	for (int i = 0; i < st->nverdicts && row < bottom; i++) {
		enum style s;
		const char *label = verdict_text(st->verdicts[i].verdict, &s);
		char item[48];
		int n = snprintf(item, sizeof(item), "%s %d", label,
				 st->verdicts[i].count);
		if (col + n >= c->cols)
			break;
		canvas_text(c, row, col, item, s, n);
		col += n + 3;
	}
	row++;
	int room = bottom - row;
	int first = v->scroll;
	if (first > st->nstudents - room)
		first = st->nstudents - room;
	if (first < 0)
		first = 0;
	int bar_col = W_NAME + W_VERDICT + W_NUM + 2;
	int bar_w = c->cols - bar_col - 1;
	if (bar_w > 50)
		bar_w = 50;
	for (int i = first; i < st->nstudents && row < bottom; i++, row++) {
		const struct cb_student *s = &st->students[i];
		enum style vs;
		const char *label = verdict_text(s->verdict, &vs);
		canvas_text(c, row, 0, s->name, ST_NORMAL, W_NAME - 1);
		canvas_text(c, row, W_NAME, label, vs, W_VERDICT - 1);
		if (s->pct < 0)
			continue;
		char p[16];
		canvas_printf(c, row, W_NAME + W_VERDICT, ST_NORMAL, W_NUM,
			      "%s%%", pct5(s->pct, p, sizeof(p)));
		if (bar_w >= 10)
			draw_bar(c, row, bar_col, bar_w, s->pct, scale,
				 st->threshold, s->pct >= st->threshold ? ST_PASS
									: ST_FAIL,
				 o);
	}
	if (first + room < st->nstudents)
		canvas_printf(c, bottom - 1, c->cols - 24, ST_DIM, 24,
			      "… %d more (PgDn)",
			      st->nstudents - (first + room - 1));
}

void render_class(const struct class_view *v, struct canvas *c,
		  const struct render_opts *o)
{
	const struct classbook *b = &v->book;
	canvas_clear(c);
	canvas_printf(c, 0, 0, ST_BOLD, c->cols,
		      "cudalab · class of %d student%s · %s", b->nstudents,
		      b->nstudents == 1 ? "" : "s", b->path);
	int last = c->rows - 1;
	canvas_fill(c, last, 0, c->cols, " ", ST_SELECTED);
	canvas_text(c, last, 1,
		    "↑↓/jk step  PgUp/PgDn students  Home/End  q quit",
		    ST_SELECTED, c->cols - 2);
	if (!b->nsteps) {
		canvas_text(c, 2, 0, "this gradebook has no lab steps", ST_WARN,
			    c->cols);
		return;
	}
	double scale = class_scale(b);
	int hist_col = W_LAB + W_STEP + W_PASSED + 1 + 3 * W_NUM + 1;
	int hist_w = c->cols - hist_col - 1;
	if (hist_w > 100)
		hist_w = 100;
	canvas_text(c, 2, 0, "lab", ST_DIM, W_LAB);
	canvas_text(c, 2, W_LAB, "step", ST_DIM, W_STEP);
	canvas_text(c, 2, W_LAB + W_STEP, "passed", ST_DIM, W_PASSED);
	canvas_text(c, 2, W_LAB + W_STEP + W_PASSED + 1, "  min   med   max",
		    ST_DIM, 3 * W_NUM);
	canvas_text(c, 2, hist_col, o->unicode ? "students by % of copy (┃ threshold)"
					       : "students by % of copy (| threshold)",
		    ST_DIM, hist_w);
	/* the steps table takes at most half the screen; it scrolls to keep
	 * the selected step in view */
	int room = (c->rows - 1) / 2 - 4;
	if (room < 1)
		room = 1;
	int first = v->selected >= room ? v->selected - room + 1 : 0;
	int row = 3;
	for (int i = first; i < b->nsteps && i < first + room; i++)
		draw_step_row(c, row++, &b->steps[i], i == v->selected, hist_col,
			      hist_w, scale, o);
	draw_axis(c, row++, hist_col, hist_w, scale);
	draw_students(v, c, row + 1, last, scale, o);
}
