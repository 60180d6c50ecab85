/*
 * build — turn a lab's step files into step executables, with a cache.
 *
 * A step executable links: the student's file (compiled with -Xptxas -v and
 * its PTX kept), the lab's harness.cu and the harness runtime (compiled once
 * per arch and harness content), with the launch recorder wrapped in
 * (--wrap of the runtime's launch entry points, see common/harness.h).
 *
 * Between compile and link, the student's object and nvcc's host translation
 * unit go through the object check (objcheck.h): an object that defines or
 * calls what a kernel file may not is never linked (ok 0, rejected set).
 * The student's file sees only its lab's folder and a folder holding
 * common/cudalab.h on its include path, not the harness runtime's headers.
 *
 * Cache: build/steps/LAB/STEP-KEY/ holds step (the executable), compile.log,
 * the PTX and facts.json. KEY hashes the student file, nvcc's version, the
 * arch, the flags, every harness source and the version of the readers that
 * wrote facts.json, so an unchanged step is reused and any change rebuilds
 * it. A cache entry is published by renaming a
 * finished temporary folder, so an interrupted build never leaves a
 * half-built entry behind.
 *
 * Ownership: build_steps() fills the caller's array of step_build; release
 * each with step_build_release().
 */
#ifndef CUDALAB_BUILD_H
#define CUDALAB_BUILD_H

#include <jansson.h>
#include <limits.h>

#include "manifest.h"
#include "strbuf.h"

#define BUILD_LOG_LIMIT (64 * 1024)

struct sandbox;

struct build_env {
	const char *root;      /* project root (labs/, common/) */
	const char *build_dir; /* where objects and steps go */
	const char *arch;      /* e.g. "sm_90" */
	const char *nvcc;      /* the compiler command, usually "nvcc" */
	int jobs;              /* parallel compiles */
	double compile_limit_s;
	struct sandbox *sb;    /* non-NULL: nvcc on a student's file runs in
				  a box (sandbox.h: box_for_compile) that sees
				  the system, the toolkit, common/, the lab's
				  headers and that one file, and writes only
				  its output folder; its output is capped at
				  BUILD_LOG_LIMIT bytes */
	char nvcc_version[128]; /* filled by build_env_init */
	/* Optional (NULL: silent): told what the build is doing, so a front
	 * end never sits silent through nvcc. what is "harness" (before the
	 * lab's harness and runtime compile, once per content and arch; part
	 * is the file), or "compiled" / "failed" as each step's compile ends
	 * (part is the step id; done of total). */
	void (*on_progress)(void *arg, const char *what, const char *part,
			    int done, int total);
	void *progress_arg;
};

/* Checks nvcc runs and records its version. -1 with err on failure. */
int build_env_init(struct build_env *env, char *err, size_t errlen);

/*
 * Whether env->nvcc builds machine code for arch ("sm_75"), from
 * `nvcc --list-gpu-code`: 1 yes; 0 no, with the span it does build for in
 * span ("sm_75 to sm_121"); -1 when the list cannot be read (go ahead:
 * nvcc itself will say). CUDA 13 builds for sm_75 and newer.
 */
int build_arch_supported(const struct build_env *env, const char *arch,
			 char *span, size_t len);

struct step_build {
	const struct step_spec *step;
	char source[PATH_MAX]; /* the file to compile (the student's) */
	char define[64];       /* "" or "NAME=VALUE": -D for the student's
				  file only (a sweep); part of the key */
	/* results */
	char dir[PATH_MAX];
	char exe[PATH_MAX + 8];
	int ok;
	int cached;
	double seconds;
	struct strbuf log;    /* everything nvcc printed */
	json_t *diagnostics;  /* array, see compiler_report.h */
	json_t *resources;    /* array of kernels */
	json_t *ptx;          /* object, see ptx.h */
	json_t *rejected;     /* NULL, or an array of strings: what the
				 object check (objcheck.h) found; the step
				 was then not linked */
};

/*
 * Build every entry of steps[0..n) (source and step set by the caller).
 * Returns 0 when the harness itself built (individual steps may still have
 * failed: see ok), or -1 with err when the lab's harness or the runtime did
 * not compile: an instructor's problem, not a student's.
 */
int build_steps(const struct build_env *env, const struct lab_manifest *lab,
		struct step_build *steps, size_t n, char *err, size_t errlen);

/*
 * Build the lab's vendor-library comparison program (lab->vendor_source).
 * Returns 0 and the executable's path in exe, or -1 with err.
 */
int build_vendor(const struct build_env *env, const struct lab_manifest *lab,
		 char *exe, size_t exelen, char *err, size_t errlen);

void step_build_release(struct step_build *b);

/* The PTX nvcc kept for source in a step's folder (dir/NAME.ptx). */
void step_ptx_path(const char *dir, const char *source, char *buf,
		   size_t len);
/* The cubin nvcc kept beside it for arch (dir/NAME.sm_90.cubin). */
void step_cubin_path(const char *dir, const char *source, const char *arch,
		     char *buf, size_t len);

#endif
