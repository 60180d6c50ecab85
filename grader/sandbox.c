/* sandbox — bubblewrap around a step program; see sandbox.h. */
#include "sandbox.h"
#include "runner.h"

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

const char *const *sandbox_argv(struct sandbox *sb, const char *const *argv)
{
	int k = 0, np = 0;
	const char **a = sb->argv;
#define ADD(s) (k < SANDBOX_MAX_ARGS - 1 ? (void)(a[k++] = (s)) : (void)0)
	ADD(sb->bwrap);
	ADD("--unshare-all");
	ADD("--die-with-parent");
	static const char *const system_dirs[] = {
		"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc",
		"/opt", NULL};
	for (const char *const *d = system_dirs; *d; d++)
		if (is_dir(*d)) {
			ADD("--ro-bind");
			ADD(*d);
			ADD(*d);
		}
	ADD("--ro-bind");
	ADD("/sys");
	ADD("/sys");
	ADD("--proc");
	ADD("/proc");
	ADD("--dev");
	ADD("/dev");
	glob_t g;
	if (glob("/dev/nvidia*", 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc && np < 40; i++) {
			snprintf(sb->paths[np], PATH_MAX, "%s", g.gl_pathv[i]);
			ADD("--dev-bind");
			ADD(sb->paths[np]);
			ADD(sb->paths[np]);
			np++;
		}
		globfree(&g);
	}
	ADD("--tmpfs");
	ADD("/tmp");
	/* libraries found through LD_LIBRARY_PATH (e.g. a local jansson) */
	const char *lib = getenv("LD_LIBRARY_PATH");
	while (lib && *lib && np < 46) {
		size_t n = strcspn(lib, ":");
		snprintf(sb->paths[np], PATH_MAX, "%.*s", (int)n, lib);
		if (n && sb->paths[np][0] == '/' && is_dir(sb->paths[np])) {
			ADD("--ro-bind");
			ADD(sb->paths[np]);
			ADD(sb->paths[np]);
			np++;
		}
		lib += n + (lib[n] == ':');
	}
	/* the folder of the program itself */
	snprintf(sb->paths[47], PATH_MAX, "%s", argv[0]);
	char *slash = strrchr(sb->paths[47], '/');
	if (slash && slash != sb->paths[47]) {
		*slash = 0;
		ADD("--ro-bind");
		ADD(sb->paths[47]);
		ADD(sb->paths[47]);
	}
	ADD("--chdir");
	ADD("/tmp");
	ADD("--");
	for (int i = 0; argv[i]; i++)
		ADD(argv[i]);
	a[k] = NULL;
#undef ADD
	return sb->argv;
}

int sandbox_probe(struct sandbox *sb, const char *const *probe_argv,
		  const char *must_print)
{
	memset(sb, 0, sizeof(*sb));
	if (find_on_path("bwrap", sb->bwrap, sizeof(sb->bwrap)) < 0) {
		snprintf(sb->reason, sizeof(sb->reason),
			 "bubblewrap is not installed (Debian package "
			 "bubblewrap)");
		return 0;
	}
	struct child c = CHILD_INIT;
	c.argv = sandbox_argv(sb, probe_argv);
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
			 "bubblewrap cannot run a CUDA program here (%s): %.*s",
			 c.error[0] ? c.error
				    : child_describe_end(&c, how, sizeof(how)),
			 (int)(last - start), start);
	}
	child_release(&c);
	return sb->on;
}
