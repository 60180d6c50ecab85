#include "classbook.h"

#include "stats.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void copy_str(char *dst, size_t len, const json_t *v)
{
	snprintf(dst, len, "%s", json_is_string(v) ? json_string_value(v) : "");
}

/* The required % of copy of a step record's pct_of_copy check (or of its
 * pct_of_reference check, in % of copy terms), or -1. */
static double record_threshold(const json_t *rec)
{
	size_t i;
	json_t *c;
	json_array_foreach(json_object_get(rec, "checks"), i, c) {
		const json_t *m = json_object_get(c, "metric");
		const json_t *req = json_object_get(c, "required");
		const json_t *copy = json_object_get(c, "required_pct_of_copy");
		if (json_is_string(m) &&
		    !strcmp(json_string_value(m), "pct_of_copy") &&
		    json_is_number(req))
			return json_number_value(req);
		/* a bar relative to the reference, in % of copy terms */
		if (json_is_string(m) &&
		    !strcmp(json_string_value(m), "pct_of_reference") &&
		    json_is_number(copy))
			return json_number_value(copy);
	}
	return -1;
}

static void count_verdict(struct cb_step *st, const char *v)
{
	for (int i = 0; i < st->nverdicts; i++)
		if (!strcmp(st->verdicts[i].verdict, v)) {
			st->verdicts[i].count++;
			return;
		}
	if (st->nverdicts == CB_MAX_VERDICTS)
		return;
	struct cb_verdict_count *c = &st->verdicts[st->nverdicts++];
	snprintf(c->verdict, sizeof(c->verdict), "%s", v);
	c->count = 1;
}

static int by_pct_then_name(const void *pa, const void *pb)
{
	const struct cb_student *a = pa, *b = pb;
	if ((a->pct >= 0) != (b->pct >= 0))
		return a->pct >= 0 ? -1 : 1;
	if (a->pct >= 0 && a->pct != b->pct)
		return a->pct > b->pct ? -1 : 1;
	int v = strcmp(a->verdict, b->verdict);
	return v ? v : strcmp(a->name, b->name);
}

/* Fill one step from every student's record of it (index k of lab). */
static int load_step(struct cb_step *st, const char *lab, const json_t *spec,
		     size_t k, const json_t *students)
{
	snprintf(st->lab, sizeof(st->lab), "%s", lab);
	copy_str(st->id, sizeof(st->id), json_object_get(spec, "id"));
	copy_str(st->title, sizeof(st->title), json_object_get(spec, "title"));
	st->threshold = -1;
	size_t n = json_array_size(students);
	st->students = calloc(n ? n : 1, sizeof(*st->students));
	double *pct = calloc(n ? n : 1, sizeof(double));
	if (!st->students || !pct) {
		free(pct);
		return -1;
	}
	size_t i;
	json_t *row;
	json_array_foreach(students, i, row) {
		const json_t *rec = json_array_get(
			json_object_get(json_object_get(row, "labs"), lab), k);
		struct cb_student *s = &st->students[st->nstudents++];
		copy_str(s->name, sizeof(s->name), json_object_get(row, "student"));
		copy_str(s->verdict, sizeof(s->verdict),
			 json_object_get(rec, "verdict"));
		if (!s->verdict[0])
			snprintf(s->verdict, sizeof(s->verdict), "missing");
		const json_t *p = json_object_get(rec, "pct_of_copy");
		s->pct = json_is_number(p) ? json_number_value(p) : -1;
		if (s->pct >= 0)
			pct[st->measured++] = s->pct;
		st->passed += !strcmp(s->verdict, "pass");
		st->submitted += strcmp(s->verdict, "missing") != 0;
		count_verdict(st, s->verdict);
		if (st->threshold < 0)
			st->threshold = record_threshold(rec);
	}
	struct sample_stats ss;
	if (stats_summarize(pct, (size_t)st->measured, &ss) == 0) {
		st->min = ss.min;
		st->median = ss.median;
		st->max = ss.max;
	}
	free(pct);
	qsort(st->students, (size_t)st->nstudents, sizeof(*st->students),
	      by_pct_then_name);
	return 0;
}

int classbook_from_json(struct classbook *b, const json_t *doc,
			const char *path, char *err, size_t errlen)
{
	memset(b, 0, sizeof(*b));
	snprintf(b->path, sizeof(b->path), "%s", path);
	const json_t *labs = json_object_get(doc, "labs");
	const json_t *students = json_object_get(doc, "students");
	if (!json_is_object(labs) || !json_is_array(students)) {
		snprintf(err, errlen,
			 "%s: not a gradebook (no \"labs\" and \"students\"; "
			 "it is written by `run.py grade`)", b->path);
		return -1;
	}
	int total = 0;
	const char *lab;
	json_t *steps;
	json_object_foreach((json_t *)labs, lab, steps)
		total += (int)json_array_size(steps);
	b->nstudents = (int)json_array_size(students);
	b->steps = calloc(total ? (size_t)total : 1, sizeof(*b->steps));
	if (!b->steps) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	json_object_foreach((json_t *)labs, lab, steps) {
		size_t k;
		json_t *spec;
		json_array_foreach(steps, k, spec) {
			if (load_step(&b->steps[b->nsteps++], lab, spec, k,
				      students) < 0) {
				snprintf(err, errlen, "out of memory");
				classbook_free(b);
				return -1;
			}
		}
	}
	return 0;
}

int classbook_load(struct classbook *b, const char *path, char *err,
		   size_t errlen)
{
	memset(b, 0, sizeof(*b));
	struct stat sb;
	if (stat(path, &sb) < 0) {
		snprintf(err, errlen, "%s: no such file or folder (give the OUT "
				      "folder of `run.py grade`, or its "
				      "gradebook.json)", path);
		return -1;
	}
	char file[512];
	if (S_ISDIR(sb.st_mode))
		snprintf(file, sizeof(file), "%s/gradebook.json", path);
	else
		snprintf(file, sizeof(file), "%s", path);
	json_error_t je;
	json_t *doc = json_load_file(file, 0, &je);
	if (!doc) {
		snprintf(err, errlen, "%s: %s", file, je.text);
		return -1;
	}
	int rc = classbook_from_json(b, doc, file, err, errlen);
	json_decref(doc);
	return rc;
}

void classbook_free(struct classbook *b)
{
	for (int i = 0; i < b->nsteps; i++)
		free(b->steps[i].students);
	free(b->steps);
	b->steps = NULL;
	b->nsteps = 0;
}

void classbook_histogram(const struct cb_step *st, double scale, int *bins,
			 int nbins)
{
	memset(bins, 0, sizeof(*bins) * (size_t)nbins);
	if (nbins <= 0 || scale <= 0)
		return;
	for (int i = 0; i < st->nstudents; i++) {
		double p = st->students[i].pct;
		if (p < 0)
			continue;
		int b = (int)(p / scale * nbins);
		bins[b >= nbins ? nbins - 1 : b]++;
	}
}
