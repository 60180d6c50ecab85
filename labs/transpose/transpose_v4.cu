// Step 4 — 32x8 threads, 4 elements each. See labs/transpose/README.md.
//
// Keep step 3's padded 32x32 tile, but launch 32x8 blocks: each thread
// copies 4 elements in and 4 out, in unrolled loops (k = 0, 8, 16, 24).
//
// Checked: 32 threads wide, 8 high; 4 elements per thread; no bank
// conflicts; bandwidth >= 85% of copy.
#include "transpose.h"

void transpose(const float *in, float *out, int rows, int cols)
{
	CUDALAB_TODO(); // delete this line when the step is written
}
