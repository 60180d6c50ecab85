/*
 * The memory-access-tuning lab's interface. Every step file includes this
 * header and defines the launcher below; the harness calls it with device
 * pointers.
 *
 *   out[pt] = max(0, max over k < kmax of big[mt_index(pt, k, npts)] + small[k])
 *
 * for 0 <= pt < npts, any npts >= 1 and kmax >= 1. small holds kmax doubles
 * (a few hundred bytes: it lives in L1); big holds kmax rows of npts
 * doubles, row k starting at element k * npts. The pointers are 8-byte
 * aligned; the harness also passes small and big 8 bytes past a 16-byte
 * boundary, and odd npts and kmax — wide (16-byte) loads must check,
 * not assume.
 *
 * The launch is the application's — one block per SM, every thread walking
 * its points with the grid's stride (mt_grid() below) — with MT_BLOCK = 256
 * threads per block: 8 warps per SM, whatever registers the kernel uses, so
 * what each thread keeps in flight decides the bandwidth (steps 1-5). The
 * study's application ran 1024-thread blocks on an A100; on the H100 32
 * warps per SM move 72 % of the copy bandwidth even with a single load in
 * flight each (the README's measurements), so the lab keeps the study's
 * ratio of bytes needed in flight to bytes the compiler's schedule keeps
 * there with a quarter of the threads. Step 6 launches MT_CONFIG_MIN_BLOCKS
 * blocks of MT_CONFIG_BLOCK threads per SM from the MT_CONFIG table below
 * (`run.py bench memtuning` rebuilds it with -DMT_CONFIG=1..6).
 * Enqueue the work on the default stream and return.
 */
#ifndef MEMTUNING_LAB_H
#define MEMTUNING_LAB_H

#include <cuda_runtime.h>
#include <stddef.h>

#include "cudalab.h"

#define MT_BLOCK 256

#ifndef MT_CONFIG
#define MT_CONFIG 2
#endif

/* step 6: (threads per block, minimum resident blocks per SM); the grid is
 * that many blocks on every SM */
#if MT_CONFIG == 1
#define MT_CONFIG_BLOCK 256
#define MT_CONFIG_MIN_BLOCKS 1
#elif MT_CONFIG == 2
#define MT_CONFIG_BLOCK 512
#define MT_CONFIG_MIN_BLOCKS 2
#elif MT_CONFIG == 3
#define MT_CONFIG_BLOCK 256
#define MT_CONFIG_MIN_BLOCKS 2
#elif MT_CONFIG == 4
#define MT_CONFIG_BLOCK 256
#define MT_CONFIG_MIN_BLOCKS 4
#elif MT_CONFIG == 5
#define MT_CONFIG_BLOCK 512
#define MT_CONFIG_MIN_BLOCKS 1
#elif MT_CONFIG == 6
#define MT_CONFIG_BLOCK 1024
#define MT_CONFIG_MIN_BLOCKS 1
#else
#error "MT_CONFIG must be 1..6"
#endif

/* The GPU's SM count (asked once): the grid of the lab's launches is
 * mt_sm_count() x blocks per SM. */
static inline int mt_sm_count(void)
{
	static int sms;
	if (!sms) {
		int device = 0;
		cudaGetDevice(&device);
		cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
		if (sms < 1)
			sms = 1;
	}
	return sms;
}

/* Blocks for a launch of `per_sm` blocks of `threads` threads on every SM,
 * each thread taking `per_thread` neighbouring points per pass, npts points:
 * no more blocks than the points need. */
static inline int mt_grid(int npts, int threads, int per_sm, int per_thread)
{
	long long need = ((long long)npts + (long long)threads * per_thread - 1) /
			 ((long long)threads * per_thread);
	long long most = (long long)mt_sm_count() * per_sm;
	return (int)(need < most ? need : most);
}

#ifdef __CUDACC__
/* Where element (pt, k) of big lives: row k, column pt. Linear in pt with
 * coefficient 1, so neighbouring points are neighbouring doubles. */
static __device__ __forceinline__ size_t mt_index(int pt, int k, int npts)
{
	return (size_t)k * npts + pt;
}
#endif

#ifdef __cplusplus
extern "C"
#endif
void memtune(const double *big, const double *small, double *out, int npts,
	     int kmax);

#endif
