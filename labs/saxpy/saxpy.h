/*
 * The SAXPY lab's interface. Every step file includes this header and
 * defines the launcher below; the harness calls it with device pointers.
 *
 *   y[i] <- alpha * x[i] + y[i]   for 0 <= i < n,  any n >= 1
 *
 * x and y come from cudaMalloc, so both are 16-byte aligned. Enqueue your
 * work on the default stream (stream 0) and return: the harness
 * synchronizes, checks and times what you enqueued.
 */
#ifndef SAXPY_LAB_H
#define SAXPY_LAB_H

#include <cuda_runtime.h>

#include "cudalab.h"

#ifdef __cplusplus
extern "C"
#endif
void saxpy(int n, float alpha, const float *x, float *y);

#endif
