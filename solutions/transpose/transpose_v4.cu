// Step 4 — a 32x8 block moves a 32x32 padded tile: each thread copies
// TILE / SIDE = 4 elements in unrolled loops, so a block needs a quarter of
// the threads, and each thread's set-up (indices, bounds) is paid once for
// four elements.
#include "transpose.h"

#define TILE 32
#define SIDE 8

__global__ void __launch_bounds__(TILE * SIDE)
transpose_32x8(const float *__restrict__ in, float *__restrict__ out,
	       int rows, int cols)
{
	__shared__ float tile[TILE][TILE + 1];
	int c = blockIdx.x * TILE + threadIdx.x;
	int r0 = blockIdx.y * TILE + threadIdx.y;
#pragma unroll
	for (int k = 0; k < TILE; k += SIDE)
		if (r0 + k < rows && c < cols)
			tile[threadIdx.y + k][threadIdx.x] =
				in[(size_t)(r0 + k) * cols + c];
	__syncthreads();
	int oc = blockIdx.y * TILE + threadIdx.x;
	int or0 = blockIdx.x * TILE + threadIdx.y;
#pragma unroll
	for (int k = 0; k < TILE; k += SIDE)
		if (or0 + k < cols && oc < rows)
			out[(size_t)(or0 + k) * rows + oc] =
				tile[threadIdx.x][threadIdx.y + k];
}

void transpose(const float *in, float *out, int rows, int cols)
{
	dim3 block(TILE, SIDE);
	dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
	transpose_32x8<<<grid, block>>>(in, out, rows, cols);
}
