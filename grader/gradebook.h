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
 * writes the gradebook there. Each shard folder holds shard.json (written
 * by batch_grade: {"shard": K, "shards": N, "finished": bool}); a merge
 * missing a shard K of N, or with one that did not finish, is an error
 * naming that shard, never a class of "incomplete" students.
 *
 * A step that could not be run (no CUDA device) is "not_graded": it has no
 * score anywhere (the CSV's passed cell is empty and not_graded counts it,
 * Gradescope gets no score, JUnit a <skipped> with the reason as text,
 * summary.txt says NOT GRADED), and its summary quotes the reason its run's
 * device event gave.
 *
 * Text a student controls is made safe for each format: CSV cells that
 * begin with = + - @ (or tab, CR) get a leading ' (no formulas), cells are
 * capped; XML gets no character XML 1.0 forbids (controls, U+FFFE/U+FFFF,
 * surrogates, bytes that are not UTF-8).
 *
 * All return 0 when every step was graded, 1 when some step was not graded
 * (no CUDA device: the grader's exit 3), or -1 with err.
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
