// Step 5 — fully unrolled for a compile-time block size, and the last warp
// done with shuffles. The block size is a template parameter, so every
// `if (BS >= ...)` is decided by the compiler and the tree has no loop.
// Below 32 active threads one warp finishes with __shfl_down_sync: the
// exchange is explicit and synchronized, so it is correct under Volta's
// independent thread scheduling (the classic `volatile` shared-memory
// version is not: its threads are no longer guaranteed to run in lockstep).
#include "reduce.h"

#define BLOCK 256
#define FULL_WARP 0xFFFFFFFFu

template <unsigned BS>
__global__ void __launch_bounds__(BS)
reduce_level(const float *__restrict__ in, float *__restrict__ out, int n)
{
	__shared__ float s[BS];
	unsigned t = threadIdx.x;
	float sum = 0.0f;
	for (unsigned i = blockIdx.x * 2 * BS + t; i < (unsigned)n;
	     i += gridDim.x * 2 * BS) {
		sum += in[i];
		if (i + BS < (unsigned)n)
			sum += in[i + BS];
	}
	s[t] = sum;
	__syncthreads();
	if (BS >= 1024) { if (t < 512) s[t] = sum = sum + s[t + 512]; __syncthreads(); }
	if (BS >= 512) { if (t < 256) s[t] = sum = sum + s[t + 256]; __syncthreads(); }
	if (BS >= 256) { if (t < 128) s[t] = sum = sum + s[t + 128]; __syncthreads(); }
	if (BS >= 128) { if (t < 64) s[t] = sum = sum + s[t + 64]; __syncthreads(); }
	if (t < 32) {
		if (BS >= 64)
			sum += s[t + 32];
#pragma unroll
		for (int offset = 16; offset > 0; offset >>= 1)
			sum += __shfl_down_sync(FULL_WARP, sum, offset);
	}
	if (t == 0)
		out[blockIdx.x] = sum;
}

void reduce(const float *in, float *scratch, float *out, int n)
{
	const float *src = in;
	float *free_space = scratch;
	int len = n;
	for (;;) {
		int blocks = (len + 2 * BLOCK - 1) / (2 * BLOCK);
		if (blocks > 2048)
			blocks = 2048;
		float *dst = blocks == 1 ? out : free_space;
		reduce_level<BLOCK><<<blocks, BLOCK>>>(src, dst, len);
		if (blocks == 1)
			return;
		src = dst;
		free_space += blocks;
		len = blocks;
	}
}
