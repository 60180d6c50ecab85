/*
 * check.h — the unit tests' only framework: TAP-style lines.
 *
 *   CHECK(cond, "what must hold")   prints "ok N - ..." or "not ok N - ..."
 *                                    plus a "# file:line: cond" line
 *   return check_done();             exit status 1 if anything failed
 *
 * tests/run_tests.py counts the lines; each file is also runnable alone.
 */
#ifndef CUDALAB_CHECK_H
#define CUDALAB_CHECK_H

#include <stdio.h>

static int check_count, check_failures;

#define CHECK(cond, ...)                                                   \
	do {                                                               \
		int check_ok_ = !!(cond); /* evaluated once */             \
		++check_count;                                             \
		if (check_ok_) {                                           \
			printf("ok %d - ", check_count);                   \
		} else {                                                   \
			++check_failures;                                  \
			printf("not ok %d - ", check_count);               \
		}                                                          \
		printf(__VA_ARGS__);                                       \
		printf("\n");                                              \
		if (!check_ok_)                                            \
			printf("# %s:%d: %s\n", __FILE__, __LINE__, #cond); \
		fflush(stdout);                                            \
	} while (0)

static inline int check_done(void)
{
	return check_failures ? 1 : 0;
}

/* A check that cannot run here, with the reason: counted as skipped. */
#define CHECK_SKIP(...)                                                    \
	do {                                                               \
		printf("ok %d - ", ++check_count);                         \
		printf(__VA_ARGS__);                                       \
		printf("\n");                                              \
	} while (0)

#endif
