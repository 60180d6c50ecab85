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
#include <stdlib.h>

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

/*
 * The text of tests/fixtures/DIR/NAME under $CUDALAB_ROOT (default: the
 * current folder), or "" (with a "#" line saying so) when it cannot be
 * read. The text stays valid until the next call.
 */
static inline const char *check_fixture(const char *dir, const char *name)
{
	static char *text;
	char path[1024];
	const char *root = getenv("CUDALAB_ROOT");
	snprintf(path, sizeof(path), "%s/tests/fixtures/%s/%s",
		 root ? root : ".", dir, name);
	free(text);
	text = NULL;
	FILE *f = fopen(path, "rb");
	long len = -1;
	if (f && fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (text = (char *)malloc((size_t)len + 1)))
		text[fread(text, 1, (size_t)len, f)] = '\0';
	if (f)
		fclose(f);
	if (!text)
		printf("# cannot read %s\n", path);
	return text ? text : "";
}

#endif
