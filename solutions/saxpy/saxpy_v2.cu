// Step 2 — coarsened: each thread handles PER_THREAD elements that lie one
// block apart, so at every iteration a warp still reads 32 neighbours.
#include "saxpy.h"

#define BLOCK 256
#define PER_THREAD 4

__global__ void saxpy_coarse(int n, float alpha, const float *x, float *y)
{
	int first = blockIdx.x * BLOCK * PER_THREAD + threadIdx.x;
#pragma unroll
	for (int k = 0; k < PER_THREAD; k++) {
		int i = first + k * BLOCK;
		if (i < n)
			y[i] = alpha * x[i] + y[i];
	}
}

void saxpy(int n, float alpha, const float *x, float *y)
{
	int tile = BLOCK * PER_THREAD;
	saxpy_coarse<<<(n + tile - 1) / tile, BLOCK>>>(n, alpha, x, y);
}
