// Step 5 — rolling prefetch into shared memory, with ordinary loads.
//
// It looks like step 4 with an array, but the copy global -> shared goes
// through a register: the store into shared memory cannot issue before the
// load has returned, so the thread stalls on it within the same iteration,
// and the value is not "in flight" for PDIST iterations at all. (A
// __syncthreads() in the loop would force the same wait.) Measured: no
// faster than the baseline — step 6 fixes it.
#include "prefetch.h"

#define SLOT(k) buf[(k) + PDIST * threadIdx.x]

__global__ void __launch_bounds__(PF_BLOCK)
transform_roll_smem(const double *__restrict__ in, double *__restrict__ out,
		    int n)
{
	__shared__ double buf[PDIST * PF_BLOCK];
	int begin, end;
	pf_block_range(n, &begin, &end);
	int first = begin + threadIdx.x;
#pragma unroll
	for (int k = 0; k < PDIST; k++)
		if (first + k * PF_BLOCK < end)
			SLOT(k) = in[first + k * PF_BLOCK];
	int slot = 0;
#pragma unroll 1
	for (int i = first; i < end; i += PF_BLOCK) {
		double x = SLOT(slot);
		if (i + PDIST * PF_BLOCK < end)
			SLOT(slot) = in[i + PDIST * PF_BLOCK];
		out[i] = pf_work(x);
		slot = slot + 1 == PDIST ? 0 : slot + 1;
	}
}

void prefetch_transform(const double *in, double *out, int n, int blocks)
{
	transform_roll_smem<<<blocks, PF_BLOCK>>>(in, out, n);
}
