// Step 3 — the padded tile: one extra column makes the row stride 33 words,
// so the 32 elements of a tile column fall in 32 different banks: the
// column read is conflict-free. Everything else is step 2.
#include "transpose.h"

#define TILE 32

__global__ void transpose_padded(const float *in, float *out, int rows,
				int cols)
{
	__shared__ float tile[TILE][TILE + 1];
	int c = blockIdx.x * TILE + threadIdx.x;
	int r = blockIdx.y * TILE + threadIdx.y;
	if (r < rows && c < cols)
		tile[threadIdx.y][threadIdx.x] = in[(size_t)r * cols + c];
	__syncthreads();
	int oc = blockIdx.y * TILE + threadIdx.x; /* column of out = row of in */
	int orow = blockIdx.x * TILE + threadIdx.y;
	if (orow < cols && oc < rows)
		out[(size_t)orow * rows + oc] = tile[threadIdx.x][threadIdx.y];
}

void transpose(const float *in, float *out, int rows, int cols)
{
	dim3 block(TILE, TILE);
	dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
	transpose_padded<<<grid, block>>>(in, out, rows, cols);
}
