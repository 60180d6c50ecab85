/*
 * manifest — a lab's lab.json, loaded and validated.
 *
 * Format (every field is checked; unknown fields are rejected so a typo in a
 * threshold never silently disables a check):
 *
 *   {
 *     "name": "saxpy",                       lab id, equals its folder name
 *     "title": "SAXPY: naive to float4",
 *     "order": 2,                            position in the workshop
 *     "interface": "void saxpy(...)",        the launcher students implement
 *     "harness": "harness.cu",               the lab's test program
 *     "time_limit_s": 60,                    ? wall-clock limit per step run
 *     "vendor": {"source": "vendor.cu",      ? vendor-library comparison
 *                "name": "cuBLAS cublasSaxpy", "libs": ["cublas"]},
 *     "sanitize": {"tools": ["racecheck"],   ? compute-sanitizer tools run
 *                  "case": "n=1025 ones"},     on one harness case, for the
 *                                              metric sanitizer_errors
 *     "sweep": {"define": "PDIST",           ? bench also rebuilds the steps
 *               "values": [1, 2, 4, 8]},      whose file uses the macro with
 *                                              -DPDIST=v for each value and
 *                                              times them ("sweep" events)
 *     "advice": [{"when": "ptx_rem_ops > 0",  ? hints for `explain`, chosen
 *                 "hint": "...", "see": "v5"}], by conditions on its facts
 *                                              (advice.h); "see": a step id
 *     "needs": ["cp.async"],               ? what every step needs from the
 *                                              GPU: names from capability.h's
 *                                              table, each with the compute
 *                                              capability that first has it
 *     "hidden_sizes": ["1000003", "77x999"], ? extra correctness cases the
 *                                              harness runs (--extra-size):
 *                                              an instructor's tree adds
 *                                              them; students never see them
 *     "steps": [
 *       {"id": "v1", "title": "naive", "file": "saxpy_v1.cu",
 *        "hint": "what to try when this step fails",
 *        "needs": ["cp.async"],             ? as the lab's, for this step
 *        "launcher": "copy_floats",          ? the function this step's file
 *                                              must define, when it is not
 *                                              the interface's (a lab with a
 *                                              launcher per step)
 *        "checks": [ {"metric": "pct_of_copy", "min": 60,
 *                     "why": "what the check teaches when it fails"} ]}
 *     ]
 *   }
 *
 * "needs" (lab or step) is a non-empty array of distinct known names; a step
 * needs its own and the lab's. A GPU below what a step needs does not build
 * or run it: the step is NOT GRADED with manifest_step_beyond()'s reason.
 *
 * A check has exactly one of "min" (measured >= min passes) or "max"
 * (measured <= max passes); "metric" must be a fact of facts.h's table
 * that a grading run measures (FACT_CHECK); a retired name is an error
 * that names the one that replaced it.
 *
 * Ownership: manifest_load() fills a caller-provided struct whose strings and
 * arrays it allocates; manifest_free() releases them (safe on a zeroed or
 * half-filled struct). On error, returns -1 with "FILE: FIELD: reason" in err
 * and leaves nothing allocated.
 */
#ifndef CUDALAB_MANIFEST_H
#define CUDALAB_MANIFEST_H

#include <stddef.h>

enum check_op { CHECK_AT_LEAST, CHECK_AT_MOST };

struct check_spec {
	char *metric;
	enum check_op op;
	double bound;
	char *why;
};

struct advice_spec {
	char *when; /* advice.h's condition syntax, checked at load */
	char *hint;
	char *see;  /* a step id of this lab, or NULL */
};

struct step_spec {
	char *id;
	char *title;
	char *file;
	char *hint;
	struct check_spec *checks;
	size_t nchecks;
	char **needs;  /* NULL-terminated capability names (the lab's, then
			  the step's); NULL when none */
	int needs_cc;  /* the highest compute capability they take, as
			  major * 10 + minor; 0 when none */
	char *launcher; /* the function the file must define; NULL: the
			   interface's */
};

struct lab_manifest {
	char *dir;  /* the lab's folder, as given to manifest_load */
	char *name;
	char *title;
	int order;
	char *interface;
	char *harness;
	double time_limit_s;
	char *vendor_source; /* NULL when the lab has no vendor comparison */
	char *vendor_name;
	char **vendor_libs;  /* NULL-terminated */
	char **sanitize_tools; /* NULL-terminated; NULL when none */
	char *sanitize_case;
	char **hidden_sizes;   /* NULL-terminated; NULL when none */
	char *sweep_define;    /* a macro name; NULL when no sweep */
	int sweep_values[32];
	int nsweep_values;
	struct step_spec *steps;
	size_t nsteps;
	struct advice_spec *advice;
	size_t nadvice;
	char **needs;  /* the lab's own "needs" (every step has them too) */
	int needs_cc;
};

int manifest_load(const char *lab_dir, struct lab_manifest *out, char *err,
		  size_t errlen);
void manifest_free(struct lab_manifest *m);

/* The step whose id is id, or whose 1-based position is id ("2"); or NULL. */
const struct step_spec *manifest_step(const struct lab_manifest *m,
				      const char *id);

/*
 * When step needs more than compute capability cc (major * 10 + minor):
 * returns 1 with "needs compute capability 8.0 (cp.async)" in why, naming
 * every capability cc lacks. Returns 0 (why "") when cc is enough.
 */
int manifest_step_beyond(const struct step_spec *step, int cc, char *why,
			 size_t len);

/* Position of step in m (0-based). */
size_t manifest_step_index(const struct lab_manifest *m,
			   const struct step_spec *step);

#endif
