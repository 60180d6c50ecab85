#include "canvas.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct canvas *canvas_new(int rows, int cols)
{
	struct canvas *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->rows = rows > 0 ? rows : 1;
	c->cols = cols > 0 ? cols : 1;
	c->cells = calloc((size_t)c->rows * (size_t)c->cols, sizeof(*c->cells));
	if (!c->cells) {
		free(c);
		return NULL;
	}
	canvas_clear(c);
	return c;
}

void canvas_free(struct canvas *c)
{
	if (c)
		free(c->cells);
	free(c);
}

void canvas_clear(struct canvas *c)
{
	for (int i = 0; i < c->rows * c->cols; i++) {
		strcpy(c->cells[i].glyph, " ");
		c->cells[i].style = ST_NORMAL;
	}
}

/* Bytes in the UTF-8 sequence starting with b (1 for invalid bytes). */
static int seq_len(unsigned char b)
{
	if (b >= 0xF0 && b < 0xF8)
		return 4;
	if (b >= 0xE0)
		return b < 0xF0 ? 3 : 1;
	if (b >= 0xC0)
		return 2;
	return 1;
}

int utf8_width(const char *s)
{
	int w = 0;
	while (*s) {
		int n = seq_len((unsigned char)*s);
		for (int i = 0; i < n && *s; i++)
			s++;
		w++;
	}
	return w;
}

int canvas_text(struct canvas *c, int row, int col, const char *text,
		enum style st, int maxw)
{
	int limit = maxw < 0 ? c->cols : col + maxw;
	if (limit > c->cols)
		limit = c->cols;
	const unsigned char *p = (const unsigned char *)text;
	while (*p && col < limit) {
		int n = seq_len(*p);
		if (row >= 0 && row < c->rows && col >= 0) {
			struct cell *cell = &c->cells[row * c->cols + col];
			int k = 0;
			for (; k < n && p[k]; k++)
				cell->glyph[k] = (char)(p[k] < 0x20 || p[k] == 0x7F
								? '?'
								: p[k]);
			cell->glyph[k] = '\0';
			cell->style = (unsigned char)st;
		}
		for (int i = 0; i < n && *p; i++)
			p++;
		col++;
	}
	return col;
}

int canvas_printf(struct canvas *c, int row, int col, enum style st,
		  int maxw, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return canvas_text(c, row, col, buf, st, maxw);
}

void canvas_fill(struct canvas *c, int row, int col, int width,
		 const char *glyph, enum style st)
{
	for (int i = 0; i < width; i++)
		canvas_text(c, row, col + i, glyph, st, 1);
}

void canvas_style(struct canvas *c, int row, int col, int width,
		  enum style st)
{
	if (row < 0 || row >= c->rows)
		return;
	for (int i = col; i < col + width && i < c->cols; i++)
		if (i >= 0)
			c->cells[row * c->cols + i].style = (unsigned char)st;
}

const char *canvas_row(const struct canvas *c, int row, char *buf,
		       size_t len)
{
	size_t at = 0;
	buf[0] = '\0';
	if (row < 0 || row >= c->rows)
		return buf;
	for (int i = 0; i < c->cols; i++) {
		const char *g = c->cells[row * c->cols + i].glyph;
		size_t n = strlen(g);
		if (at + n + 1 > len)
			break;
		memcpy(buf + at, g, n);
		at += n;
	}
	buf[at] = '\0';
	while (at > 0 && buf[at - 1] == ' ')
		buf[--at] = '\0';
	return buf;
}
