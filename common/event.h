/*
 * event — the one event stream of cudalab.
 *
 * Everything the grader learns is reported as a sequence of events, one JSON
 * object per line ("JSON lines"). The same stream feeds every front end: the
 * plain-text reporter, `--json`, the ncurses dashboard (live through a pipe or
 * replayed from a file), the results/history files and the gradebooks. A
 * front end reads events and never changes them.
 *
 * Harnesses (the per-lab test programs) speak a subset of the same schema on
 * their result channel (a pipe the grader opens; never their stdout); the
 * grader validates each line, adds "lab" and "step", and forwards it.
 *
 * Every event is an object with "event" (its kind, below) and "schema" only on
 * run_begin. Fields marked ? may be absent. Times are seconds unless the name
 * ends in _us; bandwidths are GB/s (10^9 bytes/s); percentages are 0..100+.
 *
 *  run_begin  schema(1) lab mode("test"|"bench"|"explain")
 *             started(ISO-8601 UTC)
 *             steps:[{id title file hint checks:[{metric op bound}]
 *             needs?:[capability names] needs_cc?("8.0": the compute
 *             capability they take, capability.h)}]
 *             source(dir the student files came from)
 *             commit(of the cudalab tree, from CUDALAB_COMMIT; "unknown")
 *             limits:{time_limit_s cpu_limit_s compile_limit_s
 *             file_limit_bytes output_limit_bytes} (what each step run
 *             and compile was held to; the device event names the GPU)
 *  device     available(bool) reason?  name? cc? sm_count? l2_bytes?
 *             mem_bytes? driver? runtime? copy_gbps? copy_method?
 *             copy_source?("measured"|"cached")  arch(the nvcc -arch used)
 *             copy_condition?("ours"|"busy"|"throttled": the GPU during
 *             the ceiling's measurement; anything but "ours" is measured
 *             again next run) copy_message? copy_measured_at?(Unix time)
 *             gpu_lock?(bool: the GPU's lock could be opened, gpulock.h)
 *             gpu_lock_error?
 *  sandbox    on(bool) reason?   (grading untrusted code: whether step
 *             programs run under bubblewrap, grader/sandbox.h)
 *  step_begin step title file
 *  compile    step status("started"|"cached"|"ok"|"failed"|"skipped")
 *             reason?(skipped: the target GPU cannot take the step, e.g.
 *             "needs compute capability 8.0 (cp.async); this GPU is 7.5";
 *             its step_end is NOT GRADED with the same words) seconds?
 *             diagnostics?:[{file line column severity message}] output?
 *             exe?(the step program, when built)
 *  lint       step file check("text"|"object") count
 *             problems:[{line message}]   (the student's file breaks the
 *             kernel-file rules; "text": grader/lint.h, before the compile,
 *             the step is not compiled; "object": grader/objcheck.h, on the
 *             compiled object, the step is not linked; line 0 when the
 *             message names the place itself; the verdict is "rejected")
 *  resources  step kernels:[{name registers spill_store_bytes
 *             spill_load_bytes shared_bytes stack_bytes demangled}]
 *             (name: the mangled symbol; demangled: as written, e.g.
 *             saxpy_vec4(int, float, float const*, float*))
 *  ptx        step global_loads global_stores max_load_bytes max_store_bytes
 *             nc_loads async_copies ... (counts of instructions in the PTX
 *             text) ptx_file (the kept PTX, in the build cache)
 *             cubin_file (the kept machine code, beside it)
 *             kernels:{symbol: facts} (the same facts per kernel, with the
 *             functions it calls: the verdict uses the launched ones)
 *  progress   step phase("correctness"|"timing"|"sweep"|"calibrating"|
 *             "remeasure"|"waiting for the GPU"|"build") done total message?
 *             waited_s?   ("calibrating": the grader times the step's
 *             reference solution on this GPU, once; "remeasure": a figure
 *             within its noise of a bar is measured again; "waiting for the
 *             GPU": another run holds this GPU's lock, common/gpulock.h;
 *             sent about once a second while waiting, with the seconds
 *             waited so far; "build": the lab's harness starts
 *             compiling (what "harness", file, no step) or a step's
 *             compile ended (what "compiled"|"failed"))
 *  case       step name ok n? seed mismatches? checked? first?:[{index
 *             expected got input?}] message?   (one correctness case)
 *  guard      step buffer before after first_offset? message
 *             (bytes changed in the 4 MiB guard zones around a buffer)
 *  launch     step kernel? grid:[x y z] block:[x y z] shared_bytes
 *             (the largest launch's dynamic shared memory)
 *             dynamic_shared_max (the most any launch of the call asked
 *             for) default_stream(bool) launches blocks_per_sm waves
 *             elements_per_thread occupancy_pct (resident warps per SM /
 *             its warp slots)  kernels:[symbol] (every kernel launched,
 *             as compiled: the PTX .entry name) kernels_complete?(false:
 *             more distinct kernels than the recorder holds)
 *             (the student's launches for the timed n)
 *  timing     step who("student"|"vendor"|"reference": the lab's own
 *             baseline kernel, timed in the same process) name? variant?
 *             n bytes reps(calls timed)
 *             median_us min_us max_us cv gbps pct_of_copy?
 *             ci_low_us ci_high_us (the distribution-free 95 % interval of
 *             the median, common/stats.h) stop("converged"|"count_cap"|
 *             "time_cap"|"fixed": why the measurement stopped; only
 *             "converged" means the interval met the target)
 *             rounds?:[median_us...] rounds_cv?  (a lab timing several
 *             variants, e.g. "offset 3", sends one each; the first is the
 *             step's figure)
 *             vs_steps?:{step: ratio} (who "vendor" only: each step of
 *             the run timed at the same variant, its first such timing's
 *             GB/s over the vendor's; the grader's, verdict.c, which the
 *             reporters and `run.py record` print as they are)
 *  profile    step tool("ncu") measured(bool) reason? warp_instructions?
 *             kernels? inst_per_element? bank_conflicts?
 *             bank_conflicts_per_element? cached?(bool: read from the
 *             counter cache, profiler.h) and every other counter fact
 *             derived (load_insts_per_element ...: common/facts.c)
 *             (bench, or a check on a counter: hardware counters)
 *             With set("explain") (explain's phase, below): measured
 *             reason?("--no-counters", "no CUDA device (...)", or ncu's
 *             failure) elements?(the profiled case's n) kernels? longest?
 *             (the longest launch's kernel) counters?:{ncu metric name:
 *             value in base units} (only what ncu reported: absent = not
 *             measured, never estimated; grader/profiler.h's table)
 *             stalls?:[{reason pct}] (shares of the stalled warp-cycles,
 *             largest first) flops? fp64?(bool: the FLOP are FP64)
 *             facts:{name: value} (every fact the lab's advice rules are
 *             judged on, from the build and the counters: common/advice.h)
 *  sanitizer  step tool measured(bool) errors? reason? output?
 *             (compute-sanitizer on the lab's sanitize case)
 *  integrity  step check("timed_stream"|"judge_clock") ok event_us host_us
 *             gap_us? null_us? message
 *             (timed_stream: the in-process audit of hx_time_calls, event
 *             time vs host time around a full synchronization; judge_clock:
 *             a student's call timed in the student's process, its claimed
 *             event times against the judge's clock, gap_us being the work
 *             the claim left out beyond an empty call's (harness.h).
 *             ok=false fails the step ("timing not trusted"). Not sent as a
 *             failure when NVML saw other processes that may have done the
 *             work the host clock saw: then gpu_state says "busy")
 *  gpu_state  step condition("ours"|"busy"|"throttled") message attempt
 *             final(bool) nvml(bool) nvml_error? processes?(with a CUDA
 *             context on the GPU) active_processes?(that worked during
 *             the timing; -1 unknown) clock_reasons?(NVML clock event
 *             reason bits) clock_reason_names? sm_clock_mhz?
 *             sm_clock_max_mhz?   (one per timing attempt, common/
 *             gpustate.h. final=true: still busy or throttled after the
 *             last attempt: the step is NOT GRADED with this message,
 *             never failed)
 *  sweep      step define value ok median_us? speedup_vs_baseline?
 *             pct_of_copy? message?   (bench, for a lab with a "sweep":
 *             the step rebuilt with -DDEFINE=value and timed at the timed
 *             size; ok=false when that build or run failed, with why)
 *  todo       step file line   (the step still calls CUDALAB_TODO())
 *  error      step? kind("cuda"|"harness"|"usage"|"gpu_memory": no room
 *             for a timed case 8x the L2, NOT GRADED) message
 *  harness_end step ok      (the harness reached its end; absent => it died)
 *             seconds? init_s?(to a CUDA context, the lock included)
 *             timing_s?(in hx_time_calls, its lock waits included)
 *             gpu_wait_s?(waiting for the GPU lock)   (where a step's
 *             time went, to find what makes a run slow)
 *  check      step id metric status("pass"|"fail"|"close"|"not_measured")
 *             measured? required op(">="|"<=") unit message margin?
 *             margin_pct? noise?   (margin: how far on the passing side of
 *             the bar, in the unit, negative when failing; margin_pct: the
 *             same as a share of the bar; noise: the figure's uncertainty,
 *             for timing figures; "close": within its noise of the bar
 *             after measuring again — too close to call, not graded)
 *             needs_gpu?(true: without a device, a check whose metric
 *             does not come from the build; not judged)
 *  calibration step gbps ci_rel into   (calibrate: the reference's figure
 *             for this step was kept in the folder `into`; grader/
 *             calibration.h)
 *  step_end   step verdict summary hint? seconds gbps? pct_of_copy?
 *             pct_of_reference? speedup_vs_first? median_us?
 *             timing_withheld?
 *             phases?:{seconds init_s timing_s gpu_wait_s} (the step
 *             program's harness_end figures: where its time went)
 *             The timing figures (median_us gbps pct_of_copy
 *             speedup_vs_first) are there only when the run was correct
 *             and its timing trusted (default stream, audit passed); else
 *             timing_withheld says why they are not (a wrong or forged
 *             kernel's "bandwidth" is no measurement). The timing events
 *             before it still carry what was timed, for the record.
 *             Without a device (verdict "not_graded"), from the build:
 *             implemented(bool: false while the file still calls
 *             CUDALAB_TODO()) todo_file? todo_line? static_checks_failed?
 *             (checks judged from the PTX and the compiler that failed)
 *  run_end    verdict("pass"|"fail"|"not_graded") passed failed not_graded
 *             total seconds
 *
 * `explain` (grader/explain.h) is the build of `test --build-only`
 * (run_begin says mode "explain") followed by a phase that explains each
 * step, in order; per step, first
 *  explain    step lab title file source(the path explained)
 *             status("explained"|"rejected"|"not_built"|"compile_error"|
 *             "not_implemented") line?(of the rejection, the first error,
 *             or the CUDALAB_TODO() call) message? error_file?
 *             (compile_error: the file of the first error)
 * and, only when "explained" (the kernels' resources are the step's
 * resources event):
 *  accesses   step ptx_file shown(bool: the PTX could be read)
 *             ops?:[{where("file:line"|"?") count kind("load"|"store"|
 *             "async") bytes nc(bool: read-only path) code(the source
 *             line's text)}]   (every global memory instruction of the
 *             PTX, identical ones of a line counted; totals: the ptx event)
 *  sass       step shown(bool) reason? summary?(the machine code's global
 *             memory instructions by width, e.g. "LDG 16 B x6 (3
 *             read-only)") local_loads? local_stores?   (grader/sass.h)
 *  profile    set("explain"), above: the counters, or why not
 *  advice     step lab hints:[{hint because(the rule's condition) see?
 *             (the step that teaches the fix) see_title?}] unchecked(rules
 *             needing a fact not measured) needs:[fact names] rules(how
 *             many the lab has)
 * then, once, after the steps (when a step has a place on it, or --plot
 * asked for one):
 *  roofline   title? bandwidth?(bytes/s) bandwidth_label?
 *             peaks?:[{label flops_per_s}] points?:[{label flops_per_byte
 *             flops_per_s peak(index in peaks)}] plot?(the SVG file asked
 *             for) plot_error?(why it was not written) reason?(no points:
 *             why there is no roofline)   (grader/roofline.h)
 * A front end that does not know these events ignores them; recorded runs
 * without them replay as before.
 *
 * Around a remote run, the workshop server (tools/server.py, which owns
 * them) adds, and the grader never writes:
 *  queued     job ahead(jobs before it) eta_s   (while it waits; repeated)
 *  server     job commit gpu sandbox(bool) limits:{job_limit_s ...}
 *             (first, when the job starts)
 *  job_end    job exit(the grader's exit status)   (last)
 *
 * Step verdicts: "pass", "fail" (ran, but a case or a check failed),
 * "compile_error", "crash" (CUDA error, signal, or exit before harness_end),
 * "timeout", "not_implemented" (starter stub), "not_graded" (no CUDA device,
 * or a GPU below what the step needs, or one this nvcc cannot build for),
 * "rejected" (the file breaks the kernel-file rules: grader/lint.h,
 * grader/objcheck.h).
 */
#ifndef CUDALAB_EVENT_H
#define CUDALAB_EVENT_H

#include <jansson.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define EVENT_SCHEMA 1

/*
 * Where events go: called once per event, in order. The sink does not own
 * ev (json_incref it to keep it).
 */
typedef void (*event_sink)(void *arg, json_t *ev);

/* Field key of ev as a string ("" when absent or not a string). */
const char *event_str(const json_t *ev, const char *key);
/* Field key of ev as a number (0 when absent or not a number). */
double event_num(const json_t *ev, const char *key);

/* True when name is one of the kinds listed above. */
int event_kind_known(const char *name);

/* The kind of ev ("" when ev has no string "event" field). */
const char *event_kind(const json_t *ev);

/*
 * Write ev as one compact JSON line and flush. Returns 0, or -1 on an I/O
 * error. Does not take ownership of ev.
 */
int event_write(FILE *out, const json_t *ev);

/*
 * Parse one line into a new event (caller owns it: json_decref). On a line
 * that is not a JSON object with a known "event" kind, returns NULL and puts
 * the reason in err.
 */
json_t *event_parse(const char *line, char *err, size_t errlen);


/*
 * Constructors: one per kind the grader writes, next to the schema above,
 * so an event's fields are spelt in one place. Each returns a new event
 * (the caller owns it) with its fields in the order the schema lists them;
 * a field marked ? above is left out when its argument is NULL (or, for a
 * number, where the comment says). json_t arguments marked "stolen" are
 * owned by the event afterwards; the others are copied by reference
 * (json_incref).
 */
json_t *event_error(const char *step, const char *kind, const char *message);
json_t *event_progress(const char *step, const char *phase, int done,
		       int total, const char *message);
/* "build" progress: what "harness" names a file, else a step (part). */
json_t *event_build_progress(const char *what, const char *part, int done,
			     int total);
json_t *event_step_begin(const char *step, const char *title,
			 const char *file);
json_t *event_compile_started(const char *step, const char *file);
json_t *event_compile_skipped(const char *step, const char *file,
			      const char *reason);
/* status "cached"|"ok"|"failed"; exe NULL unless built */
json_t *event_compile_result(const char *step, const char *status,
			     double seconds, json_t *diagnostics,
			     const char *output, const char *exe);
/* problems: stolen array of event_lint_problem() */
json_t *event_lint(const char *step, const char *file, const char *check,
		   int count, json_t *problems);
json_t *event_lint_problem(int line, json_t *message /* stolen string */);
json_t *event_resources(const char *step, json_t *kernels);
/* facts: the PTX reader's object (grader/ptx.h), copied; its fields come
 * first, as the schema lists them */
json_t *event_ptx(const char *step, const json_t *facts, const char *ptx_file,
		  const char *cubin_file);
/* model NULL when off; reason NULL when on */
json_t *event_sandbox(int on, const char *model, const char *reason);
/* errors < 0: the tool did not run to a summary (measured false, reason) */
json_t *event_sanitizer(const char *step, const char *tool, long errors,
			const char *reason, const char *output);
json_t *event_profile(const char *step, const char *tool, int measured);
json_t *event_sweep(const char *step, const char *define, int value);
json_t *event_calibration(const char *step, json_t *gbps, json_t *ci_rel,
			  const char *into);

/* One check of a step (the "check" kind); has_* say which ? fields. */
struct event_check {
	const char *step, *metric, *op, *unit, *status;
	double required;
	char id[96];
	char message[512];
	int has_measured;   /* measured margin (margin_pct when the bar is
			       not 0: has_margin_pct) */
	double measured, margin;
	int has_margin_pct;
	double margin_pct;
	double noise;       /* 0: none */
	int has_required_pct_of_copy;
	double required_pct_of_copy;
	int needs_gpu;
};
json_t *event_check(const struct event_check *c);

json_t *event_step_end(const char *step, const char *verdict,
		       const char *summary, double seconds);
json_t *event_run_begin(const char *lab, const char *title,
			const char *mode, const char *started,
			json_t *steps /* stolen */, const char *source,
			const char *commit);
json_t *event_run_end(const char *lab, const char *verdict, int passed,
		      int failed, int not_graded, int total, double seconds);
/* The device event of a run that has none (and says why). */
json_t *event_no_device(const char *reason);

#ifdef __cplusplus
}
#endif
#endif
