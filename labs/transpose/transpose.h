/*
 * The transpose lab's interface.
 *
 *   out[c * rows + r] <- in[r * cols + c]   for 0 <= r < rows, 0 <= c < cols
 *
 * `in` is rows x cols, row-major; `out` is cols x rows, row-major. Any
 * positive sizes. Both are device pointers from cudaMalloc (256-byte
 * aligned). Enqueue your work on the default stream and return.
 */
#ifndef TRANSPOSE_LAB_H
#define TRANSPOSE_LAB_H

#include <cuda_runtime.h>

#include "cudalab.h"

#ifdef __cplusplus
extern "C"
#endif
void transpose(const float *in, float *out, int rows, int cols);

#endif
