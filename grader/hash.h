/*
 * hash — content hashes for the build cache.
 *
 * 64-bit FNV-1a over a stream of byte strings. Each piece is length-prefixed,
 * so ("ab","c") and ("a","bc") differ. Not cryptographic: it names cache
 * entries (a collision would reuse a stale build), not a security boundary.
 */
#ifndef CUDALAB_HASH_H
#define CUDALAB_HASH_H

#include <stddef.h>
#include <stdint.h>

struct content_hash {
	uint64_t h;
};

void hash_init(struct content_hash *c);
void hash_bytes(struct content_hash *c, const void *data, size_t len);
void hash_str(struct content_hash *c, const char *s);
/* Hash a file's contents (and its name's absence marker when missing).
 * Returns 0, or -1 when the file cannot be read (hashed as missing). */
int hash_file(struct content_hash *c, const char *path);
/* 16 lowercase hex digits + NUL into out[17]. */
void hash_hex(const struct content_hash *c, char out[17]);

#endif
