/* facts: the one vocabulary of step facts (common/facts.h). Walks the
 * table, every labs/ lab.json (checks and advice rules), the derivations
 * (events and profiler) and the reporters' names against it: no quantity
 * with two names, no name for two quantities, every name used is in the
 * table. Runs from the project root (tests/run_tests.py does). */
#include "advice.h"
#include "check.h"
#include "facts.h"
#include "manifest.h"
#include "profiler.h"

#include <ctype.h>
#include <dirent.h>
#include <jansson.h>
#include <string.h>

/* The names the facts used to have; none may appear where facts are named. */
static const char *const retired[] = {
	"load_bytes", "store_bytes", "nc_loads", "rem_ops", "shuffles",
	"async_copies", "theoretical_occupancy_pct", NULL};

static int table_is_one_vocabulary(void)
{
	int ok = 1;
	const struct fact_info *t = facts_table();
	for (const struct fact_info *a = t; a->name; a++) {
		for (const struct fact_info *b = a + 1; b->name; b++) {
			if (!strcmp(a->name, b->name)) {
				printf("# %s is in the table twice\n", a->name);
				ok = 0;
			}
			if (!strcmp(a->meaning, b->meaning)) {
				printf("# %s and %s mean the same: \"%s\"\n",
				       a->name, b->name, a->meaning);
				ok = 0;
			}
		}
		if (!a->unit || !a->source || !*a->source || !*a->meaning) {
			printf("# %s lacks a unit, source or meaning\n", a->name);
			ok = 0;
		}
	}
	return ok;
}

/* Every fact a when-condition names (the word before each operator). */
static int advice_names_known(const char *lab, const char *when)
{
	int ok = 1;
	char buf[512];
	snprintf(buf, sizeof(buf), "%s", when);
	for (char *tok = strtok(buf, " \t<>=!"); tok; tok = strtok(NULL, " \t<>=!")) {
		if (!strcmp(tok, "and") || isdigit((unsigned char)*tok) ||
		    *tok == '-' || *tok == '.')
			continue;
		const struct fact_info *f = fact_find(tok);
		if (f && (f->uses & FACT_ADVICE))
			continue;
		/* a word value (occupancy_limiter == registers) follows a
		 * word fact; the loader judged those, here names only */
		if (strstr(when, tok) > strstr(when, "==") && strstr(when, "=="))
			continue;
		printf("# %s: advice \"%s\": %s is not an advice fact\n", lab,
		       when, tok);
		ok = 0;
	}
	return ok;
}

static int labs_use_the_table(int *nlabs, int *nnames)
{
	int ok = 1;
	DIR *d = opendir("labs");
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char dir[512], path[600], err[1024];
		snprintf(dir, sizeof(dir), "labs/%s", e->d_name);
		snprintf(path, sizeof(path), "%s/lab.json", dir);
		json_t *raw = json_load_file(path, 0, NULL);
		if (!raw)
			continue;
		(*nlabs)++;
		struct lab_manifest m;
		if (manifest_load(dir, &m, err, sizeof(err)) < 0) {
			printf("# %s\n", err);
			ok = 0;
		} else {
			manifest_free(&m);
		}
		size_t i, k;
		json_t *st, *c, *rule;
		json_array_foreach(json_object_get(raw, "steps"), i, st)
			json_array_foreach(json_object_get(st, "checks"), k, c) {
				const char *name = json_string_value(
					json_object_get(c, "metric"));
				const struct fact_info *f = fact_find(name);
				(*nnames)++;
				if (!f || !(f->uses & FACT_CHECK)) {
					printf("# %s: check metric %s\n", path,
					       name);
					ok = 0;
				}
			}
		json_array_foreach(json_object_get(raw, "advice"), i, rule) {
			(*nnames)++;
			ok &= advice_names_known(
				path,
				json_string_value(json_object_get(rule, "when")));
		}
		json_decref(raw);
	}
	if (d)
		closedir(d);
	return ok;
}

/* Every key of facts is a fact of the table usable as use (0: any). */
static int all_known(const char *who, json_t *facts, int use)
{
	int ok = json_object_size(facts) > 0;
	const char *key;
	json_t *v;
	json_object_foreach(facts, key, v) {
		const struct fact_info *f = fact_find(key);
		if (!f || (use && !(f->uses & use))) {
			printf("# %s derives %s, not a%s fact of the table\n",
			       who, key, use ? "n advice" : "");
			ok = 0;
		}
	}
	return ok;
}

static void derivations(void)
{
	json_t *ptx = json_pack("{s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, "
				"s:i}",
				"event", "ptx", "global_loads", 3,
				"global_stores", 1, "max_load_bytes", 16,
				"max_store_bytes", 16, "nc_loads", 2,
				"rem_ops", 1, "shuffles", 5, "barriers", 2,
				"async_copies", 0);
	json_t *facts = json_object();
	facts_from_ptx(ptx, facts);
	CHECK(all_known("facts_from_ptx", facts, FACT_CHECK | FACT_ADVICE) &&
		      json_object_size(facts) == 7 &&
		      json_number_value(json_object_get(facts,
							"ptx_max_load_bytes")) == 16 &&
		      json_number_value(json_object_get(facts, "ptx_rem_ops")) == 1,
	      "the PTX facts: ptx_* names, for checks and advice alike");
	json_decref(facts);
	json_decref(ptx);

	json_t *kernels = json_pack(
		"[{s:i, s:i, s:i, s:i, s:i}, {s:i, s:i, s:i, s:i, s:i}]",
		"registers", 40, "spill_store_bytes", 8, "spill_load_bytes", 12,
		"shared_bytes", 0, "stack_bytes", 16, "registers", 32,
		"spill_store_bytes", 4, "spill_load_bytes", 4, "shared_bytes",
		4096, "stack_bytes", 0);
	facts = json_object();
	facts_from_resources(kernels, facts);
	CHECK(all_known("facts_from_resources", facts, FACT_CHECK | FACT_ADVICE) &&
		      json_number_value(json_object_get(facts, "spill_bytes")) == 28 &&
		      json_number_value(json_object_get(facts, "registers")) == 40 &&
		      json_number_value(json_object_get(facts, "shared_bytes")) == 4096 &&
		      json_number_value(json_object_get(facts, "stack_bytes")) == 16,
	      "spill_bytes is summed over the kernels (8+12+4+4 = 28); "
	      "registers, shared and stack are the largest kernel's");
	json_decref(facts);
	json_decref(kernels);

	json_t *launch = json_pack(
		"{s:s, s:[iii], s:[iii], s:f, s:f, s:i, s:i, s:f, s:i, s:f}",
		"event", "launch", "grid", 132, 1, 1, "block", 256, 1, 1,
		"elements_per_thread", 4.0, "waves", 0.5, "grid_blocks", 132,
		"block_threads", 256, "occupancy_pct", 50.0, "launches", 1,
		"grid_per_sm", 1.0);
	facts = json_object();
	facts_from_launch(launch, facts);
	CHECK(all_known("facts_from_launch", facts, FACT_CHECK) &&
		      json_number_value(json_object_get(facts, "occupancy_pct")) == 50 &&
		      json_number_value(json_object_get(facts, "block_x")) == 256,
	      "the launch facts: occupancy_pct is the launch's theoretical one");
	json_decref(facts);
	json_decref(launch);

	/* dynamic shared memory: the launch's bytes add to the static
	 * arrays, whichever derivation comes first; before a launch, a check
	 * of shared_bytes of a kernel that declares one needs a GPU */
	kernels = json_pack("[{s:i}]", "shared_bytes", 1024);
	launch = json_pack("{s:s, s:i, s:i}", "event", "launch", "shared_bytes",
			   0, "dynamic_shared_max", 8192);
	facts = json_object();
	json_object_set_new(facts, "ptx_dynamic_shared", json_real(1));
	facts_from_resources(kernels, facts);
	const char *why = fact_static_incomplete("shared_bytes", facts);
	CHECK(why && strstr(why, "extern __shared__") &&
		      json_number_value(json_object_get(facts, "shared_bytes")) == 1024,
	      "before the launch: 1024 B static, and incomplete (%s)",
	      why ? why : "complete");
	facts_from_launch(launch, facts);
	CHECK(json_number_value(json_object_get(facts, "shared_bytes")) == 9216 &&
		      !fact_static_incomplete("shared_bytes", facts),
	      "after it: static 1024 + dynamic 8192 = 9216 B, complete");
	json_decref(facts);
	facts = json_object();
	facts_from_launch(launch, facts);
	facts_from_resources(kernels, facts);
	CHECK(json_number_value(json_object_get(facts, "shared_bytes")) == 1024,
	      "no extern __shared__ array in the PTX: a launch's dynamic "
	      "bytes are not shared memory the kernel uses (1024 B, got %g)",
	      json_number_value(json_object_get(facts, "shared_bytes")));
	json_t *ptx_dyn = json_pack("{s:i}", "dynamic_shared", 1);
	facts_from_ptx(ptx_dyn, facts);
	CHECK(all_known("launch, resources, ptx", facts, FACT_CHECK) &&
		      json_number_value(json_object_get(facts, "shared_bytes")) == 9216,
	      "the launch first, the PTX's declaration last: the same 9216 B "
	      "(the largest any launch asked for, not the biggest launch's 0)");
	json_decref(ptx_dyn);
	json_decref(facts);
	facts = json_object();
	facts_from_resources(kernels, facts);
	CHECK(!fact_static_incomplete("shared_bytes", facts),
	      "no dynamic declaration: the static figure is whole");
	json_decref(facts);
	json_decref(kernels);
	json_decref(launch);

	/* every counter measured: profile_facts names only advice facts */
	struct profile_result pr;
	memset(&pr, 0, sizeof(pr));
	pr.measured = 1;
	for (int m = 0; m < PM_COUNT; m++) {
		pr.have[m] = 1;
		pr.value[m] = 1 + m;
	}
	pr.value[PM_OCC_ACHIEVED] = 40;
	pr.value[PM_OCC_THEORETICAL] = 75;
	facts = json_object();
	profile_facts(&pr, 1000, 3000, facts);
	CHECK(all_known("profile_facts", facts, FACT_ADVICE) &&
		      json_number_value(json_object_get(facts,
							"achieved_occupancy_pct")) == 40 &&
		      json_number_value(json_object_get(facts, "occupancy_pct")) == 75 &&
		      json_object_get(facts, "top_stall") &&
		      json_object_get(facts, "inst_per_element"),
	      "the counter facts: achieved and theoretical occupancy have "
	      "two names; every derived name is an advice fact");
	json_decref(facts);
	memset(&pr, 0, sizeof(pr));
	pr.measured = 1;
	facts = json_object();
	profile_facts(&pr, 1000, 3000, facts);
	CHECK(json_object_size(facts) == 0,
	      "a counter ncu did not report sets no fact (never estimated)");
	json_decref(facts);
}

/* The quoted literals of a source file, each once per occurrence. */
static int source_names_retired(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	int bad = 0;
	char line[2048];
	while (fgets(line, sizeof(line), f))
		for (const char *const *r = retired; *r; r++) {
			char q1[64], q2[64];
			snprintf(q1, sizeof(q1), "\"%s\"", *r);
			snprintf(q2, sizeof(q2), "'%s'", *r);
			/* a reporter may read the ptx event's own fields
			 * (event.h: nc_loads, async_copies ...): only a
			 * literal that names a fact (in a facts object, a
			 * step_end, a label) counts, and those are
			 * "load_bytes", "store_bytes" and the occupancy */
			int field = !strcmp(*r, "nc_loads") ||
				    !strcmp(*r, "rem_ops") ||
				    !strcmp(*r, "shuffles") ||
				    !strcmp(*r, "async_copies");
			if (!field && (strstr(line, q1) || strstr(line, q2))) {
				printf("# %s names the retired %s: %s", path,
				       *r, line);
				bad = 1;
			}
		}
	fclose(f);
	return bad;
}

static int reporters_use_the_table(void)
{
	int ok = 1;
	for (int timing = 0; timing < 2; timing++)
		for (const char *const *n = facts_on_step_end(timing); *n; n++)
			if (!fact_find(*n)) {
				printf("# step_end carries %s, not a fact\n", *n);
				ok = 0;
			}
	static const char *const dirs[] = {"grader", "ui", "common", "tools",
					   NULL};
	for (const char *const *dn = dirs; *dn; dn++) {
		DIR *d = opendir(*dn);
		struct dirent *e;
		while (d && (e = readdir(d))) {
			size_t l = strlen(e->d_name);
			if (l < 3 || (strcmp(e->d_name + l - 2, ".c") &&
				      strcmp(e->d_name + l - 3, ".py")))
				continue;
			char path[600];
			snprintf(path, sizeof(path), "%s/%s", *dn, e->d_name);
			/* the table of retired names itself */
			if (strcmp(path, "common/facts.c"))
				ok &= !source_names_retired(path);
		}
		if (d)
			closedir(d);
	}
	ok &= !source_names_retired("run.py");
	return ok;
}

int main(void)
{
	CHECK(table_is_one_vocabulary(),
	      "the table: one entry per name, one meaning per entry");
	int renamed_ok = 1;
	for (const char *const *r = retired; *r; r++) {
		const char *now = fact_renamed(*r);
		if (fact_find(*r) || !now || !fact_find(now)) {
			printf("# %s\n", *r);
			renamed_ok = 0;
		}
	}
	CHECK(renamed_ok, "each retired name is no fact and names one that is");
	int nlabs = 0, nnames = 0;
	CHECK(labs_use_the_table(&nlabs, &nnames) && nlabs >= 7 && nnames > 50,
	      "every lab.json's checks and advice rules name facts of the "
	      "table for their use (a retired name is none) (%d labs, %d "
	      "names)",
	      nlabs, nnames);
	int advice_ok = 1;
	char err[1600];
	for (const struct fact_info *f = facts_table(); f->name; f++) {
		char when[128];
		snprintf(when, sizeof(when), "%s %s", f->name,
			 f->kind == FACT_WORD ? "== none" : "> 0");
		int ok = advice_check(when, err, sizeof(err)) == 0;
		if (ok != !!(f->uses & FACT_ADVICE)) {
			printf("# %s: %s\n", when, ok ? "accepted" : err);
			advice_ok = 0;
		}
	}
	CHECK(advice_ok, "the advice rules take exactly the table's advice "
			 "facts");
	derivations();
	CHECK(reporters_use_the_table(),
	      "the reporters' step_end figures are facts, and no source "
	      "names a retired fact");
	return check_done();
}
