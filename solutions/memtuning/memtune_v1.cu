// Step 1 — the baseline: one point per thread, 1024-thread blocks; each
// thread walks its column of big (kmax loads, 8 bytes each) and small.
#include "memtuning.h"

__global__ void memtune_kernel(const double *big, const double *small,
			       double *out, int npts, int kmax)
{
	int pt = blockIdx.x * MT_BLOCK + threadIdx.x;
	if (pt >= npts)
		return;
	double best = 0.0;
#pragma unroll 8
	for (int k = 0; k < kmax; k++) {
		double c = big[mt_index(pt, k, npts)] + small[k];
		best = fmax(c, best);
	}
	out[pt] = best;
}

void memtune(const double *big, const double *small, double *out, int npts,
	     int kmax)
{
	memtune_kernel<<<(npts + MT_BLOCK - 1) / MT_BLOCK, MT_BLOCK>>>(
		big, small, out, npts, kmax);
}
