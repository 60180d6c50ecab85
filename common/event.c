#include "event.h"

#include <string.h>

static const char *const kinds[] = {
	"run_begin", "device", "step_begin", "compile", "resources", "ptx",
	"progress", "profile", "sanitizer", "case", "guard", "launch", "timing",
	"todo", "error", "integrity", "gpu_state", "lint", "sandbox", "sweep",
	"calibration",
	/* explain's phase (grader/explain.h) */
	"explain", "accesses", "sass", "advice", "roofline",
	"harness_end", "check", "step_end", "run_end",
	/* the workshop server's, around a remote run (tools/server.py) */
	"server", "queued", "job_end",
};

int event_kind_known(const char *name)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(kinds[i], name) == 0)
			return 1;
	return 0;
}

const char *event_str(const json_t *ev, const char *key)
{
	const char *v = json_string_value(json_object_get(ev, key));
	return v ? v : "";
}

double event_num(const json_t *ev, const char *key)
{
	return json_number_value(json_object_get(ev, key));
}

const char *event_kind(const json_t *ev)
{
	const char *k = json_string_value(json_object_get(ev, "event"));
	return k ? k : "";
}

int event_write(FILE *out, const json_t *ev)
{
	if (json_dumpf(ev, out, JSON_COMPACT | JSON_ENSURE_ASCII) != 0)
		return -1;
	if (fputc('\n', out) == EOF || fflush(out) != 0)
		return -1;
	return 0;
}

json_t *event_parse(const char *line, char *err, size_t errlen)
{
	json_error_t jerr;
	json_t *ev = json_loads(line, JSON_REJECT_DUPLICATES, &jerr);
	if (!ev) {
		snprintf(err, errlen, "not JSON: %s", jerr.text);
		return NULL;
	}
	if (!json_is_object(ev)) {
		snprintf(err, errlen, "not a JSON object");
		json_decref(ev);
		return NULL;
	}
	const char *kind = event_kind(ev);
	if (!event_kind_known(kind)) {
		snprintf(err, errlen, "unknown event kind \"%s\"", kind);
		json_decref(ev);
		return NULL;
	}
	return ev;
}
