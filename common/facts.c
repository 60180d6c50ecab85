#include "facts.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#define BOTH (FACT_CHECK | FACT_ADVICE)
#define NCU_EXPLAIN "profiler (ncu, explain)"
#define STALL(r, what)                                                        \
	{"stall_" r "_pct", "%", NCU_EXPLAIN, FACT_NUMBER, FACT_ADVICE,        \
	 "share of the stalled warp-cycles: " what}
#define REFERENCE_SOURCE                                                      \
	"timing against the lab's reference solution on this kind of GPU "    \
	"(calibration)"

static const struct fact_info facts[] = {
	/* timing (the harness's timing events, grader/verdict.c) */
	{"pct_of_copy", "% of copy", "timing", FACT_NUMBER, FACT_CHECK,
	 "bandwidth as a percentage of this GPU's measured copy bandwidth"},
	{"pct_of_copy_worst", "% of copy", "timing", FACT_NUMBER, FACT_CHECK,
	 "the lowest pct_of_copy over the timed variants (e.g. offsets)"},
	{"pct_of_reference", "% of reference", REFERENCE_SOURCE, FACT_NUMBER,
	 FACT_CHECK,
	 "GB/s as a percentage of the GB/s of the step's reference solution, "
	 "timed by the same harness on the same kind of GPU (run.py "
	 "calibrate); the timing bar that holds on every GPU"},
	{"pct_of_reference_worst", "% of reference", REFERENCE_SOURCE,
	 FACT_NUMBER, FACT_CHECK,
	 "the slowest timed variant (e.g. offset) as a percentage of the "
	 "reference's slowest variant"},
	{"gbps", "GB/s", "timing", FACT_NUMBER, FACT_CHECK,
	 "bytes the step must move / median time"},
	{"gbps_worst", "GB/s", "timing", FACT_NUMBER, FACT_INTERNAL,
	 "the lowest gbps over the timed variants"},
	{"median_us", "us", "timing", FACT_NUMBER, FACT_CHECK,
	 "median time of one call"},
	{"median_us_worst", "us", "timing", FACT_NUMBER, FACT_INTERNAL,
	 "median time of one call of the slowest timed variant (e.g. "
	 "offset): what the profiled call's kernels are held to"},
	{"median_ci_rel", "", "timing", FACT_NUMBER, FACT_INTERNAL,
	 "half-width of median_us's 95 % interval / median_us"},
	{"speedup_vs_first", "x", "timing", FACT_NUMBER, FACT_CHECK,
	 "median time of step 1 / median time of this step, same run"},
	{"speedup_vs_baseline", "x", "timing", FACT_NUMBER, FACT_CHECK,
	 "median time of the lab's own baseline kernel / this step's, both "
	 "timed in the same process (the harness's reference)"},
	{"baseline_us", "us", "timing", FACT_NUMBER, FACT_INTERNAL,
	 "median time of the lab's own baseline kernel, same process"},
	{"baseline_ci_rel", "", "timing", FACT_NUMBER, FACT_INTERNAL,
	 "half-width of baseline_us's 95 % interval / baseline_us"},
	/* the launch (the harness's launch event) */
	{"elements_per_thread", "", "launch", FACT_NUMBER, FACT_CHECK,
	 "n / threads launched, at the timed size"},
	{"waves", "", "launch", FACT_NUMBER, BOTH,
	 "blocks launched / (SMs x blocks that fit on one SM); under explain "
	 "from ncu"},
	{"grid_blocks", "", "launch", FACT_NUMBER, FACT_CHECK,
	 "blocks in the largest launch"},
	{"block_threads", "", "launch", FACT_NUMBER, FACT_CHECK,
	 "threads per block"},
	{"occupancy_pct", "%", "launch", FACT_NUMBER, BOTH,
	 "theoretical occupancy of the largest launch: resident warps per SM "
	 "(occupancy calculator) / the SM's warp slots; under explain ncu's "
	 "theoretical occupancy"},
	{"grid_per_sm", "", "launch", FACT_NUMBER, FACT_CHECK,
	 "blocks in the largest launch / the GPU's SM count"},
	{"block_x", "", "launch", FACT_NUMBER, FACT_CHECK,
	 "blockDim.x of the largest launch"},
	{"block_y", "", "launch", FACT_NUMBER, FACT_CHECK,
	 "blockDim.y of the largest launch"},
	{"launches", "", "launch", FACT_NUMBER, FACT_CHECK,
	 "kernel launches per call of the launcher"},
	/* the PTX (grader/ptx.h: each instruction once; the launched
	 * kernels once a run names them) */
	{"ptx_max_load_bytes", "B", "ptx", FACT_NUMBER, BOTH,
	 "widest global load in the PTX, in bytes"},
	{"ptx_max_store_bytes", "B", "ptx", FACT_NUMBER, BOTH,
	 "widest global store in the PTX, in bytes"},
	{"ptx_nc_loads", "", "ptx", FACT_NUMBER, BOTH,
	 "non-coherent (read-only path) global loads in the PTX"},
	{"ptx_rem_ops", "", "ptx", FACT_NUMBER, BOTH,
	 "remainder (%) instructions in the PTX"},
	{"ptx_shuffles", "", "ptx", FACT_NUMBER, BOTH,
	 "warp shuffles (shfl.sync) in the PTX"},
	{"ptx_async_copies", "", "ptx", FACT_NUMBER, BOTH,
	 "asynchronous global-to-shared copies (cp.async) in the PTX"},
	{"ptx_dynamic_shared", "", "ptx", FACT_NUMBER, BOTH,
	 "dynamic shared-memory arrays (extern __shared__) the PTX declares: "
	 "their size is known only at launch"},
	{"ptx_barriers", "", "ptx", FACT_NUMBER, BOTH,
	 "block barriers (__syncthreads) in the PTX, all kernels"},
	/* the compiler (ptxas, the resources event) */
	{"registers", "", "compiler", FACT_NUMBER, BOTH,
	 "registers per thread (largest kernel)"},
	{"spill_bytes", "B", "compiler", FACT_NUMBER, BOTH,
	 "spill stores + loads (all kernels)"},
	{"shared_bytes", "B", "compiler", FACT_NUMBER, BOTH,
	 "shared memory per block: the static arrays (ptxas), plus, once the "
	 "step has run on a GPU, the dynamic shared memory (extern "
	 "__shared__) its largest launch asked for"},
	{"static_shared_bytes", "B", "compiler", FACT_NUMBER, BOTH,
	 "static shared memory per block (ptxas), largest kernel"},
	{"dynamic_shared_bytes", "B", "launch", FACT_NUMBER, FACT_CHECK,
	 "dynamic shared memory per block of the largest launch (the third "
	 "<<<>>> argument)"},
	{"stack_bytes", "B", "compiler", FACT_NUMBER, BOTH,
	 "stack frame per thread (local memory: e.g. an array indexed with a "
	 "value the compiler cannot resolve), largest kernel"},
	/* hardware counters measured by a grading run too (bench, or a
	 * check that needs them) */
	{"inst_per_element", "", "profiler (ncu)", FACT_NUMBER, BOTH,
	 "instructions executed per element: warp instructions x 32 / n"},
	{"bank_conflicts_per_element", "", "profiler (ncu)", FACT_NUMBER, BOTH,
	 "shared-memory bank conflicts (loads + stores) per element"},
	{"load_insts_per_element", "", "profiler (ncu)", FACT_NUMBER, BOTH,
	 "thread instructions executed that read global memory (loads, "
	 "cp.async, bulk copies, texture fetches, atomics) per element: 2 "
	 "for scalar SAXPY, 0.5 with float4; counted as they ran with their "
	 "predicate on, so a load in a branch that never runs adds nothing"},
	{"sync_loads_per_element", "", "profiler (ncu)", FACT_NUMBER, BOTH,
	 "load_insts_per_element without cp.async: the global loads a thread "
	 "waits for in a register"},
	{"async_copies_per_element", "", "profiler (ncu)", FACT_NUMBER, BOTH,
	 "cp.async (LDGSTS) thread instructions executed per element"},
	{"shared_insts_per_element", "", "profiler (ncu)", FACT_NUMBER, BOTH,
	 "shared-memory loads, stores and atomics executed per element"},
	{"nc_loads_per_element", "", "profiler (ncu)", FACT_NUMBER, BOTH,
	 "global loads through the read-only path (ld.global.nc, SASS "
	 "LDG.CONSTANT) executed per element: 1 when scalar x takes it, 0.25 "
	 "with float4; a load in a branch that never runs adds nothing"},
	{"plain_loads_per_element", "", "profiler (ncu)", FACT_NUMBER, BOTH,
	 "global loads that do not take the read-only path (plain LDG, "
	 "generic loads, atomics) executed per element: 1 for SAXPY with x "
	 "through the read-only path (y is written, so it is loaded plainly), "
	 "2 with neither; an extra __ldg beside them does not lower it"},
	{"nc_load_bytes_per_element", "B", "profiler (ncu)", FACT_NUMBER, BOTH,
	 "bytes the read-only loads that ran asked for, per element (count x "
	 "the width in the opcode's name): 4 when float x is read in full "
	 "through the read-only path, scalar or float4 alike"},
	{"plain_load_bytes_per_element", "B", "profiler (ncu)", FACT_NUMBER,
	 BOTH,
	 "bytes asked for by the other instructions that read global memory "
	 "(plain and generic loads, cp.async, global atomics and reductions), "
	 "per element: 4 for SAXPY with x through the read-only path (y's), 8 "
	 "with x loaded plainly too, whatever the widths; not measured when "
	 "a bulk copy ran"},
	{"shuffles_per_block", "", "profiler (ncu)", FACT_NUMBER, BOTH,
	 "warp shuffles executed (thread shuffles / 32) per block launched: "
	 "5 when one warp sums its 32 values with shuffles"},
	{"store_insts_per_element", "", "profiler (ncu)", FACT_NUMBER, BOTH,
	 "thread instructions executed that write global memory (stores, "
	 "reductions, atomics, bulk copies) per element"},
	{"sanitizer_errors", "", "sanitizer (compute-sanitizer)", FACT_NUMBER,
	 FACT_CHECK,
	 "errors and hazards reported by the lab's compute-sanitizer tools"},
	/* hardware counters only explain measures (PROFILE_EXPLAIN, the
	 * timed-size case) */
	{"dram_pct", "%", NCU_EXPLAIN, FACT_NUMBER, FACT_ADVICE,
	 "DRAM throughput, % of its peak"},
	{"dram_bytes_per_element", "B", NCU_EXPLAIN, FACT_NUMBER, FACT_ADVICE,
	 "DRAM bytes read + written per element"},
	{"dram_pct_of_copy", "% of copy", NCU_EXPLAIN, FACT_NUMBER, FACT_ADVICE,
	 "DRAM bytes / kernel duration (under ncu), % of the measured copy "
	 "bandwidth"},
	{"achieved_occupancy_pct", "%", NCU_EXPLAIN, FACT_NUMBER, FACT_ADVICE,
	 "achieved occupancy: active warps per SM while the kernel ran, % of "
	 "the SM's warp slots"},
	{"occupancy_limiter", "", NCU_EXPLAIN, FACT_WORD, FACT_ADVICE,
	 "what caps the warps per SM: grid (fewer blocks than the GPU holds), "
	 "registers, shared_memory, block_size, blocks_per_sm, or none"},
	{"load_sectors_per_request", "", NCU_EXPLAIN, FACT_NUMBER, FACT_ADVICE,
	 "32-byte sectors per warp load request"},
	{"store_sectors_per_request", "", NCU_EXPLAIN, FACT_NUMBER, FACT_ADVICE,
	 "32-byte sectors per warp store request"},
	{"l1_hit_pct", "%", NCU_EXPLAIN, FACT_NUMBER, FACT_ADVICE,
	 "L1 sector hit rate"},
	{"l2_hit_pct", "%", NCU_EXPLAIN, FACT_NUMBER, FACT_ADVICE,
	 "L2 sector hit rate"},
	{"flops_per_byte", "", NCU_EXPLAIN, FACT_NUMBER, FACT_ADVICE,
	 "floating-point operations (FMA = 2) per DRAM byte"},
	{"top_stall", "", NCU_EXPLAIN, FACT_WORD, FACT_ADVICE,
	 "the stall reason with most warp-cycles (e.g. long_scoreboard)"},
	STALL("barrier", "waiting at __syncthreads"),
	STALL("branch_resolving", "branch target not yet known"),
	STALL("dispatch_stall", "dispatcher could not issue"),
	STALL("drain", "stores draining at exit"),
	STALL("gmma", "warpgroup MMA"),
	STALL("imc_miss", "constant cache miss"),
	STALL("lg_throttle", "local/global queue full"),
	STALL("long_scoreboard", "waiting for a global/local load"),
	STALL("math_pipe_throttle", "math pipe busy"),
	STALL("membar", "memory barrier"),
	STALL("mio_throttle", "shared memory / special-function queue full"),
	STALL("misc", "other"),
	STALL("no_instruction", "instruction cache miss"),
	STALL("not_selected", "ready, another warp issued"),
	STALL("short_scoreboard", "waiting for shared memory / special function"),
	STALL("sleeping", "nanosleep or yield"),
	STALL("tex_throttle", "texture queue full"),
	STALL("wait", "fixed-latency dependency"),
	{NULL, NULL, NULL, FACT_NUMBER, 0, NULL},
};

/* Names retired by the one vocabulary (issue 19), and what says it now. */
static const struct {
	const char *old, *now;
} renamed[] = {
	{"load_bytes", "ptx_max_load_bytes"},
	{"store_bytes", "ptx_max_store_bytes"},
	{"nc_loads", "ptx_nc_loads"},
	{"rem_ops", "ptx_rem_ops"},
	{"shuffles", "ptx_shuffles"},
	{"async_copies", "ptx_async_copies"},
	{"theoretical_occupancy_pct", "occupancy_pct"},
	{NULL, NULL},
};

const struct fact_info *facts_table(void)
{
	return facts;
}

const struct fact_info *fact_find(const char *name)
{
	for (const struct fact_info *f = facts; f->name; f++)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}

const char *fact_renamed(const char *name)
{
	for (size_t i = 0; renamed[i].old; i++)
		if (!strcmp(renamed[i].old, name))
			return renamed[i].now;
	return NULL;
}

/* Edit distance of a and b (insert, delete, replace: 1 each), capped. */
static int distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 63 || lb > 63)
		return 99;
	int row[64];
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int diag = row[0];
		row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int up = row[j];
			int best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

/* The fact usable as use nearest to a misspelt name (at most 2 edits
 * away, and only one that near), or NULL. */
static const char *fact_nearest(const char *name, int use)
{
	const char *best = NULL;
	int best_d = 3, ties = 0;
	for (const struct fact_info *f = facts; f->name; f++) {
		if (!(f->uses & use))
			continue;
		int d = distance(name, f->name);
		if (d < best_d)
			best = f->name, best_d = d, ties = 0;
		else if (d == best_d)
			ties++;
	}
	return ties ? NULL : best;
}

int fact_usable(const char *name, int use, char *err, size_t errlen)
{
	const char *what = use == FACT_CHECK ? "metric" : "fact";
	const struct fact_info *f = fact_find(name);
	const char *now = f ? NULL : fact_renamed(name);
	if (now) {
		snprintf(err, errlen, "unknown %s \"%s\": it is now called "
			 "\"%s\" (the one vocabulary of step facts, "
			 "common/facts.h)", what, name, now);
		return -1;
	}
	const char *near = f ? NULL : fact_nearest(name, use);
	if (!f && near) {
		snprintf(err, errlen, "unknown %s \"%s\": did you mean \"%s\"?",
			 what, name, near);
		return -1;
	}
	if (!f) {
		char known[1400] = "";
		for (const struct fact_info *k = facts; k->name; k++)
			if (k->uses & use)
				snprintf(known + strlen(known),
					 sizeof(known) - strlen(known), "%s%s",
					 *known ? ", " : "", k->name);
		snprintf(err, errlen, "unknown %s \"%s\" (known: %s)", what,
			 name, known);
		return -1;
	}
	if (f->uses & use)
		return 0;
	if (use == FACT_CHECK && (f->uses & FACT_ADVICE))
		snprintf(err, errlen, "%s is measured only by explain (%s), "
			 "not by a grading run: a check cannot test it", name,
			 f->source);
	else if (use == FACT_ADVICE && (f->uses & FACT_CHECK))
		snprintf(err, errlen, "%s is measured only by a grading run "
			 "(%s), not by explain: an advice rule cannot test it",
			 name, f->source);
	else
		snprintf(err, errlen, "%s is the grader's own figure (%s), not "
			 "one a lab.json may test", name, f->meaning);
	return -1;
}

int fact_needs_profiler(const char *name)
{
	const struct fact_info *f = fact_find(name);
	return f && !strncmp(f->source, "profiler", 8);
}

int fact_is_static(const struct fact_info *f)
{
	return f && (!strcmp(f->source, "ptx") || !strcmp(f->source, "compiler"));
}

const char *fact_static_incomplete(const char *name, const json_t *facts)
{
	if (!strcmp(name, "shared_bytes") &&
	    json_number_value(json_object_get(facts, "ptx_dynamic_shared")) > 0 &&
	    !json_object_get(facts, "dynamic_shared_bytes"))
		return "the kernel's extern __shared__ array is sized at launch";
	return NULL;
}

/* --- derivations from events ------------------------------------------ */

static void shared_total(json_t *facts);

void facts_from_ptx(const json_t *ptx, json_t *facts)
{
	static const struct {
		const char *fact, *field;
	} from_ptx[] = {{"ptx_max_load_bytes", "max_load_bytes"},
			{"ptx_max_store_bytes", "max_store_bytes"},
			{"ptx_nc_loads", "nc_loads"},
			{"ptx_rem_ops", "rem_ops"},
			{"ptx_shuffles", "shuffles"},
			{"ptx_barriers", "barriers"},
			{"ptx_dynamic_shared", "dynamic_shared"},
			{"ptx_async_copies", "async_copies"}};
	for (size_t i = 0; i < sizeof(from_ptx) / sizeof(from_ptx[0]); i++) {
		json_t *v = json_object_get(ptx, from_ptx[i].field);
		if (json_is_integer(v))
			json_object_set_new(
				facts, from_ptx[i].fact,
				json_real((double)json_integer_value(v)));
	}
	if (json_object_get(ptx, "dynamic_shared"))
		shared_total(facts);
}

/* shared_bytes from its parts, once the compiler's figure is known: the
 * static arrays, plus the launches' dynamic shared memory only when the
 * PTX declares an extern __shared__ array (a launch's third <<<>>>
 * argument alone, with no array to use it, made a register batch pass
 * "shared_bytes >= 4096": red team, 2026-11-27). Called by each
 * derivation that brings a part, in whatever order they come. */
static void shared_total(json_t *facts)
{
	json_t *st = json_object_get(facts, "static_shared_bytes");
	if (!json_is_number(st))
		return;
	double total = json_number_value(st);
	if (json_number_value(json_object_get(facts, "ptx_dynamic_shared")) > 0)
		total += json_number_value(
			json_object_get(facts, "dynamic_shared_bytes"));
	json_object_set_new(facts, "shared_bytes", json_real(total));
}

static double kernel_num(const json_t *k, const char *key)
{
	return (double)json_integer_value(json_object_get(k, key));
}

void facts_from_resources(const json_t *kernels, json_t *facts)
{
	double regs = 0, spill = 0, shared = 0, stack = 0;
	size_t i;
	json_t *k;
	json_array_foreach(kernels, i, k)
	{
		double r = kernel_num(k, "registers");
		double s = kernel_num(k, "shared_bytes");
		double st = kernel_num(k, "stack_bytes");
		regs = r > regs ? r : regs;
		shared = s > shared ? s : shared;
		stack = st > stack ? st : stack;
		spill += kernel_num(k, "spill_store_bytes") +
			 kernel_num(k, "spill_load_bytes");
	}
	if (!json_array_size(kernels))
		return;
	json_object_set_new(facts, "registers", json_real(regs));
	json_object_set_new(facts, "spill_bytes", json_real(spill));
	json_object_set_new(facts, "static_shared_bytes", json_real(shared));
	json_object_set_new(facts, "stack_bytes", json_real(stack));
	shared_total(facts);
}

void facts_from_launch(const json_t *launch, json_t *facts)
{
	static const char *const names[] = {
		"elements_per_thread", "waves", "grid_blocks", "block_threads",
		"launches", "grid_per_sm", "occupancy_pct", NULL};
	for (const char *const *n = names; *n; n++) {
		json_t *v = json_object_get(launch, *n);
		if (json_is_number(v))
			json_object_set_new(facts, *n,
					    json_real(json_number_value(v)));
	}
	/* the launch's dynamic shared memory adds to the static arrays: a
	 * batch in extern __shared__ is shared memory too (honest-code
	 * tester, 2026-11-27: prefetch v3 with its buffer sized at launch
	 * failed "shared_bytes 0 B, needs >= 4096") */
	json_t *dyn = json_object_get(launch, "dynamic_shared_max");
	if (!json_is_number(dyn))
		dyn = json_object_get(launch, "shared_bytes");
	if (json_is_number(dyn)) {
		json_object_set_new(facts, "dynamic_shared_bytes",
				    json_real(json_number_value(dyn)));
		shared_total(facts);
	}
	json_t *block = json_object_get(launch, "block");
	if (json_is_array(block)) {
		json_object_set_new(facts, "block_x",
				    json_real((double)json_integer_value(
					    json_array_get(block, 0))));
		json_object_set_new(facts, "block_y",
				    json_real((double)json_integer_value(
					    json_array_get(block, 1))));
	}
}

/* The figures of a step_end event, in the order it carries them. */
static const char *const step_end_figures[] = {
	"elements_per_thread", "waves", "registers", "occupancy_pct",
	"inst_per_element", NULL};
static const char *const step_end_timing[] = {
	"median_us", "gbps", "pct_of_copy", "pct_of_reference",
	"speedup_vs_first", "speedup_vs_baseline", NULL};

const char *const *facts_on_step_end(int timing)
{
	return timing ? step_end_timing : step_end_figures;
}
