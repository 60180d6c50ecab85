/* The top three rows: title and run state, the device, the labs. */
#include "render.h"

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
	else
		snprintf(buf, len, "waiting for the grader");
	return buf;
}

void panel_header(const struct ui_state *s, struct canvas *c,
		  const struct render_opts *o)
{
	(void)o;
	char state[96];
	int col = canvas_text(c, 0, 0, "cudalab", ST_BOLD, -1);
	if (s->lab[0])
		canvas_printf(c, 0, col, ST_BOLD, -1, " · %s — %s", s->lab,
			      s->lab_title);
	run_state(s, state, sizeof(state));
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

	col = canvas_text(c, 2, 0, "Labs ", ST_DIM, -1);
	if (s->nlabs == 0 && s->lab[0])
		canvas_printf(c, 2, col, ST_SELECTED, -1, " %s ", s->lab);
	for (int i = 0; i < s->nlabs; i++) {
		const struct ui_lab *l = &s->labs[i];
		int current = !strcmp(l->name, s->lab);
		col = canvas_printf(c, 2, col, current ? ST_SELECTED : ST_NORMAL,
				    -1, " %d.%s %d/%d ", l->order, l->name,
				    l->passed, l->steps);
		col++;
	}
}
