/* timed_size: every lab's timed case, on GPUs from a T4 to a B200, moves at
 * least 8x the L2 and holds at most a quarter of the free memory; a GPU with
 * no room for that says so (0) instead of shrinking into the L2. */
#include "check.h"
#include "timed_size.h"

#include <stdint.h>

#define MiB ((size_t)1 << 20)
#define GiB ((size_t)1 << 30)
#define MIN25 ((size_t)1 << 25)

struct gpu {
	const char *name;
	size_t l2, free;
};

/* What each harness asks for: (min_count, bytes moved, bytes held) per
 * element, as in labs/.../harness.cu and common/devprobe.cu. */
struct lab_case {
	const char *name;
	size_t min_count, moved, held;
};

static int power_of_two(size_t n)
{
	return n && !(n & (n - 1));
}

int main(void)
{
	static const struct gpu gpus[] = {
		{"T4 (4 MiB L2, 15 GiB)", 4 * MiB, 14 * GiB + 600 * MiB},
		{"L4 (48 MiB L2, 22 GiB)", 48 * MiB, 21 * GiB},
		{"RTX 4090 (72 MiB L2, 24 GiB)", 72 * MiB, 22 * GiB},
		{"H100 (50 MiB L2, 80 GiB)", 50 * MiB, 78 * GiB},
		{"B200 (126 MiB L2, 180 GiB)", 126 * MiB, 176 * GiB},
		{"a shared T4 with 3 GiB free", 4 * MiB, 3 * GiB},
	};
	static const struct lab_case labs[] = {
		{"devprobe copy", MIN25, 8, 8},
		{"saxpy", MIN25, 12, 8},
		{"haxpy", MIN25, 6, 4},
		{"reduction", MIN25, 4, 8},
		{"prefetch", MIN25, 16, 16},
		{"transpose (square)", MIN25, 8, 9},
		{"coalescing copy", MIN25, 8, 8},
		{"coalescing gather (stride 32)", MIN25, 136, 136},
		{"coalescing bias (square, 2x held)", MIN25, 8, 16},
		{"coalescing soa", MIN25, 64, 40},
		{"memtuning (points of 32 doubles)", (size_t)1 << 18, 256, 264},
	};
	size_t ngpus = sizeof(gpus) / sizeof(gpus[0]);
	size_t nlabs = sizeof(labs) / sizeof(labs[0]);
	for (size_t g = 0; g < ngpus; g++) {
		int fits = 1, floor_ok = 1, shape_ok = 1;
		for (size_t k = 0; k < nlabs; k++) {
			const struct lab_case *c = &labs[k];
			size_t n = timed_count(c->min_count, c->moved, c->held,
					       gpus[g].l2, gpus[g].free);
			if (!n) {
				fits = 0;
				printf("# %s: %s got no size\n", gpus[g].name, c->name);
				continue;
			}
			fits &= n * c->held <= gpus[g].free / 4;
			floor_ok &= (double)n * c->moved >= 8.0 * gpus[g].l2;
			shape_ok &= power_of_two(n) && n <= TIMED_MAX_COUNT &&
				    n <= INT32_MAX;
		}
		CHECK(fits, "%s: every lab's timed case holds at most a quarter "
		      "of the free memory", gpus[g].name);
		CHECK(floor_ok, "%s: every lab's timed case moves at least 8x the "
		      "L2", gpus[g].name);
		CHECK(shape_ok, "%s: every count is a power of two that fits an "
		      "int", gpus[g].name);
	}

	/* The H100's sizes are those of the rule before memory was capped
	 * (the measured bars were set with them). */
	CHECK(timed_count(MIN25, 12, 8, 50 * MiB, 78 * GiB) == (size_t)1 << 26 &&
		      timed_count(MIN25, 16, 16, 50 * MiB, 78 * GiB) == MIN25 &&
		      timed_count(MIN25, 4, 8, 50 * MiB, 78 * GiB) == (size_t)1 << 27 &&
		      timed_count(MIN25, 136, 136, 50 * MiB, 78 * GiB) == MIN25,
	      "H100: saxpy 2^26, prefetch 2^25, reduction 2^27, gather 2^25");
	/* A T4 cannot hold the gather's 2^25 x 136 bytes (4.25 GiB) in a
	 * quarter of 14.6 GiB: halved once, still 8x its L2. */
	CHECK(timed_count(MIN25, 136, 136, 4 * MiB, 14 * GiB + 600 * MiB) ==
		      (size_t)1 << 24,
	      "T4: the strided gather's case is halved to 2^24 to fit");
	CHECK(timed_count(MIN25, 12, 8, 4 * MiB, 14 * GiB) == MIN25,
	      "T4: saxpy keeps the 2^25 floor (8x a 4 MiB L2 is far below it)");
	CHECK(timed_count(MIN25, 12, 8, 50 * MiB, 1 * GiB) == 0,
	      "a GPU with 1 GiB free cannot time 8x a 50 MiB L2: 0, not an L2-sized case");
	CHECK(timed_count(MIN25, 4, 4, 8 * GiB, (size_t)-1) == TIMED_MAX_COUNT,
	      "the count stops at 2^30 however large the L2");
	return check_done();
}
