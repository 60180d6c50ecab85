/*
 * profiler — hardware counters for a step, through Nsight Compute (ncu).
 *
 * profile_step() runs the step executable once under
 *   ncu --clock-control none --csv --metrics <set>
 *       --print-metric-instances details
 * restricted to the student's kernels (the harness's own kernels are named
 * hx_* and excluded) and to the timed-size case (the harness's --profile
 * mode: that case only, no timing). It never changes clocks: the card is
 * measured as it is found, and the SM clock ncu saw is reported with the
 * figures.
 *
 * Two metric sets: PROFILE_CHECKS is what the labs' checks need (warp
 * instructions, shared-memory bank conflicts, the memory instructions
 * executed by kind, the launched blocks and the kernels' durations, and
 * ncu's instrumented count per SASS opcode, PROFILE_PER_OPCODE below: a
 * few replay passes, used by bench and by any step with a check on one of
 * their facts); PROFILE_EXPLAIN is everything `explain` reports (the pm_metric
 * table below: DRAM throughput, occupancy and its limits, sectors and
 * requests, hit rates, the stall reasons, floating-point operations and the
 * device's peaks for the roofline).
 *
 * The profiler is `ncu` on PATH, or the program CUDALAB_NCU names (a
 * machine with several Nsight Compute versions, or none on PATH).
 *
 * The result says measured = 1 with one value per metric summed or
 * averaged over the kernel launches, or measured = 0 with the reason ("ncu
 * not found on PATH", "no permission to the GPU's performance counters",
 * ...). A metric ncu did not report (an older ncu, a GPU without it: "n/a"
 * in its CSV) has have[m] = 0 and is shown as not measured; a figure that
 * was not measured is never estimated.
 *
 * The CSV parser reads both of ncu's layouts: the details page (one row per
 * kernel and metric, columns "Metric Name", "Metric Unit", "Metric Value";
 * older versions lack some identifying columns) and the raw page (one row
 * per kernel, one column per metric, a row of units under the header).
 * Values lose their thousands separators and are scaled to base units
 * ("Mbyte" -> bytes, "usecond" or "ns" -> seconds, "Ghz" or
 * "cycle/nsecond" -> Hz), since ncu auto-scales units in some versions.
 */
#ifndef CUDALAB_PROFILER_H
#define CUDALAB_PROFILER_H

/* How launches combine into one figure: summed (counts), weighted by each
 * launch's duration (rates, percentages), or taken from the longest launch
 * (its launch configuration and the device's peaks). */
enum pm_combine { PM_SUM, PM_TIME_WEIGHTED, PM_LONGEST };

#define PM_NSTALLS 19 /* the stall reasons of ncu's warp-state section */

enum pm_metric {
	PM_DURATION,         /* s, gpu__time_duration */
	PM_DRAM_PCT,         /* % of peak DRAM throughput */
	PM_DRAM_READ,        /* bytes */
	PM_DRAM_WRITE,       /* bytes */
	PM_OCC_ACHIEVED,     /* % of the SM's warp slots, while active */
	PM_OCC_THEORETICAL,  /* % */
	PM_LIMIT_REGISTERS,  /* blocks per SM the registers allow */
	PM_LIMIT_SHARED,     /* ... shared memory allows */
	PM_LIMIT_BLOCKS,     /* ... the SM's block slots allow */
	PM_LIMIT_WARPS,      /* ... the SM's warp slots allow (block size) */
	PM_REGISTERS,        /* per thread, as allocated */
	PM_BLOCK_SIZE,
	PM_GRID_SIZE,
	PM_WAVES,
	PM_WARP_INST,        /* warp-level instructions executed */
	PM_THREAD_INST,
	PM_LD_SECTORS,       /* global loads: 32-byte sectors */
	PM_LD_REQUESTS,      /* global loads: warp-level requests */
	PM_ST_SECTORS,
	PM_ST_REQUESTS,
	/* warp-level instructions executed, by kind: what reads global
	 * memory (loads into registers, cp.async, texture and surface
	 * fetches, atomics: ncu counts global and generic ATOM together)
	 * and what writes it */
	PM_OP_GLOBAL_LD, PM_OP_GENERIC_LD, PM_OP_LDGSTS, PM_OP_TEXTURE,
	PM_OP_SURFACE_LD, PM_OP_ATOM, PM_OP_GLOBAL_ST, PM_OP_GENERIC_ST,
	PM_OP_GLOBAL_RED, PM_OP_SURFACE_ST,
	PM_OP_SHARED_LD, PM_OP_SHARED_ST, PM_OP_SHARED_ATOM,
	PM_CONFLICTS_LD,     /* shared-memory bank conflicts */
	PM_CONFLICTS_ST,
	PM_L1_HIT,           /* % of L1 sector lookups that hit */
	PM_L2_HIT,           /* % */
	PM_FFMA, PM_FADD, PM_FMUL, /* thread instructions executed */
	PM_DFMA, PM_DADD, PM_DMUL,
	PM_HFMA, PM_HADD, PM_HMUL,
	PM_PEAK_FFMA,        /* FFMA per cycle, whole GPU */
	PM_PEAK_DFMA,
	PM_SM_HZ,            /* SM clock while the kernel ran */
	PM_DRAM_PEAK_BPC,    /* DRAM bytes per DRAM cycle, peak */
	PM_DRAM_HZ,
	PM_STALL_FIRST,      /* warps stalled per issue, one per reason */
	PM_COUNT = PM_STALL_FIRST + PM_NSTALLS
};

struct pm_info {
	const char *ncu_name;
	enum pm_combine combine;
};

/* The ncu metric behind m. */
const struct pm_info *pm_info(enum pm_metric m);
/* The stall reason of PM_STALL_FIRST + i ("long_scoreboard"), i < PM_NSTALLS. */
const char *pm_stall_reason(int i);

enum profile_set { PROFILE_CHECKS, PROFILE_EXPLAIN };

/*
 * Thread instructions executed with their predicate on, by what they do,
 * from ncu's instrumented count per SASS opcode with its modifiers
 * (PROFILE_PER_OPCODE, summed over the launches): an instruction in a
 * branch that never runs, or whose predicate is off in every lane, adds
 * nothing (ncu's warp-level counters count a predicated-off instruction,
 * measured on the H100, 2026-11-24). By the opcode's name before its first
 * modifier:
 *   SASS_LOADS   what reads global memory into a register: LDG, LD
 *                (generic), TEX/TLD/TLD4/TXD, SULD, and the atomics ATOMG,
 *                ATOM, SUATOM
 *   SASS_ASYNC   LDGSTS (cp.async: global to shared, no register)
 *   SASS_BULK    the bulk and tensor copies UBLKCP, UTMALDG (loads) ...
 *   SASS_BULK_ST ... UTMASTG, UTMARED, UBLKRED (stores)
 *   SASS_STORES  STG, ST, RED, SUST, SURED, and the atomics again
 *   SASS_SHARED  LDS, STS, ATOMS, LDSM, STSM
 *   SASS_SHUFFLES SHFL
 *   SASS_NC_LOADS the LDG with a CONSTANT modifier (the read-only path),
 *                also counted in SASS_LOADS
 *   SASS_NC_BYTES    bytes those read-only loads ask for (count x width)
 *   SASS_PLAIN_BYTES bytes asked for by every other instruction that
 *                reads global memory into the SM and whose width its
 *                name gives: LDG without CONSTANT, LD, LDGSTS, the global
 *                atomics and reductions (ATOMG, ATOM, RED, REDG)
 * The width of an access is its size modifier (U8/S8 1, U16/S16 2, none
 * 4, 64/F64 8, 128 16, 256 32). Bulk and tensor copies carry their size
 * in an operand, so no byte count is made of a launch that ran one.
 * Local memory (LDL/STL) and the constant bank (LDC) are none of these.
 */
#define PROFILE_PER_OPCODE \
	"sass__thread_inst_executed_true_per_opcode_with_modifier_all"
enum sass_kind {
	SASS_LOADS, SASS_ASYNC, SASS_BULK, SASS_BULK_ST, SASS_STORES,
	SASS_SHARED, SASS_SHUFFLES, SASS_NC_LOADS, SASS_NC_BYTES,
	SASS_PLAIN_BYTES, SASS_KINDS
};
/* The "case" events the judge wrote to the result fd of the profiled run
 * (events: JSON lines): the last one's n, and whether any was wrong or
 * said no "ok" (the counts of a wrong run decide nothing: a kernel shown
 * only to the profiler must be correct too). profile_step leaves such a
 * run unmeasured. */
struct profiled_case {
	double n;
	int failed;
};
struct profiled_case profiled_case(const char *events);

/* Add one "OPCODE.MOD: count" instance to counts[SASS_KINDS]. */
void sass_count_opcode(const char *opcode, double count, double *counts);

struct profile_result {
	int measured;
	char reason[256];
	int kernels;              /* kernel launches profiled */
	char longest[256];        /* the longest launch's kernel name */
	double value[PM_COUNT];   /* base units, combined over launches */
	unsigned char have[PM_COUNT];
	double elements;          /* the profiled case's n; 0 if unknown */
	double blocks;            /* blocks launched, all launches */
	int have_sass;            /* ncu counted PROFILE_PER_OPCODE */
	double sass[SASS_KINDS];  /* thread instructions, predicate on (bytes
				     for the _BYTES kinds) */
	/* shorthands kept for the checks */
	double warp_instructions; /* value[PM_WARP_INST] */
	double bank_conflicts;    /* loads + stores */
};

/*
 * Where the tools run (profile_step, sanitizer_run): with sb (sandbox.h,
 * on) the tool and the step run in one box, tool -> cudalab-box-exec ->
 * step, with a report folder under box_parent that only the tool can write
 * when the grader is root; the tool writes its report there (--log-file)
 * and the figures are read from that file alone, never from what the
 * step printed (a step that prints "ERROR SUMMARY: 0 errors" or a CSV
 * header of its own changes nothing). sb NULL: the same, unboxed.
 */
struct sandbox;

/* gpu_uuid (may be NULL): the step gets its GPU's lock (device.h,
 * common/gpulock.h) and holds it shared, so a tool's replays never run
 * while another run is timing on that GPU. */
void profile_step(struct sandbox *sb, const char *box_parent,
		  const char *exe, double time_limit_s, enum profile_set set,
		  const char *gpu_uuid, struct profile_result *out);

/*
 * The counters of a step executable are the same on every run of it on
 * one GPU (the profiled case's size and inputs are the harness's, fixed
 * for a GPU; its kernels' instruction counts do not depend on timing), so
 * a grading run keeps PROFILE_CHECKS results under cache_dir, named by
 * profile_cache_key(): the executable's content, the GPU's UUID, the
 * metric set and the Nsight Compute that counts (its real path and
 * content). A re-run of an unchanged step (`test` again, a class whose
 * students hand in the same file) then reads its counts instead of
 * running ncu (about 3.5 s a step on the H100). The folder is the
 * grader's (under its build folder): neither the compile box nor the run
 * box can write it. The key is SHA-256's (hash.h): no student can build
 * an executable whose key is another's.
 *
 * profile_cache_load: 0 and out filled (measured 1), or -1 when there is
 * no entry (or it cannot be read). profile_cache_store: writes a measured
 * result (atomically: a temporary file renamed); errors are ignored, the
 * cache is only an optimisation.
 */
int profile_cache_key(const char *exe, const char *gpu_uuid,
		      enum profile_set set, char key[17]);
int profile_cache_load(const char *cache_dir, const char *key,
		       struct profile_result *out);
void profile_cache_store(const char *cache_dir, const char *key,
			 const struct profile_result *pr);

/*
 * One compute-sanitizer tool (memcheck, racecheck, ...) on the step's case
 * (--case CASE --no-timing). The tool is `compute-sanitizer` on PATH, or
 * what CUDALAB_SANITIZER names. errors: the tool's error count (racecheck:
 * its hazards when higher), -1 when it did not run to a summary (reason
 * says why); report: the end of the tool's report (at most 4000 bytes).
 */
struct sanitizer_result {
	long errors;
	char reason[256];
	char report[4001];
};

void sanitizer_run(struct sandbox *sb, const char *box_parent,
		   const char *tool, const char *exe, const char *case_name,
		   const char *gpu_uuid, double time_limit_s,
		   struct sanitizer_result *out);

/* The error count of a compute-sanitizer report, -1 if it has no summary
 * (exposed for tests). */
long sanitizer_count(const char *report);

/*
 * Parse ncu's --csv output (either page; exposed for tests) into out.
 * Returns the number of kernel launches found (0 when none).
 */
int profile_parse_csv(const char *csv, struct profile_result *out);

/* Multiplier from unit (as ncu prints it) to base units; 1 if plain. */
double profile_unit_scale(const char *unit);

/*
 * The step facts (common/facts.h) a profiler run measured, into facts (a
 * JSON object): the one derivation of every counter fact, for the checks
 * (grade.c) and for explain alike. n: the elements of the profiled case
 * (the harness's timed n, or pr->elements); copy_gbps: the GPU's measured
 * copy bandwidth (0: unknown). A figure ncu did not report sets no fact:
 * it is never estimated. Nothing when pr->measured is 0.
 */
#include <jansson.h>
void profile_facts(const struct profile_result *pr, double n,
		   double copy_gbps, json_t *facts);

/* What caps the blocks per SM (the fact occupancy_limiter): "grid",
 * "registers", "shared_memory", "block_size", "blocks_per_sm" or "none". */
const char *profile_occupancy_limiter(const struct profile_result *pr);

/* Floating-point operations (FMA counted as two, as ncu's roofline does):
 * FP64 when fp64, else FP32 and FP16 together. */
double profile_flops(const struct profile_result *pr, int fp64);

#endif
