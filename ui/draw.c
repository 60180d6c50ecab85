#include "draw.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *verdict_text(const char *verdict, enum style *style)
{
	static const struct {
		const char *verdict, *label;
		enum style style;
	} map[] = {
		{"pass", "PASS", ST_PASS},
		{"fail", "FAIL", ST_FAIL},
		{"compile_error", "COMPILE ERR", ST_FAIL},
		{"crash", "CRASH", ST_FAIL},
		{"rejected", "REJECTED", ST_FAIL},
		{"timeout", "TIMEOUT", ST_FAIL},
		{"not_implemented", "TODO", ST_WARN},
		{"not_graded", "NOT GRADED", ST_WARN},
		{"incomplete", "INCOMPLETE", ST_WARN},
		{"missing", "MISSING", ST_DIM},
	};
	*style = ST_WARN;
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(verdict, map[i].verdict)) {
			*style = map[i].style;
			return map[i].label;
		}
	return verdict;
}

const char *verdict_label(const struct ui_step *st, enum style *style)
{
	*style = ST_WARN;
	switch (st->phase) {
	case PH_QUEUED:
		*style = ST_DIM;
		return "queued";
	case PH_COMPILING:
		return "compiling";
	case PH_COMPILED:
		*style = ST_DIM;
		return "compiled";
	case PH_RUNNING:
		return "running";
	case PH_DONE:
		break;
	}
	/* without a device the build still tells a stub from a written step */
	if (!strcmp(st->verdict, "not_graded") && st->implemented >= 0) {
		*style = ST_WARN;
		return st->implemented ? "built·no GPU" : "TODO·no GPU";
	}
	return verdict_text(st->verdict, style);
}

int draw_wrapped(struct canvas *c, int row, int max_row, int col,
		 const char *text, enum style st)
{
	int width = c->cols - col;
	if (width < 10)
		return row;
	const char *p = text;
	while (*p && row < max_row) {
		while (*p == ' ')
			p++;
		/* take as many whole words as fit in width display columns */
		const char *end = p, *cut = NULL;
		int w = 0;
		while (*end && *end != '\n' && w < width) {
			if (*end == ' ')
				cut = end;
			end++;
			while ((*end & 0xC0) == 0x80)
				end++;
			w++;
		}
		if (*end && *end != '\n' && cut && cut > p)
			end = cut;
		char line[1024];
		snprintf(line, sizeof(line), "%.*s", (int)(end - p), p);
		canvas_text(c, row++, col, line, st, width);
		p = *end == '\n' ? end + 1 : end;
	}
	return row;
}

void draw_sparkline(struct canvas *c, int row, int col, int width,
		    const double *v, int n, const struct render_opts *o)
{
	static const char *const blocks[] = {"▁", "▂", "▃", "▄",
					     "▅", "▆", "▇", "█"};
	static const char ascii[] = "_.-:=+*#";
	if (n <= 0)
		return;
	int first = n > width ? n - width : 0;
	double lo = v[first], hi = v[first];
	for (int i = first; i < n; i++) {
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	for (int i = first; i < n; i++) {
		int level = hi > lo ? (int)((v[i] - lo) / (hi - lo) * 7 + 0.5) : 7;
		char g[2] = {ascii[level], 0};
		canvas_text(c, row, col + i - first, o->unicode ? blocks[level] : g,
			    ST_ACCENT, 1);
	}
}

int draw_bar(struct canvas *c, int row, int col, int width, double pct,
	     double scale, double threshold, enum style fill,
	     const struct render_opts *o)
{
	static const char *const part[] = {"", "▏", "▎", "▍",
					   "▌", "▋", "▊", "▉"};
	if (width <= 0)
		return -1;
	double cells = pct / scale * width;
	if (cells < 0)
		cells = 0;
	if (cells > width)
		cells = width;
	int full = (int)cells;
	int eighths = (int)((cells - full) * 8);
	for (int i = 0; i < width; i++) {
		const char *g;
		enum style st = fill;
		if (i < full)
			g = o->unicode ? "█" : "#";
		else if (i == full && eighths && o->unicode)
			g = part[eighths];
		else
			g = o->unicode ? "·" : ".", st = ST_DIM;
		canvas_text(c, row, col + i, g, st, 1);
	}
	if (threshold < 0)
		return -1;
	int at = (int)lround(threshold / scale * width);
	if (at >= width)
		at = width - 1;
	canvas_text(c, row, col + at, o->unicode ? "┃" : "|", ST_ACCENT, 1);
	return col + at;
}
