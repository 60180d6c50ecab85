/*
 * The prefetch lab's interface. Every step file includes this header and
 * defines the launcher below; the harness calls it with device pointers.
 *
 *   out[i] <- pf_work(in[i])   for 0 <= i < n,  any n >= 1
 *
 * The launch shape is part of the exercise and fixed: `blocks` blocks (the
 * harness passes the GPU's SM count: one block per SM) of PF_BLOCK threads.
 * With only PF_BLOCK / 32 = 8 warps on an SM there are too few warps to
 * hide a trip to DRAM behind other warps' work — the situation of a kernel
 * whose registers or shared memory limit its occupancy — so each thread
 * must keep its own loads in flight: that is prefetching.
 *
 * Block b owns the elements [begin, end) that pf_block_range() gives it and
 * walks them PF_BLOCK apart: thread t takes begin + t, begin + t + PF_BLOCK,
 * ... (coalesced: a warp reads 32 neighbouring doubles per iteration).
 *
 * PDIST, the prefetch distance (values in flight per thread), is a
 * compile-time constant: `run.py bench prefetch` rebuilds the steps that use
 * it with -DPDIST=1..16 and draws the speedup against it. Enqueue the work
 * on the default stream and return.
 */
#ifndef PREFETCH_LAB_H
#define PREFETCH_LAB_H

#include <cuda_runtime.h>

#include "cudalab.h"

#define PF_BLOCK 256

#ifndef PDIST
#define PDIST 8
#endif

#ifdef __CUDACC__
/* The arithmetic done on each value: a damped oscillation, two
 * transcendentals in double precision (about 100 instructions). sinpi(x)
 * = sin(pi x) needs no slow argument reduction, so no kernel here needs a
 * stack frame unless its own code asks for one. */
static __device__ __forceinline__ double pf_work(double x)
{
	return sinpi(x) * exp(-x);
}

/* This block's share [*begin, *end) of n elements: contiguous chunks of
 * ceil(n / gridDim.x), the last ones shorter or empty. */
static __device__ __forceinline__ void pf_block_range(int n, int *begin,
						      int *end)
{
	long long chunk = ((long long)n + gridDim.x - 1) / gridDim.x;
	long long b = chunk * blockIdx.x, e = b + chunk;
	*begin = (int)(b < n ? b : n);
	*end = (int)(e < n ? e : n);
}
#endif

#ifdef __cplusplus
extern "C"
#endif
void prefetch_transform(const double *in, double *out, int n, int blocks);

#endif
