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
 * measures again and rewrites the cache (bench does this).
 *
 * Returns NULL with err only when the probe itself cannot run (a broken
 * build), never for "no GPU".
 */
#ifndef CUDALAB_DEVICE_H
#define CUDALAB_DEVICE_H

#include <jansson.h>
#include <stddef.h>

json_t *device_probe(const char *probe_exe, const char *cache_dir, int fresh,
		     char *err, size_t errlen);

/* "sm_90" for a device event with cc "9.0"; fallback when unavailable. */
void device_arch(const json_t *device, const char *fallback, char *out,
		 size_t len);

#endif
