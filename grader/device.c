#include "device.h"
#include "event.h"
#include "runner.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static json_t *run_probe(const char *probe_exe, int copy, char *err,
			 size_t errlen)
{
	const char *argv[] = {probe_exe, copy ? "--copy" : NULL, NULL};
	struct child c = CHILD_INIT;
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
	return o;
}

json_t *device_probe(const char *probe_exe, const char *cache_dir, int fresh,
		     char *err, size_t errlen)
{
	json_t *facts = run_probe(probe_exe, 0, err, errlen);
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
	if (cached && json_is_number(json_object_get(cached, "copy_gbps"))) {
		json_object_update_missing(facts, cached);
		json_object_set_new(facts, "copy_source", json_string("cached"));
		json_decref(cached);
		return facts;
	}
	json_decref(cached);

	json_t *measured = run_probe(probe_exe, 1, err, errlen);
	if (!measured) {
		json_decref(facts);
		return NULL;
	}
	json_t *ceiling = json_pack(
		"{s:O?, s:O?, s:O?, s:O?, s:O?, s:O?}", "copy_gbps",
		json_object_get(measured, "copy_gbps"), "memcpy_gbps",
		json_object_get(measured, "memcpy_gbps"), "kernel_gbps",
		json_object_get(measured, "kernel_gbps"), "copy_method",
		json_object_get(measured, "copy_method"), "copy_bytes",
		json_object_get(measured, "copy_bytes"), "copy_cv",
		json_object_get(measured, "copy_cv"));
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
