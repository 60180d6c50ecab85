/* paths — where the grader writes; see paths.h. */
#include "paths.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* path is writable for this user, or does not exist and its parent is. */
static int can_write(const char *path, const char *parent)
{
	if (access(path, F_OK) == 0)
		return access(path, W_OK | X_OK) == 0;
	return access(parent, W_OK | X_OK) == 0;
}

static int fits(char *out, size_t len, const char *a, const char *b)
{
	return snprintf(out, len, "%s%s", a, b) < (int)len;
}

int paths_resolve(struct paths *p, const char *root, const char *build_flag,
		  char *err, size_t errlen)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		snprintf(p->bin, sizeof(p->bin), "%s", dirname(exe));
	} else if (!fits(p->bin, sizeof(p->bin), root, "/build")) {
		goto too_long;
	}
	const char *env = getenv("CUDALAB_BUILD");
	const char *build = build_flag && *build_flag ? build_flag
			    : env && *env		  ? env
							  : NULL;
	if (!fits(p->build, sizeof(p->build), build ? build : root,
		  build ? "" : "/build"))
		goto too_long;
	const char *state = getenv("CUDALAB_STATE");
	char dot[PATH_MAX];
	if (!fits(dot, sizeof(dot), root, "/.cudalab"))
		goto too_long;
	if (state && *state) {
		if (!fits(p->state, sizeof(p->state), state, ""))
			goto too_long;
	} else if (can_write(dot, root)) {
		snprintf(p->state, sizeof(p->state), "%s", dot);
	} else if (!fits(p->state, sizeof(p->state), p->build, "/state")) {
		goto too_long;
	}
	return 0;
too_long:
	snprintf(err, errlen, "a path under %s is too long", root);
	return -1;
}
