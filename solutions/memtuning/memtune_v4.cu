// Step 4 — the baseline with launch bounds: the compiler is told that a
// block has MT_BLOCK (256) threads and one block per SM is enough, so it may
// spend up to 255 registers per thread (65536 / 256 = 256) — on loads in
// flight.
#include "memtuning.h"

__global__ void __launch_bounds__(MT_BLOCK, 1)
memtune_kernel(const double *big, const double *small, double *out, int npts,
	       int kmax)
{
	int stride = gridDim.x * MT_BLOCK;
	for (int pt = blockIdx.x * MT_BLOCK + threadIdx.x; pt < npts;
	     pt += stride) {
		double best = 0.0;
#pragma unroll 16
		for (int k = 0; k < kmax; k++) {
			double c = big[mt_index(pt, k, npts)] + small[k];
			best = fmax(c, best);
		}
		out[pt] = best;
	}
}

void memtune(const double *big, const double *small, double *out, int npts,
	     int kmax)
{
	memtune_kernel<<<mt_grid(npts, MT_BLOCK, 1, 1), MT_BLOCK>>>(
		big, small, out, npts, kmax);
}
