// Step 7 — step 6 with a padded buffer. See README.md, "Step 7".
//
// Space thread t's slots PDIST + PADDING doubles apart, with PDIST + PADDING
// a power of two plus one (9 for PDIST 8), so the threads of a warp fall in
// different shared-memory banks (or find another conflict-free indexing).
//
// Checked: cp.async, bank conflicts (Nsight Compute), the speedup over the
// baseline; the bars are in labs/prefetch/README.md, "The checks".
#include <cuda_pipeline_primitives.h>
#include "prefetch.h"

__global__ void __launch_bounds__(PF_BLOCK)
transform_roll_async_padded(const double *__restrict__ in, double *__restrict__ out, int n)
{
	int begin, end;
	pf_block_range(n, &begin, &end);
	// your loop here
}

void prefetch_transform(const double *in, double *out, int n, int blocks)
{
	CUDALAB_TODO(); // delete this line when the step is written
}
