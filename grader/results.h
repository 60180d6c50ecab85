/*
 * results — what a run leaves behind in the state folder (.cudalab/).
 *
 *   runs/LAB-last.jsonl   every event of the last run (run.py show replays it)
 *   results/LAB.json      the latest step_end of each step, merged across runs
 *                         ({"lab", "updated", "device", "steps": {id: event}})
 *   history.jsonl         one line per graded step per run: time, lab, step,
 *                         verdict, median_us, gbps, pct_of_copy, device
 *
 * results_save() writes all three from the run's event log. Returns 0, or -1
 * with err (the run itself is unaffected; the caller reports it once).
 *
 * results_path() is the one place these names are spelt: `cudalab-grader
 * paths [LAB]` prints them for run.py, which must not rebuild them. lab is
 * read only for RESULTS_LAST_RUN and RESULTS_LAB. Returns 0, or -1 when the
 * path does not fit in len.
 */
#ifndef CUDALAB_RESULTS_H
#define CUDALAB_RESULTS_H

#include <jansson.h>
#include <stddef.h>

enum results_file {
	RESULTS_RUNS,	  /* the folder of run logs */
	RESULTS_LAST_RUN, /* runs/LAB-last.jsonl */
	RESULTS_LABS,	  /* the folder of the files below */
	RESULTS_LAB,	  /* results/LAB.json */
	RESULTS_HISTORY,  /* history.jsonl */
};

int results_path(char *out, size_t len, const char *state_dir,
		 enum results_file which, const char *lab);

int results_save(const char *state_dir, const json_t *log, char *err,
		 size_t errlen);

#endif
