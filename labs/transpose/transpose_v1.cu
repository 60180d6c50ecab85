// Step 1 — naive: one thread per element. Reads along a row of `in` are
// coalesced; writes go down a column of `out`, one 32-byte sector per
// element.
#include "transpose.h"

__global__ void transpose_naive(const float *in, float *out, int rows,
				int cols)
{
	int c = blockIdx.x * blockDim.x + threadIdx.x;
	int r = blockIdx.y * blockDim.y + threadIdx.y;
	if (r < rows && c < cols)
		out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

void transpose(const float *in, float *out, int rows, int cols)
{
	dim3 block(32, 8);
	dim3 grid((cols + 31) / 32, (rows + 7) / 8);
	transpose_naive<<<grid, block>>>(in, out, rows, cols);
}
