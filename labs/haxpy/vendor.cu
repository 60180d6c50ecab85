// The vendor-library figure for `run.py bench haxpy`: cuBLAS cublasAxpyEx
// with bf16 data and float compute, timed like the student's kernel at
// offsets 0 and 1 (2 bytes past a 256-byte boundary).
#include <cublas_v2.h>
#include <stdint.h>

#include "harness.h"

struct vendor_call {
	cublasHandle_t handle;
	int n;
	float alpha;
	const void *x;
	void *y;
};

static void check_cublas(cublasStatus_t s, const char *what)
{
	if (s != CUBLAS_STATUS_SUCCESS)
		hx_die("harness", "%s failed: cuBLAS status %d", what, (int)s);
}

static void call_cublas(void *ctx)
{
	struct vendor_call *c = (struct vendor_call *)ctx;
	check_cublas(cublasAxpyEx(c->handle, c->n, &c->alpha, CUDA_R_32F, c->x,
				  CUDA_R_16BF, 1, c->y, CUDA_R_16BF, 1,
				  CUDA_R_32F),
		     "cublasAxpyEx");
}

int main(int argc, char **argv)
{
	hx_init(argc, argv);
	int n_timed = (int)hx_timed_elements(HX_TIMED_MIN, 3 * 2, 2 * 2);
	size_t bytes = (size_t)n_timed * 2;
	uint16_t *x, *y;
	HX_CHECK(cudaMalloc(&x, bytes));
	HX_CHECK(cudaMalloc(&y, bytes));
	HX_CHECK(cudaMemset(x, 0x3F, bytes));
	HX_CHECK(cudaMemset(y, 0x3F, bytes));
	struct vendor_call c = {NULL, n_timed - 8, 1.0f, NULL, NULL};
	check_cublas(cublasCreate(&c.handle), "cublasCreate");
	check_cublas(cublasSetStream(c.handle, 0), "cublasSetStream");
	for (int off = 0; off < 2; off++) {
		char variant[32];
		snprintf(variant, sizeof(variant), "offset %d", off);
		c.x = x + off;
		c.y = y + off;
		struct hx_timing t = hx_time_calls(call_cublas, &c, "cublasAxpyEx");
		hx_timing_report_variant("vendor", "cuBLAS cublasAxpyEx (bf16)",
					 variant, c.n, 3.0 * 2 * c.n, &t);
	}
	cublasDestroy(c.handle);
	HX_CHECK(cudaFree(x));
	HX_CHECK(cudaFree(y));
	return hx_finish(1);
}
