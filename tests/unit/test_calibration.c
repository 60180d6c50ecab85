/* calibration: timing bars relative to the reference on this kind of GPU,
 * the noise that makes a figure "too close to call", and the physics bound
 * on a timing. No GPU: device facts and timings are written as JSON. */
#include "calibration.h"
#include "check.h"
#include "verdict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static json_t *h100(const char *driver)
{
	return json_pack("{s:s, s:s, s:i, s:I, s:s}", "name",
			 "NVIDIA H100 80GB HBM3", "cc", "9.0", "sm_count", 132,
			 "mem_bytes", (json_int_t)85045231616LL, "driver", driver);
}

static json_t *entry(double gbps, double ci)
{
	return json_pack("{s:f, s:f, s:f, s:f}", "gbps", gbps, "median_us",
			 100.0, "ci_rel", ci, "n", 1e6);
}

static void nothing(void *arg, json_t *ev)
{
	(void)arg;
	(void)ev;
}

static json_t *last_check;
static void keep_check(void *arg, json_t *ev)
{
	(void)arg;
	if (!strcmp(event_kind(ev), "check")) {
		json_decref(last_check);
		last_check = json_incref(ev);
	}
}

/* The verdict of a step with one check "pct_of_reference >= 80" whose
 * timing was `gbps` (median CI ci) against a reference of 1000 GB/s. */
static const char *judge(double gbps, double ci, char *summary, size_t len)
{
	static struct check_spec bar = {"pct_of_reference", CHECK_AT_LEAST, 80,
					"as fast as the reference"};
	static struct step_spec spec = {.id = "v1", .title = "t", .file = "f.cu",
					.hint = "hint", .checks = &bar,
					.nchecks = 1};
	struct step_outcome o;
	outcome_init(&o, "v1", 3000, nothing, NULL);
	char text[512];
	snprintf(text, sizeof(text),
		 "{\"event\":\"timing\",\"who\":\"student\",\"median_us\":100,"
		 "\"gbps\":%g,\"ci_low_us\":%g,\"ci_high_us\":%g}\n"
		 "{\"event\":\"harness_end\",\"ok\":true}\n",
		 gbps, 100 * (1 - ci), 100 * (1 + ci));
	outcome_feed(&o, text, strlen(text));
	json_t *ref = entry(1000, 0.002);
	calibration_apply(ref, o.metrics);
	json_decref(ref);
	struct child c = CHILD_INIT;
	c.exited = 1;
	struct check_summary checks;
	{
			/* checks are data; the test sees their events as
			 * grade.c sends them */
			verdict_checks(&spec, o.metrics, &checks);
			for (size_t ci = 0; ci < checks.n; ci++) {
				json_t *cev = event_check(&checks.results[ci]);
				keep_check(NULL, cev);
				json_decref(cev);
			}
			check_summary_release(&checks);
		}
	static char verdict[32];
	snprintf(verdict, sizeof(verdict), "%s",
		 verdict_decide(&o, &c, &checks, summary, len));
	outcome_release(&o);
	return verdict;
}

int main(void)
{
	char dir[] = "/tmp/cudalab-calib-XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	char state[64], tree[64], calib[80];
	snprintf(state, sizeof(state), "%s/state", dir);
	snprintf(tree, sizeof(tree), "%s/root", dir);
	snprintf(calib, sizeof(calib), "%s/calibration", tree);
	mkdir(tree, 0755);

	json_t *dev = h100("580.1");
	char key[192];
	calibration_key(dev, key, sizeof(key));
	CHECK(!strcmp(key, "NVIDIA-H100-80GB-HBM3-132sm-79g"),
	      "the key names the kind of GPU: name, SMs, memory (%s)", key);

	const char *where = "x";
	json_t *e = calibration_find(tree, state, dev, "saxpy", "v1", &where);
	CHECK(!e && !where, "no calibration anywhere: no figure");

	char err[512] = "";
	json_t *ref = entry(2500, 0.003);
	CHECK(calibration_store(calib, 1, dev, "saxpy", "v1", ref, "abc", err,
				sizeof(err)) == 0,
	      "a figure is kept in the tree's calibration folder (%s)", err);
	json_decref(ref);
	e = calibration_find(tree, state, dev, "saxpy", "v1", &where);
	CHECK(e && fabs(json_number_value(json_object_get(e, "gbps")) - 2500) <
			   1e-9 && where && !strcmp(where, "the tree"),
	      "the tree's figure is found for the same kind of GPU");
	json_decref(e);

	json_t *other = h100("590.0");
	e = calibration_find(tree, state, other, "saxpy", "v1", &where);
	CHECK(e != NULL, "the tree's figure holds for another driver too");
	json_decref(e);
	json_object_set_new(other, "name", json_string("NVIDIA H200"));
	e = calibration_find(tree, state, other, "saxpy", "v1", &where);
	CHECK(!e, "another kind of GPU does not get the H100's figure");
	json_decref(other);

	ref = entry(2400, 0.003);
	CHECK(calibration_store(state, 0, dev, "saxpy", "v1", ref, NULL, err,
				sizeof(err)) == 0,
	      "a figure measured on this machine is kept in the state folder");
	json_decref(ref);
	e = calibration_find(tree, state, dev, "saxpy", "v1", &where);
	CHECK(e && json_number_value(json_object_get(e, "gbps")) == 2400 &&
		      !strcmp(where, "this machine"),
	      "this machine's figure wins over the tree's");
	json_decref(e);
	ref = entry(900, 0.01);
	calibration_store(state, 0, dev, "saxpy", "v2", ref, NULL, err,
			  sizeof(err));
	json_decref(ref);
	e = calibration_find(tree, state, dev, "saxpy", "v1", &where);
	CHECK(e && json_number_value(json_object_get(e, "gbps")) == 2400,
	      "storing another step keeps the first");
	json_decref(e);

	/* pct_of_reference and its noise */
	json_t *m = json_pack("{s:f, s:f, s:f}", "gbps", 2000.0,
			      "median_ci_rel", 0.004, "gbps_worst", 1800.0);
	ref = json_pack("{s:f, s:f, s:f}", "gbps", 2500.0, "ci_rel", 0.003,
			"worst_gbps", 2000.0);
	calibration_apply(ref, m);
	double pct = json_number_value(json_object_get(m, "pct_of_reference"));
	double noise = json_number_value(
		json_object_get(m, "pct_of_reference_noise"));
	CHECK(fabs(pct - 80) < 1e-9, "2000 against 2500 GB/s is 80 %% (%g)",
	      pct);
	CHECK(fabs(noise - 80 * (0.005 + CALIBRATION_SPREAD)) < 1e-9,
	      "noise: both intervals combined plus the run-to-run spread "
	      "(%g)", noise);
	CHECK(fabs(json_number_value(json_object_get(
			   m, "pct_of_reference_worst")) - 90) < 1e-9,
	      "the slowest variant against the reference's slowest: 90 %%");
	json_decref(m);
	json_decref(ref);

	/* verdicts: clear pass, clear fail, too close to call */
	char s[1024];
	CHECK(!strcmp(judge(900, 0.002, s, sizeof(s)), "pass"),
	      "90 %% of the reference against a bar of 80: pass (%s)", s);
	CHECK(last_check &&
		      fabs(json_number_value(json_object_get(last_check,
							     "margin")) -
			   10) < 1e-6 &&
		      !strcmp(event_str(last_check, "status"), "pass"),
	      "the check reports its margin (+10 points)");
	CHECK(!strcmp(judge(700, 0.002, s, sizeof(s)), "fail") &&
		      strstr(s, "pct_of_reference") && strstr(s, "margin -10"),
	      "70 %% against 80: fail, with the margin (%s)", s);
	CHECK(!strcmp(judge(795, 0.002, s, sizeof(s)), "not_graded") &&
		      strstr(s, "too close to call") && strstr(s, "+/-"),
	      "79.5 %% against 80 with 1.7 %% noise: too close to call, not "
	      "a coin flip (%s)", s);
	CHECK(last_check && !strcmp(event_str(last_check, "status"), "close"),
	      "the check's status says close");
	CHECK(!strcmp(judge(805, 0.002, s, sizeof(s)), "not_graded"),
	      "just above the bar but inside the noise: not a pass either");
	CHECK(!strcmp(judge(700, 0.2, s, sizeof(s)), "not_graded"),
	      "a wide interval makes a 10-point gap too close to call");

	/* physics: faster than the GPU can copy was not timed */
	CHECK(!strcmp(judge(3000 * 1.64, 0.002, s, sizeof(s)), "fail") &&
		      strstr(s, "timing not trusted") && strstr(s, "copies at"),
	      "164 %% of the copy bandwidth: timing not trusted (%s)", s);
	CHECK(!strcmp(judge(1000, 0.002, s, sizeof(s)), "pass"),
	      "a figure under the copy bandwidth is not accused");
	json_decref(last_check);
	json_decref(dev);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	return check_done();
}
