/*
 * panels — the parts of the dashboard's screen, one file each. Each draws
 * a part of a ui_state (or a class view) into a canvas and changes nothing.
 * render.c arranges them; they draw with the helpers of draw.h.
 */
#ifndef CUDALAB_UI_PANELS_H
#define CUDALAB_UI_PANELS_H

#include "canvas.h"
#include "draw.h"
#include "state.h"

/* rows 0..2: the title, the device, the labs (panel_header.c) */
void panel_header(const struct ui_state *s, struct canvas *c,
		  const struct render_opts *o);
/* the steps table from row top; returns the next free row (panel_steps.c) */
int panel_steps(const struct ui_state *s, struct canvas *c, int top,
		const struct render_opts *o);
/* the selected step's details in rows [top, bottom) (panel_details.c) */
void panel_details(const struct ui_state *s, struct canvas *c, int top,
		   int bottom, const struct render_opts *o);
/* explain's view of a step in rows [top, bottom) (panel_explain.c) */
void panel_explain(const struct ui_state *s, struct canvas *c, int top,
		   int bottom);
/* every key, in rows [top, bottom) (panel_help.c) */
void panel_help(struct canvas *c, int top, int bottom);

/* The class view of a gradebook (panel_class.c); a whole screen. */
struct class_view;
void render_class(const struct class_view *v, struct canvas *c,
		  const struct render_opts *o);

#endif
