/*
 * canvas — the screen as plain data: a grid of cells, each one glyph (a
 * UTF-8 sequence that takes one column) with a style.
 *
 * The renderers draw into a canvas; term.c copies it to the terminal. Tests
 * render into a canvas and read rows back as text, with no terminal at all.
 *
 * Writing outside the grid is clipped silently. canvas_text() returns the
 * column after the last glyph written. Ownership: canvas_new() allocates,
 * canvas_free() releases.
 */
#ifndef CUDALAB_UI_CANVAS_H
#define CUDALAB_UI_CANVAS_H

#include <stddef.h>

enum style {
	ST_NORMAL,
	ST_BOLD,
	ST_DIM,
	ST_PASS,     /* green: passed */
	ST_FAIL,     /* red: failed, errors */
	ST_WARN,     /* yellow: running, not graded, warnings */
	ST_ACCENT,   /* cyan: headings, the threshold marker */
	ST_SELECTED, /* reverse video: the selected row */
	ST_COUNT
};

struct cell {
	char glyph[5];
	unsigned char style;
};

struct canvas {
	int rows, cols;
	struct cell *cells;
};

struct canvas *canvas_new(int rows, int cols);
void canvas_free(struct canvas *c);
void canvas_clear(struct canvas *c);

/* Write text at (row, col), at most maxw columns (maxw < 0: to the edge). */
int canvas_text(struct canvas *c, int row, int col, const char *text,
		enum style st, int maxw);
/* printf-style canvas_text. */
int canvas_printf(struct canvas *c, int row, int col, enum style st,
		  int maxw, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
/* Fill columns [col, col+width) of row with one glyph. */
void canvas_fill(struct canvas *c, int row, int col, int width,
		 const char *glyph, enum style st);
/* Restyle columns [col, col+width) of row, keeping the glyphs. */
void canvas_style(struct canvas *c, int row, int col, int width,
		  enum style st);

/* Row as UTF-8 text, trailing spaces removed, into buf. */
const char *canvas_row(const struct canvas *c, int row, char *buf,
		       size_t len);

/* Display width of UTF-8 text (one column per code point). */
int utf8_width(const char *s);

#endif
