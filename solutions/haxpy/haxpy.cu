// haxpy, reference: peel, 16-byte vectors of 8 bf16, tail.
//
// x and y share their offset modulo 256 bytes, so the same number of
// leading elements (0-7) brings both to a 16-byte boundary. After the peel
// every thread moves one 16-byte vector of x and of y (8 elements each),
// computes fmaf in float and rounds once per element; the last
// (n - peel) % 8 elements are done one by one.
#include "haxpy.h"

#include <stdint.h>

#define BLOCK 256

__device__ __forceinline__ nv_bfloat16 axpy1(float a, nv_bfloat16 x,
					     nv_bfloat16 y)
{
	return __float2bfloat16_rn(
		fmaf(a, __bfloat162float(x), __bfloat162float(y)));
}

__device__ __forceinline__ uint4 axpy8(float a, uint4 xv, uint4 yv)
{
	const __nv_bfloat162 *xp = reinterpret_cast<const __nv_bfloat162 *>(&xv);
	__nv_bfloat162 *yp = reinterpret_cast<__nv_bfloat162 *>(&yv);
#pragma unroll
	for (int k = 0; k < 4; k++) {
		float2 xf = __bfloat1622float2(xp[k]);
		float2 yf = __bfloat1622float2(yp[k]);
		yp[k] = __floats2bfloat162_rn(fmaf(a, xf.x, yf.x),
					      fmaf(a, xf.y, yf.y));
	}
	return yv;
}

__global__ void __launch_bounds__(BLOCK)
haxpy_vec8(int n, int peel, float alpha, const nv_bfloat16 *__restrict__ x,
	   nv_bfloat16 *__restrict__ y)
{
	int t = blockIdx.x * BLOCK + threadIdx.x;
	int nvec = (n - peel) / 8;
	const uint4 *x8 = reinterpret_cast<const uint4 *>(x + peel);
	uint4 *y8 = reinterpret_cast<uint4 *>(y + peel);
	if (t < nvec)
		y8[t] = axpy8(alpha, x8[t], y8[t]);
	if (t < peel) /* the head, before the 16-byte boundary */
		y[t] = axpy1(alpha, x[t], y[t]);
	int tail = peel + 8 * nvec;
	if (t < n - tail) /* the last (n - peel) % 8 elements */
		y[tail + t] = axpy1(alpha, x[tail + t], y[tail + t]);
}

void haxpy(int n, float alpha, const nv_bfloat16 *x, nv_bfloat16 *y)
{
	int misaligned = (int)((uintptr_t)y & 15); /* even: 2-byte aligned */
	int peel = misaligned ? (16 - misaligned) / 2 : 0;
	if (peel > n)
		peel = n;
	int nvec = (n - peel) / 8;
	int threads = nvec > 8 ? nvec : 8; /* peel and tail need <= 7 each */
	haxpy_vec8<<<(threads + BLOCK - 1) / BLOCK, BLOCK>>>(n, peel, alpha, x,
							      y);
}
