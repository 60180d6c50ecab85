/* gpustate: see gpustate.h for the contract and the rules. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* F_OFD_SETLK, when built by nvcc without it */
#endif
#include "gpustate.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- judging ---------------------------------------------------------- */

static const struct {
	unsigned long long bit;
	const char *name;
} reason_names[] = {
	{GPU_REASON_IDLE, "idle"},
	{GPU_REASON_APP_CLOCKS, "applications_clocks_setting"},
	{GPU_REASON_SW_POWER_CAP, "sw_power_cap"},
	{GPU_REASON_HW_SLOWDOWN, "hw_slowdown"},
	{GPU_REASON_SYNC_BOOST, "sync_boost"},
	{GPU_REASON_SW_THERMAL, "sw_thermal_slowdown"},
	{GPU_REASON_HW_THERMAL, "hw_thermal_slowdown"},
	{GPU_REASON_HW_POWER_BRAKE, "hw_power_brake_slowdown"},
	{GPU_REASON_DISPLAY_CLOCKS, "display_clock_setting"},
};

void gpustate_reason_names(unsigned long long reasons, char *buf, size_t len)
{
	size_t k = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(reason_names) / sizeof(reason_names[0]);
	     i++)
		if ((reasons & reason_names[i].bit) && k < len)
			k += (size_t)snprintf(buf + k, len - k, "%s%s",
					      k ? ", " : "",
					      reason_names[i].name);
}

static int clock_low(const struct gpu_reading *r)
{
	return r->sm_clock_mhz && r->sm_clock_max_mhz &&
	       r->sm_clock_mhz < 0.8 * r->sm_clock_max_mhz;
}

static int own_count(const struct gpu_reading *r)
{
	return r->own_processes > 1 ? r->own_processes : 1;
}

enum gpu_condition gpustate_judge(const struct gpu_reading *r, char *why,
				  size_t len)
{
	if (len)
		why[0] = '\0';
	if (!r->nvml)
		return GPU_OURS;
	int own = own_count(r);
	if (r->active_processes > own) {
		snprintf(why, len,
			 "GPU busy: %d processes used the GPU while this step "
			 "was timed (%d of them this run's; %d have a context "
			 "on it): another program's kernels share the SMs and "
			 "the memory, so the times measure both",
			 r->active_processes, own, r->processes);
		return GPU_BUSY;
	}
	unsigned long long held = r->have_reasons ? r->reasons : 0;
	int capped = (held & GPU_REASON_SW_POWER_CAP) && clock_low(r);
	if ((held & GPU_REASONS_HELD_DOWN) || capped) {
		char names[256];
		gpustate_reason_names(held & (GPU_REASONS_HELD_DOWN |
					      GPU_REASON_SW_POWER_CAP),
				      names, sizeof(names));
		snprintf(why, len,
			 "GPU throttled: the SM clock was %u of %u MHz, held "
			 "down by %s (NVML clock event reasons): times taken "
			 "now do not say what the kernel can do",
			 r->sm_clock_mhz, r->sm_clock_max_mhz, names);
		return GPU_THROTTLED;
	}
	return GPU_OURS;
}

int gpustate_audit_trusted(const struct gpu_reading *r)
{
	if (!r->nvml)
		return 1;
	if (r->active_processes >= 0)
		return r->active_processes <= own_count(r);
	return r->processes <= own_count(r);
}

static const char *condition_name(enum gpu_condition c)
{
	return c == GPU_BUSY ? "busy" : c == GPU_THROTTLED ? "throttled" : "ours";
}

json_t *gpustate_event(const struct gpu_reading *r, enum gpu_condition c,
		       const char *why, int attempt, int final)
{
	json_t *ev = json_pack("{s:s, s:s, s:s, s:i, s:b, s:b}", "event",
			       "gpu_state", "condition", condition_name(c),
			       "message", why ? why : "", "attempt", attempt,
			       "final", final, "nvml", r->nvml);
	if (!r->nvml) {
		json_object_set_new(ev, "nvml_error", json_string(r->error));
		return ev;
	}
	json_object_set_new(ev, "processes", json_integer(r->processes));
	json_object_set_new(ev, "active_processes",
			    json_integer(r->active_processes));
	json_object_set_new(ev, "own_processes", json_integer(own_count(r)));
	if (r->have_reasons) {
		char names[256];
		gpustate_reason_names(r->reasons, names, sizeof(names));
		json_object_set_new(ev, "clock_reasons",
				    json_integer((json_int_t)r->reasons));
		json_object_set_new(ev, "clock_reason_names",
				    json_string(names));
	}
	if (r->sm_clock_mhz)
		json_object_set_new(ev, "sm_clock_mhz",
				    json_integer(r->sm_clock_mhz));
	if (r->sm_clock_max_mhz)
		json_object_set_new(ev, "sm_clock_max_mhz",
				    json_integer(r->sm_clock_max_mhz));
	return ev;
}

static long field(const json_t *o, const char *key, long dflt)
{
	json_t *v = json_object_get(o, key);
	return json_is_integer(v) ? (long)json_integer_value(v) : dflt;
}

void gpustate_from_json(const json_t *o, struct gpu_reading *r)
{
	memset(r, 0, sizeof(*r));
	r->nvml = json_is_true(json_object_get(o, "nvml"));
	const char *e = json_string_value(json_object_get(o, "nvml_error"));
	snprintf(r->error, sizeof(r->error), "%s", e ? e : "");
	r->processes = (int)field(o, "processes", -1);
	r->active_processes = (int)field(o, "active_processes", -1);
	r->own_processes = (int)field(o, "own_processes", 1);
	r->have_reasons = json_is_integer(json_object_get(o, "clock_reasons"));
	r->reasons = (unsigned long long)field(o, "clock_reasons", 0);
	r->sm_clock_mhz = (unsigned)field(o, "sm_clock_mhz", 0);
	r->sm_clock_max_mhz = (unsigned)field(o, "sm_clock_max_mhz", 0);
}

/* ---- reading NVML ----------------------------------------------------- */

/*
 * From the NVML API reference (docs.nvidia.com/deploy/nvml-api): return
 * codes, the clock type, and the utilization sample's layout
 * (nvmlProcessUtilizationSample_t). Nothing else of nvml.h is used.
 */
typedef int nvml_return;
typedef void *nvml_device;
#define NVML_SUCCESS 0
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_NOT_FOUND 6
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_CLOCK_SM 1
struct nvml_process_utilization_sample {
	unsigned int pid;
	unsigned long long time_stamp; /* CPU timestamp in microseconds */
	unsigned int sm_util, mem_util, enc_util, dec_util;
};

struct gpustate {
	void *lib;
	int started; /* nvmlInit succeeded: shut it down */
	nvml_device dev;
	nvml_return (*shutdown)(void);
	const char *(*error_string)(nvml_return);
	nvml_return (*reasons)(nvml_device, unsigned long long *);
	nvml_return (*clock)(nvml_device, int, unsigned int *);
	nvml_return (*max_clock)(nvml_device, int, unsigned int *);
	nvml_return (*processes)(nvml_device, unsigned int *, void *);
	nvml_return (*utilization)(nvml_device,
				   struct nvml_process_utilization_sample *,
				   unsigned int *, unsigned long long);
};

unsigned long long gpustate_now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (unsigned long long)ts.tv_sec * 1000000ull +
	       (unsigned long long)ts.tv_nsec / 1000ull;
}

/* dlsym into a function pointer without a cast warning */
static void bind(void *lib, const char *name, void *slot)
{
	void *f = dlsym(lib, name);
	memcpy(slot, &f, sizeof(f));
}

struct gpustate *gpustate_open(const unsigned char uuid[16], char *err,
			       size_t errlen)
{
	void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		snprintf(err, errlen, "NVML not loaded: %s", dlerror());
		return NULL;
	}
	struct gpustate *g = calloc(1, sizeof(*g));
	nvml_return (*init)(void) = NULL;
	nvml_return (*by_uuid)(const char *, nvml_device *) = NULL;
	if (!g) {
		dlclose(lib);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	g->lib = lib;
	bind(lib, "nvmlInit_v2", &init);
	bind(lib, "nvmlDeviceGetHandleByUUID", &by_uuid);
	bind(lib, "nvmlShutdown", &g->shutdown);
	bind(lib, "nvmlErrorString", &g->error_string);
	bind(lib, "nvmlDeviceGetCurrentClocksEventReasons", &g->reasons);
	if (!g->reasons)
		bind(lib, "nvmlDeviceGetCurrentClocksThrottleReasons",
		     &g->reasons);
	bind(lib, "nvmlDeviceGetClockInfo", &g->clock);
	bind(lib, "nvmlDeviceGetMaxClockInfo", &g->max_clock);
	bind(lib, "nvmlDeviceGetComputeRunningProcesses_v3", &g->processes);
	if (!g->processes)
		bind(lib, "nvmlDeviceGetComputeRunningProcesses_v2",
		     &g->processes);
	bind(lib, "nvmlDeviceGetProcessUtilization", &g->utilization);
	nvml_return rc = init && by_uuid ? init() : -1;
	if (rc != NVML_SUCCESS) {
		snprintf(err, errlen, "NVML did not start (%s)",
			 rc == -1 ? "nvmlInit_v2 missing"
			 : g->error_string ? g->error_string(rc) : "error");
		gpustate_close(g);
		return NULL;
	}
	g->started = 1;
	char text[48];
	int k = snprintf(text, sizeof(text), "GPU-");
	for (int i = 0; i < 16; i++)
		k += snprintf(text + k, sizeof(text) - (size_t)k, "%s%02x",
			      i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "",
			      uuid[i]);
	rc = by_uuid(text, &g->dev);
	if (rc != NVML_SUCCESS) {
		snprintf(err, errlen, "NVML does not know %s (%s)", text,
			 g->error_string ? g->error_string(rc) : "error");
		gpustate_close(g);
		return NULL;
	}
	return g;
}

/*
 * Distinct pids with activity in samples since since_us; -1 unknown.
 * A sample stamped at t covers NVML's sampling period before t (about
 * 1/6 s), so only samples stamped a margin after since_us are counted:
 * otherwise a run whose correctness work ended just before we took the lock
 * would show as working during our timing.
 */
#define SAMPLE_MARGIN_US 200000ull
static int active_processes(struct gpustate *g, unsigned long long since_us)
{
	since_us += SAMPLE_MARGIN_US;
	if (!g->utilization)
		return -1;
	unsigned int n = 0;
	nvml_return rc = g->utilization(g->dev, NULL, &n, since_us);
	if (rc == NVML_ERROR_NOT_FOUND || (rc == NVML_SUCCESS && n == 0))
		return -1; /* no samples in the window: nothing known */
	if (rc != NVML_ERROR_INSUFFICIENT_SIZE && rc != NVML_SUCCESS)
		return -1;
	n += 8;
	struct nvml_process_utilization_sample *s = calloc(n, sizeof(*s));
	if (!s)
		return -1;
	rc = g->utilization(g->dev, s, &n, since_us);
	int distinct = -1;
	if (rc == NVML_SUCCESS) {
		distinct = 0;
		for (unsigned i = 0; i < n; i++) {
			if (s[i].time_stamp < since_us ||
			    (!s[i].sm_util && !s[i].mem_util))
				continue;
			int seen = 0;
			for (unsigned j = 0; j < i && !seen; j++)
				seen = s[j].pid == s[i].pid &&
				       s[j].time_stamp >= since_us &&
				       (s[j].sm_util || s[j].mem_util);
			distinct += !seen;
		}
		if (distinct == 0)
			distinct = -1; /* not even us: samples too coarse */
	}
	free(s);
	return distinct;
}

void gpustate_read(struct gpustate *g, unsigned long long since_us,
		   struct gpu_reading *out)
{
	memset(out, 0, sizeof(*out));
	out->processes = out->active_processes = -1;
	if (!g) {
		snprintf(out->error, sizeof(out->error), "NVML not loaded");
		return;
	}
	out->nvml = 1;
	if (g->reasons && g->reasons(g->dev, &out->reasons) == NVML_SUCCESS)
		out->have_reasons = 1;
	if (g->clock && g->clock(g->dev, NVML_CLOCK_SM, &out->sm_clock_mhz) !=
			       NVML_SUCCESS)
		out->sm_clock_mhz = 0;
	if (g->max_clock &&
	    g->max_clock(g->dev, NVML_CLOCK_SM, &out->sm_clock_max_mhz) !=
		    NVML_SUCCESS)
		out->sm_clock_max_mhz = 0;
	if (g->processes) {
		/* Only the count is used: a buffer larger than any version of
		 * nvmlProcessInfo_t (24 to 40 bytes) times the count asked. */
		static unsigned char infos[256 * 64];
		unsigned int n = 256;
		nvml_return rc = g->processes(g->dev, &n, infos);
		if (rc == NVML_SUCCESS || rc == NVML_ERROR_INSUFFICIENT_SIZE)
			out->processes = (int)n;
	}
	out->active_processes = active_processes(g, since_us);
}

void gpustate_close(struct gpustate *g)
{
	if (!g)
		return;
	if (g->shutdown && g->started)
		g->shutdown();
	dlclose(g->lib);
	free(g);
}
