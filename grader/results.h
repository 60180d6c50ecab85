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
 */
#ifndef CUDALAB_RESULTS_H
#define CUDALAB_RESULTS_H

#include <jansson.h>
#include <stddef.h>

int results_save(const char *state_dir, const json_t *log, char *err,
		 size_t errlen);

#endif
