/*
 * facts — the one vocabulary of step facts.
 *
 * A step fact is one measured or read quantity of a step: a timing figure,
 * a fact of its launch, a count in its PTX, what the compiler allotted, a
 * hardware counter. Every part of cudalab that names one uses the name in
 * this table: lab.json checks ("metric") and advice rules ("when"), the
 * grader's metrics object (verdict.h), the step_end event's figures, the
 * reporters, the dashboard and the gradebook. One name per quantity and one
 * quantity per name; each fact is derived in one place: facts_from_*()
 * below for what comes from an event (PTX, compiler, launch),
 * grader/profiler.h's profile_facts() for the hardware counters,
 * grader/verdict.c for the timing figures, grader/calibration.c for
 * pct_of_reference*.
 *
 * Decisions (issue 19):
 *  - The PTX counts are ptx_* everywhere (checks and advice alike); the
 *    short advice names (load_bytes, rem_ops, ...) are retired.
 *  - occupancy_pct is the theoretical occupancy of the launch (the
 *    occupancy calculator in the harness, or ncu's figure under explain:
 *    the same quantity); what ncu measured while the kernel ran is
 *    achieved_occupancy_pct. (Advice used to say occupancy_pct for the
 *    achieved one and theoretical_occupancy_pct for the theoretical.)
 *  - spill_bytes is spill stores + spill loads summed over every kernel of
 *    the step's file (explain used to take the largest kernel's): any
 *    spill anywhere is what a check or a hint is about.
 *  - registers, shared_bytes and stack_bytes are the largest kernel's.
 *
 * Where a lab.json may name a fact (uses): FACT_CHECK, measured by a
 * grading run (test/bench) and so usable in a check; FACT_ADVICE, measured
 * or read by `explain` and so usable in an advice rule; neither: a figure
 * the grader keeps for itself (noise, the baseline's time), listed so that
 * every key of the metrics object has one meaning.
 *
 * Two name patterns ride on a fact without their own entry: "M_noise" (the
 * uncertainty of timing figure M, in M's unit) and "why:M" (a sentence:
 * why M could not be measured).
 */
#ifndef CUDALAB_FACTS_H
#define CUDALAB_FACTS_H

#include <jansson.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum fact_kind { FACT_NUMBER, FACT_WORD };

enum fact_use {
	FACT_INTERNAL = 0,
	FACT_CHECK = 1,  /* a lab.json check may test it */
	FACT_ADVICE = 2, /* a lab.json advice rule may test it */
};

struct fact_info {
	const char *name;
	const char *unit;    /* shown after the number: "%", "GB/s", "" */
	const char *source;  /* where it comes from, in words: "timing",
				"launch", "ptx", "compiler", "profiler (ncu)",
				... (the "measured by" of the docs, the
				"not measured" messages) */
	enum fact_kind kind; /* FACT_WORD: compared with == and != only */
	int uses;            /* enum fact_use bits */
	const char *meaning;
};

/* Every fact, ending with an entry whose name is NULL. */
const struct fact_info *facts_table(void);

/* The fact called name, or NULL. */
const struct fact_info *fact_find(const char *name);

/*
 * A name that is not a fact (any more): when it was retired or is a
 * known misspelling, the name that replaced it; else NULL.
 */
const char *fact_renamed(const char *name);

/*
 * Whether name may be used as use (FACT_CHECK or FACT_ADVICE): 0, or -1
 * with the reason in err, in words a lab author can act on: a retired
 * name names its successor ("unknown fact \"load_bytes\": it is now
 * called \"ptx_max_load_bytes\""), a misspelt one the fact it is nearest
 * to (at most 2 edits: "did you mean \"ptx_rem_ops\"?"), anything else
 * lists the known names; a fact of the other use says so ("dram_pct is
 * measured only by explain ...").
 */
int fact_usable(const char *name, int use, char *err, size_t errlen);

/* True when the fact comes from hardware counters (a profiler run). */
int fact_needs_profiler(const char *name);

/* True when the fact is known from the build alone (PTX, compiler). */
int fact_is_static(const struct fact_info *f);

/*
 * Why the build alone knows only part of a static fact in facts, in words
 * ("the kernel's extern __shared__ array is sized at launch": shared_bytes
 * of a kernel with dynamic shared memory, before a launch was seen), or
 * NULL when the figure is whole. A check of it then needs a GPU.
 */
const char *fact_static_incomplete(const char *name, const json_t *facts);

/*
 * The derivations from events: each sets the facts it finds in facts (a
 * JSON object, name -> number), and no others. An event field is the
 * source's own report (event.h: the ptx event's max_load_bytes, the
 * resources event's per-kernel spills); the fact is its name here.
 *
 * facts_from_ptx: the ptx_* facts from a ptx event (or ptx.h's facts of
 * the launched kernels), each present when the count is.
 * facts_from_resources: registers, static_shared_bytes, stack_bytes
 * (largest kernel) and spill_bytes (every kernel's stores + loads,
 * summed) from the resources event's "kernels" array; nothing when it is
 * empty. shared_bytes is static_shared_bytes, plus dynamic_shared_bytes
 * when ptx_dynamic_shared says the PTX declares an extern __shared__
 * array, set by each of the three derivations once static_shared_bytes is
 * known (so in whatever order they come).
 * facts_from_launch: the launch facts from a launch event, with the most
 * dynamic shared memory any launch of the call asked for
 * (dynamic_shared_bytes).
 * (grader/profiler.h's profile_facts() derives the counter facts.)
 */
void facts_from_ptx(const json_t *ptx, json_t *facts);
void facts_from_resources(const json_t *kernels, json_t *facts);
void facts_from_launch(const json_t *launch, json_t *facts);

/*
 * The facts a step_end event carries (NULL-terminated): timing 0, the
 * figures shown whatever the run; timing 1, the timing figures, there only
 * when the timing is trusted (event.h).
 */
const char *const *facts_on_step_end(int timing);

#ifdef __cplusplus
}
#endif
#endif
