// Step 4 — rolling prefetch into registers: PDIST values in flight at all
// times; each iteration takes the oldest and loads the one it will need
// PDIST iterations later into the slot just freed.
//
// A register array only stays in registers when every index is a constant
// the compiler can see. `buf[ctr % PDIST]` is not: the array goes to local
// memory (a stack frame) and every use waits for it. So the loop is
// unrolled PDIST times and slot k is always buf[k].
#include "prefetch.h"

__global__ void __launch_bounds__(PF_BLOCK)
transform_roll_regs(const double *__restrict__ in, double *__restrict__ out,
		    int n)
{
	int begin, end;
	pf_block_range(n, &begin, &end);
	int first = begin + threadIdx.x;
	double buf[PDIST];
#pragma unroll
	for (int k = 0; k < PDIST; k++)
		buf[k] = first + k * PF_BLOCK < end ? in[first + k * PF_BLOCK]
						    : 0.0;
#pragma unroll 1
	for (int i = first; i < end; i += PDIST * PF_BLOCK) {
#pragma unroll
		for (int k = 0; k < PDIST; k++) {
			int j = i + k * PF_BLOCK;
			if (j < end) {
				double x = buf[k];
				int ahead = j + PDIST * PF_BLOCK;
				if (ahead < end)
					buf[k] = in[ahead];
				out[j] = pf_work(x);
			}
		}
	}
}

void prefetch_transform(const double *in, double *out, int n, int blocks)
{
	transform_roll_regs<<<blocks, PF_BLOCK>>>(in, out, n);
}
