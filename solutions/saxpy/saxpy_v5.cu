// Step 5 — float4: every load and store moves 16 bytes, four elements at
// once. x and y are 16-byte aligned (cudaMalloc); the last n % 4 elements
// are done one by one.
#include "saxpy.h"

#define BLOCK 256

__device__ __forceinline__ float4 axpy4(float a, float4 x, float4 y)
{
	return make_float4(a * x.x + y.x, a * x.y + y.y, a * x.z + y.z,
			   a * x.w + y.w);
}

__global__ void __launch_bounds__(BLOCK)
saxpy_vec4(int n, float alpha, const float *__restrict__ x,
	   float *__restrict__ y)
{
	const float4 *x4 = reinterpret_cast<const float4 *>(x);
	float4 *y4 = reinterpret_cast<float4 *>(y);
	int n4 = n / 4;
	int stride = gridDim.x * BLOCK;
	int i = blockIdx.x * BLOCK + threadIdx.x;
	for (; i + stride < n4; i += 2 * stride) {
		float4 xa = x4[i], xb = x4[i + stride];
		float4 ya = y4[i], yb = y4[i + stride];
		y4[i] = axpy4(alpha, xa, ya);
		y4[i + stride] = axpy4(alpha, xb, yb);
	}
	if (i < n4)
		y4[i] = axpy4(alpha, x4[i], y4[i]);
	// The tail: at most 3 elements, one thread each.
	int t = blockIdx.x * BLOCK + threadIdx.x;
	if (t < n - 4 * n4)
		y[4 * n4 + t] = alpha * x[4 * n4 + t] + y[4 * n4 + t];
}

static int one_wave_of_blocks(void)
{
	static int blocks;
	if (!blocks) {
		int device, sms, per_sm;
		cudaGetDevice(&device);
		cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount,
				       device);
		cudaOccupancyMaxActiveBlocksPerMultiprocessor(
			&per_sm, saxpy_vec4, BLOCK, 0);
		blocks = sms * (per_sm > 0 ? per_sm : 1);
	}
	return blocks;
}

void saxpy(int n, float alpha, const float *x, float *y)
{
	int blocks = one_wave_of_blocks();
	int needed = (n / 4 + BLOCK - 1) / BLOCK;
	if (needed < 1)
		needed = 1;
	saxpy_vec4<<<needed < blocks ? needed : blocks, BLOCK>>>(n, alpha, x,
								 y);
}
