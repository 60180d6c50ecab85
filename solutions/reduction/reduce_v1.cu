// Step 1 — interleaved addressing: at level k, thread t adds s[t + k]
// into s[t] when t is a multiple of 2k. The test t % (2k) leaves most
// threads of every warp idle (divergence) and costs a remainder per level.
#include "reduce.h"

#define BLOCK 256

__global__ void reduce_level(const float *in, float *out, int n)
{
	__shared__ float s[BLOCK];
	unsigned t = threadIdx.x, i = blockIdx.x * BLOCK + t;
	s[t] = i < (unsigned)n ? in[i] : 0.0f;
	__syncthreads();
	for (unsigned k = 1; k < blockDim.x; k *= 2) {
		if (t % (2 * k) == 0)
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
		int blocks = (len + BLOCK - 1) / (BLOCK);
		
		float *dst = blocks == 1 ? out : free_space;
		reduce_level<<<blocks, BLOCK>>>(src, dst, len);
		if (blocks == 1)
			return;
		src = dst;
		free_space += blocks;
		len = blocks;
	}
}
