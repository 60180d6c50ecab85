/*
 * grade — one lab, end to end: build, probe the device, run each step,
 * measure, check, decide verdicts. Everything it learns leaves as events
 * (event.h) through the sink; it prints nothing itself.
 *
 * The sink is called with each event in order and does not own it (it may
 * json_incref to keep it). grade_lab() returns the run's exit status:
 *   0  every step that ran passed
 *   1  a step failed (wrong, crashed, too slow, did not compile, ...)
 *   3  not graded (no CUDA device, or a check could not be measured)
 *  -1  the grader could not do its job (err says why: broken manifest,
 *      harness that does not compile, no nvcc); no run_end is emitted then.
 *  -2  the request was wrong (unknown lab or step, unreadable --src).
 */
#ifndef CUDALAB_GRADE_H
#define CUDALAB_GRADE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"

struct grade_opts {
	const char *root;      /* project root */
	const char *build_dir; /* ROOT/build */
	const char *state_dir; /* ROOT/.cudalab: ceiling cache */
	const char *lab;
	const char *step;      /* NULL: every step */
	const char *src_dir;   /* NULL: the lab folder */
	int bench;
	double time_limit_s;   /* 0: the manifest's */
	const char *seed;      /* NULL: fresh inputs */
	int jobs;
	const char *arch_fallback; /* arch to compile for without a device */
	int pretend_no_device;     /* tests: behave as on a machine with none */
	int build_only;            /* stop after the compile events */
	int sandbox;               /* run step programs under bubblewrap when
				      it works here (sandbox.h); a "sandbox"
				      event says whether it did */
};

int grade_lab(const struct grade_opts *o, event_sink sink, void *arg,
	      char *err, size_t errlen);

/*
 * The line of the first CUDALAB_TODO() call in the step file at path,
 * outside comments and strings: the starter's stub is still there. 0 when
 * there is none (or the file cannot be read).
 */
int step_todo_line(const char *path);

#endif
