/*
 * batch — grade a class: every (student, lab) of an intake record, built in
 * parallel on the CPUs, run one at a time per GPU, resumable.
 *
 * Input: OUT/intake.json, written by run.py's intake (tools/submissions.py):
 *   {"labs": {LAB: [files]}, "students": [{"student", "source", "notes",
 *    "labs": {LAB: {"files": [...], "missing": [...]}}}]}
 * and the staged files in OUT/work/STUDENT/LAB/.
 *
 * Each job runs `cudalab-grader test LAB --src OUT/work/STUDENT/LAB --json
 * --no-save --sandbox` (or `--unsandboxed`) as a child (own process group, wall-clock limit),
 * pinned to one GPU with CUDA_VISIBLE_DEVICES; its event stream goes to
 * OUT/results/STUDENT/LAB.jsonl (written as .tmp, renamed when complete).
 * A job whose file exists is done: an interrupted run resumes where it
 * stopped (fresh=1 regrades everything). shard k of n takes the jobs whose
 * index mod n is k (for Slurm job arrays; `merge` combines the shards).
 *
 * Phases: 1) build: `test --build-only` for every job, `jobs` at a time
 * (fills the content-hash build cache); 2) run: BATCH_RUNS_PER_GPU worker
 * threads per GPU. Two students at once on one GPU are graded as one
 * alone: their timing takes the GPU lock exclusive (common/gpulock.h), so
 * only correctness runs, process starts, CPU references, compiles of a
 * cache miss and the sandbox's setup overlap — and those were where the
 * GPU stood idle (one worker per GPU: 7.5 submissions a minute on the H100,
 * 2026-11-23, 41 SAXPY submissions in the box).
 * Progress (done/total, rate, ETA) goes to stderr. Then the gradebook is
 * written (gradebook.h).
 *
 * Returns 0 when every job ran (whatever the verdicts), 1 when every job
 * ran but some steps were not graded (no CUDA device), -1 with err.
 */
#ifndef CUDALAB_BATCH_H
#define CUDALAB_BATCH_H

#include <stddef.h>

#define BATCH_RUNS_PER_GPU 2

struct batch_opts {
	const char *root;       /* the instructor's cudalab tree */
	const char *out_dir;    /* holds intake.json; results go here */
	const char *grader;     /* path of cudalab-grader itself */
	const char *gpus;       /* "0,1" (NULL: CUDA_VISIBLE_DEVICES, else
				   every /dev/nvidiaN, else one unpinned) */
	int jobs;               /* parallel compiles */
	int shard, nshards;     /* 0, 1: everything */
	int fresh;
	int quiet;              /* no progress lines */
	double job_limit_s;     /* wall-clock limit of one (student, lab) */
	const char *step_limit; /* --time-limit for each step run (NULL: the
				   manifest's) */
	int unsandboxed;        /* the instructor's --unsandboxed: no box, and
				   every job's "sandbox" event (so every
				   gradebook row) says so; without it, a box
				   that cannot start here is an error before
				   any job runs (grade.h: SANDBOX_REQUIRED) */
};

int batch_grade(const struct batch_opts *o, char *err, size_t errlen);

#endif
