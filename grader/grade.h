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

/*
 * Sandbox policy. AUTO (a student's `test`): a box when one starts here,
 * else a "sandbox" event with on false and the reason, and grading goes on.
 * REQUIRED (`--sandbox`, what the class's `grade` passes): no box, no
 * grading: grade_lab returns -1 (exit 4) saying why. OFF (`--unsandboxed`,
 * the instructor's explicit choice): no box; the "sandbox" event says
 * unsandboxed true, and the gradebook marks every row.
 */
enum sandbox_mode { SANDBOX_AUTO = 0, SANDBOX_REQUIRED, SANDBOX_OFF };

struct grade_opts {
	const char *root;      /* project root */
	const char *build_dir; /* compiled steps (paths.h: ROOT/build, or a
				  per-user folder for a read-only tree) */
	const char *state_dir; /* paths.h: ceiling cache */
	const char *bin_dir;   /* the grader's own folder: devprobe */
	const char *lab;
	const char *step;      /* NULL: every step */
	const char *src_dir;   /* NULL: the lab folder */
	int bench;
	double time_limit_s;   /* 0: the manifest's */
	const char *seed;      /* NULL: fresh inputs */
	int jobs;
	const char *arch_fallback; /* arch to compile for without a device */
	int pretend_no_device;     /* tests: behave as on a machine with none */
	const char *device_facts;  /* tests: a JSON file whose object is taken
				      as the device event instead of running
				      devprobe (CUDALAB_DEVICE_FACTS) */
	int build_only;            /* stop after the compile events */
	const char *calibrate_into; /* calibrate: keep each passing step's
				       figure in this folder (the state
				       folder, or ROOT/calibration for the
				       tree: calibration.h); src_dir is then
				       the lab's reference solutions */
	int sandbox;               /* enum sandbox_mode: whether untrusted
				      work (compile, run, sanitizer, ncu) runs
				      in a box (sandbox.h); a "sandbox" event
				      says whether it did */
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
