#include "hash.h"
#include "strbuf.h"

#include <stdio.h>
#include <string.h>

/* SHA-256 (FIPS 180-4): the first 32 bits of the fractional parts of the
 * cube roots of the first 64 primes, and of the square roots of the first
 * 8 for the initial state. */
static const uint32_t round_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t rotr(uint32_t x, int n)
{
	return (x >> n) | (x << (32 - n));
}

static void compress(uint32_t state[8], const unsigned char block[64])
{
	uint32_t w[64];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)block[4 * i] << 24 |
		       (uint32_t)block[4 * i + 1] << 16 |
		       (uint32_t)block[4 * i + 2] << 8 | block[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^
			      (w[i - 15] >> 3);
		uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^
			      (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	uint32_t a = state[0], b = state[1], c = state[2], d = state[3],
		 e = state[4], f = state[5], g = state[6], h = state[7];
	for (int i = 0; i < 64; i++) {
		uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) +
			      ((e & f) ^ (~e & g)) + round_k[i] + w[i];
		uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) +
			      ((a & b) ^ (a & c) ^ (b & c));
		h = g, g = f, f = e, e = d + t1;
		d = c, c = b, b = a, a = t1 + t2;
	}
	state[0] += a, state[1] += b, state[2] += c, state[3] += d;
	state[4] += e, state[5] += f, state[6] += g, state[7] += h;
}

void hash_init(struct content_hash *c)
{
	static const uint32_t initial[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372,
					    0xa54ff53a, 0x510e527f, 0x9b05688c,
					    0x1f83d9ab, 0x5be0cd19};
	memcpy(c->state, initial, sizeof(initial));
	c->used = 0;
	c->bytes = 0;
}

static void feed(struct content_hash *c, const void *data, size_t len)
{
	const unsigned char *p = data;
	c->bytes += len;
	while (len > 0) {
		size_t take = sizeof(c->block) - c->used;
		if (take > len)
			take = len;
		memcpy(c->block + c->used, p, take);
		c->used += take, p += take, len -= take;
		if (c->used == sizeof(c->block)) {
			compress(c->state, c->block);
			c->used = 0;
		}
	}
}

void hash_bytes(struct content_hash *c, const void *data, size_t len)
{
	unsigned char n[8];
	for (int i = 0; i < 8; i++)
		n[i] = (unsigned char)((uint64_t)len >> (8 * i));
	feed(c, n, sizeof(n));
	feed(c, data, len);
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
	/* finish a copy: the padding (0x80, zeros, the length in bits) */
	struct content_hash f = *c;
	uint64_t bits = f.bytes * 8;
	unsigned char pad[72] = {0x80};
	size_t padlen = (f.used < 56 ? 56 : 120) - f.used;
	unsigned char len[8];
	for (int i = 0; i < 8; i++)
		len[i] = (unsigned char)(bits >> (56 - 8 * i));
	feed(&f, pad, padlen);
	feed(&f, len, sizeof(len));
	snprintf(out, 17, "%08x%08x", (unsigned)f.state[0],
		 (unsigned)f.state[1]);
}
