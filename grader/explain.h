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
 *   counters   with a GPU: Nsight Compute on the step's timed-size case
 *              (profiler.h: warp instructions executed, shared-memory bank
 *              conflicts); without one, or without ncu or permission to the
 *              counters: "not measured" and why — never an estimate
 *
 * It builds the selected steps as `test --build-only` does (lint, cache);
 * only the counters need a GPU. explain_lab() prints to out and returns 0 when every
 * selected step compiled, 1 when one did not (its first error is shown),
 * or -1 with err when the lab could not be built at all (-2: usage, e.g. an
 * unknown lab or step).
 */
#ifndef CUDALAB_EXPLAIN_H
#define CUDALAB_EXPLAIN_H

#include <stdio.h>

#include "grade.h"

int explain_lab(const struct grade_opts *o, FILE *out, char *err,
		size_t errlen);

#endif
