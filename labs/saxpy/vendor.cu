// The vendor-library figure for `run.py bench saxpy`: cuBLAS cublasSaxpy on
// the same timed size, the same buffers sizing and the same timing method
// as the students' steps (common/harness.h), so the ratio is fair.
#include <cublas_v2.h>

#include "harness.h"

struct vendor_call {
	cublasHandle_t handle;
	int n;
	float alpha;
	const float *x;
	float *y;
};

static void check_cublas(cublasStatus_t s, const char *what)
{
	if (s != CUBLAS_STATUS_SUCCESS)
		hx_die("harness", "%s failed: cuBLAS status %d", what, (int)s);
}

static void call_cublas(void *ctx)
{
	struct vendor_call *c = (struct vendor_call *)ctx;
	check_cublas(cublasSaxpy(c->handle, c->n, &c->alpha, c->x, 1, c->y, 1),
		     "cublasSaxpy");
}

int main(int argc, char **argv)
{
	hx_init(argc, argv);
	int n = (int)hx_timed_elements(HX_TIMED_MIN, 3 * sizeof(float),
					    2 * sizeof(float));
	struct vendor_call c = {NULL, n, 1.7f, NULL, NULL};
	float *x, *y;
	HX_CHECK(cudaMalloc(&x, (size_t)n * sizeof(float)));
	HX_CHECK(cudaMalloc(&y, (size_t)n * sizeof(float)));
	HX_CHECK(cudaMemset(x, 0, (size_t)n * sizeof(float)));
	HX_CHECK(cudaMemset(y, 0, (size_t)n * sizeof(float)));
	c.x = x;
	c.y = y;
	check_cublas(cublasCreate(&c.handle), "cublasCreate");
	check_cublas(cublasSetStream(c.handle, 0), "cublasSetStream");
	struct hx_timing t = hx_time_calls(call_cublas, &c, "cublasSaxpy");
	hx_timing_report("vendor", "cuBLAS cublasSaxpy", n,
			 3.0 * sizeof(float) * n, &t);
	cublasDestroy(c.handle);
	HX_CHECK(cudaFree(x));
	HX_CHECK(cudaFree(y));
	return hx_finish(1);
}
