// devprobe — print this machine's CUDA device facts as one JSON object.
//
//   devprobe            facts only (fast): name, compute capability, SMs,
//                       L2, memory, driver and runtime versions, UUID
//   devprobe --copy     also measure the copy bandwidth ceiling: the better
//                       of cudaMemcpy device-to-device and a 16-byte copy
//                       kernel, each timed as the median of event-timed
//                       repetitions (with the L2 flushed in between) on
//                       buffers sized like the labs' timed inputs.
//
// With no usable device it prints {"available": false, "reason": ...} and
// exits 0: "no GPU" is a fact to report, not a failure of the probe.
#include "event.h"
#include "harness.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>

__global__ void copy16(const int4 *__restrict__ in, int4 *__restrict__ out,
		       size_t n)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	for (; i + stride < n; i += 2 * stride) {
		int4 a = in[i], b = in[i + stride];
		out[i] = a;
		out[i + stride] = b;
	}
	if (i < n)
		out[i] = in[i];
}

struct copy_job {
	void *src, *dst;
	size_t bytes;
	int blocks;
};

static void by_memcpy(void *ctx)
{
	struct copy_job *j = (struct copy_job *)ctx;
	HX_CHECK(cudaMemcpyAsync(j->dst, j->src, j->bytes,
				 cudaMemcpyDeviceToDevice, 0));
}

static void by_kernel(void *ctx)
{
	struct copy_job *j = (struct copy_job *)ctx;
	copy16<<<j->blocks, 256>>>((const int4 *)j->src, (int4 *)j->dst,
				   j->bytes / sizeof(int4));
}

static void print_unavailable(const char *reason)
{
	json_t *o = json_pack("{s:b, s:s}", "available", 0, "reason", reason);
	event_write(stdout, o);
	json_decref(o);
}

int main(int argc, char **argv)
{
	int measure = argc > 1 && !strcmp(argv[1], "--copy");
	if (argc > 2 || (argc == 2 && !measure)) {
		fprintf(stderr, "usage: devprobe [--copy]\n");
		return 2;
	}
	int count = 0, driver = 0, runtime = 0;
	cudaError_t err = cudaGetDeviceCount(&count);
	if (err != cudaSuccess) {
		char reason[256];
		snprintf(reason, sizeof(reason), "%s (%s)",
			 cudaGetErrorString(err), cudaGetErrorName(err));
		print_unavailable(reason);
		return 0;
	}
	if (count == 0) {
		print_unavailable("the CUDA driver reports no devices");
		return 0;
	}
	cudaDriverGetVersion(&driver);
	cudaRuntimeGetVersion(&runtime);

	// The runtime's timing helpers write progress events: send them to
	// /dev/null, this program's output is the one object below.
	int devnull = open("/dev/null", O_WRONLY);
	char fd[16];
	snprintf(fd, sizeof(fd), "%d", devnull);
	char *hx_argv[] = {argv[0], (char *)"--result-fd", fd,
			   (char *)"--reps",  (char *)"50",
			   (char *)"--warmup", (char *)"5", NULL};
	hx_init(7, hx_argv);
	const cudaDeviceProp *p = hx_device();

	char cc[16], uuid[64], drv[32], rt[32];
	snprintf(cc, sizeof(cc), "%d.%d", p->major, p->minor);
	snprintf(drv, sizeof(drv), "%d.%d", driver / 1000, driver % 1000 / 10);
	snprintf(rt, sizeof(rt), "%d.%d", runtime / 1000, runtime % 1000 / 10);
	int u = 0;
	for (int i = 0; i < 16; i++)
		u += snprintf(uuid + u, sizeof(uuid) - u, "%02x",
			      (unsigned char)p->uuid.bytes[i]);
	json_t *o = json_pack(
		"{s:b, s:s, s:s, s:i, s:I, s:I, s:s, s:s, s:s, s:i, s:i}",
		"available", 1, "name", p->name, "cc", cc, "sm_count",
		p->multiProcessorCount, "l2_bytes", (json_int_t)p->l2CacheSize,
		"mem_bytes", (json_int_t)p->totalGlobalMem, "driver", drv,
		"runtime", rt, "uuid", uuid, "memory_bus_bits",
		p->memoryBusWidth, "sm_major", p->major);

	if (measure) {
		// Same sizing rule as the labs: 8 bytes moved per 4-byte element.
		size_t n = hx_timed_elements(HX_TIMED_MIN, 2 * sizeof(float),
					     2 * sizeof(float));
		struct copy_job job = {NULL, NULL, n * sizeof(float), 0};
		HX_CHECK(cudaMalloc(&job.src, job.bytes));
		HX_CHECK(cudaMalloc(&job.dst, job.bytes));
		HX_CHECK(cudaMemset(job.src, 1, job.bytes));
		int per_sm = 0;
		HX_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
			&per_sm, copy16, 256, 0));
		job.blocks = p->multiProcessorCount * (per_sm > 0 ? per_sm : 1);
		double moved = 2.0 * job.bytes;
		struct hx_timing tm = hx_time_calls(by_memcpy, &job, "memcpy");
		struct hx_timing tk = hx_time_calls(by_kernel, &job, "copy");
		double gm = moved / (tm.us.median * 1e3);
		double gk = moved / (tk.us.median * 1e3);
		json_object_set_new(o, "memcpy_gbps", json_real(gm));
		json_object_set_new(o, "kernel_gbps", json_real(gk));
		json_object_set_new(o, "copy_gbps", json_real(gm > gk ? gm : gk));
		json_object_set_new(o, "copy_method",
				    json_string(gm > gk ? "cudaMemcpy"
							: "16-byte copy kernel"));
		json_object_set_new(o, "copy_bytes", json_real(moved));
		json_object_set_new(o, "copy_cv",
				    json_real(gm > gk ? tm.us.cv : tk.us.cv));
		HX_CHECK(cudaFree(job.src));
		HX_CHECK(cudaFree(job.dst));
	}
	event_write(stdout, o);
	json_decref(o);
	return 0;
}
