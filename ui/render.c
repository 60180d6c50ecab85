#include "render.h"
#include "panels.h"

#include <stdio.h>
#include <string.h>

static void status_bar(const struct ui_state *s, struct canvas *c)
{
	int row = c->rows - 1;
	canvas_fill(c, row, 0, c->cols, " ", ST_SELECTED);
	if (s->notice[0]) {
		canvas_text(c, row, 1, s->notice, ST_SELECTED, c->cols - 2);
		return;
	}
	const char *keys =
		s->view == VIEW_DETAILS
			? "↑↓ scroll  PgUp/PgDn  Esc back  r rerun step  ? help  q quit"
		: s->view == VIEW_HELP
			? "any key: back  q quit"
		: s->view == VIEW_EXPLAIN
			? (s->can_explain ? "↑↓ scroll  PgUp/PgDn  Esc back to the dashboard  e explain again  q quit"
					  : "↑↓ scroll  PgUp/PgDn  Esc back to the dashboard  q quit")
			: "↑↓/jk move  Enter details  r rerun step  R rerun lab  e explain  ? help  q quit";
	canvas_text(c, row, 1, keys, ST_SELECTED, c->cols - 2);
}

void render(const struct ui_state *s, struct canvas *c,
	    const struct render_opts *o)
{
	canvas_clear(c);
	panel_header(s, c, o);
	int bottom = c->rows - 1;
	if (s->stream_problem[0]) {
		bottom--;
		canvas_text(c, bottom, 0, s->stream_problem, ST_FAIL, c->cols);
	}
	if (s->bad_line[0]) {
		bottom--;
		canvas_printf(c, bottom, 0, ST_WARN, c->cols, "%s%s", s->bad_line,
			      s->bad_lines > 1 ? " (and more)" : "");
	}
	if (s->view == VIEW_HELP)
		panel_help(c, 4, bottom);
	else if (s->view == VIEW_DETAILS)
		panel_details(s, c, 4, bottom, o);
	else if (s->view == VIEW_EXPLAIN)
		panel_explain(s, c, 4, bottom);
	else
		panel_steps(s, c, 4, o);
	status_bar(s, c);
}
