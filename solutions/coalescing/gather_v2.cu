// Step 2 — a gather with a stride and an offset. The writes stay coalesced;
// the reads of a warp span 32 * stride floats starting offset floats in.
#include "coalescing.h"

#define BLOCK 256

__global__ void gather_kernel(const float *__restrict__ in,
			      float *__restrict__ out, int n, int stride,
			      int offset)
{
	int i = blockIdx.x * BLOCK + threadIdx.x;
	if (i < n)
		out[i] = in[(size_t)i * stride + offset];
}

void gather_floats(const float *in, float *out, int n, int stride, int offset)
{
	gather_kernel<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(in, out, n, stride,
							  offset);
}
