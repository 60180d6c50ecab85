/*
 * advice — a lab's hints, chosen by conditions on the facts `explain`
 * measured or read, so the explanation can end with "what to try" in the
 * lab's own words.
 *
 * In lab.json:
 *   "advice": [
 *     {"when": "ptx_max_load_bytes < 16 and dram_pct < 85",
 *      "hint": "loads are 4 bytes wide: one warp request moves 128 bytes",
 *      "see": "v5"}
 *   ]
 * "when" is one or more conditions joined by "and"; a condition is
 * FACT OP VALUE with OP one of < <= > >= == != and VALUE a number, or a
 * word for the word facts (occupancy_limiter, top_stall). "see" names the
 * step (id) whose README section teaches the fix; it is optional.
 *
 * The facts are common/facts.h's, those marked FACT_ADVICE: the one
 * vocabulary of step facts, whose kind says number or word. A retired name
 * (load_bytes, rem_ops, ...) is an error that names the one that replaced
 * it. explain.c fills a JSON object with those names; a fact it could not measure (no GPU, no ncu, a metric
 * ncu did not report) is absent, and a rule that needs it is neither true
 * nor false but ADVICE_UNKNOWN — it is reported as unchecked, never guessed.
 *
 * advice_check() validates a "when" at manifest load (unknown fact, bad
 * operator, a word compared to a number fact ...), so a typo in a lab's
 * advice is an error of the lab, not a hint that silently never fires.
 */
#ifndef CUDALAB_ADVICE_H
#define CUDALAB_ADVICE_H

#include <jansson.h>
#include <stddef.h>

/* 0 when `when` is well formed; -1 with the reason in err. */
int advice_check(const char *when, char *err, size_t errlen);

enum advice_match { ADVICE_FALSE, ADVICE_TRUE, ADVICE_UNKNOWN };

/*
 * Evaluate `when` on facts (a JSON object, fact name -> number or string).
 * ADVICE_UNKNOWN when a condition needs a fact that is absent and no other
 * condition is already false; its name goes to missing. A malformed `when`
 * is ADVICE_FALSE (advice_check() catches it earlier).
 */
enum advice_match advice_eval(const char *when, json_t *facts, char *missing,
			      size_t missing_len);

#endif
