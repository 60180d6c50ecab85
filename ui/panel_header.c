/* The top three rows: title and run state, the device, the labs. */
#include "panels.h"

#include <stdio.h>
#include <string.h>

static const char *run_state(const struct ui_state *s, char *buf, size_t len)
{
	for (int i = 0; i < s->nsteps; i++) {
		const struct ui_step *st = &s->steps[i];
		if (st->phase == PH_RUNNING) {
			snprintf(buf, len, "running %s%s%s", st->id,
				 st->progress[0] ? " · " : "", st->progress);
			return buf;
		}
		if (st->phase == PH_COMPILING) {
			snprintf(buf, len, "compiling");
			return buf;
		}
	}
	if (s->run_active && s->activity[0])
		snprintf(buf, len, "%s", s->activity);
	else if (s->run_active)
		snprintf(buf, len, "working");
	else if (s->run_ended)
		snprintf(buf, len, "%s in %.1f s", s->mode, s->run_seconds);
	else if (s->stream_truncated)
		snprintf(buf, len, "stopped");
	else if (s->stream_closed && !strcmp(s->mode, "explain"))
		snprintf(buf, len, "explained: e shows it");
	else
		snprintf(buf, len, "waiting for the grader");
	return buf;
}

/*
 * The labs bar: every lab with its progress when it fits; else the labs
 * other than the current one shortened to their number and progress; else
 * a window of them around the current one, with "<" / ">" where labs are
 * cut off. Every lab is reachable with ←/→ either way.
 */
static int lab_cell(const struct ui_state *s, int i, int full, char *buf,
		    size_t len)
{
	const struct ui_lab *l = &s->labs[i];
	if (full || !strcmp(l->name, s->lab))
		snprintf(buf, len, " %d.%s %d/%d ", l->order, l->name,
			 l->passed, l->steps);
	else
		snprintf(buf, len, " %d %d/%d ", l->order, l->passed, l->steps);
	return utf8_width(buf) + 1;
}

static void panel_labs(const struct ui_state *s, struct canvas *c, int row)
{
	int col = canvas_text(c, row, 0, "Labs ", ST_DIM, -1);
	if (s->nlabs == 0 && s->lab[0])
		canvas_printf(c, row, col, ST_SELECTED, -1, " %s ", s->lab);
	if (s->nlabs == 0)
		return;
	int room = c->cols - col;
	char buf[96];
	int full = 1, width = 0, current = 0;
	for (int i = 0; i < s->nlabs; i++) {
		width += lab_cell(s, i, 1, buf, sizeof(buf));
		if (!strcmp(s->labs[i].name, s->lab))
			current = i;
	}
	if (width > room) {
		full = 0;
		width = 0;
		for (int i = 0; i < s->nlabs; i++)
			width += lab_cell(s, i, 0, buf, sizeof(buf));
	}
	int first = 0, last = s->nlabs - 1;
	while (width > room - 4 && first < last) {
		/* drop from the side farther from the current lab */
		int drop = current - first > last - current ? first++ : last--;
		width -= lab_cell(s, drop, full, buf, sizeof(buf));
	}
	if (first > 0)
		col = canvas_text(c, row, col, "<", ST_DIM, -1);
	for (int i = first; i <= last; i++) {
		lab_cell(s, i, full, buf, sizeof(buf));
		col = canvas_text(c, row, col, buf,
				  i == current && !strcmp(s->labs[i].name, s->lab)
					  ? ST_SELECTED
					  : ST_NORMAL,
				  -1);
		col++;
	}
	if (last < s->nlabs - 1)
		canvas_text(c, row, col, ">", ST_DIM, -1);
}

void panel_header(const struct ui_state *s, struct canvas *c,
		  const struct render_opts *o)
{
	(void)o;
	char state[300];
	int col = canvas_text(c, 0, 0, "cudalab", ST_BOLD, -1);
	if (s->lab[0])
		col = canvas_printf(c, 0, col, ST_BOLD, -1, " · %s — %s",
				    s->lab, s->lab_title);
	run_state(s, state, sizeof(state));
	if (s->replay[0]) {
		/* a saved run, not this machine's live grader: say so, with
		 * the file's name where it fits */
		char live[96];
		snprintf(live, sizeof(live), "%s", state);
		snprintf(state, sizeof(state), "replay of %s · %s", s->replay,
			 live);
		if (utf8_width(state) > c->cols - col - 1)
			snprintf(state, sizeof(state), "replay · %s", live);
	}
	int w = utf8_width(state);
	canvas_text(c, 0, c->cols - w > 40 ? c->cols - w : 40, state,
		    s->run_active ? ST_WARN : ST_DIM, -1);

	if (!s->device_known)
		canvas_text(c, 1, 0, "GPU   probing...", ST_DIM, -1);
	else if (!s->device_available)
		canvas_printf(c, 1, 0, ST_WARN, -1,
			      "GPU   no CUDA device: %s — NOT GRADED",
			      s->device_reason);
	else
		/* most important first: narrow terminals cut the end */
		canvas_printf(c, 1, 0, ST_NORMAL, -1,
			      "GPU   %s · copy %.0f GB/s · %d SMs · CC %s · "
			      "CUDA %s · driver %s",
			      s->device_name, s->copy_gbps, s->sm_count, s->cc,
			      s->runtime, s->driver);

	panel_labs(s, c, 2);
}
