/*
 * strvec — a growable, NULL-terminated array of strings: an argv or an
 * environment built up piece by piece (after git's strvec).
 *
 * Contract: STRVEC_INIT is an empty vector. Each push copies its string;
 * the vector owns the copies and strvec_clear() frees them and returns it
 * to STRVEC_INIT. strvec_argv() is the NULL-terminated array (an empty one
 * when nothing was pushed, never NULL), valid until the next push or clear.
 * Pushes abort the process on out-of-memory, as strbuf's do.
 */
#ifndef CUDALAB_STRVEC_H
#define CUDALAB_STRVEC_H

#include <stddef.h>

struct strvec {
	const char **v; /* nr strings, then NULL (NULL until the first push) */
	size_t nr, alloc;
};
#define STRVEC_INIT {NULL, 0, 0}

void strvec_push(struct strvec *sv, const char *s);
void strvec_pushf(struct strvec *sv, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Every argument up to a NULL. */
void strvec_pushl(struct strvec *sv, ...) __attribute__((sentinel));
/* Every string of a NULL-terminated array (NULL: none). */
void strvec_pushv(struct strvec *sv, const char *const *v);
const char *const *strvec_argv(const struct strvec *sv);
void strvec_clear(struct strvec *sv);

#endif
