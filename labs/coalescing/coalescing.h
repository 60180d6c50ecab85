/*
 * The coalescing lab's interface. Unlike the later labs, each step has a
 * launcher of its own (labs/coalescing/README.md): a step file defines the
 * launcher of its step, and the harness tests the step the grader names.
 * The declarations are weak so that one harness links with any one step
 * file; a step file that does not define its launcher is reported as such.
 *
 * All pointers are device pointers; enqueue the work on the default stream
 * and return. n, rows, cols >= 1; stride >= 1; offset >= 0.
 */
#ifndef COALESCING_LAB_H
#define COALESCING_LAB_H

#include <cuda_runtime.h>

#include "cudalab.h"

/* The particle record of step 4 (32 bytes): a simulation keeps eight
 * fields per particle, one pass advances x by vx * dt. */
struct cl_particle {
	float x, y, z;
	float vx, vy, vz;
	float mass, charge;
};

#ifdef __cplusplus
extern "C" {
#endif

/* step 1: out[i] = in[i] */
void copy_floats(const float *in, float *out, int n) __attribute__((weak));

/* step 2: out[i] = in[(size_t)i * stride + offset] */
void gather_floats(const float *in, float *out, int n, int stride,
		   int offset) __attribute__((weak));

/* step 3: out[r][c] = in[r][c] + bias[c] for a row-major rows x cols
 * matrix (element (r, c) at r * cols + c) */
void add_row_bias(const float *in, const float *bias, float *out, int rows,
		  int cols) __attribute__((weak));

/* step 4: x[i] += vx[i] * dt, the particles stored as structure of arrays */
void advance_soa(float *x, const float *vx, int n, float dt)
	__attribute__((weak));

#ifdef __cplusplus
}
#endif

#endif
