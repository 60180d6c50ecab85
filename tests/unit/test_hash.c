/* hash: the build and counter caches' content keys (SHA-256, hash.h). */
#include "check.h"
#include "hash.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void key_of(const char *a, const char *b, char out[17])
{
	struct content_hash h;
	hash_init(&h);
	hash_str(&h, a);
	hash_str(&h, b);
	hash_hex(&h, out);
}

int main(void)
{
	char k1[17], k2[17], k3[17];
	key_of("ab", "c", k1);
	key_of("ab", "c", k2);
	key_of("a", "bc", k3);
	CHECK(!strcmp(k1, k2), "the same pieces give the same key");
	CHECK(strcmp(k1, k3), "pieces are length-prefixed: ab|c != a|bc");
	CHECK(strlen(k1) == 16, "16 hex digits");
	{
		/* the expected keys: Python's hashlib.sha256 over the same
		 * length-prefixed stream, first 16 hex digits */
		struct content_hash h;
		char k[17], big[201];
		hash_init(&h);
		hash_str(&h, "abc");
		hash_hex(&h, k);
		CHECK(!strcmp(k, "ce91dc5eec0139ad"), "SHA-256 of one piece (%s)", k);
		CHECK(!strcmp(k1, "43ee655579de01ca"), "of two pieces (%s)", k1);
		memset(big, 'x', 200);
		big[200] = 0;
		hash_init(&h);
		hash_str(&h, big);
		hash_hex(&h, k);
		CHECK(!strcmp(k, "8b70c0b60fdb5152"),
		      "of 208 bytes, four blocks (%s)", k);
		hash_init(&h);
		hash_str(&h, "");
		hash_hex(&h, k);
		CHECK(!strcmp(k, "af5570f5a1810b7a"), "of an empty piece (%s)", k);
		/* reading the key leaves the stream as it was */
		hash_init(&h);
		hash_str(&h, "ab");
		hash_hex(&h, k);
		hash_str(&h, "c");
		hash_hex(&h, k);
		CHECK(!strcmp(k, k1), "a key read midway changes nothing");
	}

	char path[64];
	snprintf(path, sizeof(path), "/tmp/cudalab-hash-%d", getpid());
	FILE *f = fopen(path, "w");
	fputs("__global__ void k() {}\n", f);
	fclose(f);
	struct content_hash a, b;
	hash_init(&a);
	hash_init(&b);
	CHECK(hash_file(&a, path) == 0, "a file hashes");
	f = fopen(path, "w");
	fputs("__global__ void k() { }\n", f);
	fclose(f);
	hash_file(&b, path);
	char ka[17], kb[17];
	hash_hex(&a, ka);
	hash_hex(&b, kb);
	CHECK(strcmp(ka, kb), "one changed byte changes the key");
	unlink(path);
	struct content_hash m;
	hash_init(&m);
	char km[17];
	int missing = hash_file(&m, path);
	hash_hex(&m, km);
	CHECK(missing == -1 && strcmp(km, ka),
	      "a missing file is an error, hashed as missing");
	return check_done();
}
