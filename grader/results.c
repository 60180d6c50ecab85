#include "results.h"
#include "event.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static int ensure_dir(const char *path, char *err, size_t errlen)
{
	if (mkdir(path, 0755) == 0 || errno == EEXIST)
		return 0;
	snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
	return -1;
}

int results_path(char *out, size_t len, const char *state_dir,
		 enum results_file which, const char *lab)
{
	int n = -1;
	switch (which) {
	case RESULTS_RUNS:
		n = snprintf(out, len, "%s/runs", state_dir);
		break;
	case RESULTS_LAST_RUN:
		n = snprintf(out, len, "%s/runs/%s-last.jsonl", state_dir, lab);
		break;
	case RESULTS_LABS:
		n = snprintf(out, len, "%s/results", state_dir);
		break;
	case RESULTS_LAB:
		n = snprintf(out, len, "%s/results/%s.json", state_dir, lab);
		break;
	case RESULTS_HISTORY:
		n = snprintf(out, len, "%s/history.jsonl", state_dir);
		break;
	}
	return n >= 0 && (size_t)n < len ? 0 : -1;
}

int results_save(const char *state_dir, const json_t *log, char *err,
		 size_t errlen)
{
	const char *lab = NULL, *started = NULL, *device = "no device";
	size_t i;
	json_t *ev;
	json_array_foreach(log, i, ev)
	{
		const char *k = event_kind(ev);
		if (!strcmp(k, "run_begin")) {
			lab = json_string_value(json_object_get(ev, "lab"));
			started = json_string_value(json_object_get(ev, "started"));
		} else if (!strcmp(k, "device") &&
			   json_is_true(json_object_get(ev, "available"))) {
			device = json_string_value(json_object_get(ev, "name"));
		}
	}
	if (!lab)
		return 0;
	char path[4096];
	results_path(path, sizeof(path), state_dir, RESULTS_RUNS, lab);
	if (ensure_dir(state_dir, err, errlen) || ensure_dir(path, err, errlen))
		return -1;
	results_path(path, sizeof(path), state_dir, RESULTS_LABS, lab);
	if (ensure_dir(path, err, errlen))
		return -1;

	results_path(path, sizeof(path), state_dir, RESULTS_LAST_RUN, lab);
	FILE *f = fopen(path, "w");
	if (!f) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	json_array_foreach(log, i, ev) event_write(f, ev);
	fclose(f);

	results_path(path, sizeof(path), state_dir, RESULTS_LAB, lab);
	json_t *res = json_load_file(path, 0, NULL);
	if (!json_is_object(res)) {
		json_decref(res);
		res = json_object();
	}
	json_t *steps = json_object_get(res, "steps");
	if (!json_is_object(steps)) {
		steps = json_object();
		json_object_set_new(res, "steps", steps);
	}
	json_object_set_new(res, "lab", json_string(lab));
	json_object_set_new(res, "updated", json_string(started ? started : ""));
	json_object_set_new(res, "device", json_string(device));

	char hist[4096];
	results_path(hist, sizeof(hist), state_dir, RESULTS_HISTORY, lab);
	FILE *h = fopen(hist, "a");
	json_array_foreach(log, i, ev)
	{
		if (strcmp(event_kind(ev), "step_end"))
			continue;
		const char *step = json_string_value(json_object_get(ev, "step"));
		json_object_set(steps, step, ev);
		if (!h)
			continue;
		json_t *line = json_pack("{s:s, s:s, s:s, s:O, s:s}", "time",
					 started ? started : "", "lab", lab,
					 "step", step, "verdict",
					 json_object_get(ev, "verdict"),
					 "device", device);
		static const char *const nums[] = {"median_us", "gbps",
						   "pct_of_copy", NULL};
		for (const char *const *n = nums; *n; n++)
			if (json_object_get(ev, *n))
				json_object_set(line, *n, json_object_get(ev, *n));
		event_write(h, line);
		json_decref(line);
	}
	if (h)
		fclose(h);
	int rc = json_dump_file(res, path, JSON_INDENT(2));
	json_decref(res);
	if (rc) {
		snprintf(err, errlen, "cannot write %s", path);
		return -1;
	}
	return 0;
}
