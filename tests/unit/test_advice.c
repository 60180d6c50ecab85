/* advice: the condition language of lab.json's hints, and the fact table
 * the profiler's stall reasons must match. */
#include "advice.h"
#include "facts.h"
#include "check.h"
#include "profiler.h"
#include "roofline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rejects(const char *when, const char *needle)
{
	char err[256] = "";
	int bad = advice_check(when, err, sizeof(err)) < 0;
	if (bad && !strstr(err, needle))
		printf("# \"%s\": %s\n", when, err);
	return bad && strstr(err, needle);
}

int main(void)
{
	char err[256], missing[64];

	CHECK(advice_check("ptx_max_load_bytes < 16", err, sizeof(err)) == 0,
	      "one condition");
	CHECK(advice_check("  dram_pct>=85 and occupancy_limiter == registers ",
			   err, sizeof(err)) == 0,
	      "two conditions, spacing free");
	CHECK(rejects("lod_bytes < 16", "unknown fact \"lod_bytes\""),
	      "a misspelt fact is an error that names it");
	CHECK(rejects("load_bytes < 16",
		      "\"load_bytes\": it is now called \"ptx_max_load_bytes\""),
	      "a retired fact is an error that names the new name");
	CHECK(rejects("rem_ops > 0", "now called \"ptx_rem_ops\"") &&
		      rejects("theoretical_occupancy_pct < 50",
			      "now called \"occupancy_pct\""),
	      "every retired advice name says its new one");
	CHECK(rejects("ptx_rem_op > 0", "did you mean \"ptx_rem_ops\"?") &&
		      rejects("stall_long_scorebaord_pct > 5",
			      "did you mean \"stall_long_scoreboard_pct\"?"),
	      "a misspelt fact names the one it is nearest to");
	CHECK(rejects("pct_of_copy < 50", "not by explain"),
	      "a fact only a grading run measures is not advice's");
	CHECK(rejects("ptx_max_load_bytes => 16", "expected < <= > >= == or !="),
	      "a bad operator");
	CHECK(rejects("ptx_max_load_bytes < wide", "is a number"),
	      "a number fact against a word");
	CHECK(rejects("top_stall > 3", "is a word"),
	      "a word fact against a number");
	CHECK(rejects("top_stall < barrier", "is a word"),
	      "a word fact with an ordering operator");
	CHECK(rejects("ptx_max_load_bytes < 16 or dram_pct < 5", "expected \"and\""),
	      "only \"and\" joins conditions");
	CHECK(rejects("", "empty"), "an empty condition");
	CHECK(rejects("ptx_max_load_bytes <", "expected a value"), "a missing value");

	json_t *facts = json_pack("{s:f, s:f, s:s, s:f}", "ptx_max_load_bytes", 4.0,
				  "dram_pct", 60.5, "occupancy_limiter",
				  "registers", "registers", 64.0);
	CHECK(advice_eval("ptx_max_load_bytes < 16", facts, missing, sizeof(missing)) ==
		      ADVICE_TRUE, "4 < 16 holds");
	CHECK(advice_eval("ptx_max_load_bytes >= 16", facts, missing, sizeof(missing)) ==
		      ADVICE_FALSE, "4 >= 16 does not");
	CHECK(advice_eval("ptx_max_load_bytes <= 4 and dram_pct > 60", facts, missing,
			  sizeof(missing)) == ADVICE_TRUE, "both hold");
	CHECK(advice_eval("ptx_max_load_bytes < 16 and dram_pct > 61", facts, missing,
			  sizeof(missing)) == ADVICE_FALSE, "one fails: false");
	CHECK(advice_eval("occupancy_limiter == registers", facts, missing,
			  sizeof(missing)) == ADVICE_TRUE &&
		      advice_eval("occupancy_limiter != registers", facts,
				  missing, sizeof(missing)) == ADVICE_FALSE,
	      "word facts compare as words");
	CHECK(advice_eval("ptx_max_load_bytes < 16 and bank_conflicts_per_element > 1",
			  facts, missing, sizeof(missing)) == ADVICE_UNKNOWN &&
		      !strcmp(missing, "bank_conflicts_per_element"),
	      "an unmeasured fact makes the rule unknown and is named (%s)",
	      missing);
	CHECK(advice_eval("bank_conflicts_per_element > 1 and ptx_max_load_bytes > 16",
			  facts, missing, sizeof(missing)) == ADVICE_FALSE,
	      "a false condition decides, even next to an unmeasured one");
	json_decref(facts);

	/* the profiler's stall reasons each have a fact */
	int all = 1;
	for (int i = 0; i < PM_NSTALLS; i++) {
		char name[64];
		snprintf(name, sizeof(name), "stall_%s_pct", pm_stall_reason(i));
		if (strcmp(pm_stall_reason(i), "selected") &&
		    !(fact_find(name) && (fact_find(name)->uses & FACT_ADVICE))) {
			printf("# no fact %s\n", name);
			all = 0;
		}
	}
	CHECK(all, "every stall reason ncu reports is a fact");

	/* roofline: the bound, the character plot, the SVG */
	struct roofline r = {.bandwidth = 3e12, .npeaks = 2,
			     .peak = {60e12, 30e12}, .npoints = 2};
	snprintf(r.title, sizeof(r.title), "test");
	snprintf(r.bandwidth_label, sizeof(r.bandwidth_label), "copy");
	snprintf(r.peak_label[0], sizeof(r.peak_label[0]), "FP32 roof");
	snprintf(r.peak_label[1], sizeof(r.peak_label[1]), "FP64 roof");
	r.point[0] = (struct roofline_point){"v1", 1.0 / 6, 0.4e12, 0};
	r.point[1] = (struct roofline_point){"v7", 40, 20e12, 1};
	CHECK(fabs(roofline_bound(&r, 1.0 / 6, 0) - 0.5e12) < 1 &&
		      roofline_bound(&r, 40, 1) == 30e12 &&
		      roofline_bound(&r, 40, -1) == 60e12,
	      "the roof: bandwidth x intensity below the ridge, the peak above");
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	roofline_text(&r, mem, 48, 12);
	fclose(mem);
	CHECK(strstr(buf, "1 v1: 0.167 FLOP/byte, 400 GFLOP/s = 80 % of its roof, "
			  "under the memory roof") &&
		      strstr(buf, "2 v7: 40 FLOP/byte, 20 TFLOP/s = 67 % of its "
				  "roof, under the FP64 roof"),
	      "each point's share of its roof, and what bounds it");
	CHECK(strchr(buf, '/') && strstr(buf, "---"),
	      "the plot has a sloped and a flat part");
	free(buf);
	char path[] = "/tmp/cudalab-roofline-XXXXXX";
	int fd = mkstemp(path);
	close(fd);
	CHECK(roofline_svg(&r, path, err, sizeof(err)) == 0, "SVG written");
	FILE *f = fopen(path, "r");
	char svg[16384] = "";
	size_t got = f ? fread(svg, 1, sizeof(svg) - 1, f) : 0;
	if (f)
		fclose(f);
	svg[got] = '\0';
	CHECK(strstr(svg, "<svg") && strstr(svg, "</svg>") &&
		      strstr(svg, ">v1</text>") && strstr(svg, ">v7</text>") &&
		      strstr(svg, "<polyline"),
	      "the SVG has both ceilings' lines and both points, labelled");
	unlink(path);
	CHECK(roofline_svg(&r, "/nonexistent/dir/x.svg", err, sizeof(err)) < 0 &&
		      strstr(err, "/nonexistent/dir/x.svg"),
	      "an unwritable path is an error that names it");
	return check_done();
}
