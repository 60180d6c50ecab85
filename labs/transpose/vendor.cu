// The vendor-library figure for `run.py bench transpose`: cuBLAS cublasSgeam
// in transpose mode (C = A^T, beta = 0) on the timed square matrix.
//
// Row-major in (rows x cols) is column-major A (cols x rows, lda = cols);
// row-major out (cols x rows) is column-major C (rows x cols, ldc = rows);
// C = op(A) with op = transpose.
#include <cublas_v2.h>
#include <math.h>

#include "harness.h"

struct vendor_call {
	cublasHandle_t handle;
	int rows, cols;
	const float *in;
	float *out;
};

static void check_cublas(cublasStatus_t s, const char *what)
{
	if (s != CUBLAS_STATUS_SUCCESS)
		hx_die("harness", "%s failed: cuBLAS status %d", what, (int)s);
}

static void call_cublas(void *ctx)
{
	struct vendor_call *c = (struct vendor_call *)ctx;
	const float one = 1.0f, zero = 0.0f;
	check_cublas(cublasSgeam(c->handle, CUBLAS_OP_T, CUBLAS_OP_N, c->rows,
				 c->cols, &one, c->in, c->cols, &zero, c->out,
				 c->rows, c->out, c->rows),
		     "cublasSgeam");
}

int main(int argc, char **argv)
{
	hx_init(argc, argv);
	int side = hx_timed_side(2 * sizeof(float), 2 * sizeof(float));
	size_t bytes = (size_t)side * side * sizeof(float);
	float *in, *out;
	HX_CHECK(cudaMalloc(&in, bytes));
	HX_CHECK(cudaMalloc(&out, bytes));
	HX_CHECK(cudaMemset(in, 0, bytes));
	struct vendor_call c = {NULL, side, side, in, out};
	check_cublas(cublasCreate(&c.handle), "cublasCreate");
	check_cublas(cublasSetStream(c.handle, 0), "cublasSetStream");
	struct hx_timing t = hx_time_calls(call_cublas, &c, "cublasSgeam");
	double n = (double)side * side;
	hx_timing_report("vendor", "cuBLAS cublasSgeam (transpose)", n,
			 2.0 * sizeof(float) * n, &t);
	cublasDestroy(c.handle);
	HX_CHECK(cudaFree(in));
	HX_CHECK(cudaFree(out));
	return hx_finish(1);
}
