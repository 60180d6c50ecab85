/*
 * cudalab-grader — the grader's command line. run.py is the friendly front
 * door; this is what it calls (and what tests and instructors may call).
 *
 * Exit status: 0 every step that ran passed · 1 a step failed · 2 usage
 * error · 3 not graded (no CUDA device) · 4 the grader could not do its job.
 */
#include "event.h"
#include "batch.h"
#include "capability.h"
#include "classbook.h"
#include "device.h"
#include "explain.h"
#include "jsonl.h"
#include "gradebook.h"
#include "grade.h"
#include "manifest.h"
#include "paths.h"
#include "facts.h"
#include "report.h"
#include "results.h"
#include "runner.h"

#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
	"usage: cudalab-grader [--root DIR] [--build DIR] COMMAND [OPTIONS]\n"
	"\n"
	"commands:\n"
	"  test LAB    build, check and time each step of LAB\n"
	"  bench LAB   like test, with a longer, steadier measurement, a fresh\n"
	"              copy-bandwidth ceiling, and the vendor library's figure\n"
	"  explain LAB why each step is as fast as it is: registers, spills,\n"
	"              shared memory and every global load/store of the PTX with\n"
	"              its width and source line (no GPU needed); with a GPU,\n"
	"              Nsight Compute's counters (DRAM, occupancy and its limit,\n"
	"              sectors per request, stalls, ...), the lab's hints that\n"
	"              apply, and a roofline\n"
	"  calibrate LAB  time the lab's reference solutions (solutions/LAB) on\n"
	"              this GPU and keep each step's figure, which the timing\n"
	"              bars (pct_of_reference) are relative to; --into DIR keeps\n"
	"              them in DIR/KEY.json (the tree's calibration/ folder)\n"
	"              instead of the state folder\n"
	"  list        the labs in workshop order, with your progress; --json:\n"
	"              the validated manifests (steps, titles, files, checks)\n"
	"              with progress, what run.py reads instead of lab.json\n"
	"  device      this machine's GPU and its measured copy bandwidth\n"
	"  paths [LAB] where this grader compiles and keeps state, and the\n"
	"              state folder's files (of LAB too), as JSON\n"
	"  report [FILE|-] [--verbose] [--color|--no-color]\n"
	"              print a saved or streamed event file (JSON lines) as\n"
	"              `test` prints it; exit status that of the run it records\n"
	"  classbook OUT  the class view's data of a gradebook (OUT or\n"
	"              OUT/gradebook.json) as JSON: per step, passed/submitted,\n"
	"              verdict counts, %% of copy spread, threshold, histogram\n"
	"\n"
	"options of test and bench (explain takes --step, --src, --jobs,\n"
	"--time-limit and its own --plot FILE.svg, --no-counters):\n"
	"  --step K        only step K (its number or id, e.g. 2 or v2)\n"
	"  --src DIR       take the step files from DIR instead of labs/LAB\n"
	"  --seed S        replay the inputs of an earlier run\n"
	"  --time-limit S  wall-clock limit per step run, seconds\n"
	"  --jobs N        parallel compiles (default: CPU count)\n"
	"  --json          print the event stream (JSON lines) instead of text\n"
	"  --color, --no-color   force colour on or off (default: on a TTY\n"
	"                  unless NO_COLOR is set)\n"
	"  --verbose       also show passing checks and compiler warnings\n"
	"  --sandbox       untrusted work must run in the sandbox: refuse (exit\n"
	"                  4) when it cannot start (default: use it when it\n"
	"                  starts, else say so and go on)\n"
	"  --unsandboxed   run without the sandbox (recorded in the events)\n"
	"\n"
	"--build DIR: compile steps in DIR (default $CUDALAB_BUILD, else\n"
	"ROOT/build; run.py passes a per-user folder when ROOT is read-only).\n"
	"environment: CUDALAB_STATE (state folder, default ROOT/.cudalab, or\n"
	"BUILD/state when ROOT is not writable), CUDALAB_BWRAP (the bubblewrap\n"
	"to use), CUDALAB_JUDGE=in-process (the judge and the student's code in\n"
	"one process, where CUDA IPC is refused: weaker, see the README),\n"
	"CUDALAB_ARCH (arch without a GPU, default sm_90: steps that arch\n"
	"cannot take are NOT GRADED with the reason), CUDALAB_NO_DEVICE=1\n"
	"(behave as on a machine without a GPU), CUDALAB_DEVICE_FACTS=FILE (for\n"
	"the project's tests: take the device facts from FILE, a JSON object\n"
	"like `device --json` prints, instead of asking the GPU).\n"
	"\n"
	"exit status: 0 pass, 1 fail, 2 usage, 3 not graded, 4 grader error\n";

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "cudalab-grader: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nrun `cudalab-grader --help` for usage\n");
	return 2;
}

static const char class_usage[] =
	"usage: cudalab-grader grade OUT [--gpus LIST] [--jobs N] [--shard K/N]\n"
	"                             [--fresh] [--quiet] [--job-limit S]\n"
	"       cudalab-grader gradebook OUT\n"
	"       cudalab-grader merge OUT SHARD_OUT...\n"
	"\n"
	"  --gpus LIST    GPUs to grade on, e.g. 0,1 (default: CUDA_VISIBLE_DEVICES,\n"
	"                 else every GPU): one worker each, one run at a time\n"
	"  --jobs N       parallel compiles (default: CPU count)\n"
	"  --shard K/N    only jobs K, K+N, K+2N... (Slurm array task K of N)\n"
	"  --fresh        regrade jobs that already have a result\n"
	"  --time-limit S wall-clock limit of each step run (default: the lab's)\n"
	"  --job-limit S  wall-clock limit of one student's lab (default 3600)\n"
	"  --unsandboxed  grade without the sandbox (bubblewrap) when it cannot\n"
	"                 start here; every gradebook row says so (without this\n"
	"                 flag, no sandbox means nothing is graded: exit 4)\n";

/* grade / gradebook / merge: the instructor's commands (batch.h). */
static int cmd_class(const char *cmd, const char *root, int argc,
		     char **argv)
{
	char err[2048];
	if (argc < 1 || !strcmp(argv[0], "--help")) {
		fputs(class_usage, argc < 1 ? stderr : stdout);
		return argc < 1 ? 2 : 0;
	}
	const char *out = argv[0];
	if (!strcmp(cmd, "gradebook")) {
		if (argc != 1)
			return usage_error("gradebook takes only OUT, got %s",
					   argv[1]);
		int rc = gradebook_write(out, stdout, err, sizeof(err));
		if (rc < 0)
			goto fail;
		return rc ? 3 : 0;
	}
	if (!strcmp(cmd, "merge")) {
		if (argc < 2)
			return usage_error("merge needs %s", "OUT and one or more "
					   "shard folders");
		int rc = gradebook_merge(out, argv + 1, argc - 1, stdout, err,
					 sizeof(err));
		if (rc < 0)
			goto fail;
		return rc ? 3 : 0;
	}
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return fprintf(stderr, "cudalab-grader: cannot find itself\n"), 4;
	self[n] = 0;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct batch_opts o = {.root = root, .out_dir = out, .grader = self,
			       .jobs = ncpu > 0 ? (int)ncpu : 2, .nshards = 1,
			       .job_limit_s = 3600};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		char *end;
		if (!strcmp(a, "--fresh")) {
			o.fresh = 1;
		} else if (!strcmp(a, "--unsandboxed")) {
			o.unsandboxed = 1;
		} else if (!strcmp(a, "--quiet")) {
			o.quiet = 1;
		} else if (!v && (!strcmp(a, "--gpus") || !strcmp(a, "--jobs") ||
				  !strcmp(a, "--shard") || !strcmp(a, "--time-limit") ||
				  !strcmp(a, "--job-limit"))) {
			return usage_error("%s needs a value", a);
		} else if (!strcmp(a, "--gpus")) {
			if (!*v || strspn(v, "0123456789,") != strlen(v))
				return usage_error("--gpus takes GPU numbers like "
						   "0,1 (got \"%s\")", v);
			o.gpus = v, i++;
		} else if (!strcmp(a, "--jobs")) {
			o.jobs = (int)strtol(v, &end, 10), i++;
			if (*end || o.jobs < 1 || o.jobs > 256)
				return usage_error("--jobs takes 1..256 (got %s)", v);
		} else if (!strcmp(a, "--time-limit")) {
			if (strtod(v, &end) <= 0 || *end)
				return usage_error("--time-limit takes seconds (got %s)",
						   v);
			o.step_limit = v, i++;
		} else if (!strcmp(a, "--job-limit")) {
			o.job_limit_s = strtod(v, &end), i++;
			if (*end || o.job_limit_s <= 0)
				return usage_error("--job-limit takes seconds (got %s)",
						   v);
		} else if (!strcmp(a, "--shard")) {
			if (sscanf(v, "%d/%d", &o.shard, &o.nshards) != 2 ||
			    o.nshards < 1 || o.shard < 0 || o.shard >= o.nshards)
				return usage_error("--shard takes K/N with 0 <= K < N "
						   "(got %s)", v);
			i++;
		} else {
			return usage_error("grade: unknown option %s", a);
		}
	}
	int rc = batch_grade(&o, err, sizeof(err));
	if (rc < 0)
		goto fail;
	return rc ? 3 : 0; /* 3: steps not graded (no CUDA device) */
fail:
	fprintf(stderr, "cudalab-grader: %s\n", err);
	return 4;
}

/*
 * report: the text reporter over an event file or a pipe (the workshop
 * server's stream, a saved run), line by line as it arrives. Exit status:
 * the run's own (run_end: 0 pass, 1 fail, 3 not graded); 4 when the stream
 * ended without a run_end (the run was cut short).
 */
/* cmd_report's reader: every event to the text report; the exit status
 * from run_end's verdict (4 when there is none). */
struct report_file {
	struct report *r;
	int rc;
};

static void report_line(void *arg, json_t *ev)
{
	struct report_file *rf = arg;
	const char *k = json_string_value(json_object_get(ev, "event"));
	if (!k)
		return;
	if (!strcmp(k, "run_end")) {
		const char *v = event_str(ev, "verdict");
		rf->rc = !strcmp(v, "pass") ? 0 : !strcmp(v, "fail") ? 1
			 : !strcmp(v, "not_graded") ? 3 : 4;
	}
	report_text(rf->r, ev);
}

static int cmd_report(int argc, char **argv)
{
	const char *path = "-";
	int color = isatty(1) && !getenv("NO_COLOR"), verbose = 0;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--verbose"))
			verbose = 1;
		else if (!strcmp(argv[i], "--color"))
			color = 1;
		else if (!strcmp(argv[i], "--no-color"))
			color = 0;
		else if (!strcmp(argv[i], "--help"))
			return fputs("usage: cudalab-grader report [FILE|-] "
				     "[--verbose] [--color|--no-color]\n",
				     stdout), 0;
		else if (argv[i][0] == '-' && argv[i][1])
			return usage_error("report: unknown option %s", argv[i]);
		else
			path = argv[i];
	}
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	if (!f) {
		fprintf(stderr, "cudalab-grader: cannot read %s: %s\n", path,
			strerror(errno));
		return 2;
	}
	struct report r;
	report_init(&r, stdout, color, verbose);
	struct report_file rf = {&r, 4};
	struct jsonl_reader lines = JSONL_READER_INIT;
	lines.on_value = report_line;
	lines.arg = &rf;
	jsonl_read_file(&lines, f);
	jsonl_release(&lines);
	if (f != stdin)
		fclose(f);
	report_release(&r);
	return rf.rc;
}

/* classbook: the class view's data (classbook.h) as one JSON document, for
 * front ends that are not the terminal dashboard (the workshop server's
 * status page). Histograms: 10 bins over [0, 100) % of copy. */
static int cmd_classbook(int argc, char **argv)
{
	if (argc != 1 || !strcmp(argv[0], "--help"))
		return fputs("usage: cudalab-grader classbook OUT|OUT/gradebook."
			     "json\n", argc != 1 ? stderr : stdout),
		       argc != 1 ? 2 : 0;
	struct classbook b;
	char err[1024];
	memset(&b, 0, sizeof(b));
	if (classbook_load(&b, argv[0], err, sizeof(err)) < 0) {
		fprintf(stderr, "cudalab-grader: %s\n", err);
		classbook_free(&b);
		return 4;
	}
	json_t *steps = json_array();
	for (int i = 0; i < b.nsteps; i++) {
		const struct cb_step *st = &b.steps[i];
		json_t *verdicts = json_object(), *hist = json_array();
		for (int k = 0; k < st->nverdicts; k++)
			json_object_set_new(verdicts, st->verdicts[k].verdict,
					    json_integer(st->verdicts[k].count));
		int bins[10];
		classbook_histogram(st, 100.0, bins, 10);
		for (int k = 0; k < 10; k++)
			json_array_append_new(hist, json_integer(bins[k]));
		json_t *s = json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:o, s:o}",
				      "lab", st->lab, "step", st->id, "title",
				      st->title, "submitted", st->submitted,
				      "passed", st->passed, "measured",
				      st->measured, "verdicts", verdicts,
				      "histogram", hist);
		if (st->threshold >= 0)
			json_object_set_new(s, "threshold",
					    json_real(st->threshold));
		if (st->measured) {
			json_object_set_new(s, "min", json_real(st->min));
			json_object_set_new(s, "median", json_real(st->median));
			json_object_set_new(s, "max", json_real(st->max));
		}
		json_array_append_new(steps, s);
	}
	json_t *doc = json_pack("{s:i, s:o}", "students", b.nstudents,
				"steps", steps);
	json_dumpf(doc, stdout, JSON_COMPACT);
	printf("\n");
	json_decref(doc);
	classbook_free(&b);
	return 0;
}

/* paths [LAB]: where this grader compiles and keeps state, and the state
 * folder's files (results.h), so that no front end rebuilds their names. */
static int cmd_paths(const char *root, const struct paths *where, int argc,
		     char **argv)
{
	if (argc > 1 || (argc == 1 && argv[0][0] == '-'))
		return argc == 1 && !strcmp(argv[0], "--help")
			       ? (fputs("usage: cudalab-grader paths [LAB]\n",
					stdout), 0)
			       : usage_error("paths takes one LAB at most, got "
					     "%s", argv[argc - 1]);
	const char *lab = argc ? argv[0] : NULL;
	json_t *j = json_pack("{s:s, s:s, s:s, s:s}", "root", root, "bin",
			      where->bin, "build", where->build, "state",
			      where->state);
	static const struct {
		const char *key;
		enum results_file which;
		int per_lab;
	} files[] = {{"runs", RESULTS_RUNS, 0},
		     {"results", RESULTS_LABS, 0},
		     {"history", RESULTS_HISTORY, 0},
		     {"last_run", RESULTS_LAST_RUN, 1},
		     {"lab_results", RESULTS_LAB, 1}};
	for (size_t k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
		char path[PATH_MAX + 300];
		if (files[k].per_lab && !lab)
			continue;
		if (results_path(path, sizeof(path), where->state,
				 files[k].which, lab) < 0) {
			json_decref(j);
			fprintf(stderr, "cudalab-grader: a path under %s is too "
				"long\n", where->state);
			return 4;
		}
		json_object_set_new(j, files[k].key, json_string(path));
	}
	json_dumpf(j, stdout, 0);
	printf("\n");
	json_decref(j);
	return 0;
}

static void default_root(char *out, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0) {
		snprintf(out, len, ".");
		return;
	}
	exe[n] = '\0';
	/* ROOT/build/cudalab-grader -> ROOT */
	snprintf(out, len, "%s", dirname(dirname(exe)));
}

static int cmd_list(const char *root, const char *state, int as_json)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s/labs", root);
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "cudalab-grader: cannot read %s: %s\n", dir,
			strerror(errno));
		return 4;
	}
	struct lab_manifest labs[64];
	size_t n = 0;
	int broken = 0;
	struct dirent *e;
	while ((e = readdir(d)) && n < 64) {
		if (e->d_name[0] == '.')
			continue;
		char lab_dir[PATH_MAX + 300], err[1024];
		snprintf(lab_dir, sizeof(lab_dir), "%s/%s", dir, e->d_name);
		if (manifest_load(lab_dir, &labs[n], err, sizeof(err)) < 0) {
			fprintf(stderr, "cudalab-grader: %s\n", err);
			broken = 1;
			continue;
		}
		n++;
	}
	closedir(d);
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && labs[j - 1].order > labs[j].order; j--) {
			struct lab_manifest t = labs[j];
			labs[j] = labs[j - 1];
			labs[j - 1] = t;
		}
	json_t *all = json_array();
	for (size_t i = 0; i < n; i++) {
		char rpath[PATH_MAX + 300];
		results_path(rpath, sizeof(rpath), state, RESULTS_LAB,
			     labs[i].name);
		json_t *res = json_load_file(rpath, 0, NULL);
		json_t *steps = json_object_get(res, "steps");
		int passed = 0;
		json_t *st = json_array();
		for (size_t k = 0; k < labs[i].nsteps; k++) {
			json_t *se = json_object_get(steps, labs[i].steps[k].id);
			const char *v = json_string_value(json_object_get(se, "verdict"));
			passed += v && !strcmp(v, "pass");
			const struct step_spec *sp = &labs[i].steps[k];
			json_t *checks = json_array();
			for (size_t c = 0; c < sp->nchecks; c++) {
				const struct fact_info *m =
					fact_find(sp->checks[c].metric);
				json_array_append_new(
					checks,
					json_pack("{s:s, s:s, s:f, s:s, s:s, s:s}",
						  "metric", sp->checks[c].metric,
						  "op",
						  sp->checks[c].op == CHECK_AT_LEAST
							  ? ">="
							  : "<=",
						  "bound", sp->checks[c].bound,
						  "unit", m ? m->unit : "",
						  "source", m ? m->source : "",
						  "why", sp->checks[c].why));
			}
			json_t *entry = json_pack(
				"{s:s, s:s, s:s, s:s, s:o}", "id", sp->id,
				"title", sp->title, "file", sp->file, "verdict",
				v ? v : "not run", "checks", checks);
			if (sp->needs) {
				/* what the GPU must have (capability.h) */
				json_t *needs = json_array();
				for (char **nm = sp->needs; *nm; nm++)
					json_array_append_new(needs,
							      json_string(*nm));
				char cc_s[16];
				cc_format(sp->needs_cc, cc_s, sizeof(cc_s));
				json_object_set_new(entry, "needs", needs);
				json_object_set_new(entry, "needs_cc",
						    json_string(cc_s));
			}
			json_array_append_new(st, entry);
		}
		json_decref(res);
		json_t *lab_json = json_pack(
			"{s:s, s:s, s:i, s:i, s:i, s:o, s:f}", "name",
			labs[i].name, "title", labs[i].title, "order",
			labs[i].order, "passed", passed, "steps",
			(int)labs[i].nsteps, "step_list", st, "time_limit_s",
			labs[i].time_limit_s);
		if (labs[i].sanitize_tools) {
			json_t *tools = json_array();
			for (char **t = labs[i].sanitize_tools; *t; t++)
				json_array_append_new(tools, json_string(*t));
			json_object_set_new(
				lab_json, "sanitize",
				json_pack("{s:o, s:s}", "tools", tools, "case",
					  labs[i].sanitize_case
						  ? labs[i].sanitize_case
						  : ""));
		}
		json_array_append_new(all, lab_json);
		if (!as_json)
			printf("%d. %-10s %-44s %d/%zu steps passed\n",
			       labs[i].order, labs[i].name, labs[i].title,
			       passed, labs[i].nsteps);
		manifest_free(&labs[i]);
	}
	if (as_json) {
		json_dumpf(all, stdout, JSON_INDENT(2));
		printf("\n");
	}
	json_decref(all);
	return broken ? 4 : 0;
}

/* Ctrl-C, a closed terminal, a kill: take every running child (a student
 * program, nvcc) down with the grader, then die of the same signal. A
 * results file being written stays as .tmp, so `grade` resumes cleanly. */
static void on_fatal_signal(int sig)
{
	child_kill_all();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* What a test/bench/device/explain/calibrate command line asked for. */
struct run_cli {
	const char *cmd;
	struct grade_opts o;
	struct explain_opts eo;
	int calibrating, as_json, verbose, fresh, no_save, color;
	char solutions[PATH_MAX + 320];
};

/* The options of a run command, from argv[i]; -1 when the caller is to
 * return *rc (help, a usage error). */
static int parse_run_options(struct run_cli *cli, int i, int argc,
			     char **argv, int *rc)
{
	struct grade_opts *op = &cli->o;
	const char *cmd = cli->cmd;
	int calibrating = cli->calibrating;
	for (; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--help")) {
			fputs(usage, stdout);
			*rc = 0;
			return -1;
		} else if (!strcmp(a, "--json")) {
			cli->as_json = 1;
		} else if (!strcmp(a, "--verbose")) {
			cli->verbose = 1;
		} else if (!strcmp(a, "--color")) {
			cli->color = 1;
		} else if (!strcmp(a, "--no-color")) {
			cli->color = 0;
		} else if (!strcmp(a, "--fresh")) {
			cli->fresh = 1;
		} else if (!strcmp(a, "--sandbox")) {
			op->sandbox = SANDBOX_REQUIRED;
		} else if (!strcmp(a, "--unsandboxed")) {
			op->sandbox = SANDBOX_OFF;
		} else if (!strcmp(a, "--build-only")) {
			op->build_only = 1;
		} else if (!strcmp(a, "--no-save")) {
			cli->no_save = 1;
		} else if (calibrating && !strcmp(a, "--bench")) {
			op->bench = 1;
		} else if (calibrating && !strcmp(a, "--into")) {
			if (!v || !*v)
				return *rc = usage_error("%s needs a folder", a), -1;
			op->calibrate_into = v;
			i++;
		} else if (!strcmp(cmd, "explain") && !strcmp(a, "--no-counters")) {
			cli->eo.no_counters = 1;
		} else if (!strcmp(cmd, "explain") && !strcmp(a, "--plot")) {
			if (!v || !*v)
				return *rc = usage_error("%s needs a file name", a), -1;
			cli->eo.plot = v;
			i++;
		} else if (!strcmp(a, "--step") || !strcmp(a, "--src") ||
			   !strcmp(a, "--seed") || !strcmp(a, "--time-limit") ||
			   !strcmp(a, "--jobs")) {
			if (!v)
				return *rc = usage_error("%s needs a value", a), -1;
			char *end;
			if (!strcmp(a, "--step"))
				op->step = v;
			else if (!strcmp(a, "--src"))
				op->src_dir = v;
			else if (!strcmp(a, "--seed")) {
				strtoull(v, &end, 0);
				if (*end || !*v)
					return *rc = usage_error("--seed needs a number, not \"%s\"", v), -1;
				op->seed = v;
			} else if (!strcmp(a, "--time-limit")) {
				op->time_limit_s = strtod(v, &end);
				if (*end || op->time_limit_s <= 0)
					return *rc = usage_error("--time-limit needs seconds > 0, not \"%s\"", v), -1;
			} else {
				op->jobs = (int)strtol(v, &end, 10);
				if (*end || op->jobs < 1)
					return *rc = usage_error("--jobs needs a number >= 1, not \"%s\"", v), -1;
			}
			i++;
		} else if (a[0] == '-') {
			return *rc = usage_error("unknown option %s", a), -1;
		} else if (!op->lab && strcmp(cmd, "device")) {
			op->lab = a;
		} else {
			return *rc = usage_error("unexpected argument \"%s\"", a), -1;
		}
	}

	return 0;
}

/* `device`: this machine's GPU and its copy bandwidth. */
static int cmd_device(const struct run_cli *cli, const char *bin,
		      const char *state_dir)
{
	char err[4096] = "";
	char probe[PATH_MAX + 16];
	snprintf(probe, sizeof(probe), "%s/devprobe", bin);
	json_t *dev = cli->o.pretend_no_device
			      ? event_no_device("CUDALAB_NO_DEVICE is set")
			      : device_probe(probe, state_dir, cli->fresh, err,
					     sizeof(err));
	if (!dev) {
		fprintf(stderr, "cudalab-grader: %s\n", err);
		return 4;
	}
	if (cli->as_json) {
		event_write(stdout, dev);
	} else {
		struct report r;
		report_init(&r, stdout, cli->color, cli->verbose);
		report_text(&r, dev);
		report_release(&r);
	}
	int available = json_is_true(json_object_get(dev, "available"));
	json_decref(dev);
	return available ? 0 : 3;
}

/* test, bench, calibrate, explain: grade (or explain) the lab, report,
 * keep the results. */
static int cmd_run(struct run_cli *cli, const char *root,
		   const char *state_dir)
{
	struct grade_opts *op = &cli->o;
	const char *cmd = cli->cmd;
	char err[4096] = "";
	if (!op->lab)
		return usage_error("%s needs a lab name (see `list`)", cmd);
	if (cli->calibrating) {
		if (op->src_dir || op->step)
			return usage_error("%s times the reference solutions of "
					   "every step: no --src or --step",
					   cmd);
		snprintf(cli->solutions, sizeof(cli->solutions),
			 "%s/solutions/%s", root, op->lab);
		op->src_dir = cli->solutions;
	}
	struct report r;
	report_init(&r, stdout, cli->color, cli->verbose);
	if (!strcmp(cmd, "explain")) {
		int erc = explain_lab(op, &cli->eo,
				      cli->as_json ? report_json : report_text,
				      &r, err, sizeof(err));
		if (erc < 0)
			fprintf(stderr, "cudalab-grader: %s\n", err);
		report_release(&r);
		return erc == -2 ? 2 : erc < 0 ? 4 : erc;
	}
	int rc = grade_lab(op, cli->as_json ? report_json : report_text, &r, err,
			   sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "cudalab-grader: %s\n", err);
		report_release(&r);
		return rc == -2 ? 2 : 4;
	}
	if (!cli->no_save && !op->build_only &&
	    results_save(state_dir, r.log, err, sizeof(err)) < 0)
		fprintf(stderr, "cudalab-grader: warning: %s\n", err);
	report_release(&r);
	return rc;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fatal_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	char root[PATH_MAX];
	default_root(root, sizeof(root));
	int i = 1;
	if (i < argc && !strcmp(argv[i], "--root")) {
		if (i + 1 >= argc)
			return usage_error("%s needs a folder", "--root");
		snprintf(root, sizeof(root), "%s", argv[i + 1]);
		i += 2;
	}
	const char *build_flag = NULL;
	if (i < argc && !strcmp(argv[i], "--build")) {
		if (i + 1 >= argc || !*argv[i + 1])
			return usage_error("%s needs a folder", "--build");
		build_flag = argv[i + 1];
		i += 2;
	}
	if (i >= argc || !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h") ||
	    !strcmp(argv[i], "help")) {
		fputs(usage, i >= argc ? stderr : stdout);
		return i >= argc ? 2 : 0;
	}
	const char *cmd = argv[i++];

	static struct paths where;
	char perr[256];
	if (paths_resolve(&where, root, build_flag, perr, sizeof(perr)) < 0) {
		fprintf(stderr, "cudalab-grader: %s\n", perr);
		return 4;
	}
	/* the graders this one starts (class grading) compile in the same
	 * cache */
	setenv("CUDALAB_BUILD", where.build, 1);
	const char *build_dir = where.build, *state_dir = where.state;
	if (!strcmp(cmd, "paths"))
		return cmd_paths(root, &where, argc - i, argv + i);

	if (!strcmp(cmd, "list")) {
		int as_json = 0;
		for (; i < argc; i++) {
			if (!strcmp(argv[i], "--json"))
				as_json = 1;
			else if (!strcmp(argv[i], "--help"))
				return fputs("usage: cudalab-grader list [--json]\n", stdout), 0;
			else
				return usage_error("list: unknown option %s", argv[i]);
		}
		return cmd_list(root, state_dir, as_json);
	}
	if (!strcmp(cmd, "report"))
		return cmd_report(argc - i, argv + i);
	if (!strcmp(cmd, "classbook"))
		return cmd_classbook(argc - i, argv + i);
	if (!strcmp(cmd, "grade") || !strcmp(cmd, "gradebook") ||
	    !strcmp(cmd, "merge"))
		return cmd_class(cmd, root, argc - i, argv + i);
	if (strcmp(cmd, "test") && strcmp(cmd, "bench") &&
	    strcmp(cmd, "device") && strcmp(cmd, "explain") &&
	    strcmp(cmd, "calibrate"))
		return usage_error("unknown command \"%s\"", cmd);

	static struct run_cli cli;
	cli.cmd = cmd;
	cli.o = (struct grade_opts){.root = root, .build_dir = build_dir,
				    .state_dir = state_dir, .bin_dir = where.bin,
				    .bench = !strcmp(cmd, "bench")};
	cli.calibrating = !strcmp(cmd, "calibrate");
	if (cli.calibrating)
		cli.o.calibrate_into = state_dir;
	const char *arch = getenv("CUDALAB_ARCH");
	cli.o.arch_fallback = arch && *arch ? arch : "sm_90";
	if (cc_from_arch(cli.o.arch_fallback) < 0 ||
	    strncmp(cli.o.arch_fallback, "sm_", 3))
		return usage_error("CUDALAB_ARCH must name a GPU arch like "
				   "sm_75 or sm_120, not \"%s\"",
				   cli.o.arch_fallback);
	const char *facts = getenv("CUDALAB_DEVICE_FACTS");
	cli.o.device_facts = facts && *facts ? facts : NULL;
	const char *nodev = getenv("CUDALAB_NO_DEVICE");
	cli.o.pretend_no_device = nodev && *nodev && strcmp(nodev, "0");
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	cli.o.jobs = ncpu > 0 ? (int)ncpu : 2;
	cli.eo = (struct explain_opts){.plot = NULL};
	cli.color = isatty(1) && !getenv("NO_COLOR");
	int rc;
	if (parse_run_options(&cli, i, argc, argv, &rc) < 0)
		return rc;
	if (!strcmp(cmd, "device"))
		return cmd_device(&cli, where.bin, state_dir);
	return cmd_run(&cli, root, state_dir);
}
