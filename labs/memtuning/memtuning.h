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
 * not assume. Steps 1-5 launch blocks of MT_BLOCK = 1024 threads; step 6
 * picks its block size and minimum blocks per SM from the MT_CONFIG table
 * below (`run.py bench memtuning` rebuilds it with -DMT_CONFIG=1..6).
 * Enqueue the work on the default stream and return.
 */
#ifndef MEMTUNING_LAB_H
#define MEMTUNING_LAB_H

#include <cuda_runtime.h>
#include <stddef.h>

#include "cudalab.h"

#define MT_BLOCK 1024

#ifndef MT_CONFIG
#define MT_CONFIG 2
#endif

/* step 6: (threads per block, minimum resident blocks per SM) */
#if MT_CONFIG == 1
#define MT_CONFIG_BLOCK 1024
#define MT_CONFIG_MIN_BLOCKS 1
#elif MT_CONFIG == 2
#define MT_CONFIG_BLOCK 512
#define MT_CONFIG_MIN_BLOCKS 2
#elif MT_CONFIG == 3
#define MT_CONFIG_BLOCK 512
#define MT_CONFIG_MIN_BLOCKS 3
#elif MT_CONFIG == 4
#define MT_CONFIG_BLOCK 256
#define MT_CONFIG_MIN_BLOCKS 4
#elif MT_CONFIG == 5
#define MT_CONFIG_BLOCK 256
#define MT_CONFIG_MIN_BLOCKS 6
#elif MT_CONFIG == 6
#define MT_CONFIG_BLOCK 1024
#define MT_CONFIG_MIN_BLOCKS 2
#else
#error "MT_CONFIG must be 1..6"
#endif

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
