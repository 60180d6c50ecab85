// Step 4 — the particles as a structure of arrays: x and vx are arrays of
// their own, so a warp moves 128 useful bytes of each and nothing else.
#include "coalescing.h"

#define BLOCK 256

__global__ void advance_soa_kernel(float *__restrict__ x,
				   const float *__restrict__ vx, int n,
				   float dt)
{
	int i = blockIdx.x * BLOCK + threadIdx.x;
	if (i < n)
		x[i] += vx[i] * dt;
}

void advance_soa(float *x, const float *vx, int n, float dt)
{
	advance_soa_kernel<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(x, vx, n, dt);
}
