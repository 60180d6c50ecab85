/*
 * strbuf — a growable, always NUL-terminated byte buffer.
 *
 * Contract: a zeroed struct (STRBUF_INIT) is an empty buffer; buf is NULL
 * until the first append, so use strbuf_str() to read it as a string.
 * Appends abort the process on out-of-memory (there is no sensible recovery
 * for a grader that cannot hold its own output). strbuf_release frees and
 * returns the struct to STRBUF_INIT.
 */
#ifndef CUDALAB_STRBUF_H
#define CUDALAB_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct strbuf {
	char *buf;
	size_t len;
	size_t alloc;
};
#define STRBUF_INIT {NULL, 0, 0}

void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_adds(struct strbuf *sb, const char *s);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void strbuf_reset(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);
const char *strbuf_str(const struct strbuf *sb);

/* Read a whole file into sb (appending). Returns 0, or -1 with errno set. */
int strbuf_read_file(struct strbuf *sb, const char *path);

#endif
