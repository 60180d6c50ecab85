// Step 3 — batched prefetch into shared memory: the batch lives in an
// array, so its size is one constant (PDIST) instead of one variable per
// value. Each thread uses only its own PDIST slots: no barrier needed.
#include "prefetch.h"

#define SLOT(k) buf[(k) + PDIST * threadIdx.x]

__global__ void __launch_bounds__(PF_BLOCK)
transform_batch_smem(const double *__restrict__ in,
		     double *__restrict__ out, int n)
{
	__shared__ double buf[PDIST * PF_BLOCK];
	int begin, end;
	pf_block_range(n, &begin, &end);
#pragma unroll 1
	for (int i = begin + threadIdx.x; i < end; i += PDIST * PF_BLOCK) {
#pragma unroll
		for (int k = 0; k < PDIST; k++)
			if (i + k * PF_BLOCK < end)
				SLOT(k) = in[i + k * PF_BLOCK];
#pragma unroll 1
		for (int k = 0; k < PDIST; k++)
			if (i + k * PF_BLOCK < end)
				out[i + k * PF_BLOCK] = pf_work(SLOT(k));
	}
}

void prefetch_transform(const double *in, double *out, int n, int blocks)
{
	transform_batch_smem<<<blocks, PF_BLOCK>>>(in, out, n);
}
