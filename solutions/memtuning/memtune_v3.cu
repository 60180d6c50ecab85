// Step 3 — wide loads of big too: each thread takes two neighbouring
// points, so one 16-byte load fetches (pt, k) and (pt + 1, k), and small
// stays wide as in step 2. That needs every row of big to start 16-byte
// aligned: big itself aligned and npts even. Otherwise (and so for the last
// point of an odd npts) the thread falls back to plain loads.
#include "memtuning.h"

#include <stdint.h>

__device__ __forceinline__ double one_point(const double *big,
					    const double *small, int pt,
					    int npts, int kmax)
{
	double best = 0.0;
	for (int k = 0; k < kmax; k++)
		best = fmax(big[mt_index(pt, k, npts)] + small[k], best);
	return best;
}

__global__ void memtune_kernel(const double *big, const double *small,
			       double *out, int npts, int kmax)
{
	int stride = 2 * gridDim.x * MT_BLOCK;
	int wide_big = ((uintptr_t)big & 15) == 0 && npts % 2 == 0;
	int pairs = ((uintptr_t)small & 15) == 0 ? kmax / 2 : 0;
	const double2 *small2 = (const double2 *)small;
	for (int pt = 2 * (blockIdx.x * MT_BLOCK + threadIdx.x); pt < npts;
	     pt += stride) {
		if (!wide_big) {
			out[pt] = one_point(big, small, pt, npts, kmax);
			if (pt + 1 < npts)
				out[pt + 1] = one_point(big, small, pt + 1, npts, kmax);
			continue;
		}
		double best0 = 0.0, best1 = 0.0;
#pragma unroll 8
		for (int j = 0; j < pairs; j++) {
			double2 s = small2[j];
			double2 c0 = *(const double2 *)&big[mt_index(pt, 2 * j, npts)];
			double2 c1 = *(const double2 *)&big[mt_index(pt, 2 * j + 1, npts)];
			best0 = fmax(c0.x + s.x, best0);
			best1 = fmax(c0.y + s.x, best1);
			best0 = fmax(c1.x + s.y, best0);
			best1 = fmax(c1.y + s.y, best1);
		}
		for (int k = 2 * pairs; k < kmax; k++) {
			double2 c = *(const double2 *)&big[mt_index(pt, k, npts)];
			best0 = fmax(c.x + small[k], best0);
			best1 = fmax(c.y + small[k], best1);
		}
		*(double2 *)&out[pt] = make_double2(best0, best1);
	}
}

void memtune(const double *big, const double *small, double *out, int npts,
	     int kmax)
{
	memtune_kernel<<<mt_grid(npts, MT_BLOCK, 1, 2), MT_BLOCK>>>(
		big, small, out, npts, kmax);
}
