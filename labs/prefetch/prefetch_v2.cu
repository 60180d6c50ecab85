// Step 2 — batched prefetch into registers. See README.md, "Step 2".
//
// Load four values (PF_BLOCK apart) into four registers, then work on them
// one at a time; the loop advances 4 * PF_BLOCK. Guard every load and store
// against end: the last batch of a block is usually partial.
//
// Checked: no shared memory, no memcheck error, speedup over the baseline.
#include "prefetch.h"

__global__ void __launch_bounds__(PF_BLOCK)
transform_batch4(const double *__restrict__ in, double *__restrict__ out, int n)
{
	int begin, end;
	pf_block_range(n, &begin, &end);
	// your loop here
}

void prefetch_transform(const double *in, double *out, int n, int blocks)
{
	CUDALAB_TODO(); // delete this line when the step is written
}
