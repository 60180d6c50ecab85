/*
 * explain — "why is my kernel slow?", from what can be read without
 * running the kernel (the first part of `run.py explain`):
 *
 *   compiler   each kernel's registers, spills, shared memory and stack
 *              frame, from ptxas
 *   memory     every global load, store and asynchronous copy in the
 *              step's PTX: its width in bytes, whether it takes the
 *              read-only (non-coherent) path, and the source line it came
 *              from, printed with the line's text; identical instructions
 *              of one line (an unrolled loop) are counted, not repeated
 *   sass       with cuobjdump on PATH: the memory instructions of the
 *              step's machine code (sass.h), by width, read-only path,
 *              asynchronous copies and local memory; else "not shown" and why
 *   counters   with a GPU: Nsight Compute on the step's timed-size case
 *              (profiler.h): DRAM throughput, occupancy and what limits
 *              it, sectors per request, instructions and bank conflicts
 *              per element, L1/L2 hit rates, the top stall reasons, the
 *              floating-point work; without a GPU, ncu or permission to
 *              the counters: "not measured" and why — never an estimate
 *   hints      the lab's advice rules (advice.h) whose conditions hold on
 *              those facts, after the facts, each naming the step that
 *              teaches the fix; rules that need an unmeasured fact are
 *              counted as unchecked
 *   roofline   after the steps: each step with floating-point work placed
 *              by arithmetic intensity (FLOP per DRAM byte) against the
 *              measured copy bandwidth and the FP32/FP64 peaks at the SM
 *              clock ncu saw, drawn in the terminal and, with --plot FILE,
 *              as an SVG
 *
 * It builds the selected steps as `test --build-only` does (lint, cache),
 * then explains each step in a phase of the same run; only the counters
 * need a GPU. Everything goes to sink as events (common/event.h): the
 * build's events as grade_lab sends them (run_begin with mode "explain"),
 * then per step "explain" (how it stands: explained, rejected, not built,
 * does not compile, not implemented) and, when explained, "accesses",
 * "sass", "profile" (set "explain") and "advice"; then "roofline" (when
 * there is one to draw, or --plot asked for one) and last run_end. The
 * reporters draw them: report.c prints the text above, the dashboard shows
 * them in place. Nothing is printed here: the facts the hints are judged on
 * are derived here, once, and travel in the profile event's "facts".
 *
 * explain_lab() returns 0 when every selected step compiled, 1 when one
 * did not (its first error is in its "explain" event), or -1 with err when
 * the lab could not be built at all (-2: usage, e.g. an unknown lab or
 * step).
 */
#ifndef CUDALAB_EXPLAIN_H
#define CUDALAB_EXPLAIN_H

#include <stdio.h>

#include "event.h"
#include "grade.h"

struct explain_opts {
	const char *plot;  /* an SVG roofline goes here; NULL: none */
	int no_counters;   /* static views only: skip Nsight Compute */
};

int explain_lab(const struct grade_opts *o, const struct explain_opts *e,
		event_sink sink, void *arg, char *err, size_t errlen);

#endif
