/* calibration — reference figures per kind of GPU; see calibration.h. */
#include "calibration.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void calibration_key(const json_t *device, char *out, size_t len)
{
	const char *name = json_string_value(json_object_get(device, "name"));
	char clean[128];
	size_t k = 0;
	for (const char *p = name ? name : "unknown-GPU"; *p && k + 1 < sizeof(clean);
	     p++) {
		char c = isalnum((unsigned char)*p) ? *p : '-';
		if (c == '-' && (k == 0 || clean[k - 1] == '-'))
			continue;
		clean[k++] = c;
	}
	while (k && clean[k - 1] == '-')
		k--;
	clean[k] = 0;
	double mem = json_number_value(json_object_get(device, "mem_bytes"));
	snprintf(out, len, "%s-%dsm-%.0fg", clean,
		 (int)json_number_value(json_object_get(device, "sm_count")),
		 floor(mem / (1024.0 * 1024 * 1024)));
}

static void file_path(const char *dir, int in_tree, const json_t *device,
		      char *out, size_t len)
{
	char key[192];
	calibration_key(device, key, sizeof(key));
	if (in_tree) {
		snprintf(out, len, "%s/%s.json", dir, key);
		return;
	}
	const char *driver = json_string_value(json_object_get(device, "driver"));
	snprintf(out, len, "%s/calibration-%s-%s.json", dir, key,
		 driver ? driver : "unknown");
}

static json_t *lookup(const char *path, const char *lab, const char *step)
{
	json_t *f = json_load_file(path, 0, NULL);
	json_t *e = json_object_get(
		json_object_get(json_object_get(f, "labs"), lab), step);
	json_t *out = json_is_number(json_object_get(e, "gbps")) &&
				      json_number_value(json_object_get(e, "gbps")) > 0
			      ? json_deep_copy(e)
			      : NULL;
	json_decref(f);
	return out;
}

json_t *calibration_find(const char *root, const char *state_dir,
			 const json_t *device, const char *lab,
			 const char *step, const char **where)
{
	char path[4096 + 256];
	file_path(state_dir, 0, device, path, sizeof(path));
	json_t *e = lookup(path, lab, step);
	if (e) {
		*where = "this machine";
		return e;
	}
	char dir[4096 + 16];
	snprintf(dir, sizeof(dir), "%s/calibration", root);
	file_path(dir, 1, device, path, sizeof(path));
	e = lookup(path, lab, step);
	*where = e ? "the tree" : NULL;
	return e;
}

json_t *calibration_entry_from(const json_t *metrics, double n)
{
	json_t *med = json_object_get(metrics, "median_us");
	json_t *gbps = json_object_get(metrics, "gbps");
	if (!json_is_number(med) || !json_is_number(gbps) ||
	    json_number_value(gbps) <= 0)
		return NULL;
	json_t *e = json_pack("{s:O, s:O, s:f}", "median_us", med, "gbps", gbps,
			      "n", n);
	json_t *ci = json_object_get(metrics, "median_ci_rel");
	json_object_set_new(e, "ci_rel",
			    json_real(json_is_number(ci) ? json_number_value(ci)
							 : 0.0));
	json_t *worst = json_object_get(metrics, "gbps_worst");
	if (json_is_number(worst))
		json_object_set(e, "worst_gbps", worst);
	return e;
}

int calibration_store(const char *dir, int in_tree, const json_t *device,
		      const char *lab, const char *step, const json_t *entry,
		      const char *commit, char *err, size_t errlen)
{
	char path[4096 + 256];
	file_path(dir, in_tree, device, path, sizeof(path));
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	json_t *f = json_load_file(path, 0, NULL);
	if (!json_is_object(f)) {
		json_decref(f);
		f = json_object();
	}
	json_object_set_new(
		f, "gpu",
		json_pack("{s:O?, s:O?, s:O?, s:O?, s:O?}", "name",
			  json_object_get(device, "name"), "cc",
			  json_object_get(device, "cc"), "sm_count",
			  json_object_get(device, "sm_count"), "mem_bytes",
			  json_object_get(device, "mem_bytes"), "driver",
			  json_object_get(device, "driver")));
	char now[32];
	time_t t = time(NULL);
	strftime(now, sizeof(now), "%Y-%m-%d", gmtime(&t));
	json_object_set_new(f, "measured", json_string(now));
	if (commit && *commit)
		json_object_set_new(f, "commit", json_string(commit));
	json_t *labs = json_object_get(f, "labs");
	if (!json_is_object(labs)) {
		labs = json_object();
		json_object_set_new(f, "labs", labs);
	}
	json_t *l = json_object_get(labs, lab);
	if (!json_is_object(l)) {
		l = json_object();
		json_object_set_new(labs, lab, l);
	}
	json_object_set_new(l, step, json_deep_copy(entry));
	/* write whole, then rename: a reader never sees half a file */
	char tmp[sizeof(path) + 16];
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
	int rc = json_dump_file(f, tmp, JSON_INDENT(1) | JSON_SORT_KEYS);
	json_decref(f);
	if (rc < 0 || rename(tmp, path) < 0) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

static double num(const json_t *o, const char *key)
{
	return json_number_value(json_object_get(o, key));
}

void calibration_apply(const json_t *entry, json_t *metrics)
{
	double ref = num(entry, "gbps"), mine = num(metrics, "gbps");
	if (ref <= 0 || mine <= 0)
		return;
	double rel = sqrt(pow(num(entry, "ci_rel"), 2) +
			  pow(num(metrics, "median_ci_rel"), 2)) +
		     CALIBRATION_SPREAD;
	double pct = 100.0 * mine / ref;
	json_object_set_new(metrics, "pct_of_reference", json_real(pct));
	json_object_set_new(metrics, "pct_of_reference_noise",
			    json_real(pct * rel));
	double ref_worst = num(entry, "worst_gbps");
	double worst = num(metrics, "gbps_worst");
	if (ref_worst > 0 && worst > 0) {
		double w = 100.0 * worst / ref_worst;
		json_object_set_new(metrics, "pct_of_reference_worst",
				    json_real(w));
		json_object_set_new(metrics, "pct_of_reference_worst_noise",
				    json_real(w * rel));
	}
}
