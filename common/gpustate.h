/*
 * gpustate — was the GPU ours, and at full clocks, while we timed?
 *
 * Two layers, so tests can inject readings (tests/unit/test_gpustate.c):
 *
 *   reading  gpustate_open / gpustate_read / gpustate_close talk to NVML,
 *            loaded at run time with dlopen("libnvidia-ml.so.1") as nvtop
 *            does: the build needs no NVML headers or library, and a machine
 *            without it still runs (the reading says "nvml": false, why).
 *            The few prototypes, enums and struct layouts used are declared
 *            in gpustate.c from the NVML API reference
 *            (docs.nvidia.com/deploy/nvml-api: nvmlDeviceGetHandleByUUID,
 *            nvmlDeviceGetCurrentClocksEventReasons — called
 *            ...ClocksThrottleReasons before driver 535, tried second —,
 *            nvmlDeviceGetClockInfo / nvmlDeviceGetMaxClockInfo with
 *            NVML_CLOCK_SM, nvmlDeviceGetComputeRunningProcesses_v3 (its
 *            count only), nvmlDeviceGetProcessUtilization).
 *   judging  gpustate_judge and gpustate_audit_trusted: pure functions of a
 *            reading, and gpustate_event, the "gpu_state" event (event.h).
 *
 * What counts as busy. A step runs in a pid namespace (the sandbox), so the
 * host pids NVML reports cannot be matched with ours: the rules reason about
 * counts. A step is one process, or two (the judge and the student's
 * process, harness.h): `own_processes` says which, and every rule below
 * counts that many as ours. `processes` (with a CUDA context on the GPU) is
 * not enough alone:
 * other cudalab runs waiting for the GPU lock (gpulock.h) hold idle
 * contexts. `active_processes` (distinct pids with SM or memory activity in
 * NVML's utilization samples since the timing began) is: we were active, so
 * own_processes are us and any more is someone else's work during our
 * timing → busy.
 * Only samples stamped 0.2 s or more after the window began count (a sample
 * covers the sampling period before its stamp, which may reach back before
 * we held the lock). When NVML has no such samples (short timings: it
 * samples every ~1/6 s) or does not support them, activity is unknown (-1) and the lock
 * is the protection; then `processes` decides only whether a failed timing
 * audit can be trusted (gpustate_audit_trusted).
 *
 * What counts as throttled: a clock event reason that holds the SM clock
 * down for thermal or power-brake reasons (HW slowdown, SW/HW thermal, HW
 * power brake) — always; the SW power cap only when the SM clock is also
 * below 80 % of its maximum (a streaming kernel at the power cap often
 * loses a few percent of clock and nothing of its bandwidth). Never the idle,
 * applications-clocks, sync-boost or display reasons: those are settings, not
 * a GPU in trouble.
 *
 * C11, usable from CUDA C++ (the harness runtime).
 */
#ifndef CUDALAB_GPUSTATE_H
#define CUDALAB_GPUSTATE_H

#include <jansson.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* NVML's clock event reason bits (nvmlClocksEventReason*, nvml.h). */
#define GPU_REASON_IDLE 0x1ull
#define GPU_REASON_APP_CLOCKS 0x2ull
#define GPU_REASON_SW_POWER_CAP 0x4ull
#define GPU_REASON_HW_SLOWDOWN 0x8ull
#define GPU_REASON_SYNC_BOOST 0x10ull
#define GPU_REASON_SW_THERMAL 0x20ull
#define GPU_REASON_HW_THERMAL 0x40ull
#define GPU_REASON_HW_POWER_BRAKE 0x80ull
#define GPU_REASON_DISPLAY_CLOCKS 0x100ull
/* the reasons that always mean "held down" */
#define GPU_REASONS_HELD_DOWN                                              \
	(GPU_REASON_HW_SLOWDOWN | GPU_REASON_SW_THERMAL |                  \
	 GPU_REASON_HW_THERMAL | GPU_REASON_HW_POWER_BRAKE)

struct gpu_reading {
	int nvml;                 /* 1 when NVML answered at all */
	char error[160];          /* why not, when nvml is 0 */
	int processes;            /* with a compute context; -1 unknown */
	int active_processes;     /* active since the window began; -1 unknown */
	int have_reasons;
	unsigned long long reasons; /* clock event reason bits */
	unsigned sm_clock_mhz;    /* 0 unknown */
	unsigned sm_clock_max_mhz;
	int own_processes;        /* this step's own: 1, or 2 when the judge
				     and the student's process both run
				     (harness.h); 0 is read as 1 */
};

enum gpu_condition { GPU_OURS, GPU_BUSY, GPU_THROTTLED };

/*
 * The condition a reading shows; why (for BUSY and THROTTLED) gets the facts
 * in words, e.g. "2 processes used the GPU while this step was timed".
 * A reading without NVML is GPU_OURS: nothing seen is nothing to report.
 */
enum gpu_condition gpustate_judge(const struct gpu_reading *r, char *why,
				  size_t len);

/*
 * Whether a failed timing audit (work the timing events did not see) can be
 * blamed on the step: 1 when NVML saw no one else — at most one active
 * process, or only our own context on the GPU; 0 when someone else may have
 * been working (more contexts and no activity figures, or more active).
 * Without NVML: 1 (the lock keeps other cudalab runs off the GPU).
 */
int gpustate_audit_trusted(const struct gpu_reading *r);

/* Comma-separated names of the reason bits set, e.g. "hw_thermal, sw_power_cap". */
void gpustate_reason_names(unsigned long long reasons, char *buf, size_t len);

/*
 * The "gpu_state" event (event.h) for a reading: condition ("ours" |
 * "busy" | "throttled"), message, attempt (1-based), final (1 when the
 * harness gives up re-measuring: the step is then not graded), and the
 * facts of the reading. New reference.
 */
json_t *gpustate_event(const struct gpu_reading *r, enum gpu_condition c,
		       const char *why, int attempt, int final);

/* A reading from its JSON form (as in the event, or a recorded fixture). */
void gpustate_from_json(const json_t *o, struct gpu_reading *r);

/* ---- reading NVML ---- */

struct gpustate;

/*
 * Load NVML and find the GPU by its CUDA UUID (16 bytes). NULL when NVML is
 * missing or does not know the GPU: why goes to err.
 */
struct gpustate *gpustate_open(const unsigned char uuid[16], char *err,
			       size_t errlen);

/*
 * Read the GPU now. since_us: the start of the window for activity
 * (microseconds since the epoch, CLOCK_REALTIME, as NVML stamps samples).
 * g may be NULL: the reading then says NVML is not there.
 */
void gpustate_read(struct gpustate *g, unsigned long long since_us,
		   struct gpu_reading *out);

void gpustate_close(struct gpustate *g);

/* Microseconds since the epoch, for since_us. */
unsigned long long gpustate_now_us(void);

#ifdef __cplusplus
}
#endif
#endif
