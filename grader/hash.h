/*
 * hash — content hashes for the build cache and the counter cache.
 *
 * SHA-256 over a stream of byte strings, each length-prefixed (its length
 * as 8 little-endian bytes, then its bytes), so ("ab","c") and ("a","bc")
 * differ. A key is the digest's first 64 bits as 16 hex digits.
 *
 * The keys decide what a student gets: the class's build cache is shared,
 * so a file whose key equals another file's would be handed that file's
 * executable (the instructor's solution's, say), and the counter cache's
 * key picks the counts a check reads. A student controls every byte of a
 * file, so the hash must make such a file infeasible to write: with
 * SHA-256, finding one for a given key takes about 2^64 tries (FNV-1a,
 * used before 2026-11-24, is a multiply-xor whose second preimages
 * algebra finds). Two files of one's own that share a key (2^32 tries)
 * gain nothing: each is that student's.
 */
#ifndef CUDALAB_HASH_H
#define CUDALAB_HASH_H

#include <stddef.h>
#include <stdint.h>

struct content_hash {
	uint32_t state[8];
	unsigned char block[64]; /* bytes not yet compressed */
	size_t used;             /* of block */
	uint64_t bytes;          /* fed so far */
};

void hash_init(struct content_hash *c);
void hash_bytes(struct content_hash *c, const void *data, size_t len);
void hash_str(struct content_hash *c, const char *s);
/* Hash a file's contents (and its name's absence marker when missing).
 * Returns 0, or -1 when the file cannot be read (hashed as missing). */
int hash_file(struct content_hash *c, const char *path);
/* The key: 16 lowercase hex digits + NUL into out[17]; c is unchanged
 * (more may be fed after). */
void hash_hex(const struct content_hash *c, char out[17]);

#endif
