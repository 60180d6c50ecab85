/*
 * report — the plain-text and JSON front ends of the event stream.
 *
 * report_json: writes every event as one JSON line (the stream itself).
 * report_text: prints a readable, line-oriented account as events arrive:
 * one block per step with its verdict, numbers, failing checks, mismatches
 * and the hint; then the summary line. Colour only when `color` is set.
 * Each phase that takes a while (compiling, then each step's run) is
 * announced before it starts. Under each step: its kernels' registers and
 * spills and its global memory instructions from the PTX (one line each;
 * every kernel and every fact with verbose). Without a device a step says
 * whether it is written ("builds") or still the starter's stub ("not
 * implemented"), and which checks were judged from the build and which
 * need a GPU.
 *
 * An `explain` run (run_begin's mode "explain", grader/explain.h) is
 * printed as explain's own view: per step a heading and how it stands, its
 * kernels' resources, its PTX's memory accesses by source line, the SASS,
 * the counters and the hints; then the roofline. Nothing of the build
 * itself is printed there (it was printed the same way before explain
 * spoke in events).
 *
 * Both are event_sink functions (grade.h) taking a struct report as arg.
 * They read events and never change them.
 */
#ifndef CUDALAB_REPORT_H
#define CUDALAB_REPORT_H

#include <jansson.h>
#include <stdio.h>

struct report {
	FILE *out;
	int color;
	int verbose;      /* also show passing checks and compiler warnings */
	json_t *log;      /* array: every event, for the results files */
	json_t *device;   /* the device event */
	json_t *vendor;   /* array: the vendor's timing events (bench) */
	char lab[64];     /* from run_begin, for replay commands */
	json_t *details;  /* the current step's failed cases, guards, checks:
			     printed under its line at step_end */
	json_t *sweeps;   /* "sweep" events, for the table at the end */
	char step[32];    /* the step whose line is open (after step_begin) */
	char step_title[128];
	int waited_shown; /* seconds of waiting for the GPU last printed, -1 */
	json_t *built;    /* step id -> {"resources": ev, "ptx": ev}: what the
			     build found, printed under the step's line */
	int compiling;    /* compile "started" events seen, not yet done */
	int compiled;     /* compile results seen */
	int explain;      /* the run is `explain`'s (run_begin's mode): only
			     its explanations are printed */
};

void report_init(struct report *r, FILE *out, int color, int verbose);
void report_release(struct report *r);

void report_json(void *arg, json_t *ev);
void report_text(void *arg, json_t *ev);

#endif
