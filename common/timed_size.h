/*
 * timed_size — how big a lab's timed case is on a given GPU: the one rule,
 * as a pure function of the GPU's facts, so it is tested without a GPU.
 * The harness runtime (hx_timed_elements, harness.h) feeds it the device's
 * L2 size and free memory.
 *
 *   - at least 8x the L2 in bytes moved, so every call streams from DRAM:
 *     the smallest power of two >= min_count with count * moved >= 8 * L2;
 *   - at most a quarter of the free memory in bytes held (count * held, the
 *     case's device buffers), halving the count from the above, but never
 *     below the 8x-L2 count: room for the harness's own buffers (guard
 *     zones, the L2 flush) and for other processes on a shared GPU;
 *   - at most 2^30, so a count fits the labs' int sizes.
 *
 * Returns the count, or 0 when a quarter of the free memory cannot hold a
 * case that moves 8x the L2 (the caller says NOT GRADED, never times a size
 * the L2 would serve). Plain C: included by the CUDA runtime and by tests.
 */
#ifndef CUDALAB_TIMED_SIZE_H
#define CUDALAB_TIMED_SIZE_H

#include <stddef.h>

#define TIMED_MAX_COUNT ((size_t)1 << 30)

static inline size_t timed_count(size_t min_count, size_t moved, size_t held,
				 size_t l2_bytes, size_t free_bytes)
{
	double floor_bytes = 8.0 * (double)l2_bytes;
	size_t room = free_bytes / 4;
	size_t n = min_count > 1 ? min_count : 1;
	while (n < TIMED_MAX_COUNT && (double)n * moved < floor_bytes)
		n <<= 1;
	while (n > 1 && n * held > room && (double)(n / 2) * moved >= floor_bytes)
		n >>= 1;
	return n * held > room ? 0 : n;
}

#endif
