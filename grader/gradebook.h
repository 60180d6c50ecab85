/*
 * gradebook — a graded class as files an instructor (and a course platform)
 * can take: written from OUT/intake.json and OUT/results/STUDENT/LAB.jsonl.
 *
 *   gradebook.csv   one row per student: a verdict column and a % of copy
 *                   column per step, passed, total, notes (intake problems)
 *   gradebook.json  everything, per student, lab, step and check
 *   gradescope/STUDENT/results.json   Gradescope's format: score,
 *                   max_score, one test per step (output = the summary)
 *   junit.xml       one testsuite per student, one testcase per step
 *   summary.txt     the class distribution of bandwidth per step (also
 *                   printed to `summary` when not NULL)
 *
 * A step the student did not submit is "missing"; a lab whose grading did
 * not finish is "incomplete": never a silent zero. One step = one point.
 *
 * gradebook_merge() folds the OUT folders of shards (Slurm array tasks)
 * into out_dir: their students' intake records and result files, then
 * writes the gradebook there.
 *
 * All return 0, or -1 with err.
 */
#ifndef CUDALAB_GRADEBOOK_H
#define CUDALAB_GRADEBOOK_H

#include <jansson.h>
#include <stdio.h>

int gradebook_write(const char *out_dir, FILE *summary, char *err,
		    size_t errlen);
int gradebook_merge(const char *out_dir, char *const *shards, int nshards,
		    FILE *summary, char *err, size_t errlen);

/* The last event of `kind` in an event file (new reference), or NULL. */
json_t *gradebook_last_event(const char *path, const char *kind);

#endif
