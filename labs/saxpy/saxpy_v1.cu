// Step 1 — naive: one thread per element.
#include "saxpy.h"

__global__ void saxpy_naive(int n, float alpha, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = alpha * x[i] + y[i];
}

void saxpy(int n, float alpha, const float *x, float *y)
{
	const int block = 256;
	saxpy_naive<<<(n + block - 1) / block, block>>>(n, alpha, x, y);
}
