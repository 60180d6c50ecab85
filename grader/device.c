#include "device.h"
#include "event.h"
#include "gpulock.h"
#include "runner.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static json_t *run_probe(const char *probe_exe, int copy, const char *uuid,
			 char *err, size_t errlen)
{
	const char *argv[] = {probe_exe, copy ? "--copy" : NULL, NULL, NULL,
			      NULL};
	struct child c = CHILD_INIT;
	/* the ceiling is measured alone on the GPU */
	int lock_fd = copy ? device_lock_pass(&c, uuid) : -1;
	if (lock_fd >= 0) {
		argv[2] = "--gpu-lock-fd";
		argv[3] = DEVICE_LOCK_FD_ARG;
	}
	c.argv = argv;
	c.wall_limit_s = copy ? 120 : 60;
	c.out_limit = 1 << 20;
	json_t *o = NULL;
	char how[128];
	if (child_run(&c) < 0) {
		snprintf(err, errlen, "%s", c.error);
	} else if (!c.exited || c.exit_code != 0) {
		snprintf(err, errlen, "%s %s: %.300s", probe_exe,
			 child_describe_end(&c, how, sizeof(how)),
			 strbuf_str(&c.out));
	} else {
		/* drivers may print before the object: start at it */
		const char *out = strbuf_str(&c.out);
		json_error_t jerr;
		const char *start = strstr(out, "{\"");
		o = start ? json_loads(start, JSON_DISABLE_EOF_CHECK, &jerr)
			  : NULL;
		if (!o)
			snprintf(err, errlen, "%s printed no device facts: %.300s",
				 probe_exe, out);
	}
	child_release(&c);
	if (lock_fd >= 0)
		close(lock_fd);
	return o;
}

int device_ceiling_fresh(const json_t *cached, time_t now)
{
	json_t *at = json_object_get(cached, "copy_measured_at");
	const char *cond = json_string_value(
		json_object_get(cached, "copy_condition"));
	if (!json_is_number(json_object_get(cached, "copy_gbps")) ||
	    !json_is_number(at) || !cond || strcmp(cond, "ours"))
		return 0;
	double age = difftime(now, (time_t)json_number_value(at));
	return age < CEILING_MAX_AGE_S && age > -60; /* not from the future */
}

int device_lock_pass(struct child *c, const char *gpu_uuid)
{
	char err[256];
	int fd = gpu_uuid ? gpulock_open(gpu_uuid, err, sizeof(err)) : -1;
	if (fd >= 0) {
		c->pass_fd = fd;
		c->pass_fd_as = 4;
	}
	return fd;
}

const char *device_lock_check(json_t *device)
{
	const char *uuid = json_string_value(json_object_get(device, "uuid"));
	if (!json_is_true(json_object_get(device, "available")) || !uuid)
		return NULL;
	char err[256];
	int fd = gpulock_open(uuid, err, sizeof(err));
	json_object_set_new(device, "gpu_lock", json_boolean(fd >= 0));
	if (fd < 0) {
		json_object_set_new(device, "gpu_lock_error", json_string(err));
		return NULL;
	}
	close(fd);
	return uuid;
}

json_t *device_probe(const char *probe_exe, const char *cache_dir, int fresh,
		     char *err, size_t errlen)
{
	json_t *facts = run_probe(probe_exe, 0, NULL, err, errlen);
	if (!facts)
		return NULL;
	json_object_set_new(facts, "event", json_string("device"));
	if (!json_is_true(json_object_get(facts, "available")))
		return facts;

	char path[4096];
	snprintf(path, sizeof(path), "%s/ceiling-%s-%s.json", cache_dir,
		 json_string_value(json_object_get(facts, "uuid")),
		 json_string_value(json_object_get(facts, "driver")));
	json_t *cached = fresh ? NULL : json_load_file(path, 0, NULL);
	if (cached && device_ceiling_fresh(cached, time(NULL))) {
		json_object_update_missing(facts, cached);
		json_object_set_new(facts, "copy_source", json_string("cached"));
		json_decref(cached);
		return facts;
	}
	json_decref(cached);

	json_t *measured = run_probe(
		probe_exe, 1,
		json_string_value(json_object_get(facts, "uuid")), err, errlen);
	if (!measured) {
		json_decref(facts);
		return NULL;
	}
	json_t *ceiling = json_pack(
		"{s:O?, s:O?, s:O?, s:O?, s:O?, s:O?, s:O?, s:O?, s:f}",
		"copy_gbps", json_object_get(measured, "copy_gbps"),
		"memcpy_gbps", json_object_get(measured, "memcpy_gbps"),
		"kernel_gbps", json_object_get(measured, "kernel_gbps"),
		"copy_method", json_object_get(measured, "copy_method"),
		"copy_bytes", json_object_get(measured, "copy_bytes"),
		"copy_cv", json_object_get(measured, "copy_cv"),
		"copy_condition", json_object_get(measured, "copy_condition"),
		"copy_message", json_object_get(measured, "copy_message"),
		"copy_measured_at", (double)time(NULL));
	json_decref(measured);
	mkdir(cache_dir, 0755);
	json_dump_file(ceiling, path, JSON_INDENT(1)); /* best effort */
	json_object_update(facts, ceiling);
	json_decref(ceiling);
	json_object_set_new(facts, "copy_source", json_string("measured"));
	return facts;
}

void device_arch(const json_t *device, const char *fallback, char *out,
		 size_t len)
{
	const char *cc = json_string_value(json_object_get(device, "cc"));
	int major, minor;
	if (json_is_true(json_object_get(device, "available")) && cc &&
	    sscanf(cc, "%d.%d", &major, &minor) == 2)
		snprintf(out, len, "sm_%d%d", major, minor);
	else
		snprintf(out, len, "%s", fallback);
}
