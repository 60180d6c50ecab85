/*
 * metric — the names a lab's checks may test, with their units.
 *
 * A lab.json check names one of these metrics; the grader measures it for
 * each step (from the harness, the compiler or the PTX) and compares it with
 * the check's bound. The table is the single list of what exists, so a
 * manifest naming anything else is rejected when it is loaded.
 */
#ifndef CUDALAB_METRIC_H
#define CUDALAB_METRIC_H

#ifdef __cplusplus
extern "C" {
#endif

struct metric_info {
	const char *name;
	const char *unit;   /* shown after the number: "%", "GB/s", "" */
	const char *source; /* where it comes from, for "not measured" texts */
	const char *meaning;
};

/* The entry for name, or NULL when there is none. */
const struct metric_info *metric_find(const char *name);

/* True when the metric comes from hardware counters (a profiler run). */
int metric_needs_profiler(const char *name);

/* All entries, terminated by one whose name is NULL. */
const struct metric_info *metric_table(void);

#ifdef __cplusplus
}
#endif
#endif
