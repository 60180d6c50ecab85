#include "hash.h"
#include "strbuf.h"

#include <stdio.h>
#include <string.h>

void hash_init(struct content_hash *c)
{
	c->h = 0xCBF29CE484222325ull;
}

static void mix(struct content_hash *c, const void *data, size_t len)
{
	const unsigned char *p = data;
	for (size_t i = 0; i < len; i++)
		c->h = (c->h ^ p[i]) * 0x100000001B3ull;
}

void hash_bytes(struct content_hash *c, const void *data, size_t len)
{
	uint64_t n = len;
	mix(c, &n, sizeof(n));
	mix(c, data, len);
}

void hash_str(struct content_hash *c, const char *s)
{
	hash_bytes(c, s, strlen(s));
}

int hash_file(struct content_hash *c, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	int rc = strbuf_read_file(&sb, path);
	if (rc == 0)
		hash_bytes(c, sb.buf ? sb.buf : "", sb.len);
	else
		hash_str(c, "\x01missing");
	strbuf_release(&sb);
	return rc;
}

void hash_hex(const struct content_hash *c, char out[17])
{
	snprintf(out, 17, "%016llx", (unsigned long long)c->h);
}
