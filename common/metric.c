#include "metric.h"

#include <string.h>

static const struct metric_info metrics[] = {
	{"pct_of_copy", "% of copy", "timing",
	 "bandwidth as a percentage of this GPU's measured copy bandwidth"},
	{"pct_of_copy_worst", "% of copy", "timing",
	 "the lowest pct_of_copy over the timed variants (e.g. offsets)"},
	{"pct_of_reference", "% of reference",
	 "timing against the lab's reference solution on this kind of GPU "
	 "(calibration)",
	 "GB/s as a percentage of the GB/s of the step's reference solution, "
	 "timed by the same harness on the same kind of GPU (run.py "
	 "calibrate); the timing bar that holds on every GPU"},
	{"pct_of_reference_worst", "% of reference",
	 "timing against the lab's reference solution on this kind of GPU "
	 "(calibration)",
	 "the slowest timed variant (e.g. offset) as a percentage of the "
	 "reference's slowest variant"},
	{"gbps", "GB/s", "timing", "bytes the step must move / median time"},
	{"median_us", "us", "timing", "median time of one call"},
	{"speedup_vs_first", "x", "timing",
	 "median time of step 1 / median time of this step, same run"},
	{"speedup_vs_baseline", "x", "timing",
	 "median time of the lab's own baseline kernel / this step's, both "
	 "timed in the same process (the harness's reference)"},
	{"elements_per_thread", "", "launch",
	 "n / threads launched, at the timed size"},
	{"waves", "", "launch",
	 "blocks launched / (SMs x blocks that fit on one SM)"},
	{"grid_blocks", "", "launch", "blocks in the largest launch"},
	{"block_threads", "", "launch", "threads per block"},
	{"occupancy_pct", "%", "launch",
	 "theoretical occupancy of the largest launch: resident warps per SM "
	 "(occupancy calculator) / the SM's warp slots"},
	{"grid_per_sm", "", "launch",
	 "blocks in the largest launch / the GPU's SM count"},
	{"block_x", "", "launch", "blockDim.x of the largest launch"},
	{"block_y", "", "launch", "blockDim.y of the largest launch"},
	{"launches", "", "launch", "kernel launches per call of the launcher"},
	{"ptx_max_load_bytes", "B", "ptx",
	 "widest global load in the PTX, in bytes"},
	{"ptx_max_store_bytes", "B", "ptx",
	 "widest global store in the PTX, in bytes"},
	{"ptx_nc_loads", "", "ptx",
	 "non-coherent (read-only path) global loads in the PTX"},
	{"ptx_rem_ops", "", "ptx", "remainder (%) instructions in the PTX"},
	{"ptx_shuffles", "", "ptx", "warp shuffles (shfl.sync) in the PTX"},
	{"ptx_async_copies", "", "ptx",
	 "asynchronous global-to-shared copies (cp.async) in the PTX"},
	{"ptx_barriers", "", "ptx",
	 "block barriers (__syncthreads) in the PTX, all kernels"},
	{"inst_per_element", "", "profiler (ncu)",
	 "instructions executed per element: warp instructions x 32 / n"},
	{"bank_conflicts_per_element", "", "profiler (ncu)",
	 "shared-memory bank conflicts (loads + stores) per element"},
	{"sanitizer_errors", "", "sanitizer (compute-sanitizer)",
	 "errors and hazards reported by the lab's compute-sanitizer tools"},
	{"registers", "", "compiler", "registers per thread (largest kernel)"},
	{"spill_bytes", "B", "compiler", "spill stores + loads (all kernels)"},
	{"shared_bytes", "B", "compiler", "static shared memory per block"},
	{"stack_bytes", "B", "compiler",
	 "stack frame per thread (local memory: e.g. an array indexed with a "
	 "value the compiler cannot resolve), largest kernel"},
	{NULL, NULL, NULL, NULL},
};

const struct metric_info *metric_find(const char *name)
{
	for (const struct metric_info *m = metrics; m->name; m++)
		if (strcmp(m->name, name) == 0)
			return m;
	return NULL;
}

const struct metric_info *metric_table(void)
{
	return metrics;
}

int metric_needs_profiler(const char *name)
{
	const struct metric_info *m = metric_find(name);
	return m && !strncmp(m->source, "profiler", 8);
}
