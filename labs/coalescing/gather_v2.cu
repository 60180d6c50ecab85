// Step 2 — stride and offset. See labs/coalescing/README.md, "Step 2".
//
// out[i] = in[(size_t)i * stride + offset] for 0 <= i < n. Keep one thread
// per output element: the writes stay coalesced, and the reads show what a
// stride and an offset cost. The run times strides 1..32 and offsets 1..31
// and draws bandwidth against them.
//
// Checked: every element at several strides and offsets, and a share of the
// copy bandwidth at stride 1, offset 0 (the bar: labs/coalescing/README.md,
// "The checks").
#include "coalescing.h"

__global__ void gather_kernel(const float *in, float *out, int n, int stride,
			      int offset)
{
	// your kernel here
}

void gather_floats(const float *in, float *out, int n, int stride, int offset)
{
	CUDALAB_TODO(); // delete this line when the step is written
}
