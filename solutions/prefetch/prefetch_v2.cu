// Step 2 — batched prefetch into registers: load four values (four
// iterations' worth) before working on the first, so four trips to DRAM
// overlap and the thread waits about once per four iterations.
#include "prefetch.h"

__global__ void __launch_bounds__(PF_BLOCK)
transform_batch4(const double *__restrict__ in, double *__restrict__ out,
		 int n)
{
	int begin, end;
	pf_block_range(n, &begin, &end);
#pragma unroll 1
	for (int i = begin + threadIdx.x; i < end; i += 4 * PF_BLOCK) {
		// a load past `end` would read another block's elements (or
		// past the array): guard each one
		double v0 = in[i];
		double v1 = i + PF_BLOCK < end ? in[i + PF_BLOCK] : 0.0;
		double v2 = i + 2 * PF_BLOCK < end ? in[i + 2 * PF_BLOCK] : 0.0;
		double v3 = i + 3 * PF_BLOCK < end ? in[i + 3 * PF_BLOCK] : 0.0;
		out[i] = pf_work(v0);
		if (i + PF_BLOCK < end)
			out[i + PF_BLOCK] = pf_work(v1);
		if (i + 2 * PF_BLOCK < end)
			out[i + 2 * PF_BLOCK] = pf_work(v2);
		if (i + 3 * PF_BLOCK < end)
			out[i + 3 * PF_BLOCK] = pf_work(v3);
	}
}

void prefetch_transform(const double *in, double *out, int n, int blocks)
{
	transform_batch4<<<blocks, PF_BLOCK>>>(in, out, n);
}
