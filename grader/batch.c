/* batch — a class of submissions through the grader; see batch.h. */
#include "batch.h"
#include "event.h"
#include "strvec.h"
#include "fsutil.h"
#include "gradebook.h"
#include "hash.h"
#include "runner.h"
#include "sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <jansson.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct job {
	const char *student, *lab;
	char src[PATH_MAX];
	char out[PATH_MAX];
	char key[17];    /* what was graded: job_key() */
	int skip;        /* already graded (resume) */
	double seconds;
	char outcome[160];
};

struct pool {
	const struct batch_opts *o;
	struct job *jobs;
	size_t njobs, next, done, todo;
	int sandbox_on;
	int build_phase;
	pthread_mutex_t lock;
	double started;
};

/* Beside results/SID/LAB.jsonl, LAB.key: the key of what it graded. */
static void key_path(const struct job *j, char *path, size_t len)
{
	snprintf(path, len, "%.*s.key", (int)(strlen(j->out) - 6), j->out);
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* "5/5 passed" or what went wrong, from a job's event file. */
static void summarize(const char *path, char *buf, size_t len)
{
	json_t *end = gradebook_last_event(path, "run_end");
	if (!end) {
		snprintf(buf, len, "no result (the grader did not finish)");
		return;
	}
	snprintf(buf, len, "%lld/%lld passed",
		 json_integer_value(json_object_get(end, "passed")),
		 json_integer_value(json_object_get(end, "total")));
	json_decref(end);
}

static struct job *take(struct pool *p)
{
	struct job *j = NULL;
	pthread_mutex_lock(&p->lock);
	while (p->next < p->njobs && p->jobs[p->next].skip)
		p->next++;
	if (p->next < p->njobs)
		j = &p->jobs[p->next++];
	pthread_mutex_unlock(&p->lock);
	return j;
}

static void progress(struct pool *p, const struct job *j)
{
	pthread_mutex_lock(&p->lock);
	p->done++;
	if (!p->o->quiet) {
		double el = now_s() - p->started;
		double rate = p->done / (el > 1e-3 ? el : 1e-3);
		double eta = (p->todo - p->done) / (rate > 0 ? rate : 1);
		if (p->build_phase)
			fprintf(stderr, "build %zu/%zu  %s %s%s\n", p->done,
				p->todo, j->student, j->lab,
				j->outcome[0] ? j->outcome : "");
		else
			fprintf(stderr,
				"graded %zu/%zu  %-20s %-10s %-24s %5.0f s  "
				"%.1f/min  ETA %.0f min\n",
				p->done, p->todo, j->student, j->lab, j->outcome,
				j->seconds, 60 * rate, eta / 60);
	}
	pthread_mutex_unlock(&p->lock);
}

struct worker {
	struct pool *pool;
	char gpu[32];  /* "" : not pinned */
};

/* The grader's environment with CUDA_VISIBLE_DEVICES pinned to gpu ("":
 * as it is, without the grader's own), into env. */
static const char *const *child_env(const char *gpu, struct strvec *env)
{
	extern char **environ;
	for (char **e = environ; *e; e++)
		if (strncmp(*e, "CUDA_VISIBLE_DEVICES=", 21))
			strvec_push(env, *e);
	if (*gpu)
		strvec_pushf(env, "CUDA_VISIBLE_DEVICES=%s", gpu);
	return strvec_argv(env);
}

static void *build_worker(void *arg)
{
	struct worker *w = arg;
	struct pool *p = w->pool;
	struct job *j;
	while ((j = take(p))) {
		const char *argv[] = {p->o->grader, "--root", p->o->root, "test",
				      j->lab, "--src", j->src, "--build-only",
				      "--json", "--no-save", "--jobs", "1",
				      p->o->unsandboxed ? "--unsandboxed"
							: "--sandbox",
				      NULL};
		struct child c = CHILD_INIT;
		c.argv = argv;
		c.wall_limit_s = 900;
		c.out_path = "/dev/null";
		child_run(&c);
		j->outcome[0] = 0;
		if (!c.exited || c.exit_code > 3)
			snprintf(j->outcome, sizeof(j->outcome),
				 ": the build ended badly (%s)",
				 child_describe_end(&c, (char[96]){0}, 96));
		child_release(&c);
		progress(p, j);
	}
	return NULL;
}

static void *run_worker(void *arg)
{
	struct worker *w = arg;
	struct pool *p = w->pool;
	struct job *j;
	while ((j = take(p))) {
		struct strvec argv = STRVEC_INIT, env = STRVEC_INIT;
		strvec_pushl(&argv, p->o->grader, "--root", p->o->root, "test",
			     j->lab, "--src", j->src, "--json", "--no-save",
			     "--no-color",
			     p->o->unsandboxed ? "--unsandboxed" : "--sandbox",
			     NULL);
		if (p->o->step_limit)
			strvec_pushl(&argv, "--time-limit", p->o->step_limit,
				     NULL);
		char tmp[PATH_MAX + 8];
		snprintf(tmp, sizeof(tmp), "%s.tmp", j->out);
		struct child c = CHILD_INIT;
		c.argv = strvec_argv(&argv);
		c.env = child_env(w->gpu, &env);
		c.out_path = tmp;
		c.wall_limit_s = p->o->job_limit_s;
		double t0 = now_s();
		child_run(&c);
		j->seconds = now_s() - t0;
		if (c.timed_out || !c.exited || c.exit_code > 3) {
			char how[96];
			/* keep what it wrote, and say how it ended */
			FILE *f = fopen(tmp, "a");
			if (f) {
				json_t *ev = event_error(
					NULL, "harness",
					child_describe_end(&c, how, sizeof(how)));
				char *line = json_dumps(ev, JSON_COMPACT);
				fprintf(f, "\n%s\n", line ? line : "");
				free(line);
				json_decref(ev);
				fclose(f);
			}
		}
		char kp[PATH_MAX + 8];
		key_path(j, kp, sizeof(kp));
		unlink(kp);
		rename(tmp, j->out);
		FILE *kf = fopen(kp, "w");
		if (kf) {
			fprintf(kf, "%s\n", j->key);
			fclose(kf);
		}
		summarize(j->out, j->outcome, sizeof(j->outcome));
		child_release(&c);
		strvec_clear(&argv);
		strvec_clear(&env);
		progress(p, j);
	}
	return NULL;
}

/* The GPUs to use, as CUDA_VISIBLE_DEVICES values. */
static int gpu_list(const char *spec, char gpus[][32], int max)
{
	char buf[512] = "";
	if (spec)
		snprintf(buf, sizeof(buf), "%s", spec);
	else if (getenv("CUDA_VISIBLE_DEVICES"))
		snprintf(buf, sizeof(buf), "%s", getenv("CUDA_VISIBLE_DEVICES"));
	int n = 0;
	if (*buf) {
		for (char *t = strtok(buf, ","); t && n < max;
		     t = strtok(NULL, ","))
			snprintf(gpus[n++], 32, "%s", t);
		return n;
	}
	glob_t g;
	if (glob("/dev/nvidia[0-9]*", 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc && n < max; i++)
			snprintf(gpus[n++], 32, "%s",
				 g.gl_pathv[i] + strlen("/dev/nvidia"));
		globfree(&g);
	}
	if (n == 0)
		gpus[n++][0] = 0; /* one worker, not pinned */
	return n;
}

static int run_phase(struct pool *p, int nworkers, char gpus[][32],
		     void *(*fn)(void *))
{
	pthread_t *t = calloc((size_t)nworkers, sizeof(*t));
	struct worker *w = calloc((size_t)nworkers, sizeof(*w));
	if (!t || !w) {
		free(t);
		free(w);
		return -1;
	}
	p->next = 0;
	p->done = 0;
	p->started = now_s();
	for (int i = 0; i < nworkers; i++) {
		w[i].pool = p;
		snprintf(w[i].gpu, sizeof(w[i].gpu), "%s", gpus ? gpus[i] : "");
		pthread_create(&t[i], NULL, fn, &w[i]);
	}
	for (int i = 0; i < nworkers; i++)
		pthread_join(t[i], NULL);
	free(t);
	free(w);
	return 0;
}

/* The run phase: BATCH_RUNS_PER_GPU workers on each GPU, GPU by GPU in
 * turn (one per GPU when memory is short). */
static void run_on_gpus(struct pool *p, char gpus[][32], int ngpus)
{
	int nrun = ngpus * BATCH_RUNS_PER_GPU;
	char (*run_gpus)[32] = calloc((size_t)nrun, sizeof(*run_gpus));
	if (!run_gpus)
		nrun = ngpus;
	for (int i = 0; run_gpus && i < nrun; i++)
		memcpy(run_gpus[i], gpus[i % ngpus], sizeof(run_gpus[i]));
	run_phase(p, nrun, run_gpus ? run_gpus : gpus, run_worker);
	free(run_gpus);
}

static int name_order(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/*
 * What a job grades: the student's entry (its source name in the intake),
 * the lab, and the name and bytes of every file of its work folder, as a
 * key (hash.h). A result is kept on resume only under the same key (red
 * team, 2026-11-24: a late folder "bob-2" beside "_bob" took _bob's id on
 * the rerun, and _bob's kept compile error became its row).
 */
static void job_key(const char *source, const char *lab, const char *src,
		    char key[17])
{
	struct content_hash h;
	hash_init(&h);
	hash_str(&h, "cudalab-job-1");
	hash_str(&h, source ? source : "");
	hash_str(&h, lab);
	struct dirent **names = NULL;
	int n = scandir(src, &names, NULL, name_order);
	for (int i = 0; i < n; i++) {
		char path[PATH_MAX * 2];
		snprintf(path, sizeof(path), "%s/%s", src, names[i]->d_name);
		struct stat st;
		if (names[i]->d_name[0] != '.' && stat(path, &st) == 0 &&
		    S_ISREG(st.st_mode)) {
			hash_str(&h, names[i]->d_name);
			hash_file(&h, path);
		}
		free(names[i]);
	}
	free(names);
	hash_hex(&h, key);
}

/* Whether path holds exactly key (the result beside it is that job's). */
static int key_matches(const char *path, const char *key)
{
	char got[32] = "";
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	int ok = fgets(got, sizeof(got), f) && !strncmp(got, key, 16) &&
		 (got[16] == '\n' || !got[16]);
	fclose(f);
	return ok;
}

/* The pool's jobs: every (student, lab) of the intake that falls in this
 * shard, each with its results folder made; skip when already graded and
 * not --fresh. -1 with err when a folder cannot be made. */
static int pool_jobs(struct pool *p, json_t *intake, char *err, size_t errlen)
{
	const struct batch_opts *o = p->o;
	json_t *students = json_object_get(intake, "students");
	size_t cap = 0;
	size_t i;
	json_t *st;
	json_array_foreach(students, i, st)
		cap += json_object_size(json_object_get(st, "labs"));
	p->jobs = calloc(cap + 1, sizeof(*p->jobs));
	if (!p->jobs) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	size_t index = 0;
	json_array_foreach(students, i, st) {
		const char *sid = json_string_value(json_object_get(st, "student"));
		const char *lab;
		json_t *info;
		json_object_foreach(json_object_get(st, "labs"), lab, info) {
			(void)info;
			if (!sid || (int)(index++ % (size_t)o->nshards) != o->shard)
				continue;
			struct job *j = &p->jobs[p->njobs++];
			j->student = sid;
			j->lab = lab;
			snprintf(j->src, sizeof(j->src), "%s/work/%s/%s",
				 o->out_dir, sid, lab);
			snprintf(j->out, sizeof(j->out), "%s/results/%s/%s.jsonl",
				 o->out_dir, sid, lab);
			char dir[PATH_MAX];
			snprintf(dir, sizeof(dir), "%s/results/%s", o->out_dir, sid);
			if (mkdirs(dir) < 0) {
				snprintf(err, errlen, "cannot create %s: %s", dir,
					 strerror(errno));
				return -1;
			}
			job_key(json_string_value(json_object_get(st, "source")),
				lab, j->src, j->key);
			char kp[PATH_MAX + 8];
			key_path(j, kp, sizeof(kp));
			j->skip = !o->fresh && access(j->out, F_OK) == 0 &&
				  key_matches(kp, j->key);
			p->todo += !j->skip;
		}
	}
	return 0;
}

int batch_grade(const struct batch_opts *o, char *err, size_t errlen)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/intake.json", o->out_dir);
	json_error_t je;
	json_t *intake = json_load_file(path, 0, &je);
	if (!intake) {
		snprintf(err, errlen, "%s: %s (run `run.py grade`, which writes "
				      "it)", path, je.text);
		return -1;
	}
	/* which shard this folder holds, so that `merge` can tell a shard
	 * that never ran (or did not finish) from a student left incomplete */
	char shard_path[PATH_MAX];
	snprintf(shard_path, sizeof(shard_path), "%s/shard.json", o->out_dir);
	json_t *shard = json_pack("{s:i, s:i, s:b}", "shard", o->shard,
				  "shards", o->nshards, "finished", 0);
	json_dump_file(shard, shard_path, 0);
	struct pool p = {.o = o};
	pthread_mutex_init(&p.lock, NULL);
	if (pool_jobs(&p, intake, err, errlen) < 0) {
		free(p.jobs);
		pthread_mutex_destroy(&p.lock);
		json_decref(shard);
		json_decref(intake);
		return -1;
	}

	char gpus[16][32];
	int ngpus = gpu_list(o->gpus, gpus, 16);
	size_t resumed = p.njobs - p.todo;
	if (!o->quiet)
		fprintf(stderr, "grading %zu job(s) (student x lab)%s on %d GPU "
				"worker(s)\n",
			p.todo, o->nshards > 1 ? " of this shard" : "",
			ngpus * BATCH_RUNS_PER_GPU);
	if (resumed && !o->quiet)
		fprintf(stderr, "  %zu job(s) already graded: kept (--fresh "
				"regrades them)\n", resumed);

	/* Say once whether the runs are sandboxed; no sandbox, no grading,
	 * unless the instructor said --unsandboxed (each job probes again,
	 * with its GPU, and records the answer in its "sandbox" event). */
	struct sandbox *sb = calloc(1, sizeof(*sb));
	char probe[PATH_MAX];
	snprintf(probe, sizeof(probe), "%s", o->grader); /* devprobe is beside */
	char *slash = strrchr(probe, '/');
	snprintf(slash ? slash + 1 : probe,
		 sizeof(probe) - (size_t)(slash ? slash + 1 - probe : 0),
		 "devprobe");
	const char *pargv[] = {probe, NULL};
	if (sb && p.todo && !o->unsandboxed)
		sandbox_probe(sb, pargv, NULL);
	p.sandbox_on = sb && sb->on;
	if (p.todo && !p.sandbox_on && !o->unsandboxed) {
		snprintf(err, errlen,
			 "the sandbox cannot start, so nothing is graded: %s "
			 "(install bubblewrap, or pass --unsandboxed to grade "
			 "without it: every row then says so)",
			 sb ? sb->reason : "out of memory");
		free(sb);
		free(p.jobs);
		pthread_mutex_destroy(&p.lock);
		json_decref(intake);
		return -1;
	}
	if (p.todo && !o->quiet)
		fprintf(stderr, p.sandbox_on ? "sandbox: bubblewrap\n"
					     : "sandbox: OFF (--unsandboxed); "
					       "every gradebook row says so\n");
	free(sb);

	if (p.todo) {
		p.build_phase = 1;
		/* each build worker is one compile box at a time */
		run_phase(&p, sandbox_compile_jobs(o->jobs), NULL,
			  build_worker);
		p.build_phase = 0;
		run_on_gpus(&p, gpus, ngpus);
	}
	free(p.jobs);
	pthread_mutex_destroy(&p.lock);
	json_decref(intake);
	json_object_set_new(shard, "finished", json_true());
	json_dump_file(shard, shard_path, 0);
	json_decref(shard);
	return gradebook_write(o->out_dir, o->quiet ? NULL : stdout, err,
			       errlen);
}
