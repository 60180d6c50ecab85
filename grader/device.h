/*
 * device — what GPU this is and how fast it can copy (the ceiling).
 *
 * device_probe() runs the devprobe program and returns a "device" event
 * (see event.h) as a new JSON object:
 *   - {"available": false, "reason": ...} when there is no usable device;
 *   - otherwise the device facts plus copy_gbps, the measured copy
 *     bandwidth, which every lab's thresholds are relative to.
 * The copy measurement takes a few seconds, so it is cached in
 * cache_dir/ceiling-UUID-DRIVER.json: one per GPU and driver. fresh != 0
 * measures again and rewrites the cache (bench does this). It is measured
 * holding the GPU lock exclusive (common/gpulock.h, passed to devprobe as
 * --gpu-lock-fd) and judged like any timing (common/gpustate.h): the event
 * says copy_condition ("ours", or "busy"/"throttled" with copy_message when
 * three attempts never found the GPU to ourselves). A cache is stale, and
 * measured again, when it is older than CEILING_MAX_AGE_S, was not measured
 * on a GPU of our own, or predates these fields; a new driver has its own
 * file.
 *
 * Returns NULL with err only when the probe itself cannot run (a broken
 * build), never for "no GPU".
 */
#ifndef CUDALAB_DEVICE_H
#define CUDALAB_DEVICE_H

#include <jansson.h>
#include <stddef.h>
#include <time.h>

#include "runner.h"

#define CEILING_MAX_AGE_S (24 * 3600)

/* Whether a cached ceiling (the cache file's object) may still be used at
 * time now: measured on a GPU of our own, less than a day ago. */
int device_ceiling_fresh(const json_t *cached, time_t now);

json_t *device_probe(const char *probe_exe, const char *cache_dir, int fresh,
		     char *err, size_t errlen);

/*
 * Check that the lock of the device's GPU can be opened here (gpulock.h)
 * and record it in the event: "gpu_lock" true, or false with
 * "gpu_lock_error". Returns the GPU's UUID for gpulock_open (owned by
 * device), or NULL when there is no device or no lock.
 */
const char *device_lock_check(json_t *device);

/*
 * Hand a child its own open of the GPU's lock at fd 4 (runner: pass_fd):
 * returns the descriptor, which the caller closes after the child has run,
 * or -1 (no uuid, or the lock cannot be opened: the child then runs
 * unlocked). The caller adds "--gpu-lock-fd 4" to the step's arguments
 * when the result is >= 0.
 */
int device_lock_pass(struct child *c, const char *gpu_uuid);
#define DEVICE_LOCK_FD_ARG "4"

/* "sm_90" for a device event with cc "9.0"; fallback when unavailable. */
void device_arch(const json_t *device, const char *fallback, char *out,
		 size_t len);

#endif
