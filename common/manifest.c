#include "manifest.h"
#include "advice.h"
#include "capability.h"
#include "facts.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Validation state: the file being read and where to put the first error. */
struct loader {
	const char *path;
	char *err;
	size_t errlen;
};

static int fail(struct loader *ld, const char *field, const char *fmt, ...)
{
	char reason[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	snprintf(ld->err, ld->errlen, "%s: %s: %s", ld->path, field, reason);
	return -1;
}

static int only_keys(struct loader *ld, json_t *obj, const char *where,
		     const char *const *allowed)
{
	const char *key;
	json_t *value;
	json_object_foreach(obj, key, value) {
		int ok = 0;
		for (const char *const *a = allowed; *a; a++)
			ok |= strcmp(*a, key) == 0;
		if (!ok) {
			char field[256];
			snprintf(field, sizeof(field), "%s%s%s", where,
				 *where ? "." : "", key);
			return fail(ld, field, "unknown field (a typo?)");
		}
	}
	return 0;
}

/* Copies obj[key] into *dst. Missing is an error only when required. */
static int get_string(struct loader *ld, json_t *obj, const char *where,
		      const char *key, int required, char **dst)
{
	char field[256];
	snprintf(field, sizeof(field), "%s%s%s", where, *where ? "." : "", key);
	json_t *v = json_object_get(obj, key);
	if (!v)
		return required ? fail(ld, field, "missing") : 0;
	if (!json_is_string(v) || json_string_length(v) == 0)
		return fail(ld, field, "must be a non-empty string");
	*dst = strdup(json_string_value(v));
	return *dst ? 0 : fail(ld, field, "out of memory");
}

/* A file name inside the lab folder: no directories, no hidden files. */
static int check_plain_name(struct loader *ld, const char *field,
			    const char *name)
{
	if (strchr(name, '/') || name[0] == '.')
		return fail(ld, field, "\"%s\" must be a plain file name in "
				       "the lab folder", name);
	return 0;
}

static int load_check(struct loader *ld, json_t *obj, const char *where,
		      struct check_spec *c)
{
	static const char *const keys[] = {"metric", "min", "max", "why", NULL};
	if (!json_is_object(obj))
		return fail(ld, where, "must be an object");
	if (only_keys(ld, obj, where, keys) ||
	    get_string(ld, obj, where, "metric", 1, &c->metric) ||
	    get_string(ld, obj, where, "why", 1, &c->why))
		return -1;
	char why[1600];
	if (fact_usable(c->metric, FACT_CHECK, why, sizeof(why)) < 0) {
		char field[256];
		snprintf(field, sizeof(field), "%s.metric", where);
		return fail(ld, field, "%s", why);
	}
	json_t *min = json_object_get(obj, "min");
	json_t *max = json_object_get(obj, "max");
	if (!!min == !!max)
		return fail(ld, where, "needs exactly one of \"min\" or \"max\"");
	json_t *bound = min ? min : max;
	if (!json_is_number(bound))
		return fail(ld, where, "\"%s\" must be a number",
			    min ? "min" : "max");
	c->op = min ? CHECK_AT_LEAST : CHECK_AT_MOST;
	c->bound = json_number_value(bound);
	return 0;
}

static void free_names(char **names)
{
	for (char **n = names; n && *n; n++)
		free(*n);
	free(names);
}

/*
 * "needs": ["cp.async", ...] at where: appended to *list (a NULL-terminated
 * array that may already hold the lab's names); *cc is raised to the
 * highest compute capability they take.
 */
static int load_needs(struct loader *ld, json_t *arr, const char *where,
		      char ***list, int *cc)
{
	char field[256];
	snprintf(field, sizeof(field), "%s%sneeds", where, *where ? "." : "");
	size_t n = json_array_size(arr);
	if (!json_is_array(arr) || n == 0 || n > 8)
		return fail(ld, field, "must be an array of 1 to 8 capability "
			    "names, e.g. [\"cp.async\"]");
	size_t have = 0;
	while (*list && (*list)[have])
		have++;
	char **grown = realloc(*list, (have + n + 1) * sizeof(char *));
	if (!grown)
		return fail(ld, field, "out of memory");
	*list = grown;
	grown[have] = NULL;
	for (size_t i = 0; i < n; i++) {
		const char *name = json_string_value(json_array_get(arr, i));
		const struct capability *c = capability_find(name);
		if (!c) {
			char known[512] = "", cc_s[16];
			for (const struct capability *k = capability_table();
			     k->name; k++) {
				cc_format(k->cc, cc_s, sizeof(cc_s));
				snprintf(known + strlen(known),
					 sizeof(known) - strlen(known),
					 "%s%s (%s)", *known ? ", " : "",
					 k->name, cc_s);
			}
			if (!name)
				return fail(ld, field, "entry %zu must be a "
					    "capability name (known: %s)", i,
					    known);
			return fail(ld, field, "unknown capability \"%s\" "
				    "(known: %s)", name, known);
		}
		for (size_t j = 0; j < have; j++)
			if (!strcmp(grown[j], name))
				return fail(ld, field, "names \"%s\" twice "
					    "(or again after the lab's needs)",
					    name);
		grown[have] = strdup(name);
		if (!grown[have])
			return fail(ld, field, "out of memory");
		grown[++have] = NULL;
		if (c->cc > *cc)
			*cc = c->cc;
	}
	return 0;
}

/* The lab's "needs" first, so a step's list and cc include them. */
static int copy_needs(struct loader *ld, const char *where,
		      char *const *lab_needs, int lab_cc, struct step_spec *s)
{
	size_t n = 0;
	while (lab_needs && lab_needs[n])
		n++;
	s->needs_cc = lab_cc;
	if (!n)
		return 0;
	s->needs = calloc(n + 1, sizeof(char *));
	if (!s->needs)
		return fail(ld, where, "out of memory");
	for (size_t i = 0; i < n; i++)
		if (!(s->needs[i] = strdup(lab_needs[i])))
			return fail(ld, where, "out of memory");
	return 0;
}

static int load_step(struct loader *ld, json_t *obj, const char *where,
		     char *const *lab_needs, int lab_cc, struct step_spec *s)
{
	static const char *const keys[] = {"id", "title", "file", "hint",
					   "launcher", "checks", "needs", NULL};
	if (!json_is_object(obj))
		return fail(ld, where, "must be an object");
	if (only_keys(ld, obj, where, keys) ||
	    get_string(ld, obj, where, "id", 1, &s->id) ||
	    get_string(ld, obj, where, "title", 1, &s->title) ||
	    get_string(ld, obj, where, "file", 1, &s->file) ||
	    get_string(ld, obj, where, "hint", 1, &s->hint) ||
	    get_string(ld, obj, where, "launcher", 0, &s->launcher))
		return -1;
	char field[256];
	snprintf(field, sizeof(field), "%s.file", where);
	if (check_plain_name(ld, field, s->file))
		return -1;
	size_t len = strlen(s->file);
	if (len < 4 || strcmp(s->file + len - 3, ".cu") != 0)
		return fail(ld, field, "\"%s\" must end in .cu", s->file);
	if (copy_needs(ld, where, lab_needs, lab_cc, s))
		return -1;
	json_t *needs = json_object_get(obj, "needs");
	if (needs && load_needs(ld, needs, where, &s->needs, &s->needs_cc))
		return -1;

	json_t *checks = json_object_get(obj, "checks");
	snprintf(field, sizeof(field), "%s.checks", where);
	if (!checks)
		return fail(ld, field, "missing (use [] for none)");
	if (!json_is_array(checks))
		return fail(ld, field, "must be an array");
	s->nchecks = json_array_size(checks);
	s->checks = calloc(s->nchecks ? s->nchecks : 1, sizeof(*s->checks));
	if (!s->checks)
		return fail(ld, field, "out of memory");
	for (size_t i = 0; i < s->nchecks; i++) {
		char cw[256];
		snprintf(cw, sizeof(cw), "%s.checks[%zu]", where, i);
		if (load_check(ld, json_array_get(checks, i), cw, &s->checks[i]))
			return -1;
	}
	return 0;
}

static int load_vendor(struct loader *ld, json_t *obj, struct lab_manifest *m)
{
	static const char *const keys[] = {"source", "name", "libs", NULL};
	if (!json_is_object(obj))
		return fail(ld, "vendor", "must be an object");
	if (only_keys(ld, obj, "vendor", keys) ||
	    get_string(ld, obj, "vendor", "source", 1, &m->vendor_source) ||
	    get_string(ld, obj, "vendor", "name", 1, &m->vendor_name) ||
	    check_plain_name(ld, "vendor.source", m->vendor_source))
		return -1;
	json_t *libs = json_object_get(obj, "libs");
	size_t n = libs ? json_array_size(libs) : 0;
	if (libs && !json_is_array(libs))
		return fail(ld, "vendor.libs", "must be an array of names");
	m->vendor_libs = calloc(n + 1, sizeof(char *));
	if (!m->vendor_libs)
		return fail(ld, "vendor.libs", "out of memory");
	for (size_t i = 0; i < n; i++) {
		const char *lib = json_string_value(json_array_get(libs, i));
		if (!lib || !*lib || strspn(lib, "abcdefghijklmnopqrstuvwxyz"
						  "0123456789_") != strlen(lib))
			return fail(ld, "vendor.libs",
				    "entry %zu must be a library name like "
				    "\"cublas\"", i);
		m->vendor_libs[i] = strdup(lib);
	}
	return 0;
}

static int load_sanitize(struct loader *ld, json_t *obj, struct lab_manifest *m)
{
	static const char *const keys[] = {"tools", "case", NULL};
	static const char *const known[] = {"memcheck", "racecheck",
					    "synccheck", "initcheck", NULL};
	if (!json_is_object(obj))
		return fail(ld, "sanitize", "must be an object");
	if (only_keys(ld, obj, "sanitize", keys) ||
	    get_string(ld, obj, "sanitize", "case", 1, &m->sanitize_case))
		return -1;
	json_t *tools = json_object_get(obj, "tools");
	size_t n = json_array_size(tools);
	if (!json_is_array(tools) || n == 0)
		return fail(ld, "sanitize.tools", "must be a non-empty array");
	m->sanitize_tools = calloc(n + 1, sizeof(char *));
	if (!m->sanitize_tools)
		return fail(ld, "sanitize.tools", "out of memory");
	for (size_t i = 0; i < n; i++) {
		const char *t = json_string_value(json_array_get(tools, i));
		int ok = 0;
		for (const char *const *k = known; t && *k; k++)
			ok |= !strcmp(*k, t);
		if (!ok)
			return fail(ld, "sanitize.tools", "entry %zu must be one "
				    "of memcheck, racecheck, synccheck, "
				    "initcheck", i);
		m->sanitize_tools[i] = strdup(t);
	}
	return 0;
}

/* "hidden_sizes": ["1000003", "333x777"]: digits, or digits x digits. */
static int load_hidden(struct loader *ld, json_t *arr, struct lab_manifest *m)
{
	size_t n = json_array_size(arr);
	if (!json_is_array(arr) || n == 0 || n > 16)
		return fail(ld, "hidden_sizes", "must be an array of 1 to 16 "
			    "sizes");
	m->hidden_sizes = calloc(n + 1, sizeof(char *));
	if (!m->hidden_sizes)
		return fail(ld, "hidden_sizes", "out of memory");
	for (size_t i = 0; i < n; i++) {
		const char *t = json_string_value(json_array_get(arr, i));
		size_t digits = t ? strspn(t, "0123456789") : 0;
		int ok = t && digits > 0 && digits < 10 &&
			 (t[digits] == 0 ||
			  (t[digits] == 'x' && strspn(t + digits + 1, "0123456789") ==
						       strlen(t + digits + 1) &&
			   t[digits + 1] && strlen(t + digits + 1) < 10));
		if (!ok)
			return fail(ld, "hidden_sizes", "entry %zu must be a "
				    "string \"N\" or \"RxC\"", i);
		m->hidden_sizes[i] = strdup(t);
	}
	return 0;
}

/* "sweep": {"define": "PDIST", "values": [1, 2, 3]}: a C identifier and
 * 1 to 32 integers from 1 to 1024. */
static int load_sweep(struct loader *ld, json_t *obj, struct lab_manifest *m)
{
	static const char *const keys[] = {"define", "values", NULL};
	if (!json_is_object(obj))
		return fail(ld, "sweep", "must be an object");
	if (only_keys(ld, obj, "sweep", keys) ||
	    get_string(ld, obj, "sweep", "define", 1, &m->sweep_define))
		return -1;
	const char *d = m->sweep_define;
	int ident = (d[0] == '_' || (d[0] >= 'A' && d[0] <= 'Z') ||
		     (d[0] >= 'a' && d[0] <= 'z')) &&
		    strspn(d, "_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			      "0123456789") == strlen(d) && strlen(d) < 48;
	if (!ident)
		return fail(ld, "sweep.define", "must be a C identifier");
	json_t *vals = json_object_get(obj, "values");
	size_t n = json_array_size(vals);
	if (!json_is_array(vals) || n == 0 || n > 32)
		return fail(ld, "sweep.values", "must be an array of 1 to 32 "
			    "integers");
	for (size_t i = 0; i < n; i++) {
		json_t *v = json_array_get(vals, i);
		if (!json_is_integer(v) || json_integer_value(v) < 1 ||
		    json_integer_value(v) > 1024)
			return fail(ld, "sweep.values", "entry %zu must be an "
				    "integer from 1 to 1024", i);
		m->sweep_values[m->nsweep_values++] = (int)json_integer_value(v);
	}
	return 0;
}

/* "advice": [{"when": ..., "hint": ..., "see": step id}], after the steps
 * (a "see" must name one). */
static int load_advice(struct loader *ld, json_t *arr, struct lab_manifest *m)
{
	static const char *const keys[] = {"when", "hint", "see", NULL};
	size_t n = json_array_size(arr);
	if (!json_is_array(arr) || n == 0 || n > 64)
		return fail(ld, "advice", "must be an array of 1 to 64 rules");
	m->advice = calloc(n, sizeof(*m->advice));
	if (!m->advice)
		return fail(ld, "advice", "out of memory");
	for (size_t i = 0; i < n; i++) {
		char where[64], why[1600];
		snprintf(where, sizeof(where), "advice[%zu]", i);
		json_t *rule = json_array_get(arr, i);
		struct advice_spec *a = &m->advice[m->nadvice++];
		if (!json_is_object(rule))
			return fail(ld, where, "must be an object");
		if (only_keys(ld, rule, where, keys) ||
		    get_string(ld, rule, where, "when", 1, &a->when) ||
		    get_string(ld, rule, where, "hint", 1, &a->hint) ||
		    get_string(ld, rule, where, "see", 0, &a->see))
			return -1;
		if (advice_check(a->when, why, sizeof(why)) < 0)
			return fail(ld, where, "when: %s", why);
		if (a->see && !manifest_step(m, a->see))
			return fail(ld, where, "see: no step \"%s\"", a->see);
	}
	return 0;
}

static int load_root(struct loader *ld, json_t *root, const char *lab_dir,
		     struct lab_manifest *m)
{
	static const char *const keys[] = {"name", "title", "order",
					   "interface", "harness", "steps",
					   "vendor", "time_limit_s", "sanitize",
					   "hidden_sizes", "sweep", "advice",
					   "needs", NULL};
	if (!json_is_object(root))
		return fail(ld, "(top level)", "must be a JSON object");
	if (only_keys(ld, root, "", keys) ||
	    get_string(ld, root, "", "name", 1, &m->name) ||
	    get_string(ld, root, "", "title", 1, &m->title) ||
	    get_string(ld, root, "", "interface", 1, &m->interface) ||
	    get_string(ld, root, "", "harness", 1, &m->harness) ||
	    check_plain_name(ld, "harness", m->harness))
		return -1;

	const char *base = strrchr(lab_dir, '/');
	base = base && base[1] ? base + 1 : lab_dir;
	size_t blen = strcspn(base, "/");
	if (strlen(m->name) != blen || strncmp(m->name, base, blen) != 0)
		return fail(ld, "name", "\"%s\" must equal the folder name",
			    m->name);

	json_t *order = json_object_get(root, "order");
	if (!json_is_integer(order) || json_integer_value(order) < 1)
		return fail(ld, "order", "must be an integer >= 1");
	m->order = (int)json_integer_value(order);

	json_t *limit = json_object_get(root, "time_limit_s");
	m->time_limit_s = 120;
	if (limit) {
		if (!json_is_number(limit) || json_number_value(limit) <= 0)
			return fail(ld, "time_limit_s",
				    "must be a positive number");
		m->time_limit_s = json_number_value(limit);
	}

	json_t *vendor = json_object_get(root, "vendor");
	if (vendor && load_vendor(ld, vendor, m))
		return -1;
	json_t *sanitize = json_object_get(root, "sanitize");
	if (sanitize && load_sanitize(ld, sanitize, m))
		return -1;
	json_t *hidden = json_object_get(root, "hidden_sizes");
	if (hidden && load_hidden(ld, hidden, m))
		return -1;
	json_t *sweep = json_object_get(root, "sweep");
	if (sweep && load_sweep(ld, sweep, m))
		return -1;

	json_t *needs = json_object_get(root, "needs");
	if (needs && load_needs(ld, needs, "", &m->needs, &m->needs_cc))
		return -1;

	json_t *steps = json_object_get(root, "steps");
	if (!json_is_array(steps) || json_array_size(steps) == 0)
		return fail(ld, "steps", "must be a non-empty array");
	m->nsteps = json_array_size(steps);
	m->steps = calloc(m->nsteps, sizeof(*m->steps));
	if (!m->steps)
		return fail(ld, "steps", "out of memory");
	for (size_t i = 0; i < m->nsteps; i++) {
		char where[64];
		snprintf(where, sizeof(where), "steps[%zu]", i);
		if (load_step(ld, json_array_get(steps, i), where, m->needs,
			      m->needs_cc, &m->steps[i]))
			return -1;
		for (size_t j = 0; j < i; j++) {
			if (strcmp(m->steps[j].id, m->steps[i].id) == 0)
				return fail(ld, where, "duplicate id \"%s\"",
					    m->steps[i].id);
			if (strcmp(m->steps[j].file, m->steps[i].file) == 0)
				return fail(ld, where, "duplicate file \"%s\"",
					    m->steps[i].file);
		}
	}
	json_t *advice = json_object_get(root, "advice");
	if (advice && load_advice(ld, advice, m))
		return -1;
	return 0;
}

int manifest_load(const char *lab_dir, struct lab_manifest *out, char *err,
		  size_t errlen)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/lab.json", lab_dir);
	struct loader ld = {path, err, errlen};
	memset(out, 0, sizeof(*out));

	json_error_t jerr;
	json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		if (jerr.line < 1)
			snprintf(err, errlen, "%s: %s", path, jerr.text);
		else
			snprintf(err, errlen, "%s:%d:%d: invalid JSON: %s",
				 path, jerr.line, jerr.column, jerr.text);
		return -1;
	}
	out->dir = strdup(lab_dir);
	int rc = load_root(&ld, root, lab_dir, out);
	json_decref(root);
	if (rc)
		manifest_free(out);
	return rc;
}

void manifest_free(struct lab_manifest *m)
{
	for (size_t i = 0; m->steps && i < m->nsteps; i++) {
		struct step_spec *s = &m->steps[i];
		for (size_t j = 0; s->checks && j < s->nchecks; j++) {
			free(s->checks[j].metric);
			free(s->checks[j].why);
		}
		free(s->checks);
		free_names(s->needs);
		free(s->id);
		free(s->title);
		free(s->file);
		free(s->hint);
		free(s->launcher);
	}
	free(m->steps);
	free_names(m->needs);
	for (size_t i = 0; m->advice && i < m->nadvice; i++) {
		free(m->advice[i].when);
		free(m->advice[i].hint);
		free(m->advice[i].see);
	}
	free(m->advice);
	for (char **l = m->vendor_libs; l && *l; l++)
		free(*l);
	free(m->vendor_libs);
	for (char **t = m->sanitize_tools; t && *t; t++)
		free(*t);
	free(m->sanitize_tools);
	for (char **t = m->hidden_sizes; t && *t; t++)
		free(*t);
	free(m->hidden_sizes);
	free(m->sanitize_case);
	free(m->sweep_define);
	free(m->vendor_source);
	free(m->vendor_name);
	free(m->harness);
	free(m->interface);
	free(m->title);
	free(m->name);
	free(m->dir);
	memset(m, 0, sizeof(*m));
}

const struct step_spec *manifest_step(const struct lab_manifest *m,
				      const char *id)
{
	for (size_t i = 0; i < m->nsteps; i++)
		if (strcmp(m->steps[i].id, id) == 0)
			return &m->steps[i];
	char *end;
	long k = strtol(id, &end, 10);
	if (*id && !*end && k >= 1 && (size_t)k <= m->nsteps)
		return &m->steps[k - 1];
	return NULL;
}

size_t manifest_step_index(const struct lab_manifest *m,
			   const struct step_spec *step)
{
	return (size_t)(step - m->steps);
}

int manifest_step_beyond(const struct step_spec *step, int cc, char *why,
			 size_t len)
{
	if (len)
		why[0] = 0;
	if (step->needs_cc <= cc)
		return 0;
	char need[16], names[256] = "";
	cc_format(step->needs_cc, need, sizeof(need));
	for (char **n = step->needs; n && *n; n++) {
		const struct capability *c = capability_find(*n);
		if (c && c->cc > cc)
			snprintf(names + strlen(names),
				 sizeof(names) - strlen(names), "%s%s",
				 *names ? ", " : "", *n);
	}
	snprintf(why, len, "needs compute capability %s (%s)", need, names);
	return 1;
}
