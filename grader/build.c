#include "build.h"
#include "strvec.h"
#include "capability.h"
#include "sandbox.h"
#include "fsutil.h"
#include "compiler_report.h"
#include "demangle.h"
#include "hash.h"
#include "objcheck.h"
#include "ppview.h"
#include "ptx.h"
#include "runner.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CXX_STD "-std=c++17"
/* What published device code assumes nvcc is given: __device__ lambdas
 * passed to a kernel template (thrust-style, written inline) and constexpr
 * host functions in device code (std::numeric_limits<float>::max()).
 * Student files only. A lambda kernel's host wrapper is named with nvcc's
 * __nv_dl_wrapper_t, not as its PTX entry: the object check matches it by
 * the template's name (objcheck.c, lambda_kernel_wrapper). */
#define STUDENT_LAMBDA "--extended-lambda"
#define STUDENT_CONSTEXPR "--expt-relaxed-constexpr"

/* The flags every compile of a lab shares. */
struct lab_flags {
	char arch[64];
	char inc_common[PATH_MAX + 3];
	char inc_lab[PATH_MAX + 3];
};

static void lab_flags(const struct build_env *env,
		      const struct lab_manifest *lab, struct lab_flags *f)
{
	snprintf(f->arch, sizeof(f->arch), "-arch=%s", env->arch);
	snprintf(f->inc_common, sizeof(f->inc_common), "-I%s/common",
		 env->root);
	snprintf(f->inc_lab, sizeof(f->inc_lab), "-I%s", lab->dir);
}

/* The runtime objects every step and vendor program links. */
struct runtime_objects {
	char rt[PATH_MAX * 2], stats[PATH_MAX * 2], event[PATH_MAX * 2],
		gpulock[PATH_MAX * 2], gpustate[PATH_MAX * 2], lab[PATH_MAX * 2],
		driver[PATH_MAX * 2];
};

static void runtime_objects(const char *objdir, struct runtime_objects *o)
{
	snprintf(o->rt, sizeof(o->rt), "%s/harness_rt.o", objdir);
	snprintf(o->stats, sizeof(o->stats), "%s/stats.o", objdir);
	snprintf(o->event, sizeof(o->event), "%s/event.o", objdir);
	snprintf(o->gpulock, sizeof(o->gpulock), "%s/gpulock.o", objdir);
	snprintf(o->gpustate, sizeof(o->gpustate), "%s/gpustate.o", objdir);
	snprintf(o->lab, sizeof(o->lab), "%s/lab_harness.o", objdir);
	snprintf(o->driver, sizeof(o->driver), "%s/labdriver.o", objdir);
}

static int exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

static void remove_tree(const char *path)
{
	DIR *d = opendir(path);
	if (!d) {
		unlink(path);
		return;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char sub[PATH_MAX];
		snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
		remove_tree(sub);
	}
	closedir(d);
	rmdir(path);
}

int build_env_init(struct build_env *env, char *err, size_t errlen)
{
	const char *argv[] = {env->nvcc, "--version", NULL};
	struct child c = CHILD_INIT;
	c.argv = argv;
	c.wall_limit_s = 60;
	if (child_run(&c) < 0 || !c.exited || c.exit_code != 0) {
		snprintf(err, errlen,
			 "cannot run %s (%s): install the CUDA Toolkit and put "
			 "its bin/ folder on PATH", env->nvcc,
			 c.error[0] ? c.error : "it failed");
		child_release(&c);
		return -1;
	}
	const char *rel = strstr(strbuf_str(&c.out), "release ");
	snprintf(env->nvcc_version, sizeof(env->nvcc_version), "%.*s",
		 rel ? (int)strcspn(rel, "\n") : 7, rel ? rel : "unknown");
	child_release(&c);
	return 0;
}

int build_arch_supported(const struct build_env *env, const char *arch,
			 char *span, size_t len)
{
	const char *argv[] = {env->nvcc, "--list-gpu-code", NULL};
	struct child c = CHILD_INIT;
	c.argv = argv;
	c.wall_limit_s = 60;
	if (len)
		span[0] = 0;
	if (child_run(&c) < 0 || !c.exited || c.exit_code != 0) {
		child_release(&c);
		return -1;
	}
	int found = 0, lo = 0, hi = 0, seen = 0;
	char *list = strdup(strbuf_str(&c.out)), *save = NULL;
	for (char *w = list ? strtok_r(list, " \t\r\n", &save) : NULL; w;
	     w = strtok_r(NULL, " \t\r\n", &save)) {
		int cc = cc_from_arch(w);
		if (cc < 0)
			continue;
		found |= !strcmp(w, arch);
		lo = !seen || cc < lo ? cc : lo;
		hi = !seen || cc > hi ? cc : hi;
		seen = 1;
	}
	free(list);
	child_release(&c);
	if (!seen)
		return -1;
	snprintf(span, len, "sm_%d to sm_%d", lo, hi);
	return found;
}

/* The harness sources whose content every step executable depends on. */
static void hash_harness(struct content_hash *h, const struct build_env *env,
			 const struct lab_manifest *lab)
{
	static const char *const common[] = {
		"cudalab.h", "harness.h", "harness.cu", "stats.h",
		"stats.c",   "event.h",   "event.c",	"gpulock.h",
		"gpulock.c", "gpustate.h", "gpustate.c", "timed_size.h",
		"harness_private.h", "labdriver.cu", NULL};
	char path[PATH_MAX];
	hash_str(h, env->nvcc_version);
	hash_str(h, env->arch);
	hash_str(h, CXX_STD " -O3 -lineinfo " STUDENT_CONSTEXPR
		    " (" STUDENT_LAMBDA " when the text wants it)");
	for (const char *const *f = common; *f; f++) {
		snprintf(path, sizeof(path), "%s/common/%s", env->root, *f);
		hash_str(h, *f);
		hash_file(h, path);
	}
	/* the lab's harness and every header a student file may include */
	DIR *d = opendir(lab->dir);
	struct dirent *e;
	char *names[256];
	int nn = 0;
	while (d && (e = readdir(d)) && nn < 256) {
		if (header_name(e->d_name) || !strcmp(e->d_name, lab->harness))
			names[nn++] = strdup(e->d_name);
	}
	if (d)
		closedir(d);
	/* readdir order is arbitrary: sort so the key is stable */
	for (int i = 1; i < nn; i++)
		for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			char *t = names[j];
			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	for (int i = 0; i < nn; i++) {
		snprintf(path, sizeof(path), "%s/%s", lab->dir, names[i]);
		hash_str(h, names[i]);
		hash_file(h, path);
		free(names[i]);
	}
}

/* The compile box wrote as nobody: the cache entry goes back to the
 * grader (one level: nvcc's --keep-dir is flat), so no process of that uid
 * outside a box can touch it. */
static void take_back(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		char p[PATH_MAX * 2];
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (lchown(p, geteuid(), getegid()) < 0)
			continue;
	}
	if (d)
		closedir(d);
}

/* A compiler's output past BUILD_LOG_LIMIT is cut, with a line saying so:
 * a small file must not make megabytes of results. */
static void cap_log(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0 || st.st_size <= BUILD_LOG_LIMIT)
		return;
	if (truncate(path, BUILD_LOG_LIMIT) < 0)
		return;
	FILE *f = fopen(path, "a");
	if (f) {
		fprintf(f, "\n[compiler output cut: %lld more bytes]\n",
			(long long)st.st_size - BUILD_LOG_LIMIT);
		fclose(f);
	}
}

static int run_tool(const struct build_env *env, const char *const *argv,
		    const char *log_path, struct strbuf *log)
{
	struct child c = CHILD_INIT;
	c.argv = argv;
	c.dir = env->root;
	c.out_path = log_path;
	c.wall_limit_s = env->compile_limit_s;
	int rc = child_run(&c);
	if (rc < 0)
		strbuf_addf(log, "%s\n", c.error);
	else if (strbuf_read_file(log, log_path) < 0)
		strbuf_addf(log, "cannot read %s\n", log_path);
	if (c.timed_out)
		strbuf_addf(log, "error: the compiler %s\n",
			    child_describe_end(&c, (char[128]){0}, 128));
	int ok = rc == 0 && c.exited && c.exit_code == 0;
	child_release(&c);
	return ok ? 0 : -1;
}

/*
 * The runtime and lab harness objects for this arch and harness content:
 * build/obj/ARCH-KEY/{harness_rt.o, stats.o, event.o, gpulock.o,
 * gpustate.o, lab_harness.o}.
 */
static int build_harness_objects(const struct build_env *env,
				 const struct lab_manifest *lab, char *objdir,
				 size_t len, char *err, size_t errlen)
{
	struct content_hash h;
	hash_init(&h);
	hash_harness(&h, env, lab);
	char key[17];
	hash_hex(&h, key);
	snprintf(objdir, len, "%s/obj/%s-%s-%s", env->build_dir, lab->name,
		 env->arch, key);
	char done[PATH_MAX];
	snprintf(done, sizeof(done), "%s/lab_harness.o", objdir);
	if (exists(done))
		return 0;

	char tmp[PATH_MAX + 16];
	snprintf(tmp, sizeof(tmp), "%s.tmp%d", objdir, (int)getpid());
	remove_tree(tmp);
	if (mkdirs(tmp) < 0) {
		snprintf(err, errlen, "cannot create %s: %s", tmp,
			 strerror(errno));
		return -1;
	}
	struct lab_flags fl;
	lab_flags(env, lab, &fl);
	struct {
		const char *src;
		const char *obj;
	} parts[] = {
		{"common/harness.cu", "harness_rt.o"},
		{"common/labdriver.cu", "labdriver.o"},
		{"common/stats.c", "stats.o"},
		{"common/event.c", "event.o"},
		{"common/gpulock.c", "gpulock.o"},
		{"common/gpustate.c", "gpustate.o"},
		{NULL, "lab_harness.o"},
	};
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		char src[PATH_MAX], obj[PATH_MAX + 32], log[PATH_MAX + 32];
		if (parts[i].src)
			snprintf(src, sizeof(src), "%s/%s", env->root,
				 parts[i].src);
		else
			snprintf(src, sizeof(src), "%s/%s", lab->dir,
				 lab->harness);
		snprintf(obj, sizeof(obj), "%s/%s", tmp, parts[i].obj);
		snprintf(log, sizeof(log), "%s/%s.log", tmp, parts[i].obj);
		if (env->on_progress)
			env->on_progress(env->progress_arg, "harness",
					 parts[i].src ? parts[i].src
						      : lab->harness,
					 (int)i, (int)(sizeof(parts) /
						       sizeof(parts[0])));
		const char *argv[] = {env->nvcc, fl.arch, CXX_STD, "-O3",
				      "-lineinfo", fl.inc_common, fl.inc_lab,
				      "-Xcompiler=-Wall,-Wextra", "-c", src,
				      "-o", obj, NULL};
		struct strbuf out = STRBUF_INIT;
		if (run_tool(env, argv, log, &out) < 0) {
			snprintf(err, errlen,
				 "the harness does not compile (%s): %.1500s",
				 src, strbuf_str(&out));
			strbuf_release(&out);
			remove_tree(tmp);
			return -1;
		}
		strbuf_release(&out);
	}
	if (rename(tmp, objdir) < 0 && !exists(done)) {
		snprintf(err, errlen, "cannot publish %s: %s", objdir,
			 strerror(errno));
		remove_tree(tmp);
		return -1;
	}
	remove_tree(tmp); /* another grader published first */
	return 0;
}

/* dir/STEM.suffix for source STEM.cu */
static void kept_path(const char *dir, const char *source, const char *suffix,
		      char *buf, size_t len)
{
	const char *base = strrchr(source, '/');
	base = base ? base + 1 : source;
	size_t stem = strlen(base) > 3 ? strlen(base) - 3 : 0; /* no ".cu" */
	snprintf(buf, len, "%s/%.*s.%s", dir, (int)stem, base, suffix);
}

void step_ptx_path(const char *dir, const char *source, char *buf,
		   size_t len)
{
	kept_path(dir, source, "ptx", buf, len);
}

void step_cubin_path(const char *dir, const char *source, const char *arch,
		     char *buf, size_t len)
{
	char suffix[64];
	snprintf(suffix, sizeof(suffix), "%s.cubin", arch);
	kept_path(dir, source, suffix, buf, len);
}

static char *read_ptx(const char *dir, const char *source)
{
	char path[PATH_MAX * 2];
	step_ptx_path(dir, source, path, sizeof(path));
	struct strbuf sb = STRBUF_INIT;
	if (strbuf_read_file(&sb, path) < 0) {
		strbuf_release(&sb);
		return NULL;
	}
	return sb.buf ? sb.buf : strdup("");
}

static const char *launcher_name(const struct lab_manifest *lab, char *buf,
				 size_t len)
{
	/* "void saxpy(int n, ...)" -> "saxpy" */
	const char *open = strchr(lab->interface, '(');
	const char *p = open;
	while (p && p > lab->interface && p[-1] == ' ')
		p--;
	const char *start = p;
	while (start && start > lab->interface && start[-1] != ' ' &&
	       start[-1] != '*')
		start--;
	snprintf(buf, len, "%.*s", p ? (int)(p - start) : 0,
		 start ? start : "");
	return buf;
}

/*
 * The include folder of a student's compile: common/cudalab.h only (the
 * starters' TODO marker), so the harness runtime's headers are not the
 * student's to include. Written each build, published by rename.
 */
static int student_include(const struct build_env *env, char *flag,
			   size_t len, char *err, size_t errlen)
{
	char dir[PATH_MAX], src[PATH_MAX], dst[PATH_MAX + 16],
		tmp[PATH_MAX + 32];
	snprintf(dir, sizeof(dir), "%s/student-include", env->build_dir);
	snprintf(src, sizeof(src), "%s/common/cudalab.h", env->root);
	snprintf(dst, sizeof(dst), "%s/cudalab.h", dir);
	snprintf(tmp, sizeof(tmp), "%s/cudalab.h.tmp%d", dir, (int)getpid());
	snprintf(flag, len, "-I%s", dir);
	struct strbuf text = STRBUF_INIT, old = STRBUF_INIT;
	int rc = 0;
	if (mkdirs(dir) < 0 || strbuf_read_file(&text, src) < 0) {
		snprintf(err, errlen, "cannot prepare %s: %s", dir,
			 strerror(errno));
		rc = -1;
	} else if (strbuf_read_file(&old, dst) < 0 || old.len != text.len ||
		   memcmp(strbuf_str(&old), strbuf_str(&text), text.len)) {
		FILE *f = fopen(tmp, "w");
		if (!f || fwrite(strbuf_str(&text), 1, text.len, f) != text.len ||
		    fclose(f) != 0 || rename(tmp, dst) < 0) {
			snprintf(err, errlen, "cannot write %s: %s", dst,
				 strerror(errno));
			rc = -1;
		}
	}
	strbuf_release(&text);
	strbuf_release(&old);
	return rc;
}

/* What the object check needs from the lab's harness (objcheck.h). */
struct harness_names {
	char **launchers; /* the interface's launcher + the harness's weak
			     (optional, per-step) launchers */
	char **symbols;   /* every symbol the harness objects define or use */
	size_t nlaunchers, nsymbols;
	/* what the student's compile may include (objcheck_source) */
	char root[PATH_MAX], lab_dir[PATH_MAX], inc_dir[PATH_MAX],
		src_dir[PATH_MAX];
	const char *include_ok[4];
	struct objcheck_source source;
};

static int harness_names_read(const struct build_env *env,
			      const struct lab_manifest *lab,
			      const struct runtime_objects *ro,
			      const char *launcher, struct harness_names *h,
			      char *err, size_t errlen)
{
	memset(h, 0, sizeof(*h));
	char inc[PATH_MAX + 32];
	snprintf(inc, sizeof(inc), "%s/student-include", env->build_dir);
	if (!realpath(env->root, h->root) || !realpath(lab->dir, h->lab_dir) ||
	    !realpath(inc, h->inc_dir)) {
		snprintf(err, errlen, "cannot resolve the lab's folders: %s",
			 strerror(errno));
		return -1;
	}
	h->include_ok[0] = h->lab_dir;
	h->include_ok[1] = h->inc_dir;
	h->include_ok[2] = NULL;
	h->source.cwd = env->root;
	h->source.root = h->root;
	h->source.include_ok = h->include_ok;
	h->source.lab_dir = h->lab_dir;
	h->source.system_file = sandbox_compiler_sees;
	h->launchers = calloc(2, sizeof(char *));
	if (!h->launchers) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	h->launchers[h->nlaunchers++] = strdup(launcher);
	if (objcheck_symbols(ro->lab, 1, &h->launchers, &h->nlaunchers, err,
			     errlen) < 0)
		return -1;
	const char *objs[] = {ro->lab,   ro->rt,	  ro->driver,
			      ro->stats, ro->event,	  ro->gpulock,
			      ro->gpustate};
	for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); i++)
		if (objcheck_symbols(objs[i], 0, &h->symbols, &h->nsymbols,
				     err, errlen) < 0)
			return -1;
	return 0;
}

static void harness_names_release(struct harness_names *h)
{
	objcheck_free_names(h->launchers);
	objcheck_free_names(h->symbols);
	memset(h, 0, sizeof(*h));
}

/*
 * The object check of one compiled step (objcheck.h): the object at obj,
 * nvcc's host translation unit and PTX kept in dir. Returns NULL when
 * clean, else an array of the problems' messages (new reference).
 */
static json_t *check_object(struct harness_names *h, const char *dir,
			    const char *source, const char *obj,
			    const char *host_ii, const char *view_err)
{
	const char *base = strrchr(source, '/');
	h->source.source_base = base ? base + 1 : source;
	/* the student's own folder (where run.py test found the file) */
	h->include_ok[2] = NULL;
	h->source.student_dir = NULL;
	if (realpath(source, h->src_dir)) {
		char *slash = strrchr(h->src_dir, '/');
		if (slash && slash != h->src_dir) {
			*slash = 0;
			h->include_ok[2] = h->src_dir;
			h->source.student_dir = h->src_dir;
		}
	}
	h->include_ok[3] = NULL;
	struct objcheck_problem items[32];
	struct objcheck_list list = {items, 0, 32};
	char path[PATH_MAX * 2], err[PATH_MAX + 128] = "";
	char *ptx = read_ptx(dir, source);
	char *clean = ptx_strip_comments(ptx); /* no .entry from a comment */
	char **kernels = objcheck_ptx_entries(clean);
	free(clean);
	free(ptx);
	struct objcheck_rules rules = {
		(const char *const *)h->launchers,
		(const char *const *)kernels,
		(const char *const *)h->symbols};
	int rc = objcheck_object(obj, &rules, &list, err, sizeof(err));
	objcheck_free_names(kernels);
	/* the student's lines first: their messages name the line */
	struct strbuf own = STRBUF_INIT;
	if (strbuf_read_file(&own, source) < 0)
		snprintf(err, sizeof(err), "cannot read %s to check it", source);
	else
		objcheck_line_directives(strbuf_str(&own), h->source.source_base,
					 &list);
	strbuf_release(&own);
	/* and GCC's own view of them (ppview.h; host_view made it) */
	struct strbuf ii = STRBUF_INIT, view = STRBUF_INIT, msgs = STRBUF_INIT,
		      plain = STRBUF_INIT;
	char vpath[PATH_MAX * 2], mpath[PATH_MAX * 2], ppath[PATH_MAX * 2];
	snprintf(ppath, sizeof(ppath), "%s/hostview-p.ii", dir);
	snprintf(vpath, sizeof(vpath), "%s/hostview.ii", dir);
	snprintf(mpath, sizeof(mpath), "%s/hostview.log", dir);
	if (view_err[0])
		snprintf(err, sizeof(err), "%s", view_err);
	else if (strbuf_read_file(&ii, host_ii) < 0 ||
		 strbuf_read_file(&view, vpath) < 0 ||
		 strbuf_read_file(&msgs, mpath) < 0 ||
		 strbuf_read_file(&plain, ppath) < 0)
		snprintf(err, sizeof(err), "the preprocessor's view of the "
			 "file is missing (%s, %s): the file cannot be checked",
			 host_ii, vpath);
	else
		ppview_check(&(struct ppview_input){strbuf_str(&ii),
						    strbuf_str(&view),
						    strbuf_str(&msgs),
						    strbuf_str(&plain),
						    h->source.source_base},
			     &list);
	strbuf_release(&ii);
	strbuf_release(&view);
	strbuf_release(&msgs);
	strbuf_release(&plain);
	/* then host assembly, whichever file it comes from */
	kept_path(dir, source, "cudafe1.cpp", path, sizeof(path));
	struct strbuf host = STRBUF_INIT;
	if (strbuf_read_file(&host, path) < 0)
		snprintf(err, sizeof(err), "nvcc kept no host translation unit "
					   "(%s) to check", path);
	else
		objcheck_host_source(strbuf_str(&host), &h->source, &list);
	strbuf_release(&host);
	/* and the files the device pass read (an include under
	 * #ifdef __CUDA_ARCH__ is in no host file) */
	kept_path(dir, source, "cpp1.ii", path, sizeof(path));
	struct strbuf device = STRBUF_INIT;
	if (strbuf_read_file(&device, path) < 0) {
		if (!err[0])
			snprintf(err, sizeof(err), "nvcc kept no device "
				 "translation unit (%s) to check", path);
	} else {
		objcheck_device_includes(strbuf_str(&device), &h->source,
					 &list);
	}
	strbuf_release(&device);
	if (rc == 0 && !err[0] && list.count == 0)
		return NULL;
	json_t *out = json_array();
	if (err[0])
		json_array_append_new(out, json_string(err));
	for (int i = 0; i < list.count && i < list.max; i++)
		json_array_append_new(out, json_string(items[i].message));
	if (list.count > list.max)
		json_array_append_new(
			out, json_sprintf("and %d more problems",
					  list.count - list.max));
	return out;
}

/* Whether a line of the student's source (not a comment) includes one of
 * the lab's headers, which declare the launcher extern "C", or says
 * extern "C" itself. */
static int declares_c_linkage(const struct lab_manifest *lab,
			      const char *source)
{
	FILE *f = fopen(source, "r");
	if (!f)
		return 1; /* cannot tell: do not blame the linkage */
	char line[1024];
	int found = 0;
	while (!found && fgets(line, sizeof(line), f)) {
		const char *p = line + strspn(line, " \t");
		if (!strncmp(p, "extern \"C\"", 10)) {
			found = 1;
			continue;
		}
		if (*p != '#')
			continue;
		p += 1 + strspn(p + 1, " \t");
		if (strncmp(p, "include", 7))
			continue;
		const char *q = strchr(p, '"');
		const char *e = q ? strchr(q + 1, '"') : NULL;
		size_t n = e ? (size_t)(e - q - 1) : 0;
		char name[256];
		snprintf(name, sizeof(name), "%.*s", (int)n, q ? q + 1 : "");
		char path[PATH_MAX * 2];
		snprintf(path, sizeof(path), "%s/%s", lab->dir, name);
		found = n > 2 && !strcmp(name + n - 2, ".h") &&
			!strchr(name, '/') && access(path, F_OK) == 0;
	}
	fclose(f);
	return found;
}

/*
 * Does the student's object define the step's launcher with C linkage?
 * Read from the object itself (nm), before linking, so a lab whose
 * launchers are weak (coalescing) reports a missing one at build time, with
 * or without a GPU, and a C++-mangled definition is named for what it is:
 * the same name without extern "C" (no lab header included), or a
 * different parameter list (an overload, not the launcher). Returns 1 with
 * the message in msg, or 0 when the launcher is there or nm cannot tell.
 */
static int launcher_problem(const struct build_env *env,
			    const struct lab_manifest *lab,
			    const struct step_build *b, const char *obj,
			    const char *launcher, char *msg, size_t len)
{
	const char *argv[] = {"nm", "-g", "--defined-only", obj, NULL};
	struct child c = CHILD_INIT;
	c.argv = argv;
	c.dir = env->root;
	c.out_limit = 1 << 20;
	c.wall_limit_s = 30;
	if (child_run(&c) < 0 || !c.exited || c.exit_code != 0) {
		child_release(&c);
		return 0;
	}
	char mangled_prefix[96], cxx[512] = "";
	snprintf(mangled_prefix, sizeof(mangled_prefix), "_Z%zu%s",
		 strlen(launcher), launcher);
	int defined = 0;
	const char *p = strbuf_str(&c.out);
	while (*p && !defined) {
		size_t n = strcspn(p, "\n");
		char line[1024];
		snprintf(line, sizeof(line), "%.*s", (int)(n < 1023 ? n : 1023),
			 p);
		p += n + (p[n] == '\n');
		char *sym = strrchr(line, ' ');
		sym = sym ? sym + 1 : line;
		if (!strcmp(sym, launcher))
			defined = 1;
		else if (!cxx[0] && !strncmp(sym, mangled_prefix,
					     strlen(mangled_prefix)))
			demangle(sym, cxx, sizeof(cxx));
	}
	child_release(&c);
	if (defined)
		return 0;
	const char *slash = strrchr(lab->dir, '/');
	const char *lab_dir = slash ? slash + 1 : lab->dir;
	if (cxx[0] && !declares_c_linkage(lab, b->source))
		snprintf(msg, len,
			 "the file defines %s, but as a C++ function: the "
			 "launcher %s() needs C linkage (extern \"C\"), which "
			 "the lab's header declares; add #include of the "
			 "lab's header (see labs/%s/) at the top of the file",
			 cxx, launcher, lab_dir);
	else if (cxx[0])
		snprintf(msg, len,
			 "the file does not define the launcher %s() with the "
			 "lab's exact signature: it defines %s, a different "
			 "function (a different parameter type makes it an "
			 "overload); see the interface in labs/%s/README.md",
			 launcher, cxx, lab_dir);
	else
		snprintf(msg, len,
			 "this step's file does not define %s() (is its name "
			 "spelt as in the interface in labs/%s/README.md?)",
			 launcher, lab_dir);
	return 1;
}

/* NAME=list with each folder of a colon-separated list by its real path:
 * the compile box shows no /etc, and /usr/local/cuda may be a link
 * through /etc/alternatives (sandbox.h, compiler_view). */
static void real_path_list(const char *name, const char *list, char *out,
			   size_t len)
{
	size_t k = (size_t)snprintf(out, len, "%s=", name);
	while (*list && k < len) {
		size_t n = strcspn(list, ":");
		char given[PATH_MAX], real[PATH_MAX];
		snprintf(given, sizeof(given), "%.*s", (int)n, list);
		const char *use = n && realpath(given, real) ? real : given;
		k += (size_t)snprintf(out + k, len - k, "%s%s",
				      out[k - 1] == '=' ? "" : ":", use);
		list += n + (list[n] == ':');
	}
}

/*
 * Registers, stack, spills and shared memory of the step's kernels, from a
 * ptxas -v of its own on the kept PTX (in a compile box), never from the
 * compile's log: the front ends print a student's text into that log with
 * its escapes made real, so `#pragma message("\nptxas info    : Used 64
 * registers")` or a static_assert message wrote lines the parser took for
 * ptxas's (red team, 2026-11-23: forged registers, a memtuning check).
 * The flags are nvcc's own for that step (nvcc --dryrun: -arch -m64 -v
 * --generate-line-info). NULL when ptxas cannot run: the caller fails the
 * build (a step whose figures cannot be read is not judged without them).
 */
static json_t *ptxas_resources(const struct build_env *env,
			       const struct lab_flags *fl, const char *dir,
			       const char *source, const char *const *cenv)
{
	char ptx[PATH_MAX * 2], cubin[PATH_MAX * 2], log[PATH_MAX * 2];
	step_ptx_path(dir, source, ptx, sizeof(ptx));
	snprintf(cubin, sizeof(cubin), "%s/resources.cubin", dir);
	snprintf(log, sizeof(log), "%s/ptxas.log", dir);
	/* nvcc's own ptxas: beside the real nvcc found on PATH (a distribution
	 * may put only nvcc on PATH), else ptxas on PATH */
	char tool[PATH_MAX] = "ptxas", real[PATH_MAX];
	for (const char *path = getenv("PATH"); path && *path;) {
		size_t n = strcspn(path, ":");
		char cand[PATH_MAX];
		snprintf(cand, sizeof(cand), "%.*s/nvcc", (int)n, path);
		path += n + (path[n] == ':');
		if (!n || access(cand, X_OK) < 0 || !realpath(cand, real))
			continue;
		char *slash = strrchr(real, '/');
		if (slash) {
			snprintf(slash, sizeof(real) - (size_t)(slash - real),
				 "/ptxas");
			if (access(real, X_OK) == 0)
				snprintf(tool, sizeof(tool), "%s", real);
		}
		break;
	}
	const char *argv[] = {tool, fl->arch, "-m64", "-v",
			      "--generate-line-info", ptx, "-o", cubin, NULL};
	struct child c = CHILD_INIT;
	c.argv = argv;
	c.dir = env->root;
	c.out_path = log;
	c.wall_limit_s = env->compile_limit_s;
	c.file_limit_bytes = 64L << 20;
	struct box box;
	if (env->sb) {
		box_for_compile(&box);
		box.rw = dir;
		c.env = cenv;
		if (env->sb->as_root && chown(dir, (uid_t)box.uid, (gid_t)box.gid) < 0)
			return json_array();
		c.argv = sandbox_argv(env->sb, &box, NULL, argv);
	}
	child_run(&c);
	int ran = c.exited && c.exit_code == 0;
	child_release(&c);
	if (env->sb && env->sb->as_root)
		take_back(dir);
	unlink(cubin);
	struct strbuf out = STRBUF_INIT;
	json_t *res = ran && strbuf_read_file(&out, log) == 0
			      ? compiler_resources(strbuf_str(&out))
			      : NULL;
	strbuf_release(&out);
	unlink(log);
	return res;
}

/* The files a compile's output may quote (compiler_hide_files): the
 * student's file and folder, the lab's headers and cudalab.h, the
 * compiler's own intermediates, and the headers of the system, GCC and the
 * CUDA toolkit.
 * Real paths; a name that resolves to nothing on this side of the box
 * (<built-in>, the box's own /tmp) quotes no host file. */
struct quotable {
	char source[PATH_MAX], folder[PATH_MAX], keep[PATH_MAX],
		toolkit[PATH_MAX];
	const struct harness_names *names;
};

static int quotable_file(const char *file, void *arg)
{
	const struct quotable *q = arg;
	char real[PATH_MAX];
	if (file[0] == '<' || !realpath(file, real))
		return 1;
	/* of the lab's folder, its headers only: it also holds harness.cu,
	 * lab.json and the other steps' files, which an --unsandboxed
	 * compile could reach before the object check rejects it (red team,
	 * 2026-11-27: lab.json's lines quoted in the compile log) */
	if (!strcmp(real, q->source) || path_under(real, q->folder) ||
	    path_under(real, q->keep) ||
	    (header_name(real) && path_under(real, q->names->lab_dir)) ||
	    path_under(real, q->names->inc_dir) ||
	    path_under(real, "/usr/include") ||
	    path_under(real, "/usr/lib/gcc") ||
	    (q->toolkit[0] && path_under(real, q->toolkit)))
		return 1;
	return 0;
}

static void hide_foreign_quotes(struct strbuf *log,
				const struct harness_names *names,
				const char *source, const char *keep)
{
	struct quotable q = {.names = names};
	char nvcc[PATH_MAX] = "";
	if (!realpath(source, q.source))
		snprintf(q.source, sizeof(q.source), "%s", source);
	/* the student's own folder (their headers, in a test without box) */
	snprintf(q.folder, sizeof(q.folder), "%s", q.source);
	char *slash = strrchr(q.folder, '/');
	if (slash && slash != q.folder)
		*slash = 0;
	else
		q.folder[0] = 0;
	if (!realpath(keep, q.keep))
		snprintf(q.keep, sizeof(q.keep), "%s", keep);
	/* the toolkit: nvcc on PATH, two folders up */
	for (const char *path = getenv("PATH"); path && *path;) {
		size_t n = strcspn(path, ":");
		char cand[PATH_MAX];
		snprintf(cand, sizeof(cand), "%.*s/nvcc", (int)n, path);
		if (n && access(cand, X_OK) == 0 && realpath(cand, nvcc))
			break;
		path += n + (path[n] == ':');
	}
	for (int up = 0; up < 2 && nvcc[0]; up++) {
		char *slash = strrchr(nvcc, '/');
		if (!slash || slash == nvcc)
			nvcc[0] = 0;
		else
			*slash = 0;
	}
	snprintf(q.toolkit, sizeof(q.toolkit), "%s", nvcc);
	char *kept = compiler_hide_files(strbuf_str(log), quotable_file, &q);
	if (!kept)
		return;
	strbuf_release(log);
	strbuf_addf(log, "%s", kept);
	free(kept);
}

/* Tell the front end that one step's compile ended (build_env.on_progress). */
static void compiled_one(const struct build_env *env,
			 const struct step_build *b, const struct child *c,
			 int done, int total)
{
	if (env->on_progress)
		env->on_progress(env->progress_arg,
				 c->exited && c->exit_code == 0 ? "compiled"
								: "failed",
				 b->step->id, done, total);
}

/* Load facts.json of a finished cache entry into b. */
static int load_facts(struct step_build *b)
{
	char path[PATH_MAX * 2];
	snprintf(path, sizeof(path), "%s/facts.json", b->dir);
	json_t *facts = json_load_file(path, 0, NULL);
	if (!facts)
		return -1;
	b->ok = json_is_true(json_object_get(facts, "ok"));
	b->diagnostics = json_incref(json_object_get(facts, "diagnostics"));
	b->resources = json_incref(json_object_get(facts, "resources"));
	b->ptx = json_incref(json_object_get(facts, "ptx"));
	json_t *rej = json_object_get(facts, "rejected");
	b->rejected = json_array_size(rej) ? json_incref(rej) : NULL;
	json_decref(facts);
	snprintf(path, sizeof(path), "%s/compile.log", b->dir);
	strbuf_read_file(&b->log, path);
	return b->diagnostics && b->resources && b->ptx ? 0 : -1;
}

/*
 * One build_steps() call, phase by phase: open (the harness objects, the
 * cache key's base, what every compile shares), start (a cache hit, or a
 * compile started, at most env->jobs at once), wait (every compile ends),
 * link (link, check, read the facts, publish each entry) and close. One
 * cleanup path, batch_close(): on an error it kills and reaps every
 * compiler still running and removes their temporary folders, then frees
 * what open made.
 */
struct compile_job {
	struct child kid;
	char tmp[PATH_MAX + 16]; /* "" when no compile was started */
	char log[PATH_MAX * 2];
	char obj[PATH_MAX * 2];
	struct strvec argv; /* nvcc's command line, until batch_close */
};

struct compile_batch {
	const struct build_env *env;
	const struct lab_manifest *lab;
	struct step_build *steps;
	size_t n;
	char *err;
	size_t errlen;
	struct content_hash base;
	struct lab_flags fl;
	struct runtime_objects ro;
	char launcher[64];
	char inc_student[PATH_MAX + 3];
	struct harness_names names;
	/* what the compile box shows besides the system */
	char common_dir[PATH_MAX];
	char headers[16][PATH_MAX];
	int nheaders;
	struct strvec compile_env; /* a boxed compile's whole environment */
	struct compile_job *jobs; /* n of them */
	size_t running, next_wait;
	int finished;
};

/* What the compile box shows: common/'s student include folder and the
 * lab's headers (not lab.json, which may hold hidden cases, nor the rest
 * of the tree); the student's file is added per compile. And the
 * environment a boxed compile gets. */
static void batch_box_view(struct compile_batch *cb)
{
	const struct build_env *env = cb->env;
	snprintf(cb->common_dir, sizeof(cb->common_dir), "%s/student-include",
		 env->build_dir);
	DIR *ld = env->sb ? opendir(cb->lab->dir) : NULL;
	struct dirent *le;
	while (ld && (le = readdir(ld)) && cb->nheaders < 16) {
		if (header_name(le->d_name))
			snprintf(cb->headers[cb->nheaders++], PATH_MAX, "%s/%s",
				 cb->lab->dir, le->d_name);
	}
	if (ld)
		closedir(ld);
	static const char *const pass[] = {"PATH", "LD_LIBRARY_PATH", NULL};
	for (const char *const *v = pass; *v; v++)
		if (getenv(*v)) {
			char real[PATH_MAX];
			real_path_list(*v, getenv(*v), real, sizeof(real));
			strvec_push(&cb->compile_env, real);
		}
	strvec_pushl(&cb->compile_env, "HOME=/tmp", "TMPDIR=/tmp", "LC_ALL=C",
		     NULL);
}

/* Phase open: -1 with err when the harness or the runtime does not
 * build (an instructor's problem, not a student's). */
static int batch_open(struct compile_batch *cb)
{
	const struct build_env *env = cb->env;
	char objdir[PATH_MAX];
	if (build_harness_objects(env, cb->lab, objdir, sizeof(objdir),
				  cb->err, cb->errlen) < 0)
		return -1;
	hash_init(&cb->base);
	hash_harness(&cb->base, env, cb->lab);
	/* facts.json is written by this grader's readers (ptx.c,
	 * compiler_report.c): bump when they change what they report, so a
	 * cached entry never carries an older reader's figures */
	hash_str(&cb->base, "facts-v8");
	hash_str(&cb->base, OBJCHECK_RULES);
	/* what the compile box shows and allows decides what a compile says
	 * (sandbox.h): a cached answer of an older box is not reused */
	hash_str(&cb->base, "compile-box-4");
	/* and whether there was a box at all: an --unsandboxed compile sees
	 * the student's whole folder, so its answer is not the boxed one's
	 * (red team, 2026-11-27: an unsandboxed build that used a symbolic
	 * link of the folder was handed to a later boxed run) */
	hash_str(&cb->base, env->sb ? "boxed" : "unboxed");
	lab_flags(env, cb->lab, &cb->fl);
	runtime_objects(objdir, &cb->ro);
	launcher_name(cb->lab, cb->launcher, sizeof(cb->launcher));
	if (student_include(env, cb->inc_student, sizeof(cb->inc_student),
			    cb->err, cb->errlen) < 0 ||
	    harness_names_read(env, cb->lab, &cb->ro, cb->launcher, &cb->names,
			       cb->err, cb->errlen) < 0)
		return -1;
	batch_box_view(cb);
	cb->jobs = calloc(cb->n ? cb->n : 1, sizeof(*cb->jobs));
	if (!cb->jobs) {
		snprintf(cb->err, cb->errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < cb->n; i++) {
		cb->jobs[i].kid = (struct child)CHILD_INIT;
		cb->jobs[i].argv = (struct strvec)STRVEC_INIT;
	}
	return 0;
}

/* A step whose file cannot be compiled as it is: a compile error of its
 * own, no compiler run. */
static void unreadable_step(struct step_build *b, int link)
{
	char why[PATH_MAX + 64];
	snprintf(why, sizeof(why), link ? "%s is a symbolic link: hand in "
		 "the file itself" : "cannot read %s: the step's file is "
		 "missing or unreadable", b->source);
	b->ok = 0;
	b->diagnostics = json_pack("[{s:s, s:i, s:i, s:s, s:s}]", "file",
				   b->source, "line", 0, "column", 0,
				   "severity", "error", "message", why);
	b->resources = json_array();
	b->ptx = json_object();
	strbuf_addf(&b->log, "%s\n", why);
}

/*
 * Whether the student's text annotates a lambda (`[=] __device__ (int i)`,
 * `[&] __host__ __device__`, `] __attribute__((device))`) or #defines a
 * macro holding __device__ or __host__ (which may be such an annotation):
 * such a lambda needs nvcc's --extended-lambda, which costs about 0.45 s
 * of every compile (0.76 -> 1.21 s, +60 %, saxpy v5 on this project's CI
 * machine, 2026-11-27), so only these files get it. The text is what the
 * cache key hashes, so a cached build had the same flags. A file that
 * cannot be read gets the flag (its compile says why it cannot be read).
 */
static int wants_extended_lambda(const char *path)
{
	static const char *const annotations[] = {"__device__", "__host__",
						  "__attribute__", NULL};
	struct strbuf text = STRBUF_INIT;
	if (strbuf_read_file(&text, path) < 0) {
		strbuf_release(&text);
		return 1;
	}
	const char *s = strbuf_str(&text);
	int found = 0;
	for (const char *p = s; *p && !found; p++) {
		if (*p == ']') {
			const char *q = p + 1;
			while (isspace((unsigned char)*q))
				q++;
			for (const char *const *a = annotations; *a; a++)
				if (!strncmp(q, *a, strlen(*a)))
					found = 1;
		} else if (*p == '#' && (p == s || p[-1] == '\n' ||
					 isspace((unsigned char)p[-1]))) {
			const char *q = p + 1;
			while (*q == ' ' || *q == '\t')
				q++;
			if (strncmp(q, "define", 6))
				continue;
			const char *eol = q;
			while (*eol && !(*eol == '\n' && eol[-1] != '\\'))
				eol++;
			for (const char *r = q; r < eol && !found; r++)
				found = !strncmp(r, "__device__", 10) ||
					!strncmp(r, "__host__", 8);
		}
	}
	strbuf_release(&text);
	return found;
}

/* nvcc's command line for step i (into its job). */
static void compile_argv(struct compile_batch *cb, size_t i)
{
	struct compile_job *j = &cb->jobs[i];
	const struct step_build *b = &cb->steps[i];
	strvec_pushl(&j->argv, cb->env->nvcc, cb->fl.arch, CXX_STD, "-O3",
		     "-lineinfo", STUDENT_CONSTEXPR, cb->inc_student,
		     cb->fl.inc_lab, NULL);
	if (wants_extended_lambda(b->source))
		strvec_push(&j->argv, STUDENT_LAMBDA);
	if (b->define[0])
		strvec_pushf(&j->argv, "-D%s", b->define);
	strvec_pushl(&j->argv, "-Xptxas", "-v", "--keep", "--keep-dir", j->tmp,
		     "-c", b->source, "-o", j->obj, NULL);
}

/* Wait for the oldest running compile to end. */
static void batch_wait_one(struct compile_batch *cb, size_t below)
{
	while (cb->next_wait < below && cb->jobs[cb->next_wait].kid.pid < 0)
		cb->next_wait++;
	child_finish(&cb->jobs[cb->next_wait].kid);
	compiled_one(cb->env, &cb->steps[cb->next_wait],
		     &cb->jobs[cb->next_wait].kid, ++cb->finished, (int)cb->n);
	cb->next_wait++;
	cb->running--;
}

/* The compile box of step i: the student's file, the student include
 * folder and the lab's headers to read, its own folder to write. */
static void step_box(const struct compile_batch *cb, size_t i, struct box *box)
{
	box_for_compile(box);
	box_ro(box, cb->steps[i].source);
	box_ro(box, cb->common_dir);
	for (int h = 0; h < cb->nheaders; h++)
		box_ro(box, cb->headers[h]);
	box->rw = cb->jobs[i].tmp;
}

/* Start the compiler of step i (its folder made), in its box. */
static void compile_start(struct compile_batch *cb, size_t i)
{
	const struct build_env *env = cb->env;
	struct compile_job *j = &cb->jobs[i];
	compile_argv(cb, i);
	j->kid.argv = strvec_argv(&j->argv);
	j->kid.dir = env->root;
	j->kid.out_path = j->log;
	j->kid.wall_limit_s = env->compile_limit_s;
	j->kid.file_limit_bytes = 64L << 20;
	if (env->sb)
		j->kid.env = strvec_argv(&cb->compile_env);
	/* keep at most `jobs` compilers running */
	while (cb->running >= (size_t)sandbox_compile_jobs(env->jobs))
		batch_wait_one(cb, i);
	/* the box's command line is built right before its start:
	 * sandbox_argv's strings live until the next call */
	if (env->sb) {
		struct box box;
		step_box(cb, i, &box);
		if (env->sb->as_root &&
		    chown(j->tmp, (uid_t)box.uid, (gid_t)box.gid) < 0)
			strbuf_addf(&cb->steps[i].log, "cannot hand %s to the "
				    "sandbox: %s\n", j->tmp, strerror(errno));
		j->kid.argv = sandbox_argv(env->sb, &box, NULL,
					   strvec_argv(&j->argv));
	}
	if (child_start(&j->kid) < 0)
		strbuf_addf(&cb->steps[i].log, "%s\n", j->kid.error);
	else
		cb->running++;
}

/* Phase start, for step i: a cache hit, or its compile started. -1 with
 * err when its temporary folder cannot be made. */
static int batch_start(struct compile_batch *cb, size_t i)
{
	const struct build_env *env = cb->env;
	struct step_build *b = &cb->steps[i];
	struct compile_job *j = &cb->jobs[i];
	struct content_hash h = cb->base;
	hash_str(&h, b->step->file);
	hash_str(&h, b->define);
	struct stat lst;
	/* in the box a link would show its target: not compiled */
	int link = env->sb && lstat(b->source, &lst) == 0 &&
		   S_ISLNK(lst.st_mode);
	if (link || hash_file(&h, b->source) < 0) {
		unreadable_step(b, link);
		cb->finished++; /* counted, not announced: no compile ran */
		return 0;
	}
	char key[17];
	hash_hex(&h, key);
	snprintf(b->dir, sizeof(b->dir), "%s/steps/%s/%s%s%s-%s",
		 env->build_dir, cb->lab->name, b->step->id,
		 b->define[0] ? "-D" : "", b->define, key);
	snprintf(b->exe, sizeof(b->exe), "%s/step", b->dir);
	if (load_facts(b) == 0) {
		b->cached = 1;
		cb->finished++; /* counted, not announced: no compile ran */
		return 0;
	}
	step_build_release(b); /* what a broken cache entry left */
	snprintf(j->tmp, sizeof(j->tmp), "%s.tmp%d", b->dir, (int)getpid());
	remove_tree(j->tmp);
	if (mkdirs(j->tmp) < 0) {
		snprintf(cb->err, cb->errlen, "cannot create %s: %s", j->tmp,
			 strerror(errno));
		j->tmp[0] = '\0';
		return -1;
	}
	snprintf(j->log, sizeof(j->log), "%s/compile.log", j->tmp);
	snprintf(j->obj, sizeof(j->obj), "%s/student.o", j->tmp);
	compile_start(cb, i);
	return 0;
}

/* Phase wait: every compile still running ends. */
static void batch_wait(struct compile_batch *cb)
{
	for (size_t i = 0; i < cb->n; i++) {
		struct child *k = &cb->jobs[i].kid;
		if (k->pid > 0 && !k->exited && !k->term_signal) {
			child_finish(k);
			compiled_one(cb->env, &cb->steps[i], k, ++cb->finished,
				     (int)cb->n);
		}
	}
}

/* A diagnostic of the step's own file at no line. */
static void add_diagnostic(struct step_build *b, const char *message)
{
	json_array_append_new(b->diagnostics,
			      json_pack("{s:s, s:i, s:i, s:s, s:s}", "file",
					b->source, "line", 0, "column", 0,
					"severity", "error", "message",
					message));
}

/* Run argv for step i in its compile box (what the compile saw: the
 * student's file, the student include folder, the lab's headers; writes
 * only in its folder), output in out_path. 0 when it exited 0; else -1,
 * with why the runner could not start or finish it in failed (when not
 * NULL). */
static int compile_box_run(struct compile_batch *cb, size_t i,
			   const char *const *argv, const char *out_path,
			   char failed[256])
{
	const struct build_env *env = cb->env;
	struct compile_job *j = &cb->jobs[i];
	struct child c = CHILD_INIT;
	c.argv = argv;
	c.dir = env->root;
	c.out_path = out_path;
	c.wall_limit_s = env->compile_limit_s;
	c.file_limit_bytes = 64L << 20;
	struct box box;
	if (env->sb) {
		step_box(cb, i, &box);
		c.env = strvec_argv(&cb->compile_env);
		if (env->sb->as_root &&
		    chown(j->tmp, (uid_t)box.uid, (gid_t)box.gid) < 0) {
			if (failed)
				snprintf(failed, 256, "cannot hand %s to the "
					 "sandbox; ", j->tmp);
			return -1;
		}
		c.argv = sandbox_argv(env->sb, &box, NULL, argv);
	}
	child_run(&c);
	int ok = c.exited && c.exit_code == 0;
	if (!ok && failed)
		snprintf(failed, 256, "%s; ", c.error[0] ? c.error
				      : c.timed_out ? "timed out" : "exit");
	child_release(&c);
	if (env->sb && env->sb->as_root)
		take_back(j->tmp);
	return ok ? 0 : -1;
}

/* The words of a line nvcc --dryrun prints ("#$ gcc -E ... "-Ipath" ..."):
 * separated by blanks, double quotes grouping. NULL when the line holds
 * something this reading does not know (a backslash, a single quote, a
 * variable). */
static struct strvec *dryrun_words(const char *line, const char *end,
				   struct strvec *words)
{
	char word[PATH_MAX * 2];
	size_t n = 0;
	int quoted = 0, any = 0;
	for (const char *p = line;; p++) {
		if (p == end || (!quoted && (*p == ' ' || *p == '\t'))) {
			if (any) {
				word[n] = 0;
				strvec_push(words, word);
			}
			n = 0;
			any = 0;
			if (p == end)
				return quoted ? NULL : words;
			continue;
		}
		if (*p == '\\' || *p == '\'' || *p == '$' || *p == '`')
			return NULL;
		if (*p == '"') {
			quoted = !quoted;
			any = 1;
			continue;
		}
		if (n + 1 >= sizeof(word))
			return NULL;
		word[n++] = *p;
		any = 1;
	}
}

/*
 * GCC's own view of the student's directives (ppview.h): nvcc's host
 * preprocessing command, as nvcc --dryrun prints it for this very compile
 * (the gcc -E whose output cudafe++ reads), run again with ppview_flags
 * into dir/hostview.ii, its messages in dir/hostview.log, in a compile
 * box. host_ii gets the path of that output as nvcc kept it. why gets the
 * reason when there is no view (the step is then rejected: a file that
 * cannot be checked is not linked).
 */
static void host_view(struct compile_batch *cb, size_t i, char *host_ii,
		      size_t len, char *why, size_t whylen)
{
	struct compile_job *j = &cb->jobs[i];
	char log[PATH_MAX * 2], view[PATH_MAX * 2], msgs[PATH_MAX * 2];
	snprintf(log, sizeof(log), "%s/dryrun.log", j->tmp);
	snprintf(view, sizeof(view), "%s/hostview.ii", j->tmp);
	snprintf(msgs, sizeof(msgs), "%s/hostview.log", j->tmp);
	struct strvec dry = STRVEC_INIT, pre = STRVEC_INIT, plain = STRVEC_INIT;
	char plainp[PATH_MAX * 2], plainlog[PATH_MAX * 2];
	snprintf(plainp, sizeof(plainp), "%s/hostview-p.ii", j->tmp);
	snprintf(plainlog, sizeof(plainlog), "%s/hostview-p.log", j->tmp);
	strvec_pushv(&dry, strvec_argv(&j->argv));
	strvec_push(&dry, "--dryrun");
	struct strbuf out = STRBUF_INIT;
	/* in the box, as the compile ran: the toolkit's paths there */
	if (compile_box_run(cb, i, strvec_argv(&dry), log, NULL) < 0 ||
	    strbuf_read_file(&out, log) < 0) {
		snprintf(why, whylen, "nvcc --dryrun failed: the preprocessor's "
			 "view of the file cannot be taken");
		goto done;
	}
	/* cudafe++ reads the host preprocessing output: its last word */
	const char *text = strbuf_str(&out);
	for (const char *p = text; *p && !host_ii[0];) {
		const char *e = strchr(p, '\n');
		e = e ? e : p + strlen(p);
		struct strvec w = STRVEC_INIT;
		if (!strncmp(p, "#$ ", 3) && dryrun_words(p + 3, e, &w) &&
		    w.nr > 1) {
			const char *tool = strrchr(w.v[0], '/');
			tool = tool ? tool + 1 : w.v[0];
			if (!strcmp(tool, "cudafe++"))
				snprintf(host_ii, len, "%s", w.v[w.nr - 1]);
		}
		strvec_clear(&w);
		p = *e ? e + 1 : e;
	}
	/* the command that wrote it: -E ... -o host_ii */
	for (const char *p = text; *p && host_ii[0] && !pre.nr;) {
		const char *e = strchr(p, '\n');
		e = e ? e : p + strlen(p);
		struct strvec w = STRVEC_INIT;
		if (!strncmp(p, "#$ ", 3) && dryrun_words(p + 3, e, &w)) {
			int dash_e = 0, at = -1;
			for (size_t k = 0; k < w.nr; k++) {
				dash_e |= !strcmp(w.v[k], "-E");
				if (!strcmp(w.v[k], "-o") && k + 1 < w.nr &&
				    !strcmp(w.v[k + 1], host_ii))
					at = (int)k;
			}
			if (dash_e && at > 0) {
				for (int k = 0; k < at; k++)
					strvec_push(&pre, w.v[k]);
				for (size_t k = (size_t)at + 2; k < w.nr; k++)
					strvec_push(&pre, w.v[k]);
				strvec_pushv(&plain, strvec_argv(&pre));
				strvec_pushl(&plain, "-P", "-o", plainp, NULL);
				strvec_pushv(&pre, ppview_flags);
				strvec_pushl(&pre, "-o", view, NULL);
			}
		}
		strvec_clear(&w);
		p = *e ? e + 1 : e;
	}
	if (!pre.nr) {
		snprintf(why, whylen, "nvcc --dryrun printed no host "
			 "preprocessing command that this grader can read: the "
			 "preprocessor's view of the file cannot be taken");
		goto done;
	}
	char failed[256] = "";
	if (compile_box_run(cb, i, strvec_argv(&plain), plainlog, failed) < 0)
		snprintf(why, whylen, "the preprocessor's -P view of the file "
			 "failed: %ssee hostview-p.log", failed);
	else if (compile_box_run(cb, i, strvec_argv(&pre), msgs, failed) < 0) {
		struct strbuf m = STRBUF_INIT;
		strbuf_read_file(&m, msgs);
		const char *t = strbuf_str(&m);
		const char *nl = strchr(t, '\n');
		snprintf(why, whylen, "the preprocessor's view of the file "
			 "(%s -E -dD -dI) failed: %s%.*s", pre.v[0], failed,
			 (int)(nl ? nl - t : (long)strlen(t)) > 200
				 ? 200 : (int)(nl ? nl - t : (long)strlen(t)),
			 t);
		strbuf_release(&m);
	}
done:
	strbuf_release(&out);
	strvec_clear(&dry);
	strvec_clear(&pre);
	strvec_clear(&plain);
}

/* Link step i's object with the harness, after the launcher and object
 * checks; returns whether it is a step program now. missing: why the
 * launcher is not there (""). */
static int link_step(struct compile_batch *cb, size_t i, char *missing,
		     size_t len)
{
	const struct build_env *env = cb->env;
	struct step_build *b = &cb->steps[i];
	struct compile_job *j = &cb->jobs[i];
	if (!(j->kid.exited && j->kid.exit_code == 0))
		return 0;
	if (launcher_problem(env, cb->lab, b, j->obj,
			     b->step->launcher ? b->step->launcher
					       : cb->launcher,
			     missing, len))
		return 0;
	char host_ii[PATH_MAX * 2] = "", view_err[PATH_MAX + 256] = "";
	host_view(cb, i, host_ii, sizeof(host_ii), view_err, sizeof(view_err));
	b->rejected = check_object(&cb->names, j->tmp, b->source, j->obj,
				   host_ii, view_err);
	if (b->rejected)
		return 0;
	/* nothing of the student's object runs before the fork (objcheck.h) */
	char err[PATH_MAX + 128];
	if (objcheck_defer_registration(j->obj, err, sizeof(err)) < 0 ||
	    objcheck_hide_definitions(j->obj, err, sizeof(err)) < 0) {
		strbuf_addf(&b->log, "%s\n", err);
		return 0;
	}
	char exe_tmp[PATH_MAX * 2], link_log[PATH_MAX * 2];
	snprintf(exe_tmp, sizeof(exe_tmp), "%s/step", j->tmp);
	snprintf(link_log, sizeof(link_log), "%s/link.log", j->tmp);
	const struct runtime_objects *ro = &cb->ro;
	const char *argv[] = {
		/* the harness's objects first: where they and the student's
		 * have the same weak or COMDAT definition (the C++
		 * personality's pointer, DW.ref.__gxx_personality_v0), the
		 * linker keeps the first, the judge's (red team, 2026-11-27) */
		env->nvcc, cb->fl.arch, "-o", exe_tmp, ro->lab, ro->rt,
		ro->driver, ro->stats, ro->event, ro->gpulock, ro->gpustate,
		j->obj,
		"-Xlinker=--wrap=__cudaLaunchKernel",
		"-Xlinker=--wrap=cudaLaunchKernel",
		"-Xlinker=--wrap=cudaLaunchKernelExC",
		"-Xlinker=--wrap=cudaLaunchCooperativeKernel", "-ljansson",
		"-ldl", NULL};
	if (run_tool(env, argv, link_log, &b->log) != 0)
		return 0;
	/* what the hiding promised, read back from the program */
	if (objcheck_exported(exe_tmp, j->obj, err, sizeof(err)) != 0) {
		strbuf_addf(&b->log, "%s\n", err[0] ? err : "cannot read the "
						      "linked step program");
		return 0;
	}
	return 1;
}

/* Drop nvcc's large intermediates from dir; keep ptx, cubin, logs. */
static void drop_intermediates(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		const char *x = strrchr(e->d_name, '.');
		if (x && (!strcmp(x, ".ii") || !strcmp(x, ".c") ||
			  !strcmp(x, ".cpp") || !strcmp(x, ".gpu") ||
			  !strcmp(x, ".fatbin") || !strcmp(x, ".module_id"))) {
			char p[PATH_MAX * 2];
			snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
			unlink(p);
		}
	}
	if (d)
		closedir(d);
}

/* The largest device code (cubin) a step may make: every lab's solution
 * makes under 64 KiB. Red team, 2026-11-27: one line,
 * `__device__ char big[60 << 20] = {1};`, made a 63 MB cubin (and as much
 * again in the object and the executable) from a 1.3 KB file, kept in the
 * build cache for good: a class could fill the disk. */
#define STEP_CUBIN_LIMIT (8L << 20)

/* The cubin's bytes of step b compiled in dir; when over STEP_CUBIN_LIMIT
 * every file of dir is removed (the step is rejected). */
static long trim_oversized(const struct build_env *env, const char *dir,
			   const char *source)
{
	char p[PATH_MAX * 2];
	struct stat st;
	step_cubin_path(dir, source, env->arch, p, sizeof(p));
	long total = stat(p, &st) == 0 ? (long)st.st_size : 0;
	DIR *d = total > STEP_CUBIN_LIMIT ? opendir(dir) : NULL;
	struct dirent *e;
	while (d && (e = readdir(d))) {
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (lstat(p, &st) == 0 && S_ISREG(st.st_mode))
			unlink(p);
	}
	if (d)
		closedir(d);
	return total;
}

/* Whether the compile failed for a reason of the machine, not of the
 * file: the box could not start its command (cudalab-box-exec or bwrap
 * say so, exit 126/127), the compiler was killed by a signal, or the
 * machine ran out of processes or disk. Red team, 2026-11-27: a box that
 * failed at exec (another box had used up the processes of the uid all
 * boxes then shared) was cached as that student's compile error, and
 * --fresh did not clear it. */
static int machine_failure(const struct step_build *b,
			   const struct compile_job *j)
{
	/* nvcc itself says 128 + 9 when a tool it ran was killed by SIGKILL
	 * (the machine's OOM killer, "Killed"; red team, 2026-11-27); not
	 * 134, the abort of a compiler that outgrew the box's memory limit,
	 * which is the file's doing */
	if (j->kid.term_signal ||
	    (j->kid.exited && (j->kid.exit_code == 126 ||
			       j->kid.exit_code == 127 ||
			       j->kid.exit_code == 128 + 9)))
		return 1;
	const char *log = strbuf_str(&b->log);
	/* not "Cannot allocate memory": cc1plus says it when the file's
	 * compile outgrows the box's memory limit ("virtual memory
	 * exhausted"), the file's doing */
	static const char *const said[] = {
		"\nbox: ", "\nbwrap: ", "Resource temporarily unavailable",
		"No space left on device", NULL};
	if (!strncmp(log, "box: ", 5) || !strncmp(log, "bwrap: ", 7))
		return 1;
	for (const char *const *w = said; *w; w++)
		if (strstr(log, *w))
			return 1;
	return 0;
}

/* Cache successes and compile errors alike: both are facts of this
 * content. A timed-out compile is retried, and one that failed for a
 * reason of the machine (machine: see machine_failure; a file could write
 * those words in an #error, which costs it only the cache). */
static void publish(const struct step_build *b, const struct compile_job *j,
		    int machine)
{
	if (j->kid.timed_out || machine) {
		remove_tree(j->tmp);
		return;
	}
	json_t *facts = json_pack("{s:b, s:O, s:O, s:O}", "ok", b->ok,
				  "diagnostics", b->diagnostics, "resources",
				  b->resources, "ptx", b->ptx);
	if (b->rejected)
		json_object_set(facts, "rejected", b->rejected);
	char fp[PATH_MAX * 2], lp[PATH_MAX * 2];
	snprintf(fp, sizeof(fp), "%s/facts.json", j->tmp);
	json_dump_file(facts, fp, JSON_INDENT(1));
	json_decref(facts);
	snprintf(lp, sizeof(lp), "%s/compile.log", j->tmp);
	FILE *lf = fopen(lp, "w");
	if (lf) {
		fwrite(strbuf_str(&b->log), 1, b->log.len, lf);
		fclose(lf);
	}
	if (rename(j->tmp, b->dir) < 0)
		remove_tree(j->tmp);
}

/* Phase link, for step i: link what compiled, read the facts, publish. */
static void batch_link(struct compile_batch *cb, size_t i)
{
	const struct build_env *env = cb->env;
	struct step_build *b = &cb->steps[i];
	struct compile_job *j = &cb->jobs[i];
	if (b->cached || !j->tmp[0])
		return;
	if (env->sb && env->sb->as_root)
		take_back(j->tmp);
	cap_log(j->log);
	strbuf_read_file(&b->log, j->log);
	hide_foreign_quotes(&b->log, &cb->names, b->source, j->tmp);
	if (j->kid.timed_out)
		strbuf_addf(&b->log, "error: the compiler timed out after "
				     "%.0f s\n", env->compile_limit_s);
	char missing[1024] = "";
	int ok = link_step(cb, i, missing, sizeof(missing));
	b->ok = ok;
	b->diagnostics = compiler_diagnostics(strbuf_str(&b->log), cb->launcher);
	if (missing[0]) {
		add_diagnostic(b, missing);
		strbuf_addf(&b->log, "error: %s\n", missing);
	}
	if (!ok && !b->rejected && compiler_count(b->diagnostics, "error") == 0)
		add_diagnostic(b, "the compiler failed; see its output");
	b->resources = j->kid.exited && j->kid.exit_code == 0
			       ? ptxas_resources(env, &cb->fl, j->tmp, b->source,
						 strvec_argv(&cb->compile_env))
			       : json_array();
	if (!b->resources) {
		static const char why[] =
			"the grader cannot read the kernels' registers and "
			"memory (its ptxas -v on the compiled PTX failed); see "
			"the output";
		b->resources = json_array();
		if (b->ok && !b->rejected)
			add_diagnostic(b, why);
		strbuf_addf(&b->log, "error: %s\n", why);
		b->ok = ok = 0;
	}
	struct ptx_facts pf;
	char *ptx = ok ? read_ptx(j->tmp, b->source) : NULL;
	ptx_read_facts(ptx, &pf);
	b->ptx = ptx_facts_json(&pf);
	/* per kernel: the verdict takes the facts of the kernels the timed
	 * call launched (ptx_facts_launched) */
	json_object_set_new(b->ptx, "kernels", ptx_kernel_facts(ptx));
	json_object_set_new(b->ptx, "dynamic_shared",
			    json_integer(ptx_dynamic_shared(ptx)));
	free(ptx);
	b->seconds = j->kid.seconds;
	int machine = !b->ok && machine_failure(b, j);
	if (machine)
		add_diagnostic(b, "the compile failed for a reason of the "
				  "machine, not of the file (see its output): "
				  "not kept in the build cache, so the next "
				  "run compiles it again");
	drop_intermediates(j->tmp);
	long bytes = trim_oversized(env, j->tmp, b->source);
	if (bytes > STEP_CUBIN_LIMIT) {
		char why[256];
		snprintf(why, sizeof(why), "the compiled device code takes %ld "
			 "MiB (over %ld MiB): a kernel file's data is the "
			 "harness's inputs, not arrays initialised in the file",
			 bytes >> 20, STEP_CUBIN_LIMIT >> 20);
		if (!b->rejected)
			b->rejected = json_array();
		json_array_append_new(b->rejected, json_string(why));
		b->ok = 0;
	}
	publish(b, j, machine);
	j->tmp[0] = '\0'; /* published or removed */
}

/* Phase close, the one cleanup: on failure, every compiler still running
 * is killed (its whole group) and reaped, and every unpublished folder
 * removed; then what open made is freed. */
static void batch_close(struct compile_batch *cb)
{
	for (size_t i = 0; cb->jobs && i < cb->n; i++) {
		struct compile_job *j = &cb->jobs[i];
		if (j->kid.pid > 0 && !j->kid.exited && !j->kid.term_signal) {
			kill(-j->kid.pid, SIGKILL);
			child_finish(&j->kid);
		}
		if (j->tmp[0])
			remove_tree(j->tmp);
		child_release(&j->kid);
		strvec_clear(&j->argv);
	}
	harness_names_release(&cb->names);
	strvec_clear(&cb->compile_env);
	free(cb->jobs);
}

int build_steps(const struct build_env *env, const struct lab_manifest *lab,
		struct step_build *steps, size_t n, char *err, size_t errlen)
{
	struct compile_batch *cb = calloc(1, sizeof(*cb));
	if (!cb) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	*cb = (struct compile_batch){.env = env, .lab = lab, .steps = steps,
				     .n = n, .err = err, .errlen = errlen};
	int rc = batch_open(cb);
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = batch_start(cb, i);
	if (rc == 0) {
		batch_wait(cb);
		for (size_t i = 0; i < n; i++)
			batch_link(cb, i);
	}
	batch_close(cb);
	free(cb);
	return rc;
}

int build_vendor(const struct build_env *env, const struct lab_manifest *lab,
		 char *exe, size_t exelen, char *err, size_t errlen)
{
	if (!lab->vendor_source) {
		snprintf(err, errlen, "lab %s has no vendor comparison",
			 lab->name);
		return -1;
	}
	char objdir[PATH_MAX];
	if (build_harness_objects(env, lab, objdir, sizeof(objdir), err,
				  errlen) < 0)
		return -1;
	struct content_hash h;
	hash_init(&h);
	hash_harness(&h, env, lab);
	char src[PATH_MAX * 2];
	snprintf(src, sizeof(src), "%s/%s", lab->dir, lab->vendor_source);
	hash_file(&h, src);
	for (char **l = lab->vendor_libs; l && *l; l++)
		hash_str(&h, *l);
	char key[17];
	hash_hex(&h, key);
	snprintf(exe, exelen, "%s/vendor-%s-%s", objdir, lab->name, key);
	if (exists(exe))
		return 0;

	struct lab_flags fl;
	lab_flags(env, lab, &fl);
	struct runtime_objects ro;
	runtime_objects(objdir, &ro);
	char tmp_exe[PATH_MAX * 2], log[PATH_MAX * 2];
	snprintf(tmp_exe, sizeof(tmp_exe), "%s.tmp%d", exe, (int)getpid());
	snprintf(log, sizeof(log), "%s.log", exe);
	struct strvec argv = STRVEC_INIT;
	strvec_pushl(&argv, env->nvcc, fl.arch, CXX_STD, "-O3", fl.inc_common,
		     fl.inc_lab, "-o", tmp_exe, src, ro.rt, ro.stats, ro.event,
		     ro.gpulock, ro.gpustate,
		     "-Xlinker=--wrap=__cudaLaunchKernel",
		     "-Xlinker=--wrap=cudaLaunchKernel",
		     "-Xlinker=--wrap=cudaLaunchKernelExC",
		     "-Xlinker=--wrap=cudaLaunchCooperativeKernel", "-ljansson",
		     "-ldl", NULL);
	for (int i = 0; lab->vendor_libs && lab->vendor_libs[i]; i++)
		strvec_pushf(&argv, "-l%s", lab->vendor_libs[i]);
	struct strbuf out = STRBUF_INIT;
	int rc = run_tool(env, strvec_argv(&argv), log, &out);
	strvec_clear(&argv);
	if (rc == 0 && rename(tmp_exe, exe) < 0)
		rc = -1;
	if (rc < 0)
		snprintf(err, errlen, "the vendor comparison does not build: "
				      "%.1500s", strbuf_str(&out));
	strbuf_release(&out);
	return rc;
}

void step_build_release(struct step_build *b)
{
	strbuf_release(&b->log);
	json_decref(b->diagnostics);
	json_decref(b->resources);
	json_decref(b->ptx);
	json_decref(b->rejected);
	b->diagnostics = b->resources = b->ptx = b->rejected = NULL;
}
