#include "strvec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *must(void *p)
{
	if (!p) {
		fputs("cudalab: out of memory\n", stderr);
		abort();
	}
	return p;
}

static void take(struct strvec *sv, char *s)
{
	if (sv->nr + 2 > sv->alloc) {
		sv->alloc = sv->alloc ? 2 * sv->alloc : 16;
		sv->v = must(realloc(sv->v, sv->alloc * sizeof(*sv->v)));
	}
	sv->v[sv->nr++] = s;
	sv->v[sv->nr] = NULL;
}

void strvec_push(struct strvec *sv, const char *s)
{
	take(sv, must(strdup(s)));
}

void strvec_pushf(struct strvec *sv, const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	take(sv, must(n < 0 ? NULL : s));
}

void strvec_pushl(struct strvec *sv, ...)
{
	va_list ap;
	va_start(ap, sv);
	const char *s;
	while ((s = va_arg(ap, const char *)))
		strvec_push(sv, s);
	va_end(ap);
}

void strvec_pushv(struct strvec *sv, const char *const *v)
{
	for (; v && *v; v++)
		strvec_push(sv, *v);
}

const char *const *strvec_argv(const struct strvec *sv)
{
	static const char *const empty[] = {NULL};
	return sv->v ? sv->v : empty;
}

void strvec_clear(struct strvec *sv)
{
	for (size_t i = 0; i < sv->nr; i++)
		free((char *)sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->nr = sv->alloc = 0;
}
