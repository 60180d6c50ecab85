// haxpy — bf16 AXPY for any n and any 2-byte alignment.
// See labs/haxpy/README.md.
//
// This starter is correct: one thread per element, 2-byte loads and
// stores. It is also slow: 2-byte accesses cannot keep enough bytes in
// flight to fill the memory system. Make it fast: peel elements until x and
// y reach a 16-byte boundary, process 8 elements per 16-byte access, and
// finish the tail. Compute each element as fmaf(alpha, x, y) in float and
// round once (__float2bfloat16_rn).
#include "haxpy.h"

__global__ void haxpy_scalar(int n, float alpha, const nv_bfloat16 *x,
			     nv_bfloat16 *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = __float2bfloat16_rn(fmaf(alpha, __bfloat162float(x[i]),
						__bfloat162float(y[i])));
}

void haxpy(int n, float alpha, const nv_bfloat16 *x, nv_bfloat16 *y)
{
	const int block = 256;
	haxpy_scalar<<<(n + block - 1) / block, block>>>(n, alpha, x, y);
}
