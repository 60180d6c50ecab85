/* manifest: lab.json loads, and every kind of broken manifest is rejected
 * with file, field and reason. */
#include "capability.h"
#include "check.h"
#include "manifest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256];

static const char *const good_step =
	"{\"id\":\"v1\",\"title\":\"t\",\"file\":\"a_v1.cu\",\"hint\":\"h\","
	"\"checks\":[{\"metric\":\"pct_of_copy\",\"min\":50,\"why\":\"w\"}]}";

/* Writes labs/demo/lab.json with `body` and loads it. */
static int load(const char *body, struct lab_manifest *m, char *err,
		size_t len)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/lab.json", dir);
	FILE *f = fopen(path, "w");
	fputs(body, f);
	fclose(f);
	return manifest_load(dir, m, err, len);
}

static void manifest_with(char *out, size_t len, const char *name,
			  const char *extra, const char *steps)
{
	snprintf(out, len,
		 "{\"name\":\"%s\",\"title\":\"Demo\",\"order\":1,"
		 "\"interface\":\"void demo(int n)\",\"harness\":\"harness.cu\""
		 "%s,\"steps\":[%s]}",
		 name, extra, steps);
}

static void expect_error(const char *body, const char *field,
			 const char *reason)
{
	struct lab_manifest m;
	char err[1024] = "";
	int rc = load(body, &m, err, sizeof(err));
	CHECK(rc == -1 && strstr(err, "lab.json") && strstr(err, field) &&
		      strstr(err, reason),
	      "rejects with \"%s\" ... \"%s\" (got: %s)", field, reason, err);
	if (rc == 0)
		manifest_free(&m);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/cudalab-manifest-%d/demo", getpid());
	char parent[256];
	snprintf(parent, sizeof(parent), "/tmp/cudalab-manifest-%d", getpid());
	mkdir(parent, 0755);
	mkdir(dir, 0755);
	char body[4096], step2[1024];
	struct lab_manifest m;
	char err[1024];

	manifest_with(body, sizeof(body), "demo", "", good_step);
	CHECK(load(body, &m, err, sizeof(err)) == 0, "a minimal manifest loads");
	CHECK(m.nsteps == 1 && !strcmp(m.steps[0].file, "a_v1.cu") &&
		      m.steps[0].checks[0].op == CHECK_AT_LEAST &&
		      m.steps[0].checks[0].bound == 50,
	      "its step and check are read");
	CHECK(m.time_limit_s == 120 && !m.vendor_source,
	      "defaults: 120 s limit, no vendor");
	CHECK(manifest_step(&m, "v1") == &m.steps[0] &&
		      manifest_step(&m, "1") == &m.steps[0] &&
		      !manifest_step(&m, "2") && !manifest_step(&m, "v9"),
	      "steps are found by id or 1-based number");
	manifest_free(&m);
	manifest_free(&m); /* safe twice: the struct was zeroed */

	CHECK(load("{\"name\": \"demo\",", &m, err, sizeof(err)) == -1 &&
		      strstr(err, "lab.json:1:") && strstr(err, "invalid JSON"),
	      "a syntax error names file:line (%s)", err);

	manifest_with(body, sizeof(body), "other", "", good_step);
	expect_error(body, "name", "must equal the folder name");
	manifest_with(body, sizeof(body), "demo", ",\"colour\":1", good_step);
	expect_error(body, "colour", "unknown field");
	manifest_with(body, sizeof(body), "demo", "", "");
	expect_error(body, "steps", "non-empty array");
	manifest_with(body, sizeof(body), "demo", ",\"time_limit_s\":-1",
		      good_step);
	expect_error(body, "time_limit_s", "positive");

	manifest_with(body, sizeof(body), "demo", "",
		      "{\"id\":\"v1\",\"title\":\"t\",\"file\":\"a.cu\","
		      "\"hint\":\"h\",\"checks\":[{\"metric\":\"speed\","
		      "\"min\":1,\"why\":\"w\"}]}");
	expect_error(body, "steps[0].checks[0].metric",
		     "unknown metric \"speed\"");
	manifest_with(body, sizeof(body), "demo", "",
		      "{\"id\":\"v1\",\"title\":\"t\",\"file\":\"a.cu\","
		      "\"hint\":\"h\",\"checks\":[{\"metric\":\"rem_ops\","
		      "\"max\":0,\"why\":\"w\"}]}");
	expect_error(body, "steps[0].checks[0].metric",
		     "\"rem_ops\": it is now called \"ptx_rem_ops\"");
	manifest_with(body, sizeof(body), "demo", "",
		      "{\"id\":\"v1\",\"title\":\"t\",\"file\":\"a.cu\","
		      "\"hint\":\"h\",\"checks\":[{\"metric\":\"dram_pct\","
		      "\"min\":50,\"why\":\"w\"}]}");
	expect_error(body, "steps[0].checks[0].metric",
		     "dram_pct is measured only by explain");
	manifest_with(body, sizeof(body), "demo", "",
		      "{\"id\":\"v1\",\"title\":\"t\",\"file\":\"a.cu\","
		      "\"hint\":\"h\",\"checks\":[{\"metric\":\"ptx_max_load_byte\","
		      "\"min\":16,\"why\":\"w\"}]}");
	expect_error(body, "steps[0].checks[0].metric",
		     "did you mean \"ptx_max_load_bytes\"?");
	manifest_with(body, sizeof(body), "demo", "",
		      "{\"id\":\"v1\",\"title\":\"t\",\"file\":\"a.cu\","
		      "\"hint\":\"h\",\"checks\":[{\"metric\":\"gbps\","
		      "\"min\":1,\"max\":2,\"why\":\"w\"}]}");
	expect_error(body, "steps[0].checks[0]", "exactly one of");
	manifest_with(body, sizeof(body), "demo", "",
		      "{\"id\":\"v1\",\"title\":\"t\",\"file\":\"a.cu\","
		      "\"hint\":\"h\",\"checks\":[{\"metric\":\"gbps\","
		      "\"min\":\"fast\",\"why\":\"w\"}]}");
	expect_error(body, "steps[0].checks[0]", "must be a number");
	manifest_with(body, sizeof(body), "demo", "",
		      "{\"id\":\"v1\",\"title\":\"t\",\"file\":\"../x.cu\","
		      "\"hint\":\"h\",\"checks\":[]}");
	expect_error(body, "steps[0].file", "plain file name");
	manifest_with(body, sizeof(body), "demo", "",
		      "{\"id\":\"v1\",\"title\":\"t\",\"file\":\"a.c\","
		      "\"hint\":\"h\",\"checks\":[]}");
	expect_error(body, "steps[0].file", "must end in .cu");
	manifest_with(body, sizeof(body), "demo", "",
		      "{\"id\":\"v1\",\"title\":\"t\",\"file\":\"a.cu\","
		      "\"checks\":[]}");
	expect_error(body, "steps[0].hint", "missing");
	snprintf(step2, sizeof(step2), "%s,%s", good_step, good_step);
	manifest_with(body, sizeof(body), "demo", "", step2);
	expect_error(body, "steps[1]", "duplicate id");
	manifest_with(body, sizeof(body), "demo",
		      ",\"vendor\":{\"source\":\"v.cu\",\"name\":\"x\","
		      "\"libs\":[\"-lrm -rf\"]}",
		      good_step);
	expect_error(body, "vendor.libs", "library name");

	manifest_with(body, sizeof(body), "demo",
		      ",\"sanitize\":{\"tools\":[\"leakcheck\"],\"case\":\"x\"}",
		      good_step);
	expect_error(body, "sanitize.tools", "one of memcheck");
	manifest_with(body, sizeof(body), "demo",
		      ",\"sanitize\":{\"tools\":[\"racecheck\"]}", good_step);
	expect_error(body, "sanitize.case", "missing");

	static const char *const bad_hidden[] = {
		"[]", "[7]", "[\"\"]", "[\"12a\"]", "[\"3x\"]", "[\"x3\"]",
		"[\"3x4x5\"]", "[\"-5\"]", "[\"12345678901\"]", "\"77\"", NULL};
	for (const char *const *h = bad_hidden; *h; h++) {
		char extra[128];
		snprintf(extra, sizeof(extra), ",\"hidden_sizes\":%s", *h);
		manifest_with(body, sizeof(body), "demo", extra, good_step);
		expect_error(body, "hidden_sizes", "must be");
	}
	manifest_with(body, sizeof(body), "demo",
		      ",\"hidden_sizes\":[\"1000003\",\"33x4097\"]", good_step);
	CHECK(load(body, &m, err, sizeof(err)) == 0 && m.hidden_sizes &&
		      !strcmp(m.hidden_sizes[0], "1000003") &&
		      !strcmp(m.hidden_sizes[1], "33x4097") && !m.hidden_sizes[2],
	      "hidden_sizes are read in order (%s)", err);
	manifest_free(&m);

	/* "sweep": a macro name and 1..32 integers from 1 to 1024 */
	static const struct {
		const char *json, *field, *reason;
	} bad_sweep[] = {
		{"7", "sweep", "must be an object"},
		{"{\"define\":\"PDIST\"}", "sweep.values", "must be an array"},
		{"{\"define\":\"PDIST\",\"values\":[]}", "sweep.values",
		 "must be an array"},
		{"{\"define\":\"PDIST\",\"values\":[0]}", "sweep.values",
		 "from 1 to 1024"},
		{"{\"define\":\"PDIST\",\"values\":[2.5]}", "sweep.values",
		 "from 1 to 1024"},
		{"{\"define\":\"PD IST\",\"values\":[1]}", "sweep.define",
		 "C identifier"},
		{"{\"define\":\"1PD\",\"values\":[1]}", "sweep.define",
		 "C identifier"},
		{"{\"values\":[1]}", "sweep.define", "missing"},
		{"{\"define\":\"PDIST\",\"values\":[1],\"step\":2}", "sweep",
		 "unknown"},
	};
	for (size_t k = 0; k < sizeof(bad_sweep) / sizeof(bad_sweep[0]); k++) {
		char extra[160];
		snprintf(extra, sizeof(extra), ",\"sweep\":%s", bad_sweep[k].json);
		manifest_with(body, sizeof(body), "demo", extra, good_step);
		expect_error(body, bad_sweep[k].field, bad_sweep[k].reason);
	}
	manifest_with(body, sizeof(body), "demo",
		      ",\"sweep\":{\"define\":\"PDIST\",\"values\":[1,2,16]}",
		      good_step);
	CHECK(load(body, &m, err, sizeof(err)) == 0 && m.sweep_define &&
		      !strcmp(m.sweep_define, "PDIST") && m.nsweep_values == 3 &&
		      m.sweep_values[2] == 16,
	      "a sweep is read: the macro and its values in order (%s)", err);
	manifest_free(&m);

	/* "advice": rules whose conditions are checked at load */
	static const struct {
		const char *json, *field, *reason;
	} bad_advice[] = {
		{"{}", "advice", "array of 1 to 64"},
		{"[]", "advice", "array of 1 to 64"},
		{"[7]", "advice[0]", "must be an object"},
		{"[{\"hint\":\"h\"}]", "advice[0].when", "missing"},
		{"[{\"when\":\"ptx_max_load_bytes < 16\"}]", "advice[0].hint", "missing"},
		{"[{\"when\":\"lod_bytes < 16\",\"hint\":\"h\"}]", "advice[0]",
		 "unknown fact \"lod_bytes\""},
		{"[{\"when\":\"load_bytes < 16\",\"hint\":\"h\"}]", "advice[0]",
		 "now called \"ptx_max_load_bytes\""},
		{"[{\"when\":\"gbps > 1\",\"hint\":\"h\"}]", "advice[0]",
		 "not by explain"},
		{"[{\"when\":\"top_stall > 2\",\"hint\":\"h\"}]", "advice[0]",
		 "is a word"},
		{"[{\"when\":\"ptx_max_load_bytes < 16\",\"hint\":\"h\",\"see\":\"v9\"}]",
		 "advice[0]", "no step \"v9\""},
		{"[{\"when\":\"ptx_max_load_bytes < 16\",\"hint\":\"h\",\"why\":\"x\"}]",
		 "advice[0].why", "unknown field"},
	};
	for (size_t k = 0; k < sizeof(bad_advice) / sizeof(bad_advice[0]); k++) {
		char extra[256];
		snprintf(extra, sizeof(extra), ",\"advice\":%s", bad_advice[k].json);
		manifest_with(body, sizeof(body), "demo", extra, good_step);
		expect_error(body, bad_advice[k].field, bad_advice[k].reason);
	}
	manifest_with(body, sizeof(body), "demo",
		      ",\"advice\":[{\"when\":\"ptx_max_load_bytes < 16 and dram_pct < 80\","
		      "\"hint\":\"wider\",\"see\":\"v1\"},{\"when\":\"waves > 1\","
		      "\"hint\":\"persist\"}]",
		      good_step);
	CHECK(load(body, &m, err, sizeof(err)) == 0 && m.nadvice == 2 &&
		      !strcmp(m.advice[0].see, "v1") && !m.advice[1].see &&
		      !strcmp(m.advice[1].hint, "persist"),
	      "advice is read in order, \"see\" optional (%s)", err);
	manifest_free(&m);

	/* "needs": capability names, each with the compute capability it takes */
	static const struct {
		const char *extra, *step_needs, *field, *reason;
	} bad_needs[] = {
		{",\"needs\":\"cp.async\"", NULL, "needs", "array of 1 to 8"},
		{",\"needs\":[]", NULL, "needs", "array of 1 to 8"},
		{",\"needs\":[80]", NULL, "needs", "entry 0 must be a capability"},
		{",\"needs\":[\"8.0\"]", NULL, "needs",
		 "unknown capability \"8.0\" (known: cp.async (8.0)"},
		{",\"needs\":[\"cp_async\"]", NULL, "needs",
		 "unknown capability \"cp_async\""},
		{",\"needs\":[\"bf16\",\"bf16\"]", NULL, "needs",
		 "names \"bf16\" twice"},
		{"", "[\"warp-specialization\"]", "steps[0].needs",
		 "unknown capability \"warp-specialization\""},
		{"", "{\"cc\":\"8.0\"}", "steps[0].needs", "array of 1 to 8"},
		{",\"needs\":[\"cp.async\"]", "[\"cp.async\"]", "steps[0].needs",
		 "again after the lab's needs"},
	};
	for (size_t k = 0; k < sizeof(bad_needs) / sizeof(bad_needs[0]); k++) {
		char step[512];
		snprintf(step, sizeof(step),
			 "{\"id\":\"v1\",\"title\":\"t\",\"file\":\"a_v1.cu\","
			 "\"hint\":\"h\",\"checks\":[]%s%s}",
			 bad_needs[k].step_needs ? ",\"needs\":" : "",
			 bad_needs[k].step_needs ? bad_needs[k].step_needs : "");
		manifest_with(body, sizeof(body), "demo", bad_needs[k].extra, step);
		expect_error(body, bad_needs[k].field, bad_needs[k].reason);
	}
	manifest_with(body, sizeof(body), "demo", ",\"needs\":[\"bf16\"]",
		      "{\"id\":\"v1\",\"title\":\"t\",\"file\":\"a_v1.cu\","
		      "\"hint\":\"h\",\"checks\":[]},"
		      "{\"id\":\"v2\",\"title\":\"t\",\"file\":\"a_v2.cu\","
		      "\"hint\":\"h\",\"checks\":[],\"needs\":[\"tma\"]}");
	CHECK(load(body, &m, err, sizeof(err)) == 0 && m.needs_cc == 80 &&
		      m.steps[0].needs_cc == 80 && m.steps[1].needs_cc == 90 &&
		      !strcmp(m.steps[1].needs[0], "bf16") &&
		      !strcmp(m.steps[1].needs[1], "tma") && !m.steps[1].needs[2],
	      "a step needs the lab's capabilities and its own; its cc is the "
	      "highest (%s)", err);
	char why[256];
	CHECK(manifest_step_beyond(&m.steps[1], 75, why, sizeof(why)) == 1 &&
		      !strcmp(why, "needs compute capability 9.0 (bf16, tma)"),
	      "on a 7.5 GPU the step names every capability it lacks (%s)", why);
	CHECK(manifest_step_beyond(&m.steps[1], 86, why, sizeof(why)) == 1 &&
		      !strcmp(why, "needs compute capability 9.0 (tma)"),
	      "on an 8.6 GPU only what 8.6 lacks is named (%s)", why);
	CHECK(manifest_step_beyond(&m.steps[1], 90, why, sizeof(why)) == 0 &&
		      !*why && manifest_step_beyond(&m.steps[0], 120, why,
						    sizeof(why)) == 0,
	      "a GPU at or above what the step needs takes it");
	manifest_free(&m);
	manifest_with(body, sizeof(body), "demo", "", good_step);
	CHECK(load(body, &m, err, sizeof(err)) == 0 && !m.steps[0].needs &&
		      m.steps[0].needs_cc == 0 &&
		      manifest_step_beyond(&m.steps[0], 75, why, sizeof(why)) == 0,
	      "a step that needs nothing runs on any GPU");
	manifest_free(&m);

	CHECK(cc_from_arch("sm_75") == 75 && cc_from_arch("sm_120") == 120 &&
		      cc_from_arch("compute_90") == 90 && cc_from_arch("sm75") == -1 &&
		      cc_from_arch("sm_7") == -1 && cc_from_arch("sm_75x") == -1 &&
		      cc_from_arch("volta") == -1 && cc_from_arch(NULL) == -1,
	      "arch names read as compute capabilities; anything else is -1");
	CHECK(cc_from_string("7.5") == 75 && cc_from_string("12.0") == 120 &&
		      cc_from_string("7") == -1 && cc_from_string("7.5.1") == -1 &&
		      cc_from_string("x") == -1,
	      "\"7.5\" reads as 75");

	CHECK(manifest_load("/nonexistent/lab", &m, err, sizeof(err)) == -1 &&
		      strstr(err, "/nonexistent/lab/lab.json"),
	      "a missing lab.json names its path (%s)", err);

	/* The shipped labs must load. */
	CHECK(manifest_load("labs/saxpy", &m, err, sizeof(err)) == 0,
	      "labs/saxpy/lab.json loads (%s)", err);
	CHECK(m.nsteps == 5 && m.vendor_source && m.nadvice >= 4,
	      "saxpy has 5 steps, a vendor and its hints");
	manifest_free(&m);

	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", parent);
	if (system(cmd) != 0)
		return 1;
	return check_done();
}
