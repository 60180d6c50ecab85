#include "strbuf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void grow(struct strbuf *sb, size_t extra)
{
	if (sb->len + extra + 1 <= sb->alloc)
		return;
	size_t want = sb->alloc ? sb->alloc * 2 : 256;
	while (want < sb->len + extra + 1)
		want *= 2;
	char *p = realloc(sb->buf, want);
	if (!p) {
		fprintf(stderr, "fatal: out of memory\n");
		abort();
	}
	sb->buf = p;
	sb->alloc = want;
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void strbuf_adds(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	grow(sb, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

void strbuf_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = '\0';
}

void strbuf_release(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
}

const char *strbuf_str(const struct strbuf *sb)
{
	return sb->buf ? sb->buf : "";
}

int strbuf_read_file(struct strbuf *sb, const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		strbuf_add(sb, chunk, n);
	int err = ferror(f);
	fclose(f);
	if (err) {
		errno = EIO;
		return -1;
	}
	return 0;
}
