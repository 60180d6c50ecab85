// Step 4 — array of structures to structure of arrays.
// See labs/coalescing/README.md, "Step 4".
//
// The given kernel (in the harness) advances particles stored as 32-byte
// records (struct cl_particle in coalescing.h):
//
//     p[i].x += p[i].vx * dt;
//
// Write the same update for particles stored as arrays: x[i] += vx[i] * dt.
//
// Checked: every element (vx unchanged), the speedup over the given kernel
// on the same particles (timed in the same run) and the share of the copy
// bandwidth; the bars are in labs/coalescing/README.md, "The checks".
#include "coalescing.h"

__global__ void advance_soa_kernel(float *x, const float *vx, int n, float dt)
{
	// your kernel here
}

void advance_soa(float *x, const float *vx, int n, float dt)
{
	CUDALAB_TODO(); // delete this line when the step is written
}
