// devprobe — print this machine's CUDA device facts as one JSON object.
//
//   devprobe            facts only (fast): name, compute capability, SMs,
//                       L2, memory, driver and runtime versions, UUID
//   devprobe --copy [--gpu-lock-fd N]
//                       also measure the copy bandwidth ceiling: the better
//                       of cudaMemcpy device-to-device and a 16-byte copy
//                       kernel, each timed as the median of event-timed
//                       repetitions (with the L2 flushed in between) on
//                       buffers sized like the labs' timed inputs.
//
// With no usable device it prints {"available": false, "cause": ...,
// "reason": ...} and exits 0: "no GPU" is a fact to report, not a failure
// of the probe. The CUDA runtime says "driver version is insufficient"
// whether the driver is old or absent, so the cause is found by asking the
// driver library itself (loaded with dlopen, as the runtime does):
//   no_driver    no libcuda.so.1 can be loaded (no NVIDIA driver: a laptop,
//                a CI box, a container started without the GPU)
//   old_driver   the driver's CUDA version is older than the toolkit's
//   no_device    a driver, but it reports no GPU (cuInit: no device, or
//                zero devices; CUDA_VISIBLE_DEVICES may hide them)
//   error        anything else: the runtime's own message
#include "event.h"
#include "harness.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static void print_unavailable(const char *cause, const char *reason)
{
	json_t *o = json_pack("{s:b, s:s, s:s}", "available", 0, "cause", cause,
			      "reason", reason);
	event_write(stdout, o);
	json_decref(o);
}

// Why no device answers (see the top): a cause and a sentence that says
// what is missing and what to do. err is the runtime's answer (cudaSuccess
// with count 0 when it simply found none).
static void diagnose(cudaError_t err, char *reason, size_t len)
{
	int runtime = 0;
	cudaRuntimeGetVersion(&runtime);
	const char *visible = getenv("CUDA_VISIBLE_DEVICES");
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		snprintf(reason, len,
			 "no NVIDIA driver on this machine (libcuda.so.1 "
			 "cannot be loaded%s)",
			 access("/dev/nvidiactl", F_OK) ? "; no /dev/nvidiactl"
							: "");
		print_unavailable("no_driver", reason);
		return;
	}
	typedef int (*version_fn)(int *);
	typedef int (*init_fn)(unsigned);
	version_fn get_version = (version_fn)dlsym(lib, "cuDriverGetVersion");
	init_fn init = (init_fn)dlsym(lib, "cuInit");
	int driver = 0;
	if (get_version)
		get_version(&driver);
	if (driver > 0 && driver < runtime) {
		snprintf(reason, len,
			 "the NVIDIA driver supports CUDA %d.%d, older than the "
			 "CUDA %d.%d toolkit cudalab was built with: update the "
			 "driver, or build with a toolkit no newer than %d.%d",
			 driver / 1000, driver % 1000 / 10, runtime / 1000,
			 runtime % 1000 / 10, driver / 1000, driver % 1000 / 10);
		print_unavailable("old_driver", reason);
	} else if (err == cudaSuccess || err == cudaErrorNoDevice ||
		   (init && init(0) == 100 /* CUDA_ERROR_NO_DEVICE */)) {
		snprintf(reason, len,
			 "the NVIDIA driver (CUDA %d.%d) is installed but sees "
			 "no GPU%s%s%s",
			 driver / 1000, driver % 1000 / 10,
			 visible ? " (CUDA_VISIBLE_DEVICES=" : "",
			 visible ? visible : "", visible ? ")" : "");
		print_unavailable("no_device", reason);
	} else {
		snprintf(reason, len, "%s (%s)", cudaGetErrorString(err),
			 cudaGetErrorName(err));
		print_unavailable("error", reason);
	}
	dlclose(lib);
}

int main(int argc, char **argv)
{
	int measure = argc > 1 && !strcmp(argv[1], "--copy");
	const char *lock_fd = NULL;
	if (measure && argc == 4 && !strcmp(argv[2], "--gpu-lock-fd"))
		lock_fd = argv[3];
	else if (argc > 2 || (argc == 2 && !measure)) {
		fprintf(stderr, "usage: devprobe [--copy [--gpu-lock-fd N]]\n");
		return 2;
	}
	int count = 0, driver = 0, runtime = 0;
	cudaError_t err = cudaGetDeviceCount(&count);
	if (err != cudaSuccess || count == 0) {
		char reason[512];
		diagnose(err, reason, sizeof(reason));
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
			   (char *)"--warmup", (char *)"5",
			   (char *)"--gpu-lock-fd", (char *)lock_fd, NULL};
	hx_init(lock_fd ? 9 : 7, hx_argv);
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
		/* the ceiling counts only when the GPU was ours throughout */
		const struct hx_timing *worse =
			tm.gpu_condition != GPU_OURS ? &tm : &tk;
		json_object_set_new(
			o, "copy_condition",
			json_string(worse->gpu_condition == GPU_BUSY ? "busy"
				    : worse->gpu_condition == GPU_THROTTLED
					    ? "throttled"
					    : "ours"));
		if (worse->gpu_condition != GPU_OURS)
			json_object_set_new(o, "copy_message",
					    json_string(worse->gpu_message));
		HX_CHECK(cudaFree(job.src));
		HX_CHECK(cudaFree(job.dst));
	}
	event_write(stdout, o);
	json_decref(o);
	return 0;
}
