/*
 * profiler: reading ncu's CSV — the layouts of several versions (recorded
 * on the H100 with ncu 2025.3, and an older release's layout constructed
 * from the same figures: tests/fixtures/ncu), scaled units, metrics ncu
 * could not collect, errors, and how launches combine.
 */
#include "check.h"
#include "profiler.h"
#include "strbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *fixture(const char *name)
{
	return check_fixture("ncu", name);
}

static int near(double a, double b, double rel)
{
	return fabs(a - b) <= rel * fabs(b);
}

/* The H100 saxpy v1 figures, whichever layout they came in. Counts are
 * exact; timed figures within tol (the raw page is another ncu run). */
static void saxpy_v1_figures(const struct profile_result *r, const char *layout,
			     double tol)
{
	CHECK(r->kernels == 1 && strstr(r->longest, "saxpy_naive"),
	      "%s: one launch, saxpy_naive (%d, %s)", layout, r->kernels,
	      r->longest);
	CHECK(r->have[PM_DRAM_READ] && near(r->value[PM_DRAM_READ], 536903424, tol),
	      "%s: DRAM bytes read in bytes (%.0f)", layout, r->value[PM_DRAM_READ]);
	CHECK(r->have[PM_DURATION] && near(r->value[PM_DURATION], 288.576e-6, tol),
	      "%s: duration in seconds (%g)", layout, r->value[PM_DURATION]);
	CHECK(r->have[PM_SM_HZ] && near(r->value[PM_SM_HZ], 1.961e9, tol + 1e-2),
	      "%s: SM clock in Hz (%g)", layout, r->value[PM_SM_HZ]);
	CHECK(near(r->value[PM_DRAM_PCT], 81.64, tol) &&
		      near(r->value[PM_OCC_ACHIEVED], 76.33, tol),
	      "%s: percentages as printed (%.2f, %.2f)", layout,
	      r->value[PM_DRAM_PCT], r->value[PM_OCC_ACHIEVED]);
	CHECK(r->value[PM_LD_SECTORS] == 16777216 &&
		      r->value[PM_LD_REQUESTS] == 4194304,
	      "%s: 4 sectors per load request (%.0f / %.0f)", layout,
	      r->value[PM_LD_SECTORS], r->value[PM_LD_REQUESTS]);
	CHECK(r->value[PM_LIMIT_WARPS] == 8 && r->value[PM_LIMIT_REGISTERS] == 16,
	      "%s: occupancy limits in blocks per SM", layout);
	CHECK(r->value[PM_FFMA] == 67108864 && r->value[PM_PEAK_FFMA] == 16896,
	      "%s: FFMA count and peak per cycle", layout);
	CHECK(near(r->value[PM_STALL_FIRST + 7], 79.42, tol) &&
		      !strcmp(pm_stall_reason(7), "long_scoreboard"),
	      "%s: the long-scoreboard stall", layout);
	CHECK(r->warp_instructions == 39845888 && r->bank_conflicts == 0,
	      "%s: the checks' shorthands", layout);
}

/* The memory-instruction facts of one kernel of the recorded probe
 * (tests/fixtures/ncu/h100-ncu-memory-ops.md: n = 2^24). */
static json_t *memory_ops(const char *kernel)
{
	char name[128];
	snprintf(name, sizeof(name), "h100-ncu-memory-ops-%s.csv", kernel);
	struct profile_result r;
	memset(&r, 0, sizeof(r));
	int n = profile_parse_csv(fixture(name), &r);
	r.measured = n > 0;
	json_t *facts = json_object();
	profile_facts(&r, 16777216.0, 0, facts);
	return facts;
}

/* The facts of one kernel of the recorded per-opcode probe
 * (tests/fixtures/ncu/h100-ncu-per-opcode.md: n = 2^24), read as ncu
 * printed it (per_opcode 1) or with the per-opcode column dropped, as an
 * ncu without it would leave only the warp-level counters (0). */
static json_t *per_opcode(const char *kernel, int with_per_opcode)
{
	char name[128];
	snprintf(name, sizeof(name), "h100-ncu-per-opcode-%s.csv", kernel);
	struct strbuf kept = STRBUF_INIT;
	const char *text = fixture(name);
	for (const char *l = text; *l;) {
		size_t len = strcspn(l, "\n");
		if (with_per_opcode || !memmem(l, len, PROFILE_PER_OPCODE,
					       strlen(PROFILE_PER_OPCODE)))
			strbuf_add(&kept, l, len), strbuf_add(&kept, "\n", 1);
		l += len + (l[len] == '\n');
	}
	struct profile_result r;
	memset(&r, 0, sizeof(r));
	r.measured = profile_parse_csv(strbuf_str(&kept), &r) > 0;
	json_t *facts = json_object();
	profile_facts(&r, 16777216.0, 0, facts);
	strbuf_release(&kept);
	return facts;
}

static double fact(json_t *facts, const char *name)
{
	json_t *v = json_object_get(facts, name);
	return json_is_number(v) ? json_number_value(v) : -1;
}

int main(void)
{
	struct profile_result r;

	/* units ncu prints, in base units */
	CHECK(profile_unit_scale("Mbyte") == 1e6 && profile_unit_scale("Kbyte") == 1e3 &&
		      profile_unit_scale("byte") == 1,
	      "bytes with SI prefixes");
	CHECK(profile_unit_scale("ns") == 1e-9 && profile_unit_scale("usecond") == 1e-6 &&
		      profile_unit_scale("msecond") == 1e-3 &&
		      profile_unit_scale("second") == 1,
	      "times in seconds, long and short spellings");
	CHECK(near(profile_unit_scale("cycle/nsecond"), 1e9, 1e-12) &&
		      profile_unit_scale("Ghz") == 1e9 && profile_unit_scale("hz") == 1 &&
		      near(profile_unit_scale("cycle/usecond"), 1e6, 1e-12),
	      "frequencies in Hz");
	CHECK(profile_unit_scale("%") == 1 && profile_unit_scale("register/thread") == 1 &&
		      profile_unit_scale("byte/cycle") == 1 &&
		      profile_unit_scale("inst/cycle") == 1 && profile_unit_scale("") == 1,
	      "plain units and ratios stay as they are");
	CHECK(near(profile_unit_scale("Gbyte/second"), 1e9, 1e-12) &&
		      near(profile_unit_scale("Tbyte/s"), 1e12, 1e-12),
	      "throughputs in bytes per second");

	/* recorded: details page, ncu 2025.3 on the H100 */
	memset(&r, 0, sizeof(r));
	CHECK(profile_parse_csv(fixture("h100-ncu2025.3-details-saxpy-v1.csv"), &r) == 1,
	      "details page: the launch is found among the program's output");
	saxpy_v1_figures(&r, "details 2025.3", 1e-4);
	CHECK(r.have[PM_THREAD_INST] && r.value[PM_THREAD_INST] == 1275068416,
	      "thread instructions");

	/* recorded: raw page, one column per metric, a row of units */
	memset(&r, 0, sizeof(r));
	CHECK(profile_parse_csv(fixture("h100-ncu2025.3-raw-saxpy-v1.csv"), &r) == 1,
	      "raw page: one launch row under the units row");
	saxpy_v1_figures(&r, "raw 2025.3", 0.02);

	/* constructed: an older release's layout with scaled units */
	memset(&r, 0, sizeof(r));
	CHECK(profile_parse_csv(fixture("constructed-old-layout-scaled-units.csv"), &r) == 1,
	      "older layout (Kernel Time column, no Block/Grid Size)");
	saxpy_v1_figures(&r, "older layout", 1e-4);
	CHECK(!r.have[PM_STALL_FIRST + 4],
	      "a metric the layout lacks (gmma stall) is not measured, not 0");

	/* recorded: the transpose tile with bank conflicts */
	memset(&r, 0, sizeof(r));
	profile_parse_csv(fixture("h100-ncu2025.3-details-transpose-v2.csv"), &r);
	CHECK(r.value[PM_CONFLICTS_LD] == 65313096 && r.bank_conflicts == 65313096 + 210450,
	      "transpose v2: 65.3 M load conflicts (%.0f)", r.bank_conflicts);
	CHECK(r.have[PM_FFMA] && r.value[PM_FFMA] == 0,
	      "transpose does no floating-point work: measured as 0");

	/* recorded: a metric ncu does not know is "n/a" */
	memset(&r, 0, sizeof(r));
	CHECK(profile_parse_csv(fixture("h100-ncu2025.3-unknown-metric.csv"), &r) == 1 &&
		      r.have[PM_WARP_INST] && !r.have[PM_DRAM_PCT],
	      "n/a and absent metrics are not measured; the others are");

	/* errors: no table at all */
	const char *perm =
		"==PROF== Connected to process 77 (step)\n"
		"==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to "
		"access NVIDIA GPU Performance Counters on the target device 0.\n"
		"==PROF== Disconnected from process 77\n";
	CHECK(profile_parse_csv(perm, &r) == 0 && r.kernels == 0 && !r.have[PM_WARP_INST],
	      "permission error: nothing measured");
	CHECK(profile_parse_csv("==WARNING== No kernels were profiled.\n", &r) == 0,
	      "no kernel matched: nothing measured");
	CHECK(profile_parse_csv("", &r) == 0, "empty output");

	/* launches: counts sum, rates weigh by duration, the launch shape
	 * comes from the longest launch; rows of two launches interleave */
	const char *two =
		"\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
		"\"0\",\"big\",\"gpu__time_duration.sum\",\"usecond\",\"300\"\n"
		"\"1\",\"tail\",\"gpu__time_duration.sum\",\"usecond\",\"100\"\n"
		"\"0\",\"big\",\"smsp__inst_executed.sum\",\"inst\",\"39,845,888\"\n"
		"\"1\",\"tail\",\"smsp__inst_executed.sum\",\"inst\",\"12\"\n"
		"\"0\",\"big\",\"dram__throughput.avg.pct_of_peak_sustained_elapsed\",\"%\",\"80\"\n"
		"\"1\",\"tail\",\"dram__throughput.avg.pct_of_peak_sustained_elapsed\",\"%\",\"40\"\n"
		"\"0\",\"big\",\"launch__block_size\",\"\",\"256\"\n"
		"\"1\",\"tail\",\"launch__block_size\",\"\",\"32\"\n"
		"\"0\",\"big\",\"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum\",\"\",\"4,194,304\"\n"
		"\"1\",\"tail\",\"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum\",\"\",\"96\"\n";
	memset(&r, 0, sizeof(r));
	CHECK(profile_parse_csv(two, &r) == 2, "two launches by ID, rows interleaved");
	CHECK(r.warp_instructions == 39845888.0 + 12,
	      "counts are summed, thousands separators and all (%.0f)",
	      r.warp_instructions);
	CHECK(near(r.value[PM_DRAM_PCT], 70, 1e-9),
	      "percentages are weighted by duration: (300*80+100*40)/400 = 70 "
	      "(%.2f)", r.value[PM_DRAM_PCT]);
	CHECK(r.value[PM_BLOCK_SIZE] == 256 && !strcmp(r.longest, "big"),
	      "the launch shape is the longest launch's");
	CHECK(r.bank_conflicts == 4194304.0 + 96,
	      "bank conflicts: loads and stores summed (%.0f)", r.bank_conflicts);
	CHECK(near(r.value[PM_DURATION], 400e-6, 1e-9), "durations add up");

	/* every metric has an ncu name, and names are unique */
	int named = 1, unique = 1;
	for (int m = 0; m < PM_COUNT; m++) {
		named &= pm_info((enum pm_metric)m)->ncu_name != NULL;
		for (int k = 0; k < m; k++)
			unique &= strcmp(pm_info((enum pm_metric)m)->ncu_name,
					 pm_info((enum pm_metric)k)->ncu_name) != 0;
	}
	CHECK(named && unique, "the metric table is complete and unambiguous");
	{
		/* ncu's per-opcode count (PROFILE_PER_OPCODE, --print-metric-
		 * instances details): the cell's layout as ncu 2025.3 prints it
		 * (tests/fixtures/ncu/h100-ncu-per-opcode-*.csv), constructed
		 * here with one opcode of each kind; n = 1024, 8 blocks */
		const char *cell =
			"\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
			"\"0\",\"k\",\"launch__grid_size\",\"\",\"8\"\n"
			"\"0\",\"k\",\"" PROFILE_PER_OPCODE "\",\"\",\"9,999 ("
			"LDC.64: 2,048; LDG.E: 1,024; LDG.E.128.CONSTANT: 256; "
			"LDGSTS.E.BYPASS.128: 512; UBLKCP.S.G: 2; TEX.SCR: 4; "
			"ATOMG.E.ADD.F32: 8; STG.E.128: 256; RED.E.ADD: 16; "
			"LDS.128: 64; STS: 32; SHFL.DOWN: 1,280; LDL: 77; "
			"STL: 77; LDGDEPBAR: 512)\"\n"
			"\"1\",\"k\",\"launch__grid_size\",\"\",\"2\"\n"
			"\"1\",\"k\",\"" PROFILE_PER_OPCODE "\",\"\",\"0\"\n";
		struct profile_result r;
		memset(&r, 0, sizeof(r));
		int n = profile_parse_csv(cell, &r);
		r.measured = n > 0;
		json_t *f = json_object();
		profile_facts(&r, 1024, 0, f);
		CHECK(n == 2 && r.have_sass && r.blocks == 10 &&
			      r.sass[SASS_LOADS] == 1024 + 256 + 4 + 8 &&
			      r.sass[SASS_ASYNC] == 512 && r.sass[SASS_BULK] == 2 &&
			      r.sass[SASS_STORES] == 256 + 16 + 8 &&
			      r.sass[SASS_SHARED] == 96 &&
			      r.sass[SASS_SHUFFLES] == 1280 &&
			      r.sass[SASS_NC_LOADS] == 256,
		      "per-opcode counts by kind: loads (LDG, TEX, ATOMG), "
		      "cp.async, bulk copies, stores (STG, RED, ATOMG), shared, "
		      "shuffles, CONSTANT among an LDG's modifiers; LDC, LDL, "
		      "STL and LDGDEPBAR are none; an empty launch counts 0 "
		      "(%d launches, %g blocks, loads %g, nc %g)",
		      n, r.blocks, r.sass[SASS_LOADS], r.sass[SASS_NC_LOADS]);
		CHECK(fact(f, "load_insts_per_element") == (1292.0 + 514) / 1024 &&
			      fact(f, "sync_loads_per_element") == 1292.0 / 1024 &&
			      fact(f, "async_copies_per_element") == 0.5 &&
			      fact(f, "nc_loads_per_element") == 0.25 &&
			      fact(f, "plain_loads_per_element") ==
				      (1292.0 - 256) / 1024 &&
			      fact(f, "shuffles_per_block") == 4,
		      "facts per element from the thread counts, the plain "
		      "loads beside the read-only ones, shuffles per block "
		      "launched: 1280 / 32 / 10 = 4 (%g, plain %g)",
		      fact(f, "shuffles_per_block"),
		      fact(f, "plain_loads_per_element"));
		json_decref(f);
		const char *na =
			"\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
			"\"0\",\"k\",\"" PROFILE_PER_OPCODE "\",\"\",\"n/a\"\n"
			"\"0\",\"k\",\"smsp__inst_executed.sum\",\"inst\",\"5\"\n";
		memset(&r, 0, sizeof(r));
		CHECK(profile_parse_csv(na, &r) == 1 && !r.have_sass,
		      "an ncu that cannot count per opcode (n/a) leaves the "
		      "counts unmeasured");
		/* cells that do not read: the whole count is unmeasured, so
		 * no launch's loads leave a `max` bar */
		static const char *const bad_cells[] = {
			"12 (LDG.E 3)",           /* no colon */
			"12 (LDG.E: three)",      /* no number */
			"twelve (LDG.E: 3)",      /* no total */
			"12 (LDG.E.XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX: 3)",
			""};
		int unread = 1;
		for (size_t b = 0; b < sizeof(bad_cells) / sizeof(bad_cells[0]); b++) {
			char csv[1024];
			snprintf(csv, sizeof(csv),
				 "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
				 "\"0\",\"a\",\"" PROFILE_PER_OPCODE "\",\"\",\"5 (LDG.E: 5)\"\n"
				 "\"1\",\"b\",\"smsp__inst_executed.sum\",\"inst\",\"5\"\n"
				 "\"1\",\"b\",\"" PROFILE_PER_OPCODE "\",\"\",\"%s\"\n",
				 bad_cells[b]);
			memset(&r, 0, sizeof(r));
			unread &= profile_parse_csv(csv, &r) == 2 && !r.have_sass &&
				  r.sass[SASS_LOADS] == 0;
		}
		CHECK(unread, "a per-opcode cell that does not read (no colon, "
		      "no number, no total, an opcode past 63 characters, "
		      "empty) leaves the whole count unmeasured, not one "
		      "launch out of it");
		struct profiled_case ok = profiled_case(
			"{\"event\":\"case\",\"ok\":true,\"n\":64}\n"
			"{\"event\":\"case\",\"ok\":true,\"n\":4096}\n"),
				     bad = profiled_case(
			"{\"event\":\"case\",\"ok\":false,\"n\":4096}\n"),
				     silent = profiled_case(
			"{\"event\":\"case\",\"n\":4096}\n");
		CHECK(ok.n == 4096 && !ok.failed && bad.failed && silent.failed,
		      "the profiled run's cases: the last n; a wrong case, or "
		      "one that says no ok, makes the counts decide nothing");
		double c[SASS_KINDS] = {0};
		sass_count_opcode("REDG.E.ADD.F64.RN.STRONG.GPU", 3, c);
		sass_count_opcode("UBLKCP.G.S", 7, c);
		sass_count_opcode("UBLKCP.S.G", 11, c);
		CHECK(c[SASS_STORES] == 3 && c[SASS_BULK_ST] == 7 &&
			      c[SASS_BULK] == 11,
		      "REDG (sm_90's unused-result atomic) is a store; a bulk "
		      "copy to global memory (UBLKCP.G.S) a bulk store, from "
		      "it (UBLKCP.S.G) a bulk load");
		memset(c, 0, sizeof(c));
		sass_count_opcode("LDG.E.128.CONSTANT", 2, c);
		sass_count_opcode("LDG.E.CONSTANT", 1, c);
		sass_count_opcode("LDG.E.U16", 3, c);
		sass_count_opcode("LDGSTS.E.BYPASS.128", 1, c);
		sass_count_opcode("REDG.E.ADD.F64.RN.STRONG.GPU", 1, c);
		sass_count_opcode("ATOMG.E.ADD.F32.FTZ.RN.STRONG.GPU", 1, c);
		sass_count_opcode("LD.E.64", 1, c);
		sass_count_opcode("TEX.B", 9, c);
		sass_count_opcode("LDGDEPBAR", 9, c);
		sass_count_opcode("STG.E.128", 9, c);
		/* the read-only spellings of other GPUs (red team's SASS,
		 * 2026-11-24): sm_75, sm_100/sm_120's 32-byte load, and an
		 * L2 prefetch hint that is not a size */
		sass_count_opcode("LDG.E.CONSTANT.SYS", 1, c);
		sass_count_opcode("LDG.E.ENL2.256.CONSTANT", 1, c);
		sass_count_opcode("LDG.E.LTC128B.CONSTANT", 1, c);
		CHECK(c[SASS_NC_BYTES] == 2 * 16 + 4 + 4 + 32 + 4 &&
			      c[SASS_PLAIN_BYTES] == 3 * 2 + 16 + 8 + 4 + 8,
		      "bytes asked for, count x the width in the opcode's "
		      "name (none: 4): read-only 76 (sm_75's .SYS, sm_100's "
		      "ENL2.256, an LTC128B hint is no size), plain 42 "
		      "(LDG.U16, LDGSTS.128, REDG.F64, ATOMG.F32, LD.64; no "
		      "texture, dependency barrier or store) (%g, %g)",
		      c[SASS_NC_BYTES], c[SASS_PLAIN_BYTES]);
		memset(c, 0, sizeof(c));
		sass_count_opcode("LDGX.E", 5, c);
		sass_count_opcode("LDG.E.CONSTANTX", 5, c);
		sass_count_opcode("SHFLX", 5, c);
		CHECK(c[SASS_LOADS] == 5 && c[SASS_NC_LOADS] == 0 &&
			      c[SASS_SHUFFLES] == 0,
		      "opcodes are matched by their whole base name and "
		      "modifiers by their whole name");
	}
	{
		/* the recorded per-opcode probe (H100): what ran, with its
		 * predicate on */
		json_t *nc = per_opcode("nc", 1), *dnc = per_opcode("deadnc", 1),
		       *pnc = per_opcode("prednc", 1),
		       *pcp = per_opcode("predcp", 1),
		       *pcp_warp = per_opcode("predcp", 0),
		       *cp = per_opcode("cpasync", 1),
		       *dsh = per_opcode("deadshfl", 1);
		CHECK(fact(nc, "nc_loads_per_element") == 1 &&
			      fact(dnc, "nc_loads_per_element") == 0 &&
			      fact(pnc, "nc_loads_per_element") == 0 &&
			      fact(pnc, "load_insts_per_element") == 1 &&
			      fact(nc, "plain_loads_per_element") == 0 &&
			      fact(pnc, "plain_loads_per_element") == 1 &&
			      fact(nc, "nc_load_bytes_per_element") == 4 &&
			      fact(nc, "plain_load_bytes_per_element") == 0 &&
			      fact(pnc, "nc_load_bytes_per_element") == 0 &&
			      fact(pnc, "plain_load_bytes_per_element") == 4,
		      "__ldg runs one read-only load per element and no plain "
		      "one; in a dead branch, or predicated off in inline PTX, "
		      "none, the plain load beside it one (%g %g %g)",
		      fact(nc, "nc_loads_per_element"),
		      fact(dnc, "nc_loads_per_element"),
		      fact(pnc, "nc_loads_per_element"));
		CHECK(fact(cp, "async_copies_per_element") == 1 &&
			      fact(pcp, "async_copies_per_element") == 0 &&
			      fact(pcp_warp, "async_copies_per_element") == 1,
		      "a cp.async whose predicate is never on copies nothing "
		      "(0), though ncu's warp-level counter counts it (%g): "
		      "the per-opcode count closes the padding of the one "
		      "`min` bar", fact(pcp_warp, "async_copies_per_element"));
		json_t *sh = per_opcode("shfl", 1), *one = per_opcode("predonelane", 1),
		       *psh = per_opcode("predshfl", 1);
		CHECK(fact(sh, "shuffles_per_block") == 40 &&
			      fact(psh, "shuffles_per_block") == 0 &&
			      fact(one, "async_copies_per_element") == 1.0 / 32,
		      "five shuffle steps in each of a block's 8 warps: 40 per "
		      "block (%g); predicated off: 0; a cp.async on in one lane "
		      "of 32 counts that lane (%g)",
		      fact(sh, "shuffles_per_block"),
		      fact(one, "async_copies_per_element"));
		json_decref(sh), json_decref(one), json_decref(psh);
		json_t *sc = per_opcode("scalar", 1), *v4 = per_opcode("vec4", 1);
		CHECK(fact(sc, "plain_load_bytes_per_element") == 8 &&
			      fact(v4, "plain_load_bytes_per_element") == 8 &&
			      fact(v4, "plain_loads_per_element") == 0.5 &&
			      fact(cp, "plain_load_bytes_per_element") == 4,
		      "scalar and float4 SAXPY ask for the same 8 plain bytes "
		      "per element (x and y) though float4 runs a quarter of "
		      "the loads; a 4-byte cp.async is 4 plain bytes (%g %g %g)",
		      fact(sc, "plain_load_bytes_per_element"),
		      fact(v4, "plain_load_bytes_per_element"),
		      fact(cp, "plain_load_bytes_per_element"));
		json_decref(sc), json_decref(v4);
		CHECK(fact(dsh, "shuffles_per_block") == 0 &&
			      fact(pcp_warp, "shuffles_per_block") == -1,
		      "a shuffle in a dead branch: 0 per block; without the "
		      "per-opcode count there is no shuffle fact at all");
		json_decref(nc), json_decref(dnc), json_decref(pnc);
		json_decref(pcp), json_decref(pcp_warp), json_decref(cp);
		json_decref(dsh);
	}
	{
		/* executed memory instructions per element, from a real run */
		json_t *sc = memory_ops("scalar"), *v4 = memory_ops("vec4"),
		       *dead = memory_ops("dead"), *cp = memory_ops("cpasync"),
		       *at = memory_ops("atom"), *ge = memory_ops("generic");
		CHECK(fact(sc, "load_insts_per_element") == 2 &&
			      fact(sc, "store_insts_per_element") == 1 &&
			      fact(v4, "load_insts_per_element") == 0.5 &&
			      fact(v4, "store_insts_per_element") == 0.25,
		      "scalar SAXPY executes 2 loads and 1 store per element, "
		      "float4 a quarter of that (%g %g, %g %g)",
		      fact(sc, "load_insts_per_element"),
		      fact(sc, "store_insts_per_element"),
		      fact(v4, "load_insts_per_element"),
		      fact(v4, "store_insts_per_element"));
		CHECK(fact(dead, "load_insts_per_element") == 2 &&
			      fact(dead, "store_insts_per_element") == 1,
		      "a float4 load and store in a branch that never runs "
		      "count nothing: the dead-branch kernel counts as scalar "
		      "(%g, %g)", fact(dead, "load_insts_per_element"),
		      fact(dead, "store_insts_per_element"));
		CHECK(fact(cp, "load_insts_per_element") == 1 &&
			      fact(cp, "sync_loads_per_element") == 0 &&
			      fact(cp, "async_copies_per_element") == 1 &&
			      fact(sc, "async_copies_per_element") == 0,
		      "cp.async counts as a load, not as a sync load (%g, %g)",
		      fact(cp, "load_insts_per_element"),
		      fact(cp, "sync_loads_per_element"));
		CHECK(fact(at, "load_insts_per_element") == 1 &&
			      fact(ge, "load_insts_per_element") == 1 &&
			      fact(ge, "store_insts_per_element") == 1,
		      "reads through atomics and generic loads count as loads, "
		      "generic stores as stores (%g, %g, %g)",
		      fact(at, "load_insts_per_element"),
		      fact(ge, "load_insts_per_element"),
		      fact(ge, "store_insts_per_element"));
		json_decref(sc), json_decref(v4), json_decref(dead);
		json_decref(cp), json_decref(at), json_decref(ge);
	}
	{
		/* the counter cache: a stored result reads back whole; the key
		 * follows the executable's content and the GPU */
		char dir[] = "/tmp/cudalab-profcache-XXXXXX", exe[256], k1[17],
		     k2[17], k3[17];
		int made = mkdtemp(dir) != NULL;
		snprintf(exe, sizeof(exe), "%s/step", dir);
		FILE *f = made ? fopen(exe, "w") : NULL;
		if (f)
			fputs("one executable", f), fclose(f);
		struct profile_result a, b;
		memset(&a, 0, sizeof(a));
		profile_parse_csv(fixture("h100-ncu-memory-ops-vec4.csv"), &a);
		a.measured = 1;
		int ok = f && profile_cache_key(exe, "GPU-1", PROFILE_CHECKS, k1) == 0 &&
			 profile_cache_key(exe, "GPU-2", PROFILE_CHECKS, k2) == 0;
		profile_cache_store(dir, k1, &a);
		ok = ok && profile_cache_load(dir, k1, &b) == 0 &&
		     profile_cache_load(dir, k2, &b) < 0 &&
		     profile_cache_load(dir, k1, &b) == 0;
		f = fopen(exe, "w");
		if (f)
			fputs("another executable", f), fclose(f);
		ok = ok && profile_cache_key(exe, "GPU-1", PROFILE_CHECKS, k3) == 0 &&
		     strcmp(k1, k3) && strcmp(k1, k2) &&
		     profile_cache_key(exe, NULL, PROFILE_CHECKS, k3) < 0;
		int same = b.measured == 1 && b.kernels == a.kernels;
		for (int m = 0; m < PM_COUNT; m++)
			same = same && b.have[m] == a.have[m] &&
			       b.value[m] == a.value[m];
		CHECK(ok && same,
		      "the counter cache: a stored result reads back whole, "
		      "another GPU or another executable is another entry, no "
		      "GPU no key (%d %d)", ok, same);
		/* a broken entry (cut short, not JSON, no values) is no entry:
		 * ncu runs again */
		static const char *const broken[] = {"{\"values\": {\"smsp",
						     "not json", "{\"kernels\": 1}"};
		int refused = 0;
		for (int i = 0; i < 3; i++) {
			char path[300];
			snprintf(path, sizeof(path), "%s/%s.json", dir, k1);
			f = fopen(path, "w");
			if (f)
				fputs(broken[i], f), fclose(f);
			refused += profile_cache_load(dir, k1, &b) < 0;
		}
		CHECK(refused == 3,
		      "a broken cache entry is read as none (%d of 3)", refused);
		char cmd[300];
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (made && system(cmd) != 0)
			printf("# could not remove %s\n", dir);
	}
	return check_done();
}
