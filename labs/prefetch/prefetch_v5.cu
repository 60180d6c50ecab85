// Step 5 — rolling prefetch into shared memory. See README.md, "Step 5".
//
// Step 4's rolling buffer, as buf[slot + PDIST * threadIdx.x] in shared
// memory with ordinary loads. Measure it, then read the README on why it
// does not beat the baseline: that is the point of step 6.
//
// Checked: shared memory, no cp.async yet, not slower than the baseline.
#include "prefetch.h"

__global__ void __launch_bounds__(PF_BLOCK)
transform_roll_smem(const double *__restrict__ in, double *__restrict__ out, int n)
{
	int begin, end;
	pf_block_range(n, &begin, &end);
	// your loop here
}

void prefetch_transform(const double *in, double *out, int n, int blocks)
{
	CUDALAB_TODO(); // delete this line when the step is written
}
