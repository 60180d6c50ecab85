// The vendor-library figure for `run.py bench reduction`: CUB's
// cub::DeviceReduce::Sum on the timed size, timed like the student's steps.
#include <cub/device/device_reduce.cuh>

#include "harness.h"

struct vendor_call {
	void *temp;
	size_t temp_bytes;
	const float *in;
	float *out;
	int n;
};

static void call_cub(void *ctx)
{
	struct vendor_call *c = (struct vendor_call *)ctx;
	HX_CHECK(cub::DeviceReduce::Sum(c->temp, c->temp_bytes, c->in, c->out,
					c->n, (cudaStream_t)0));
}

int main(int argc, char **argv)
{
	hx_init(argc, argv);
	int n = (int)hx_timed_elements(HX_TIMED_MIN, sizeof(float),
					    2 * sizeof(float));
	struct vendor_call c = {NULL, 0, NULL, NULL, n};
	float *in, *out;
	HX_CHECK(cudaMalloc(&in, (size_t)n * sizeof(float)));
	HX_CHECK(cudaMalloc(&out, sizeof(float)));
	HX_CHECK(cudaMemset(in, 0, (size_t)n * sizeof(float)));
	c.in = in;
	c.out = out;
	HX_CHECK(cub::DeviceReduce::Sum(NULL, c.temp_bytes, c.in, c.out, n,
					(cudaStream_t)0));
	HX_CHECK(cudaMalloc(&c.temp, c.temp_bytes));
	struct hx_timing t = hx_time_calls(call_cub, &c, "cub::DeviceReduce::Sum");
	hx_timing_report("vendor", "CUB DeviceReduce::Sum", n,
			 (double)sizeof(float) * n, &t);
	HX_CHECK(cudaFree(c.temp));
	HX_CHECK(cudaFree(in));
	HX_CHECK(cudaFree(out));
	return hx_finish(1);
}
