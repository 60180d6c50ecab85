/*
 * classbook — a graded class (OUT/gradebook.json, written by
 * `cudalab-grader grade`) as plain data: what the gradebook's summary.txt
 * prints and the dashboard's class view draws, computed in one place:
 * per lab step, the verdicts of every student, the spread of their % of the
 * GPU's copy bandwidth, and the step's bandwidth threshold.
 *
 * What counts (the same rules as summary.txt):
 *   submitted  every student whose verdict is not "missing"
 *   passed     verdict "pass"
 *   spread     min/median/max over the students that have a measured
 *              pct_of_copy (a crash or a build error has none: it is
 *              counted among the verdicts, never as 0%)
 *   threshold  the "required" value of the step's pct_of_copy check, taken
 *              from the first student whose record has it; -1 when no
 *              record has one (no GPU run, or a step without that check)
 * Each step's students are sorted by % of copy, highest first; those
 * without a measurement follow, by verdict then name.
 *
 * Ownership: classbook_load() (a file, or an OUT folder) and
 * classbook_from_json() (a gradebook document already in memory; path is
 * only its name for messages) fill a caller's struct classbook and
 * allocate its arrays; classbook_free() releases them (safe on a zeroed or
 * half-loaded book). Both return 0, or -1 with err (a missing or unreadable
 * file, not JSON, not a gradebook).
 */
#ifndef CUDALAB_CLASSBOOK_H
#define CUDALAB_CLASSBOOK_H

#include <jansson.h>
#include <stddef.h>

#define CB_MAX_VERDICTS 12

struct cb_student {
	char name[64];
	char verdict[24];
	double pct; /* % of copy; < 0: not measured */
};

struct cb_verdict_count {
	char verdict[24];
	int count;
};

struct cb_step {
	char lab[32], id[16], title[96];
	double threshold; /* required % of copy; < 0: none known */
	int submitted, passed;
	struct cb_verdict_count verdicts[CB_MAX_VERDICTS];
	int nverdicts;
	int measured; /* students with a pct */
	double min, median, max;
	struct cb_student *students; /* nstudents, sorted (see above) */
	int nstudents;
};

struct classbook {
	char path[512];
	int nstudents;
	struct cb_step *steps;
	int nsteps;
};

int classbook_load(struct classbook *b, const char *path, char *err,
		   size_t errlen);
int classbook_from_json(struct classbook *b, const json_t *doc,
			const char *path, char *err, size_t errlen);
void classbook_free(struct classbook *b);

/* The histogram of a step's % of copy: counts into nbins bins of equal
 * width over [0, scale); values at or above scale go in the last bin. */
void classbook_histogram(const struct cb_step *st, double scale, int *bins,
			 int nbins);

#endif
