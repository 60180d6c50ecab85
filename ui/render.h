/*
 * render — draw a ui_state into a canvas. A pure function of its inputs:
 * it reads the state and never changes it (tests call it directly).
 *
 * Layout (any size from 80x24 up; more columns widen the bars and titles
 * and add the history sparklines, more rows show more of the details):
 *   row 0        title: lab, run state
 *   row 1        device: GPU, SMs, CC, CUDA, driver, copy ceiling
 *   row 2        the labs in workshop order with progress
 *   rows 4..     one row per step: state, time, GB/s, a bar of % of the
 *                ceiling with the step's threshold marked, speedup
 *   below        the selected step's summary and hint; the run's summary
 *   last row     keys (or a notice / a problem with the event stream)
 * The details and help views replace everything below row 2.
 */
#ifndef CUDALAB_UI_RENDER_H
#define CUDALAB_UI_RENDER_H

#include "canvas.h"
#include "state.h"

struct render_opts {
	int unicode; /* bars and sparklines from block glyphs, else ASCII */
};

void render(const struct ui_state *s, struct canvas *c,
	    const struct render_opts *o);

/* panels (one file each) */
void panel_header(const struct ui_state *s, struct canvas *c,
		  const struct render_opts *o);
int panel_steps(const struct ui_state *s, struct canvas *c, int top,
		const struct render_opts *o);
void panel_details(const struct ui_state *s, struct canvas *c, int top,
		   int bottom, const struct render_opts *o);
void panel_help(struct canvas *c, int top, int bottom);

/* The class view of a gradebook (panel_class.c); a whole screen. */
struct class_view;
void render_class(const struct class_view *v, struct canvas *c,
		  const struct render_opts *o);

/* shared drawing helpers (render.c) */
const char *verdict_label(const struct ui_step *st, enum style *style);
/* A final verdict ("pass", "crash", ...) as its label and style. */
const char *verdict_text(const char *verdict, enum style *style);
/* Word-wrap text into rows [row, max_row) from col; returns next row. */
int draw_wrapped(struct canvas *c, int row, int max_row, int col,
		 const char *text, enum style st);
/* A sparkline of n values into width columns. */
void draw_sparkline(struct canvas *c, int row, int col, int width,
		    const double *v, int n, const struct render_opts *o);
/*
 * A horizontal bar of pct (0..scale) over width columns, with a marker at
 * threshold (< 0: none). Returns the marker's column (-1 if none).
 */
int draw_bar(struct canvas *c, int row, int col, int width, double pct,
	     double scale, double threshold, enum style fill,
	     const struct render_opts *o);

#endif
