/* A step timed on a GPU that was not ours: the gpu_state events the harness
 * sends (common/gpustate.h) → the verdict. Busy or throttled through every
 * attempt is NOT GRADED with the facts, never FAIL and never an accusation;
 * a wrong result still fails; a GPU that came back clean is graded. */
#include "check.h"
#include "event.h"
#include "gpustate.h"
#include "report.h"
#include "state.h"
#include "verdict.h"

#include <string.h>

static void sink(void *arg, json_t *ev)
{
	(void)arg;
	(void)ev;
}

static const char *const END = "{\"event\":\"harness_end\",\"ok\":true}\n";
/* 1500 GB/s of a 3000 GB/s ceiling: 50 %, below the bar of 80 % */
static const char *const SLOW =
	"{\"event\":\"timing\",\"who\":\"student\",\"median_us\":100,"
	"\"gbps\":1500}\n";

static struct check_spec floor80 = {"pct_of_copy", CHECK_AT_LEAST, 80,
				    "needs bandwidth"};
static struct step_spec spec = {.id = "v1", .title = "t",
				.file = "saxpy_v1.cu", .hint = "hint",
				.checks = &floor80, .nchecks = 1};

static const char *verdict_of(const char *text, char *summary, size_t len,
			      const char **withheld)
{
	struct child c = CHILD_INIT;
	c.exited = 1;
	c.wall_limit_s = 60;
	struct step_outcome o;
	outcome_init(&o, "v1", 3000, sink, NULL);
	outcome_feed(&o, text, strlen(text));
	struct check_summary checks;
	int clean = outcome_ran_clean(&o, &c);
	if (clean)
		{
			/* checks are data; the test sees their events as
			 * grade.c sends them */
			verdict_checks(&spec, o.metrics, &checks);
			for (size_t ci = 0; ci < checks.n; ci++) {
				json_t *cev = event_check(&checks.results[ci]);
				sink(NULL, cev);
				json_decref(cev);
			}
			check_summary_release(&checks);
		}
	static char verdict[32];
	snprintf(verdict, sizeof(verdict), "%s",
		 verdict_decide(&o, &c, clean ? &checks : NULL, summary, len));
	*withheld = outcome_timing_withheld(&o, &c) ? "yes" : NULL;
	outcome_release(&o);
	return verdict;
}

/* The gpu_state event of a reading, as the harness writes it. */
static void state_line(char *buf, size_t len, const struct gpu_reading *r,
		       int attempt, int final)
{
	char why[512];
	enum gpu_condition c = gpustate_judge(r, why, sizeof(why));
	json_t *ev = gpustate_event(r, c, why, attempt, final && c != GPU_OURS);
	char *text = json_dumps(ev, JSON_COMPACT);
	snprintf(buf, len, "%s\n", text);
	free(text);
	json_decref(ev);
}

int main(void)
{
	struct gpu_reading busy = {1, "", 4, 2, 1, 0, 1980, 1980, 1};
	struct gpu_reading hot = {1, "", 1, 1, 1, GPU_REASON_HW_THERMAL |
					     GPU_REASON_HW_SLOWDOWN,
				  1215, 1980, 1};
	struct gpu_reading ours = {1, "", 3, 1, 1, 0, 1980, 1980, 1};
	char a1[1024], a2[1024], a3[1024], text[4096], s[1024];
	const char *withheld;

	state_line(a1, sizeof(a1), &busy, 1, 0);
	state_line(a2, sizeof(a2), &busy, 2, 0);
	state_line(a3, sizeof(a3), &busy, 3, 1);
	snprintf(text, sizeof(text), "%s%s%s%s%s", a1, a2, a3, SLOW, END);
	CHECK(!strcmp(verdict_of(text, s, sizeof(s), &withheld), "not_graded") &&
		      strstr(s, "GPU busy") && strstr(s, "2 processes") &&
		      strstr(s, "3 times"),
	      "busy through 3 attempts and slow: NOT GRADED with the facts, "
	      "not FAIL (%s)", s);
	CHECK(!strstr(s, "stream"), "and no word of off-stream work");
	CHECK(withheld != NULL, "its timing figures are withheld");

	state_line(a3, sizeof(a3), &hot, 3, 1);
	snprintf(text, sizeof(text), "%s%s%s", a3, SLOW, END);
	CHECK(!strcmp(verdict_of(text, s, sizeof(s), &withheld), "not_graded") &&
		      strstr(s, "GPU throttled") && strstr(s, "1215 of 1980"),
	      "held-down clocks: NOT GRADED with the clocks (%s)", s);

	state_line(a2, sizeof(a2), &ours, 2, 1);
	snprintf(text, sizeof(text), "%s%s%s%s", a1, a2, SLOW, END);
	CHECK(!strcmp(verdict_of(text, s, sizeof(s), &withheld), "fail") &&
		      strstr(s, "pct_of_copy"),
	      "busy once, ours on the re-measure: graded on the clean "
	      "figure (%s)", s);

	state_line(a3, sizeof(a3), &busy, 3, 1);
	snprintf(text, sizeof(text),
		 "{\"event\":\"case\",\"name\":\"n=33\",\"ok\":false,"
		 "\"message\":\"wrong\",\"first\":[{\"index\":3,"
		 "\"expected\":\"1\",\"got\":\"2\"}]}\n%s%s",
		 a3, END);
	CHECK(!strcmp(verdict_of(text, s, sizeof(s), &withheld), "fail") &&
		      strstr(s, "n=33"),
	      "a wrong result fails whatever the GPU was doing (%s)", s);

	/* waiting for the GPU adds up over the waits of one run */
	struct step_outcome o;
	outcome_init(&o, "v1", 3000, sink, NULL);
	const char *waits =
		"{\"event\":\"progress\",\"phase\":\"waiting for the GPU\","
		"\"waited_s\":0.2,\"done\":0,\"total\":0}\n"
		"{\"event\":\"progress\",\"phase\":\"waiting for the GPU\","
		"\"waited_s\":3.2,\"done\":0,\"total\":0}\n"
		"{\"event\":\"progress\",\"phase\":\"waiting for the GPU\","
		"\"waited_s\":0.5,\"done\":0,\"total\":0}\n"
		"{\"event\":\"progress\",\"phase\":\"waiting for the GPU\","
		"\"waited_s\":2.5,\"done\":0,\"total\":0}\n";
	outcome_feed(&o, waits, strlen(waits));
	const char *end = "{\"event\":\"harness_end\",\"ok\":true,\"seconds\":"
			  "2.5,\"init_s\":0.4,\"timing_s\":0.05,"
			  "\"gpu_wait_s\":5.7}\n";
	outcome_feed(&o, end, strlen(end));
	CHECK(o.phases &&
		      json_real_value(json_object_get(o.phases, "timing_s")) == 0.05 &&
		      json_real_value(json_object_get(o.phases, "init_s")) == 0.4,
	      "where the program's time went is kept for step_end");
	CHECK(o.gpu_waited_s > 5.6 && o.gpu_waited_s < 5.8,
	      "two waits of 3.2 s and 2.5 s: 5.7 s waited (%.2f), which the "
	      "runner adds to the step's time limit", o.gpu_waited_s);
	outcome_release(&o);

	/* the plain reporter shows a step waiting for the GPU, and how long */
	char *buf = NULL;
	size_t blen = 0;
	FILE *out = open_memstream(&buf, &blen);
	struct report rep;
	report_init(&rep, out, 0, 0);
	const char *lines[] = {
		"{\"event\":\"device\",\"available\":true,\"name\":\"H100\","
		"\"copy_gbps\":2000,\"copy_condition\":\"busy\",\"copy_message\":"
		"\"GPU busy: 2 processes used the GPU\",\"gpu_lock\":false,"
		"\"gpu_lock_error\":\"cannot open the GPU lock /x: Permission "
		"denied\"}",
		"{\"event\":\"step_begin\",\"step\":\"v2\",\"title\":\"coarsened\"}",
		"{\"event\":\"progress\",\"step\":\"v2\",\"phase\":"
		"\"waiting for the GPU\",\"waited_s\":0.2,\"done\":0,\"total\":0}",
		"{\"event\":\"progress\",\"step\":\"v2\",\"phase\":"
		"\"waiting for the GPU\",\"waited_s\":4.0,\"done\":0,\"total\":0}",
		"{\"event\":\"progress\",\"step\":\"v2\",\"phase\":"
		"\"waiting for the GPU\",\"waited_s\":12.5,\"done\":0,\"total\":0}",
		"{\"event\":\"step_end\",\"step\":\"v2\",\"verdict\":\"pass\","
		"\"summary\":\"ok\",\"seconds\":14}",
		NULL};
	for (int i = 0; lines[i]; i++) {
		char err[128];
		json_t *ev = event_parse(lines[i], err, sizeof(err));
		if (!ev) {
			printf("# %s\n", err);
			continue;
		}
		report_text(&rep, ev);
		json_decref(ev);
	}
	fclose(out);
	CHECK(strstr(buf, "not a clean measurement: GPU busy") &&
		      strstr(buf, "no GPU lock: cannot open"),
	      "the device lines say when the ceiling was measured on a busy "
	      "GPU and when there is no lock");
	CHECK(strstr(buf, "waiting for the GPU") && strstr(buf, "0 s") &&
		      strstr(buf, "12 s") && !strstr(buf, " 4 s"),
	      "the text reporter says the step waits for the GPU, then every "
	      "10 s (%s)", buf);
	const char *again = strstr(buf, "12 s");
	CHECK(again && strstr(again, "v2") && strstr(again, "coarsened") &&
		      strstr(again, "PASS"),
	      "and prints the step's line again before its verdict");
	report_release(&rep);
	free(buf);

	/* and the dashboard shows it as the step's progress */
	struct ui_state st;
	ui_state_init(&st);
	const char *ui_lines[] = {
		"{\"event\":\"run_begin\",\"lab\":\"saxpy\",\"title\":\"SAXPY\","
		"\"mode\":\"test\",\"steps\":[{\"id\":\"v1\",\"title\":\"naive\","
		"\"file\":\"saxpy_v1.cu\",\"hint\":\"h\",\"checks\":[]}]}",
		"{\"event\":\"step_begin\",\"step\":\"v1\"}",
		"{\"event\":\"progress\",\"step\":\"v1\",\"phase\":"
		"\"waiting for the GPU\",\"waited_s\":12.5,\"done\":0,\"total\":0}",
		NULL};
	for (int i = 0; ui_lines[i]; i++) {
		json_t *ev = json_loads(ui_lines[i], 0, NULL);
		if (ev)
			ui_state_apply(&st, ev);
		json_decref(ev);
	}
	CHECK(st.nsteps == 1 &&
		      !strcmp(st.steps[0].progress, "waiting for the GPU 12 s"),
	      "the dashboard's step line says it waits for the GPU (%s)",
	      st.nsteps ? st.steps[0].progress : "");
	ui_state_release(&st);
	return check_done();
}
