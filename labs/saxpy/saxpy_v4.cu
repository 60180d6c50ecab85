// Step 4 — a persistent grid-stride kernel. See labs/saxpy/README.md, "Step 4".
//
// Launch only as many blocks as the GPU can hold at once (SM count times the
// blocks per SM that cudaOccupancyMaxActiveBlocksPerMultiprocessor reports)
// and let every block loop over the array TILE BY TILE: a tile is step 3's
// contiguous blockDim.x * PER_THREAD elements, and a block moves on to
// tile += gridDim.x. Stride over tiles, not over single elements (with
// i += gridDim.x * blockDim.x a thread's loads in flight are a whole grid
// apart). Keep step 3's __restrict__ and fast path inside each tile.
//
// Checked: the launch shape at the timed size (waves: blocks launched /
// blocks resident at once) and the bandwidth; the bars are in
// labs/saxpy/README.md, "The checks".
#include "saxpy.h"

void saxpy(int n, float alpha, const float *x, float *y)
{
	CUDALAB_TODO(); // delete this line when the step is written
}
