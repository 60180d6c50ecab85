// Step 2 — wide loads of small: small[2j] and small[2j + 1] in one 16-byte
// load (double2), kmax / 2 pairs in a counted loop (a loop the compiler can
// count is a loop it can unroll without a test after every pair). Only
// when small is 16-byte aligned; an odd kmax leaves one k, and a misaligned
// small all of them, for plain loads at the end.
#include "memtuning.h"

#include <stdint.h>

__global__ void memtune_kernel(const double *big, const double *small,
			       double *out, int npts, int kmax)
{
	int stride = gridDim.x * MT_BLOCK;
	int pairs = ((uintptr_t)small & 15) == 0 ? kmax / 2 : 0;
	const double2 *small2 = (const double2 *)small;
	for (int pt = blockIdx.x * MT_BLOCK + threadIdx.x; pt < npts;
	     pt += stride) {
		double best = 0.0;
#pragma unroll 8
		for (int j = 0; j < pairs; j++) {
			double2 s = small2[j];
			double c0 = big[mt_index(pt, 2 * j, npts)] + s.x;
			double c1 = big[mt_index(pt, 2 * j + 1, npts)] + s.y;
			best = fmax(c0, best);
			best = fmax(c1, best);
		}
		// the last k of an odd kmax, or every k of a misaligned small
		for (int k = 2 * pairs; k < kmax; k++)
			best = fmax(big[mt_index(pt, k, npts)] + small[k], best);
		out[pt] = best;
	}
}

void memtune(const double *big, const double *small, double *out, int npts,
	     int kmax)
{
	memtune_kernel<<<mt_grid(npts, MT_BLOCK, 1, 1), MT_BLOCK>>>(
		big, small, out, npts, kmax);
}
