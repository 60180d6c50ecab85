/*
 * The reduction lab's interface.
 *
 *   *out <- in[0] + in[1] + ... + in[n-1]      any n >= 1
 *
 * in, scratch and out are device pointers. scratch holds at least n floats
 * with undefined contents (use it for per-block partial sums); out is one
 * float in device memory. Several kernels (one per level) or one are both
 * fine. Enqueue your work on the default stream and return.
 */
#ifndef REDUCE_LAB_H
#define REDUCE_LAB_H

#include <cuda_runtime.h>

#include "cudalab.h"

#ifdef __cplusplus
extern "C"
#endif
void reduce(const float *in, float *scratch, float *out, int n);

#endif
