// Step 1 — a copy kernel. See labs/coalescing/README.md, "Step 1".
//
// out[i] = in[i] for 0 <= i < n. One thread per element; neighbouring
// threads of a warp must touch neighbouring floats.
//
// Checked: every element, and a share of this GPU's copy bandwidth (the
// bar: labs/coalescing/README.md, "The checks").
// The run also times cudaMemcpy on the same buffers, for comparison.
#include "coalescing.h"

__global__ void copy_kernel(const float *in, float *out, int n)
{
	// your kernel here
}

void copy_floats(const float *in, float *out, int n)
{
	CUDALAB_TODO(); // delete this line when the step is written
}
