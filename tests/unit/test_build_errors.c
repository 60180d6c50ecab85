/* build_errors: build_steps() on an error path (issue 19) kills and reaps
 * every compiler it started and leaves no temporary folder behind. Step A
 * (saxpy v1) starts compiling; step B's folder cannot be made (a file
 * stands where its parent must be), so build_steps() fails while A's nvcc
 * runs. Afterwards this process has no child left at all, and A left no
 * .tmp folder and no cache entry. Skipped where nvcc is missing. */
#include "build.h"
#include "check.h"
#include "manifest.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Entries of dir whose name starts with prefix and contains part. */
static int count_entries(const char *dir, const char *prefix, const char *part)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	while (d && (e = readdir(d)))
		n += !strncmp(e->d_name, prefix, strlen(prefix)) &&
		     strstr(e->d_name, part) != NULL;
	if (d)
		closedir(d);
	return n;
}

int main(void)
{
	char cwd[PATH_MAX];
	if (!getcwd(cwd, sizeof(cwd)))
		return 1;
	char err[2048] = "", lab_dir[PATH_MAX + 16], build_dir[PATH_MAX + 32];
	snprintf(lab_dir, sizeof(lab_dir), "%s/labs/saxpy", cwd);
	/* beside test_build_box's: the harness objects are shared */
	snprintf(build_dir, sizeof(build_dir), "%s/build/test-build-box", cwd);
	struct build_env env = {.root = cwd, .build_dir = build_dir,
				.nvcc = "nvcc", .jobs = 2,
				.compile_limit_s = 300, .arch = "sm_90"};
	if (build_env_init(&env, err, sizeof(err)) < 0) {
		CHECK_SKIP("build error path # SKIP %s", err);
		return check_done();
	}
	struct lab_manifest lab;
	if (manifest_load(lab_dir, &lab, err, sizeof(err)) < 0) {
		CHECK(0, "saxpy's manifest loads: %s", err);
		return check_done();
	}
	/* a fresh source for A, so no cache entry answers for it */
	char src[PATH_MAX + 64], text[PATH_MAX * 2];
	snprintf(src, sizeof(src), "%s/errpath-%d", build_dir, (int)getpid());
	snprintf(text, sizeof(text), "mkdir -p %s", src);
	if (system(text) != 0)
		return 1;
	snprintf(text, sizeof(text), "cp %s/solutions/saxpy/saxpy_v1.cu "
		 "%s/saxpy_v1.cu && echo '// %d' >> %s/saxpy_v1.cu", cwd, src,
		 (int)getpid(), src);
	if (system(text) != 0)
		return 1;
	/* B's define names a folder whose parent is a file */
	char define[64], blocker[PATH_MAX * 2];
	snprintf(define, sizeof(define), "E%d=x/y", (int)getpid());
	char steps_dir[PATH_MAX + 64];
	snprintf(steps_dir, sizeof(steps_dir), "%s/steps/saxpy", build_dir);
	snprintf(text, sizeof(text), "mkdir -p %s", steps_dir);
	if (system(text) != 0)
		return 1;
	snprintf(blocker, sizeof(blocker), "%s/v1-DE%d=x", steps_dir,
		 (int)getpid());
	FILE *f = fopen(blocker, "w");
	if (f)
		fclose(f);

	struct step_build b[2];
	memset(b, 0, sizeof(b));
	for (int i = 0; i < 2; i++) {
		b[i].step = &lab.steps[0];
		snprintf(b[i].source, sizeof(b[i].source), "%s/saxpy_v1.cu", src);
	}
	snprintf(b[1].define, sizeof(b[1].define), "%s", define);
	int rc = build_steps(&env, &lab, b, 2, err, sizeof(err));
	CHECK(rc == -1 && strstr(err, "cannot create"),
	      "a step folder that cannot be made fails the build, saying so "
	      "(%s)", err);
	errno = 0;
	pid_t left = waitpid(-1, NULL, WNOHANG);
	CHECK(left == -1 && errno == ECHILD,
	      "no compiler is left running or unreaped after the failure "
	      "(waitpid: %d)", (int)left);
	char pid_tag[32];
	snprintf(pid_tag, sizeof(pid_tag), ".tmp%d", (int)getpid());
	CHECK(count_entries(steps_dir, "v1-", pid_tag) == 0,
	      "no temporary step folder is left behind");
	for (int i = 0; i < 2; i++)
		step_build_release(&b[i]);
	unlink(blocker);
	snprintf(text, sizeof(text), "rm -rf %s", src);
	if (system(text) != 0)
		return 1;
	manifest_free(&lab);
	return check_done();
}
