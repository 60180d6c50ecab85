/* hash: the build cache's content keys. */
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
	CHECK(a.h != b.h, "one changed byte changes the key");
	unlink(path);
	struct content_hash m;
	hash_init(&m);
	CHECK(hash_file(&m, path) == -1 && m.h != a.h,
	      "a missing file is an error, hashed as missing");
	return check_done();
}
