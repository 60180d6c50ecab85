// Step 7 — step 6 with a padded buffer: no shared-memory bank conflicts.
//
// Same bookkeeping as step 6 (one commit per iteration, wait for all but
// the newest PDIST - 1 batches); only the buffer's layout changes.
#include "prefetch.h"

#include <cuda_pipeline_primitives.h>

// The smallest power of two >= PDIST: PDIST + PADDING = 2^m + 1.
#define PDIST_ROUNDED                                                      \
	(PDIST <= 1 ? 1 : PDIST <= 2 ? 2 : PDIST <= 4 ? 4 : PDIST <= 8 ? 8   \
							   : PDIST <= 16 ? 16 \
									 : 32)

// Thread t's slots start PDIST + PADDING doubles after thread t - 1's.
// A row of 2^m + 1 doubles is an odd number of 8-byte words apart, so the
// 16 threads of a half-warp (one 8-byte access each) land on 16 different
// bank pairs whatever slot they read; PDIST = 8 unpadded puts them 64
// bytes apart: 8 threads per bank pair, an 8-way conflict on every read
// and every asynchronous copy.
#define ROW (PDIST_ROUNDED + 1)
#define SLOT(k) buf[(k) + ROW * threadIdx.x]

__global__ void __launch_bounds__(PF_BLOCK)
transform_roll_async_padded(const double *__restrict__ in, double *__restrict__ out,
		     int n)
{
	__shared__ double buf[ROW * PF_BLOCK];
	int begin, end;
	pf_block_range(n, &begin, &end);
	int first = begin + threadIdx.x;
#pragma unroll
	for (int k = 0; k < PDIST; k++) {
		if (first + k * PF_BLOCK < end)
			__pipeline_memcpy_async(&SLOT(k),
						&in[first + k * PF_BLOCK],
						sizeof(double));
		__pipeline_commit();
	}
	int slot = 0;
#pragma unroll 1
	for (int i = first; i < end; i += PF_BLOCK) {
		__pipeline_wait_prior(PDIST - 1);
		double x = SLOT(slot);
		if (i + PDIST * PF_BLOCK < end)
			__pipeline_memcpy_async(&SLOT(slot),
						&in[i + PDIST * PF_BLOCK],
						sizeof(double));
		__pipeline_commit();
		out[i] = pf_work(x);
		slot = slot + 1 == PDIST ? 0 : slot + 1;
	}
}

void prefetch_transform(const double *in, double *out, int n, int blocks)
{
	transform_roll_async_padded<<<blocks, PF_BLOCK>>>(in, out, n);
}
