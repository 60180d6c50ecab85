// Step 4 — add during load, many elements per thread: a limited grid of
// blocks walks the array with a grid-sized stride, each thread summing its
// elements in a register (two per iteration, the first add during the
// load), then the tree of step 3 sums the block.
#include "reduce.h"

#define BLOCK 256

__global__ void reduce_level(const float *__restrict__ in, float *__restrict__ out, int n)
{
	__shared__ float s[BLOCK];
	unsigned t = threadIdx.x;
	float sum = 0.0f;
	for (unsigned i = blockIdx.x * 2 * BLOCK + t; i < (unsigned)n;
	     i += gridDim.x * 2 * BLOCK) {
		sum += in[i];
		if (i + BLOCK < (unsigned)n)
			sum += in[i + BLOCK];
	}
	s[t] = sum;
	__syncthreads();
	for (unsigned k = BLOCK / 2; k > 0; k >>= 1) {
		if (t < k)
			s[t] += s[t + k];
		__syncthreads();
	}
	if (t == 0)
		out[blockIdx.x] = s[0];
}

// One level at a time: each level writes one partial sum per block into
// scratch (levels never overlap), the last level writes *out.
void reduce(const float *in, float *scratch, float *out, int n)
{
	const float *src = in;
	float *free_space = scratch;
	int len = n;
	for (;;) {
		int blocks = (len + 2 * BLOCK - 1) / (2 * BLOCK);
		if (blocks > 2048) blocks = 2048; /* many elements per thread */
		float *dst = blocks == 1 ? out : free_space;
		reduce_level<<<blocks, BLOCK>>>(src, dst, len);
		if (blocks == 1)
			return;
		src = dst;
		free_space += blocks;
		len = blocks;
	}
}
