// Step 6 — rolling prefetch into shared memory with asynchronous copies.
//
// __pipeline_memcpy_async (cp.async in PTX) copies global -> shared
// without a register in between, so the thread does not wait for it.
// Bookkeeping: every iteration commits exactly one batch (empty when there
// is nothing left to fetch), so "wait until at most PDIST - 1 batches are
// pending" always means "the batch committed PDIST iterations ago — the
// value needed now — has landed".
#include "prefetch.h"

#include <cuda_pipeline_primitives.h>

#define SLOT(k) buf[(k) + PDIST * threadIdx.x]

__global__ void __launch_bounds__(PF_BLOCK)
transform_roll_async(const double *__restrict__ in, double *__restrict__ out,
		     int n)
{
	__shared__ double buf[PDIST * PF_BLOCK];
	int begin, end;
	pf_block_range(n, &begin, &end);
	int first = begin + threadIdx.x;
#pragma unroll
	for (int k = 0; k < PDIST; k++) {
		if (first + k * PF_BLOCK < end)
			__pipeline_memcpy_async(&SLOT(k),
						&in[first + k * PF_BLOCK],
						sizeof(double));
		__pipeline_commit();
	}
	int slot = 0;
#pragma unroll 1
	for (int i = first; i < end; i += PF_BLOCK) {
		__pipeline_wait_prior(PDIST - 1);
		double x = SLOT(slot);
		if (i + PDIST * PF_BLOCK < end)
			__pipeline_memcpy_async(&SLOT(slot),
						&in[i + PDIST * PF_BLOCK],
						sizeof(double));
		__pipeline_commit();
		out[i] = pf_work(x);
		slot = slot + 1 == PDIST ? 0 : slot + 1;
	}
}

void prefetch_transform(const double *in, double *out, int n, int blocks)
{
	transform_roll_async<<<blocks, PF_BLOCK>>>(in, out, n);
}
