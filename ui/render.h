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
 * The details, explain and help views replace everything below row 2.
 */
#ifndef CUDALAB_UI_RENDER_H
#define CUDALAB_UI_RENDER_H

#include "canvas.h"
#include "draw.h"
#include "state.h"

void render(const struct ui_state *s, struct canvas *c,
	    const struct render_opts *o);

#endif
