/* build_box: nvcc on a student's file runs in the compile box (build.h,
 * sandbox.h: box_for_compile), through the grader's real build path
 * (build_steps), with no lint in front. An include of the instructor's
 * solution (relative or absolute) or an .incbin of a file of the tree must
 * fail to compile; the honest starter must still build. Skipped where the
 * sandbox cannot start or nvcc is missing. */
#include "build.h"
#include "check.h"
#include "manifest.h"
#include "sandbox.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char cwd[PATH_MAX];

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

int main(void)
{
	if (!getcwd(cwd, sizeof(cwd)))
		return 1;
	struct sandbox *sb = calloc(1, sizeof(*sb));
	const char *probe[] = {"/bin/true", NULL};
	sandbox_probe(sb, probe, NULL);
	char err[2048], lab_dir[PATH_MAX + 16], build_dir[PATH_MAX + 32];
	snprintf(lab_dir, sizeof(lab_dir), "%s/labs/saxpy", cwd);
	snprintf(build_dir, sizeof(build_dir), "%s/build/test-build-box", cwd);
	struct build_env env = {.root = cwd, .build_dir = build_dir,
				.nvcc = "nvcc", .jobs = 2,
				.compile_limit_s = 300, .arch = "sm_90"};
	if (!sb->on || build_env_init(&env, err, sizeof(err)) < 0) {
		CHECK_SKIP("compile box # SKIP %s", sb->on ? err : sb->reason);
		return check_done();
	}
	env.sb = sb;
	struct lab_manifest lab;
	if (manifest_load(lab_dir, &lab, err, sizeof(err)) < 0) {
		CHECK(0, "saxpy's manifest loads: %s", err);
		return check_done();
	}
	/* the student's folder sits deep in the tree, like OUT/work/S/LAB */
	char dir[PATH_MAX + 64], f[6][PATH_MAX + 96], text[PATH_MAX * 2];
	snprintf(dir, sizeof(dir), "%s/student-%d", build_dir, (int)getpid());
	char cmd[PATH_MAX * 2];
	snprintf(cmd, sizeof(cmd), "mkdir -p %s", dir);
	if (system(cmd) != 0)
		return 1;
	for (int i = 0; i < 6; i++)
		snprintf(f[i], sizeof(f[i]), "%s/case%d/saxpy_v1.cu", dir, i);
	for (int i = 0; i < 6; i++) {
		snprintf(cmd, sizeof(cmd), "mkdir -p %s/case%d", dir, i);
		if (system(cmd) != 0)
			return 1;
	}
	/* 0: relative include of the solution, from where the file sits */
	put(f[0], "#include \"../../../../solutions/saxpy/saxpy_v1.cu\"\n");
	/* 1: absolute include */
	snprintf(text, sizeof(text), "#include \"%s/solutions/saxpy/saxpy_v1.cu\"\n",
		 cwd);
	put(f[1], text);
	/* 3: the honest starter */
	snprintf(text, sizeof(text), "%s/labs/saxpy/saxpy_v1.cu", cwd);
	FILE *in = fopen(text, "r");
	char buf[65536];
	size_t n = in ? fread(buf, 1, sizeof(buf) - 1, in) : 0;
	buf[n] = 0;
	if (in)
		fclose(in);
	put(f[3], buf);
	/* 2: the starter plus an .incbin of a file of the tree */
	snprintf(text, sizeof(text),
		 "%s\nasm(\".section .rodata\\n.incbin \\\"%s/grader/sandbox.c\\\"\\n.text\");\n",
		 buf, cwd);
	put(f[2], text);

	/* 4: 445 bytes that make nvcc print 17 MB (a 4 MiB string, twice) */
	struct strbuf big = STRBUF_INIT;
	strbuf_addf(&big, "#define A0 \"%064d\"\n", 0);
	for (int i = 1; i <= 16; i++)
		strbuf_addf(&big, "#define A%d A%d A%d\n", i, i - 1, i - 1);
	strbuf_addf(&big, "static_assert(sizeof(int) == 3, A16);\n"
			  "static_assert(sizeof(int) == 5, A16);\n");
	put(f[4], strbuf_str(&big));
	strbuf_release(&big);

	/* 5: a symbolic link to the solution (a bind would show its target) */
	snprintf(text, sizeof(text), "%s/solutions/saxpy/saxpy_v1.cu", cwd);
	if (symlink(text, f[5]) < 0)
		return 1;

	struct step_build b[6];
	memset(b, 0, sizeof(b));
	const struct step_spec *v1 = manifest_step(&lab, "v1");
	for (int i = 0; i < 6; i++) {
		b[i].step = v1;
		snprintf(b[i].source, sizeof(b[i].source), "%s", f[i]);
	}
	int rc = build_steps(&env, &lab, b, 6, err, sizeof(err));
	CHECK(rc == 0, "build_steps runs (%s)", rc ? err : "");
	const char *what[] = {"a relative #include of solutions/",
			      "an absolute #include of solutions/",
			      "an .incbin of the grader's source"};
	/* the .incbin's goal: the grader's text inside the object */
	char obj[PATH_MAX * 2], grep[PATH_MAX * 3];
	snprintf(obj, sizeof(obj), "%s/student.o", b[2].dir);
	snprintf(grep, sizeof(grep), "grep -qs bubblewrap %s", obj);
	CHECK(!b[2].ok && strstr(strbuf_str(&b[2].log), "file not found") &&
		      system(grep) != 0,
	      "an .incbin of the grader's source does not assemble in the "
	      "box: the file is not there (log: %.300s)",
	      strbuf_str(&b[2].log));
	for (int i = 0; i < 2; i++)
		CHECK(!b[i].ok && (strstr(strbuf_str(&b[i].log), "cannot open") ||
				   strstr(strbuf_str(&b[i].log), "No such file")),
		      "%s does not compile in the box: the file is not there "
		      "(log: %.300s)", what[i], strbuf_str(&b[i].log));
	CHECK(b[3].ok, "the honest starter compiles in the box (log: %.500s)",
	      strbuf_str(&b[3].log));
	char *diag = json_dumps(b[4].diagnostics, JSON_COMPACT);
	size_t dlen = diag ? strlen(diag) : 0;
	free(diag);
	CHECK(!b[4].ok && b[4].log.len <= BUILD_LOG_LIMIT + 100 &&
		      strstr(strbuf_str(&b[4].log), "compiler output cut") &&
		      dlen < 4 * BUILD_LOG_LIMIT,
	      "a 445-byte file whose errors run to 17 MB keeps at most %d "
	      "bytes of compiler output, and says it cut (log %zu, "
	      "diagnostics %zu bytes)", BUILD_LOG_LIMIT, b[4].log.len, dlen);
	CHECK(!b[5].ok && strstr(strbuf_str(&b[5].log), "symbolic link"),
	      "a step file that is a symbolic link (to the solution) is not "
	      "compiled (log: %.200s)", strbuf_str(&b[5].log));
	for (int i = 0; i < 6; i++)
		step_build_release(&b[i]);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", build_dir);
	if (system(cmd) != 0)
		return 1;
	manifest_free(&lab);
	free(sb);
	return check_done();
}
