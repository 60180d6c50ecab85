/* sandbox — bubblewrap and cudalab-box-exec around untrusted work; see
 * sandbox.h for what a box gives and leaves open. */
#include "sandbox.h"
#include "fsutil.h"
#include "runner.h"

#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

long sandbox_box_uid(void)
{
	static unsigned counter;
	unsigned k = __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
	return SANDBOX_UID_BASE + ((long)(getpid() & 0x3fffff) << 6) +
	       (long)(k & 63);
}

void box_for_run(struct box *b)
{
	long uid = sandbox_box_uid();
	*b = (struct box){.uid = uid, .gid = uid,
			  .tmp_bytes = 256L << 20, .data_bytes = 16L << 30,
			  .nproc = 512, .file_bytes = 64L << 20, .gpu = 1,
			  .keep_fd = -1, .lock_fd = -1};
}

void box_for_compile(struct box *b)
{
	long uid = sandbox_box_uid();
	*b = (struct box){.uid = uid, .gid = uid,
			  .tmp_bytes = SANDBOX_COMPILE_TMP,
			  .data_bytes = SANDBOX_COMPILE_DATA,
			  .nproc = 256, .file_bytes = 64L << 20, .gpu = 0,
			  .compiler_view = 1, .keep_fd = -1, .lock_fd = -1};
}

int sandbox_compile_jobs(int jobs)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	if (jobs < 1)
		jobs = 1;
	if (pages <= 0 || size <= 0)
		return jobs;
	long long budget = (long long)pages * size / 2;
	long long fit = budget / (SANDBOX_COMPILE_DATA + SANDBOX_COMPILE_TMP);
	return fit < 1 ? 1 : fit < jobs ? (int)fit : jobs;
}

void box_ro(struct box *b, const char *path)
{
	if (b->nro < SANDBOX_MAX_RO)
		b->ro[b->nro++] = path;
}

static int find_on_path(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		snprintf(out, len, "%.*s/%s", (int)n, path, name);
		if (n && access(out, X_OK) == 0)
			return 0;
		path += n + (path[n] == ':');
	}
	return -1;
}

static int is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Whether path is one of the software folders every box shows, or inside
 * one (real paths). */
static int in_software(const char *path)
{
	static const char *const dirs[] = {"/usr/", "/bin/", "/sbin/",
					   "/lib/", "/lib32/", "/lib64/", NULL};
	for (const char *const *d = dirs; *d; d++)
		if (!strncmp(path, *d, strlen(*d)))
			return 1;
	return 0;
}

/* The CUDA toolkit's real folder (nvcc on PATH, two levels up) when it
 * lies outside the software folders (/opt/nvidia/..., a home folder):
 * 0 with it in out, -1 when there is none to add. */
static int toolkit_dir(char *out, size_t len)
{
	char found[PATH_MAX], real[PATH_MAX];
	if (find_on_path("nvcc", found, sizeof(found)) < 0 ||
	    !realpath(found, real) || in_software(real))
		return -1;
	for (int up = 0; up < 2; up++) {
		char *slash = strrchr(real, '/');
		if (!slash || slash == real)
			return -1;
		*slash = 0;
	}
	snprintf(out, len, "%s", real);
	return 0;
}

int sandbox_compiler_sees(const char *real)
{
	/* asked for every file a compile's line markers name: the toolkit's
	 * folder (a search of PATH) found once */
	static char tk[PATH_MAX];
	static int known;
	if (!known) {
		if (toolkit_dir(tk, sizeof(tk)) < 0)
			tk[0] = 0;
		known = 1;
	}
	return in_software(real) || (tk[0] && path_under(real, tk));
}

/* cudalab-box-exec: beside the running program, or one folder up (the unit
 * tests run from build/tests/). */
static int find_init(char *out, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return -1;
	self[n] = 0;
	for (int up = 0; up < 2; up++) {
		char *slash = strrchr(self, '/');
		if (!slash)
			return -1;
		*slash = 0;
		snprintf(out, len, "%s/cudalab-box-exec", self);
		if (access(out, X_OK) == 0)
			return 0;
	}
	return -1;
}

/* "--perms 0755 --dir D" for each folder above path not made yet. */
static int parents(struct sandbox *sb, const char **a, int k, int *nd,
		   const char *path)
{
	for (const char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
		if (*nd >= 96 || k + 5 >= SANDBOX_MAX_ARGS)
			return k;
		int len = (int)(p - path), seen = 0;
		for (int i = 0; i < *nd && !seen; i++)
			seen = (int)strlen(sb->dirs[i]) == len &&
			       !strncmp(sb->dirs[i], path, (size_t)len);
		if (seen)
			continue;
		snprintf(sb->dirs[*nd], PATH_MAX, "%.*s", len, path);
		a[k++] = "--perms";
		a[k++] = "0755";
		a[k++] = "--dir";
		a[k++] = sb->dirs[(*nd)++];
	}
	return k;
}

/* The command line being built by sandbox_argv (its strings live in sb). */
struct box_args {
	struct sandbox *sb;
	int k, np, nn, nd;
};

static void box_add(struct box_args *x, const char *s)
{
	if (x->k < SANDBOX_MAX_ARGS - 1)
		x->sb->argv[x->k++] = s;
}

/* how, then p twice (source and destination) */
static void box_bind(struct box_args *x, const char *how, const char *p)
{
	box_add(x, how);
	box_add(x, p);
	box_add(x, p);
}

static void box_num(struct box_args *x, long v)
{
	if (x->nn >= 12)
		return;
	snprintf(x->sb->nums[x->nn], sizeof(x->sb->nums[x->nn]), "%ld", v);
	box_add(x, x->sb->nums[x->nn++]);
}

#define ADD(s) box_add(x, (s))
#define BIND(how, p) box_bind(x, (how), (p))
#define NUM(v) box_num(x, (long)(v))

/* bwrap, its namespaces and the capabilities kept. */
static void box_isolation(struct box_args *x)
{
	struct sandbox *sb = x->sb;
	ADD(sb->bwrap);
	/* namespaces: a user namespace only for an ordinary user (as root,
	 * the real uid switch in cudalab-box-exec needs the host's uids) */
	if (!sb->as_root)
		ADD("--unshare-user");
	ADD("--unshare-pid");
	ADD("--unshare-net");
	ADD("--unshare-ipc");
	ADD("--unshare-uts");
	ADD("--unshare-cgroup-try");
	ADD("--die-with-parent");
	ADD("--new-session");
	ADD("--cap-drop");
	ADD("ALL");
	if (sb->as_root) {
		static const char *const keep[] = {"CAP_SETUID", "CAP_SETGID",
						   "CAP_SETPCAP", NULL};
		for (const char *const *c = keep; *c; c++) {
			ADD("--cap-add");
			ADD(*c);
		}
	}
}

/* What the box sees: the system read-only, /proc, /dev (the GPU's
 * devices when asked), a /tmp, the libraries, the box's own folders. */
static void box_mounts(struct box_args *x, const struct box *b)
{
	struct sandbox *sb = x->sb;
	static const char *const system_dirs[] = {
		"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc",
		"/opt", "/sys", NULL};
	/* a compiler's view: software only (sandbox.h, box.compiler_view) */
	static const char *const software_dirs[] = {
		"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", NULL};
	int covered = 0;
	for (const char *const *d = b->compiler_view ? software_dirs
						     : system_dirs;
	     *d; d++)
		if (is_dir(*d)) {
			BIND("--ro-bind", *d);
			size_t n = strlen(*d);
			covered |= sb->hide[0] && !strncmp(sb->hide, *d, n) &&
				   sb->hide[n] == '/';
		}
	if (covered) { /* the tree is inside a shown folder: cover it */
		ADD("--tmpfs");
		ADD(sb->hide);
	}
	if (b->compiler_view) {
		/* no /proc, /sys, /etc, /opt; of /dev only null; the toolkit
		 * where it lies outside /usr (its real folder, sandbox.h) */
		if (toolkit_dir(sb->paths[x->np], PATH_MAX) == 0)
			BIND("--ro-bind", sb->paths[x->np++]);
		ADD("--perms");
		ADD("0755");
		ADD("--dir");
		ADD("/dev");
		BIND("--dev-bind", "/dev/null");
	} else {
		ADD("--proc");
		ADD("/proc");
		ADD("--dev");
		ADD("/dev");
	}
	glob_t g;
	if (b->gpu && glob("/dev/nvidia*", 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc && x->np < 24; i++) {
			snprintf(sb->paths[x->np], PATH_MAX, "%s", g.gl_pathv[i]);
			BIND("--dev-bind", sb->paths[x->np]);
			x->np++;
		}
		globfree(&g);
	}
	ADD("--perms");
	ADD("1777");
	if (b->tmp_bytes > 0) {
		ADD("--size");
		NUM(b->tmp_bytes);
	}
	ADD("--tmpfs");
	ADD("/tmp");
	/* libraries found through LD_LIBRARY_PATH (e.g. a local jansson) */
	const char *lib = getenv("LD_LIBRARY_PATH");
	while (lib && *lib && x->np < 46) {
		size_t n = strcspn(lib, ":");
		snprintf(sb->paths[x->np], PATH_MAX, "%.*s", (int)n, lib);
		char real[PATH_MAX];
		/* a compile box has no /etc, so a folder reached through a link
		 * (/usr/local/cuda -> /etc/alternatives/cuda) is bound at its
		 * real path (build.c gives the compile its real paths), and
		 * not at all when the software folders show it already */
		if (b->compiler_view && n && realpath(sb->paths[x->np], real)) {
			if (in_software(real))
				sb->paths[x->np][0] = 0;
			else
				snprintf(sb->paths[x->np], PATH_MAX, "%s", real);
		}
		if (n && sb->paths[x->np][0] == '/' && is_dir(sb->paths[x->np]))
			BIND("--ro-bind", sb->paths[x->np++]);
		lib += n + (lib[n] == ':');
	}
	for (int i = 0; i < b->nro; i++)
		x->k = parents(sb, sb->argv, x->k, &x->nd, b->ro[i]);
	x->k = parents(sb, sb->argv, x->k, &x->nd, sb->init);
	if (b->rw)
		x->k = parents(sb, sb->argv, x->k, &x->nd, b->rw);
	for (int i = 0; i < b->nro; i++)
		BIND("--ro-bind", b->ro[i]);
	BIND("--ro-bind", sb->init);
	if (b->report) { /* at /report: a top-level entry Landlock can hide */
		ADD("--bind");
		ADD(b->report);
		ADD(SANDBOX_REPORT);
	}
	if (b->rw) {
		BIND("--bind", b->rw);
		ADD("--chdir");
		ADD(b->rw);
	} else {
		ADD("--chdir");
		ADD("/tmp");
	}
	/* the box's own root (a tmpfs holding the folders above the binds)
	 * read-only: only /tmp, box.rw and box.report take writes */
	ADD("--remount-ro");
	ADD("/");
	ADD("--");
}

/* What runs in the box: the tool (if any), cudalab-box-exec with its
 * uid and limits, then the program. */
static void box_exec(struct box_args *x, const struct box *b,
		     const char *const *tool_argv, const char *const *argv)
{
	struct sandbox *sb = x->sb;
	if (tool_argv) {
		/* root: drop to box.uid before the tool (the tool and the
		 * program must share a uid, sandbox.h) */
		if (sb->as_root) {
			ADD(sb->init);
			ADD("--uid");
			NUM(b->uid);
			ADD("--gid");
			NUM(b->gid);
			if (b->keep_fd >= 0) {
				ADD("--keep-fd");
				NUM(b->keep_fd);
			}
			if (b->lock_fd >= 0) {
				ADD("--keep-fd");
				NUM(b->lock_fd);
			}
			ADD("--");
		}
		for (int i = 0; tool_argv[i]; i++)
			ADD(tool_argv[i]);
		ADD(sb->init);
	} else {
		ADD(sb->init);
		if (sb->as_root) {
			ADD("--uid");
			NUM(b->uid);
			ADD("--gid");
			NUM(b->gid);
		}
	}
	if (b->data_bytes) {
		ADD("--data");
		NUM(b->data_bytes);
	}
	if (b->nproc && sb->as_root) { /* as a user, the runner's count */
		ADD("--nproc");
		NUM(b->nproc);
	}
	if (b->file_bytes) {
		ADD("--fsize");
		NUM(b->file_bytes);
	}
	if (tool_argv && b->report) { /* the tool's report: out of reach */
		ADD("--close-under");
		ADD(SANDBOX_REPORT);
		ADD("--hide");
		ADD(SANDBOX_REPORT);
	} else {
		if (b->keep_fd >= 0) {
			ADD("--keep-fd");
			NUM(b->keep_fd);
		}
		if (b->lock_fd >= 0) {
			ADD("--keep-fd");
			NUM(b->lock_fd);
		}
	}
	ADD("--");
	for (int i = 0; argv[i]; i++)
		ADD(argv[i]);
}

#undef ADD
#undef BIND
#undef NUM

const char *const *sandbox_argv(struct sandbox *sb, const struct box *b,
				const char *const *tool_argv,
				const char *const *argv)
{
	struct box_args x = {.sb = sb};
	box_isolation(&x);
	box_mounts(&x, b);
	box_exec(&x, b, tool_argv, argv);
	sb->argv[x.k] = NULL;
	return sb->argv;
}

int sandbox_folder(const struct sandbox *sb, long uid, const char *parent,
		   int for_report, char *out, size_t len)
{
	if (mkdirs(parent) < 0)
		return -1;
	snprintf(out, len, "%s/%s-XXXXXX", parent, for_report ? "report" : "box");
	if (!mkdtemp(out))
		return -1;
	if (sb && sb->as_root &&
	    chown(out, (uid_t)uid, (gid_t)uid) < 0)
		return -1;
	/* the program's folder 0755: bwrap, root without CAP_DAC_OVERRIDE,
	 * must enter it; the report's 0700 */
	return chmod(out, for_report ? 0700 : 0755);
}

void sandbox_remove(const char *path)
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
		sandbox_remove(sub);
	}
	closedir(d);
	rmdir(path);
}

int sandbox_probe(struct sandbox *sb, const char *const *probe_argv,
		  const char *must_print)
{
	memset(sb, 0, sizeof(*sb));
	sb->as_root = geteuid() == 0;
	const char *named = getenv("CUDALAB_BWRAP");
	if (named && *named) {
		snprintf(sb->bwrap, sizeof(sb->bwrap), "%s", named);
		if (access(sb->bwrap, X_OK) < 0) {
			snprintf(sb->reason, sizeof(sb->reason),
				 "bubblewrap is not installed at %s "
				 "(CUDALAB_BWRAP)", named);
			return 0;
		}
	} else if (find_on_path("bwrap", sb->bwrap, sizeof(sb->bwrap)) < 0) {
		snprintf(sb->reason, sizeof(sb->reason),
			 "bubblewrap is not installed (Debian package "
			 "bubblewrap)");
		return 0;
	}
	if (find_init(sb->init, sizeof(sb->init)) < 0) {
		snprintf(sb->reason, sizeof(sb->reason),
			 "cudalab-box-exec is missing beside the grader (run "
			 "`make`)");
		return 0;
	}
	/* can the program be kept out of a tool's report here (Landlock)? */
	struct child h = CHILD_INIT;
	const char *hargv[] = {sb->init, "--hide", "/nonexistent-cudalab",
			       "--", "/bin/true", NULL};
	h.argv = hargv;
	h.wall_limit_s = 10;
	sb->landlock = child_run(&h) == 0 && h.exited && h.exit_code == 0;
	child_release(&h);
	struct box b;
	box_for_run(&b);
	box_ro(&b, probe_argv[0]);
	struct child c = CHILD_INIT;
	c.argv = sandbox_argv(sb, &b, NULL, probe_argv);
	c.wall_limit_s = 60;
	child_run(&c);
	if (c.exited && c.exit_code == 0 &&
	    (!must_print || strstr(strbuf_str(&c.out), must_print))) {
		sb->on = 1;
	} else if (c.exited && c.exit_code == 0) {
		snprintf(sb->reason, sizeof(sb->reason),
			 "the probe ran under bubblewrap but did not find what "
			 "it needs (no CUDA device inside?): %.200s",
			 strbuf_str(&c.out));
	} else {
		char how[128];
		const char *out = strbuf_str(&c.out);
		const char *last = out + strlen(out);
		while (last > out && last[-1] == '\n')
			last--;
		const char *start = last;
		while (start > out && start[-1] != '\n')
			start--;
		snprintf(sb->reason, sizeof(sb->reason),
			 "bubblewrap cannot run a program here (%s): %.*s",
			 c.error[0] ? c.error
				    : child_describe_end(&c, how, sizeof(how)),
			 (int)(last - start), start);
	}
	child_release(&c);
	return sb->on;
}
