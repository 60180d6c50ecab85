// Step 2 — thread coarsening. See labs/saxpy/README.md, "Step 2".
//
// Give each thread several elements (try 4) so the index arithmetic and the
// bounds set-up are paid once per several elements. Keep warps coalesced:
// thread t of a block handles t, t + blockDim.x, t + 2*blockDim.x, ... of
// the block's tile, never 4 neighbouring elements of its own.
//
// Checked: elements per thread at the timed size, and the bandwidth; the
// bars are in labs/saxpy/README.md, "The checks".
#include "saxpy.h"

__global__ void saxpy_coarse(int n, float alpha, const float *x, float *y)
{
	// your kernel here
}

void saxpy(int n, float alpha, const float *x, float *y)
{
	CUDALAB_TODO(); // delete this line when the step is written
}
