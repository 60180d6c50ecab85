/* verdict: what a step run reported -> the verdict and the student's
 * summary, for every way a step can end. No GPU: events are fed as text. */
#include "check.h"
#include "verdict.h"
#include "demangle.h"

#include <signal.h>
#include <string.h>

static int forwarded;
static void count_sink(void *arg, json_t *ev)
{
	(void)arg;
	(void)ev;
	forwarded++;
}

static const char *const END = "{\"event\":\"harness_end\",\"ok\":true}\n";
static const char *const TIMING =
	"{\"event\":\"timing\",\"who\":\"student\",\"median_us\":100,"
	"\"gbps\":2400}\n";

/* A step spec with one check: pct_of_copy >= 80. */
static struct check_spec floor80 = {"pct_of_copy", CHECK_AT_LEAST, 80,
				    "needs bandwidth"};
static struct step_spec spec = {.id = "v1", .title = "t",
				.file = "saxpy_v1.cu", .hint = "hint",
				.checks = &floor80, .nchecks = 1};

/* A profile event grade.c found longer than the timed median, or NULL. */
static json_t *profile_not_timed;

/* Feed text, evaluate checks, decide. Returns the verdict. */
static const char *outcome_of(const char *text, struct child *c,
			      char *summary, size_t len)
{
	struct step_outcome o;
	outcome_init(&o, "v1", 3000, count_sink, NULL);
	if (profile_not_timed)
		o.profile_not_timed = json_incref(profile_not_timed);
	/* in two pieces, split mid-line, as a pipe may deliver it */
	size_t half = strlen(text) / 2;
	outcome_feed(&o, text, half);
	outcome_feed(&o, text + half, strlen(text) - half);
	struct check_summary checks;
	int clean = outcome_ran_clean(&o, c);
	if (clean)
		{
			/* checks are data; the test sees their events as
			 * grade.c sends them */
			verdict_checks(&spec, o.metrics, &checks);
			for (size_t ci = 0; ci < checks.n; ci++) {
				json_t *cev = event_check(&checks.results[ci]);
				count_sink(NULL, cev);
				json_decref(cev);
			}
			check_summary_release(&checks);
		}
	static char verdict[32];
	snprintf(verdict, sizeof(verdict), "%s",
		 verdict_decide(&o, c, clean ? &checks : NULL, summary, len));
	outcome_release(&o);
	return verdict;
}

static struct child exited(int code)
{
	struct child c = CHILD_INIT;
	c.exited = 1;
	c.exit_code = code;
	c.wall_limit_s = 60;
	return c;
}

int main(void)
{
	char s[1024], text[2048];
	struct child ok = exited(0);

	snprintf(text, sizeof(text), "%s%s", TIMING, END);
	CHECK(!strcmp(outcome_of(text, &ok, s, sizeof(s)), "pass"),
	      "fast enough and correct: pass (%s)", s);

	forwarded = 0;
	snprintf(text, sizeof(text),
		 "{\"event\":\"timing\",\"who\":\"student\",\"median_us\":100,"
		 "\"gbps\":1500}\n%s", END);
	CHECK(!strcmp(outcome_of(text, &ok, s, sizeof(s)), "fail") &&
		      strstr(s, "pct_of_copy: 50") && strstr(s, ">= 80") &&
		      strstr(s, "needs bandwidth"),
	      "too slow: fail, with measured, required and why (%s)", s);
	CHECK(forwarded == 2, "the timing and check events were forwarded "
			      "(harness_end is not)");

	profile_not_timed = json_pack("{s:s, s:f, s:f}", "event", "profile",
				      "profiled_us", 1200.0,
				      "profiled_over_timed", 8.0);
	snprintf(text, sizeof(text), "%s%s", TIMING, END);
	CHECK(!strcmp(outcome_of(text, &ok, s, sizeof(s)), "not_graded") &&
		      strstr(s, "the kernels the profiler counted ran 8.00x") &&
		      strstr(s, "median of 150 us"),
	      "counted kernels that ran 8x the timed median: not graded, "
	      "naming it (%s)", s);
	json_decref(profile_not_timed);
	profile_not_timed = NULL;

	CHECK(!strcmp(outcome_of(END, &ok, s, sizeof(s)), "not_graded") &&
		      strstr(s, "was not measured"),
	      "a check without its measurement: not graded, never a pass "
	      "(%s)", s);

	snprintf(text, sizeof(text),
		 "{\"event\":\"todo\",\"file\":\"saxpy_v2.cu\",\"line\":17}\n"
		 "{\"event\":\"harness_end\",\"ok\":false}\n");
	CHECK(!strcmp(outcome_of(text, &ok, s, sizeof(s)), "not_implemented") &&
		      strstr(s, "saxpy_v2.cu:17"),
	      "a stub: not implemented, with file:line (%s)", s);

	snprintf(text, sizeof(text),
		 "{\"event\":\"case\",\"name\":\"n=33 alpha=0\",\"ok\":false,"
		 "\"message\":\"1 of 33 elements were never written\","
		 "\"first\":[{\"index\":32,\"expected\":\"1\",\"got\":\"2\"}]}\n%s",
		 END);
	CHECK(!strcmp(outcome_of(text, &ok, s, sizeof(s)), "fail") &&
		      strstr(s, "n=33 alpha=0") && strstr(s, "index 32"),
	      "a wrong case: fail naming the case and first index (%s)", s);

	snprintf(text, sizeof(text),
		 "{\"event\":\"guard\",\"buffer\":\"y\",\"before\":0,\"after\":1,"
		 "\"message\":\"wrote past the end of y\"}\n%s%s", TIMING, END);
	CHECK(!strcmp(outcome_of(text, &ok, s, sizeof(s)), "fail") &&
		      strstr(s, "out-of-bounds write: wrote past the end"),
	      "guard damage: fail even when fast (%s)", s);

	snprintf(text, sizeof(text),
		 "{\"event\":\"launch\",\"default_stream\":false,\"launches\":1}\n"
		 "%s%s", TIMING, END);
	CHECK(!strcmp(outcome_of(text, &ok, s, sizeof(s)), "fail") &&
		      strstr(s, "stream other than the default"),
	      "work on another stream: fail (%s)", s);

	snprintf(text, sizeof(text),
		 "{\"event\":\"error\",\"kind\":\"cuda\",\"message\":\"running "
		 "saxpy(n=1): an illegal memory access\"}\n");
	struct child died = exited(3);
	CHECK(!strcmp(outcome_of(text, &died, s, sizeof(s)), "crash") &&
		      strstr(s, "illegal memory access"),
	      "a CUDA error: crash with the driver's words (%s)", s);

	snprintf(text, sizeof(text),
		 "{\"event\":\"error\",\"kind\":\"gpu_memory\",\"message\":"
		 "\"not enough free GPU memory to time this step: ...\"}\n");
	CHECK(!strcmp(outcome_of(text, &died, s, sizeof(s)), "not_graded") &&
		      strstr(s, "NOT GRADED: not enough free GPU memory"),
	      "no room for a case 8x the L2: not graded, never a crash (%s)", s);

	CHECK(!strcmp(outcome_of(TIMING, &ok, s, sizeof(s)), "crash") &&
		      strstr(s, "exit code 0") && strstr(s, "exit()"),
	      "exit 0 before harness_end: crash, never a pass (%s)", s);

	struct child segv = CHILD_INIT;
	segv.term_signal = SIGSEGV;
	CHECK(!strcmp(outcome_of(TIMING, &segv, s, sizeof(s)), "crash") &&
		      strstr(s, "signal 11"),
	      "a signal: crash naming it (%s)", s);

	struct child slow = exited(-1);
	slow.exited = 0;
	slow.timed_out = 1;
	slow.term_signal = SIGKILL;
	CHECK(!strcmp(outcome_of("", &slow, s, sizeof(s)), "timeout") &&
		      strstr(s, "60 s"),
	      "killed at the limit: timeout (%s)", s);

	snprintf(text, sizeof(text), "PASS\n%s%s", TIMING, END);
	CHECK(!strcmp(outcome_of(text, &ok, s, sizeof(s)), "crash") &&
		      strstr(s, "not an event") && strstr(s, "PASS"),
	      "text forged onto the result channel: not a pass (%s)", s);

	/* variants: the first is the headline, the worst is kept */
	struct step_outcome v;
	outcome_init(&v, "haxpy", 1000, count_sink, NULL);
	const char *variants =
		"{\"event\":\"timing\",\"who\":\"student\",\"variant\":"
		"\"offset 0\",\"n\":8,\"median_us\":10,\"gbps\":900}\n"
		"{\"event\":\"timing\",\"who\":\"student\",\"variant\":"
		"\"offset 1\",\"n\":8,\"median_us\":20,\"gbps\":450}\n"
		"{\"event\":\"timing\",\"who\":\"student\",\"variant\":"
		"\"offset 2\",\"n\":8,\"median_us\":12,\"gbps\":800}\n";
	outcome_feed(&v, variants, strlen(variants));
	CHECK(json_number_value(json_object_get(v.metrics, "pct_of_copy")) == 90 &&
		      json_number_value(json_object_get(v.metrics, "median_us")) == 10 &&
		      json_number_value(json_object_get(v.metrics,
							"pct_of_copy_worst")) == 45,
	      "timed variants: the first is the step's figure, the worst is "
	      "pct_of_copy_worst");
	outcome_release(&v);

	/* the vendor sentence's figure: the grader's vs_steps, from the
	 * run's student timings of the same variant (the first per step) */
	json_t *run_timings = json_object(), *vendor_ev = NULL;
	static const char *const step_ids[] = {"v1", "v2"};
	static const char *const step_lines[] = {
		"{\"event\":\"timing\",\"who\":\"student\",\"variant\":"
		"\"offset 1\",\"median_us\":10,\"gbps\":600}\n"
		"{\"event\":\"timing\",\"who\":\"student\",\"variant\":"
		"\"offset 1\",\"median_us\":10,\"gbps\":100}\n"
		"{\"event\":\"timing\",\"who\":\"student\",\"variant\":"
		"\"offset 0\",\"median_us\":10,\"gbps\":900}\n",
		"{\"event\":\"timing\",\"who\":\"student\",\"variant\":"
		"\"offset 1\",\"median_us\":10,\"gbps\":300}\n"};
	for (int k = 0; k < 2; k++) {
		outcome_init(&v, step_ids[k], 1000, count_sink, NULL);
		v.run_timings = run_timings;
		outcome_feed(&v, step_lines[k], strlen(step_lines[k]));
		outcome_release(&v);
	}
	outcome_init(&v, "vendor", 1000, count_sink, NULL);
	v.run_timings = run_timings;
	const char *vendor_line =
		"{\"event\":\"timing\",\"who\":\"vendor\",\"name\":\"lib\","
		"\"variant\":\"offset 1\",\"median_us\":10,\"gbps\":400}\n";
	outcome_feed(&v, vendor_line, strlen(vendor_line));
	vendor_ev = json_incref(v.vendor_timing);
	outcome_release(&v);
	json_t *vs = json_object_get(vendor_ev, "vs_steps");
	CHECK(json_object_size(vs) == 2 &&
		      json_number_value(json_object_get(vs, "v1")) == 1.5 &&
		      json_number_value(json_object_get(vs, "v2")) == 0.75,
	      "vendor timing: vs_steps is each step's first timing of the "
	      "vendor's variant over the vendor's GB/s (v1 1.5, v2 0.75)");
	json_decref(vendor_ev);
	json_decref(run_timings);

	/* static metrics */
	struct step_outcome o;
	outcome_init(&o, "v5", 3000, count_sink, NULL);
	json_t *ptx = json_pack("{s:i, s:i, s:i}", "max_load_bytes", 16,
				"max_store_bytes", 16, "nc_loads", 3);
	json_t *res = json_pack("[{s:i, s:i, s:i, s:i}, {s:i, s:i, s:i, s:i}]",
				"registers", 28, "shared_bytes", 0,
				"spill_store_bytes", 4, "spill_load_bytes", 4,
				"registers", 40, "shared_bytes", 1024,
				"spill_store_bytes", 0, "spill_load_bytes", 8);
	outcome_add_static(&o, res, ptx);
	CHECK(json_number_value(json_object_get(o.metrics, "ptx_max_load_bytes")) == 16 &&
		      json_number_value(json_object_get(o.metrics, "registers")) == 40 &&
		      json_number_value(json_object_get(o.metrics, "spill_bytes")) == 16 &&
		      json_number_value(json_object_get(o.metrics, "shared_bytes")) == 1024,
	      "static metrics: widest load, most registers, total spills");
	json_decref(ptx);
	json_decref(res);
	outcome_release(&o);

	/* facts from what ran: the launch event narrows the PTX metrics to
	 * the kernels the timed call launched */
	outcome_init(&o, "v5", 3000, count_sink, NULL);
	ptx = json_pack("{s:i, s:i, s:{s:{s:i, s:i, s:i}, s:{s:i, s:i, s:i}}}",
			"max_load_bytes", 16, "nc_loads", 2, "kernels",
			"_Z5decoyPK6float4", "max_load_bytes", 16, "nc_loads",
			2, "global_loads", 2, "_Z6scalarPKf", "max_load_bytes",
			4, "nc_loads", 0, "global_loads", 2);
	outcome_add_static(&o, NULL, ptx);
	CHECK(json_number_value(json_object_get(o.metrics, "ptx_max_load_bytes")) == 16,
	      "before the run: the file's widest load");
	const char *launch = "{\"event\":\"launch\",\"launches\":1,"
			     "\"default_stream\":true,"
			     "\"kernels\":[\"_Z6scalarPKf\"]}\n";
	outcome_feed(&o, launch, strlen(launch));
	CHECK(json_number_value(json_object_get(o.metrics, "ptx_max_load_bytes")) == 4 &&
		      json_number_value(json_object_get(o.metrics, "ptx_nc_loads")) == 0,
	      "after the launch event: only the launched kernel's facts (a "
	      "decoy never launched lends none)");
	json_decref(ptx);
	outcome_release(&o);

	json_t *diags = json_pack("[{s:s, s:s, s:i, s:s}]", "severity", "error",
				  "file", "/tmp/x/saxpy_v1.cu", "line", 9,
				  "message", "expected a \";\"");
	verdict_first_error(diags, s, sizeof(s));
	CHECK(!strcmp(s, "saxpy_v1.cu:9: expected a \";\""),
	      "first compile error as file:line: message (%s)", s);
	json_decref(diags);
	/* no harness_end: an exit, and a signal seen through a sandbox */
	struct child quit = exited(0), aborted = exited(134);
	const char *vd = outcome_of("{\"event\":\"case\",\"name\":\"a\",\"ok\":true}\n",
				   &quit, s, sizeof(s));
	CHECK(!strcmp(vd, "crash") && strstr(s, "ended before the harness") &&
		      strstr(s, "exit()"),
	      "exit 0 before harness_end: crash, asks about exit() (%s)", s);
	vd = outcome_of("{\"event\":\"case\",\"name\":\"a\",\"ok\":true}\n",
		       &aborted, s, sizeof(s));
	CHECK(!strcmp(vd, "crash") && strstr(s, "died before the harness") &&
		      strstr(s, "signal 6"),
	      "exit code 134 from a sandbox is signal 6: died (%s)", s);
	/* numbers in check messages: whole numbers as integers */
	char nb[32];
	CHECK(!strcmp(verdict_number(16384, nb, sizeof(nb)), "16384"),
	      "16384 is printed 16384, not 1.638e+04 (%s)", nb);
	CHECK(!strcmp(verdict_number(91.57, nb, sizeof(nb)), "91.57") &&
		      !strcmp(verdict_number(0.05, nb, sizeof(nb)), "0.05") &&
		      !strcmp(verdict_number(2.5, nb, sizeof(nb)), "2.5"),
	      "fractions: four significant digits, no trailing zeros (%s)", nb);
	char dm[256];
	CHECK(!strcmp(demangle("_Z10saxpy_vec4ifPKfPf", dm, sizeof(dm)),
		      "saxpy_vec4(int, float, float const*, float*)") &&
		      !strcmp(demangle_short("_Z10saxpy_vec4ifPKfPf", dm,
					     sizeof(dm)), "saxpy_vec4") &&
		      !strcmp(demangle("saxpy", dm, sizeof(dm)), "saxpy"),
	      "kernel names demangled; C names kept (%s)", dm);
	return check_done();
}
