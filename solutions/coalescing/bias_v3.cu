// Step 3 — the row bias with threadIdx.x along the row: a warp reads 32
// neighbouring floats of one row (4 sectors) and the same 32 of bias.
#include "coalescing.h"

#define TILE_X 32
#define TILE_Y 8

__global__ void add_row_bias_kernel(const float *__restrict__ in,
				    const float *__restrict__ bias,
				    float *__restrict__ out, int rows,
				    int cols)
{
	int c = blockIdx.x * TILE_X + threadIdx.x;
	int r = blockIdx.y * TILE_Y + threadIdx.y;
	if (r < rows && c < cols)
		out[(size_t)r * cols + c] = in[(size_t)r * cols + c] + bias[c];
}

void add_row_bias(const float *in, const float *bias, float *out, int rows,
		  int cols)
{
	dim3 block(TILE_X, TILE_Y);
	dim3 grid((cols + TILE_X - 1) / TILE_X, (rows + TILE_Y - 1) / TILE_Y);
	add_row_bias_kernel<<<grid, block>>>(in, bias, out, rows, cols);
}
