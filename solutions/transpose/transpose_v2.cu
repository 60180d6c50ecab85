// Step 2 — a 32x32 tile in shared memory: read a tile of `in` along its
// rows (coalesced), then write it to `out` along the rows of the transposed
// tile (coalesced too). The column read from shared memory hits one bank 32
// times: a 32-way bank conflict.
#include "transpose.h"

#define TILE 32

__global__ void transpose_tiled(const float *in, float *out, int rows,
				int cols)
{
	__shared__ float tile[TILE][TILE];
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
	transpose_tiled<<<grid, block>>>(in, out, rows, cols);
}
