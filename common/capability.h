/*
 * capability — what a step can need from a GPU, and which compute
 * capability first has it.
 *
 * A lab.json names what a lab or step needs ("needs": ["cp.async"]); this
 * table is the one place that says which compute capability that takes.
 * The grader compares it with the GPU's (or, without a GPU, with the arch
 * of CUDALAB_ARCH) and does not build or grade a step the GPU cannot take:
 * NOT GRADED "needs compute capability 8.0 (cp.async); this GPU is 7.5".
 *
 * A compute capability is held as major * 10 + minor (7.5 -> 75, 12.0 ->
 * 120), the number in "sm_75".
 */
#ifndef CUDALAB_CAPABILITY_H
#define CUDALAB_CAPABILITY_H

#include <stddef.h>

struct capability {
	const char *name; /* as written in lab.json: "cp.async" */
	int cc;           /* the first compute capability that has it */
	const char *what; /* in words, for messages and the README */
};

/* The table, ended by an entry whose name is NULL. */
const struct capability *capability_table(void);

/* The capability called name, or NULL. */
const struct capability *capability_find(const char *name);

/* 75 for "sm_75" (also "compute_75"), or -1 when arch is not of that form. */
int cc_from_arch(const char *arch);

/* 75 for "7.5", 120 for "12.0", or -1. */
int cc_from_string(const char *cc);

/* "7.5" for 75, "12.0" for 120. */
void cc_format(int cc, char *buf, size_t len);

#endif
