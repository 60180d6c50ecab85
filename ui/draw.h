/*
 * draw — the drawing helpers every panel shares: verdict labels, wrapped
 * text, sparklines and bars, drawn into a canvas. They read what they are
 * given and write only into the canvas.
 *
 * This module sits under the panels (panels.h) and under render.h, which
 * puts the panels on the screen: render -> panels -> draw -> canvas, never
 * back up (tests/test_layout.py fails on a circle of #includes).
 */
#ifndef CUDALAB_UI_DRAW_H
#define CUDALAB_UI_DRAW_H

#include "canvas.h"
#include "state.h"

struct render_opts {
	int unicode; /* bars and sparklines from block glyphs, else ASCII */
};

/* The selected step's state as its label ("compiling", "PASS") and style. */
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
