// Step 1 — the baseline: load a value, then work on it. Each iteration's
// load is waited for in full before its arithmetic can start.
#include "prefetch.h"

__global__ void __launch_bounds__(PF_BLOCK)
transform_baseline(const double *__restrict__ in, double *__restrict__ out,
		   int n)
{
	int begin, end;
	pf_block_range(n, &begin, &end);
#pragma unroll 1
	for (int i = begin + threadIdx.x; i < end; i += PF_BLOCK)
		out[i] = pf_work(in[i]);
}

void prefetch_transform(const double *in, double *out, int n, int blocks)
{
	transform_baseline<<<blocks, PF_BLOCK>>>(in, out, n);
}
