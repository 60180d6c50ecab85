/*
 * profiler — hardware counters for a step, through Nsight Compute (ncu).
 *
 * profile_step() runs the step executable once under
 *   ncu --clock-control none --csv --metrics smsp__inst_executed.sum,
 *       l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}.sum
 * restricted to the student's kernels (the harness's own kernels are named
 * hx_* and excluded) and to the timed-size case (the harness's --profile
 * mode: that case only, no timing). It never changes clocks: the card is
 * measured as it is found.
 *
 * The result says measured = 1 with the summed warp-level instruction count,
 * the shared-memory bank conflicts (loads + stores) and the kernels
 * profiled, or measured = 0 with the reason ("ncu not found
 * on PATH", "no permission to the GPU's performance counters", ...). A
 * figure that was not measured is never estimated.
 */
#ifndef CUDALAB_PROFILER_H
#define CUDALAB_PROFILER_H

struct profile_result {
	int measured;
	char reason[256];
	double warp_instructions; /* smsp__inst_executed.sum over kernels */
	double bank_conflicts;    /* shared loads + stores, over kernels */
	int kernels;              /* kernel launches profiled */
};

void profile_step(const char *exe, double time_limit_s,
		  struct profile_result *out);

/*
 * Parse ncu's --csv output (exposed for tests). Returns the number of
 * metric rows summed into out (0 when none were found).
 */
int profile_parse_csv(const char *csv, struct profile_result *out);

#endif
