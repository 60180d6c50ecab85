/*
 * The haxpy lab's interface: bf16 AXPY.
 *
 *   y[i] <- bf16( fmaf(alpha, float(x[i]), float(y[i])) )   for 0 <= i < n
 *
 * computed in float and rounded once, to nearest-even. Any n >= 1. x and y
 * are device pointers that are only 2-byte aligned, with the same offset
 * modulo 256 bytes (as if both were cut from aligned arrays at the same
 * index). Enqueue your work on the default stream and return.
 */
#ifndef HAXPY_LAB_H
#define HAXPY_LAB_H

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "cudalab.h"

#ifdef __cplusplus
extern "C"
#endif
void haxpy(int n, float alpha, const nv_bfloat16 *x, nv_bfloat16 *y);

#endif
