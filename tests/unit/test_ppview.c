/* ppview: the student's directives as GCC's preprocessor saw them
 * (grader/ppview.h). Each case runs the real GCC preprocessor on a small
 * file twice, as the grader does: once as nvcc's host pass does (the
 * output cudafe++ reads), once with ppview_flags (the view). The forced
 * header stands in for nvcc's -include cuda_runtime.h. The CLI and GPU
 * suites run the same attacks through nvcc and the grader. */
#include "check.h"
#include "ppview.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[] = "/tmp/cudalab-ppview-XXXXXX";

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = malloc((size_t)n + 1);
	if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
		free(s);
		s = NULL;
	}
	if (s)
		s[n] = 0;
	fclose(f);
	return s;
}

/* The problems ppview finds in text (as kernel.cu), joined by " | ";
 * -1 when GCC could not run. */
static int check_text(const char *text, char *joined, size_t len)
{
	char src[PATH_MAX], cmd[PATH_MAX * 4], ii[PATH_MAX], view[PATH_MAX],
		msgs[PATH_MAX];
	snprintf(src, sizeof(src), "%s/kernel.cu", dir);
	snprintf(ii, sizeof(ii), "%s/kernel.cpp4.ii", dir);
	snprintf(view, sizeof(view), "%s/hostview.ii", dir);
	snprintf(msgs, sizeof(msgs), "%s/hostview.log", dir);
	FILE *f = fopen(src, "w");
	if (!f)
		return -1;
	fputs(text, f);
	fclose(f);
	static const char base[] = "g++ -std=c++17 -E -x c++ -include cstdio";
	snprintf(cmd, sizeof(cmd), "%s %s -o %s 2>/dev/null", base, src, ii);
	if (system(cmd) != 0)
		return -1;
	size_t k = (size_t)snprintf(cmd, sizeof(cmd), "%s %s", base, src);
	for (const char *const *fl = ppview_flags; *fl; fl++)
		k += (size_t)snprintf(cmd + k, sizeof(cmd) - k, " %s", *fl);
	snprintf(cmd + k, sizeof(cmd) - k, " -o %s > %s 2>&1", view, msgs);
	if (system(cmd) != 0)
		return -1;
	snprintf(cmd, sizeof(cmd), "%s -P %s -o %s.p 2>/dev/null", base, src,
		 ii);
	if (system(cmd) != 0)
		return -1;
	char plainp[PATH_MAX + 2];
	snprintf(plainp, sizeof(plainp), "%s.p", ii);
	char *a = slurp(ii), *b = slurp(view), *c = slurp(msgs),
	     *d = slurp(plainp);
	struct objcheck_problem items[16];
	struct objcheck_list list = {items, 0, 16};
	if (a && b && c && d)
		ppview_check(&(struct ppview_input){a, b, c, d, "kernel.cu"},
			     &list);
	free(d);
	free(a);
	free(b);
	free(c);
	joined[0] = 0;
	for (int i = 0; i < list.count && i < list.max; i++)
		snprintf(joined + strlen(joined), len - strlen(joined), "%s%s",
			 i ? " | " : "", items[i].message);
	return list.count;
}

struct want {
	const char *what, *text, *message; /* message NULL: clean */
};

static const struct want cases[] = {
	{"an honest kernel file with includes, guards, NDEBUG and a block size",
	 "#ifndef KERNEL_CU\n#define KERNEL_CU\n#define NDEBUG\n#define BLOCK "
	 "256\n#define EPS 1e-6f\n#include <cstdio>\n#include <cmath>\n"
	 "#define CHECK(x) do { if (!(x)) printf(\"bad\\n\"); } while (0)\n"
	 "#define N (1 << 20)\nstatic const char *s = R\"x(one line)x\";\n"
	 "int f(int a) { CHECK(a); return a * BLOCK; }\n#endif\n",
	 NULL},
	{"numbers and operators before the includes: (1 << 20), -1, (256)",
	 "#define N (1 << 20)\n#define NEG -1\n#define B (256)\n"
	 "#define M ((1 << 20) / 4 * 3 + 0x1p-3)\n#include <cstdio>\nint x;\n",
	 NULL},
	{"a name in a macro before the includes is still refused",
	 "#define N (1 << SHIFT)\n#include <cstdio>\nint x;\n",
	 "before the #include"},
	{"a macro that expands to # makes a line marker for cudafe++",
	 "#include <cstdio>\n#define HASH #\n#define NOTHING\n"
	 "NOTHING HASH 1 \"/usr/include/stdio.h\" 3\nint x;\n",
	 "kernel.cu:4: a macro made a line that starts with #"},
	{"the same with the digraph %:",
	 "#include <cstdio>\n#define HASH %:\n#define NOTHING\n"
	 "NOTHING HASH 1 \"/usr/include/stdio.h\" 3\nint x;\n",
	 "a macro made a line that starts with %:"},
	{"a macro made # inside a function-like macro's arguments",
	 "#define HASH #\n#define ID(x) x\nint a;\nID(\nHASH 1 \"/usr/include/"
	 "stdio.h\" 3\n)\nint x;\n",
	 "a macro made a line that starts with #"},
	{"a header's raw string over several lines (not the student's)",
	 "#include \"ptx_in_raw.h\"\nint x;\n", NULL},
	{"a macro's # at column 1 after a system header's token (red team: "
	 "GCC starts a new line at the switch and indents by the column)",
	 "#include <cstddef>\n#define HASH #\nstatic void *const p = NULL\n"
	 "HASH 1 \"/usr/include/stdio.h\" 1 3\n;\nint x;\n",
	 "a macro made a line that starts with #"},
	{"the same right after a guarded #include",
	 "#include <cstddef>\n#define HASH #\nstatic void *const p = NULL\n"
	 "#include <cstddef>\nHASH 1 \"/usr/include/stdio.h\" 1 3\n;\n",
	 "a macro made a line that starts with #"},
	{"a GNU line marker that enters a header",
	 "#include <stdio.h>\n# 1 \"/usr/include/stdio.h\" 1 3\nint x;\n",
	 "kernel.cu:2: a line directive"},
	{"a GNU line marker after a pedantic pragma",
	 "#pragma GCC diagnostic ignored \"-Wpedantic\"\n# 1 \"/usr/include/"
	 "stdio.h\" 3\nint x;\n",
	 "a line directive"},
	{"the pedantic pragma itself",
	 "_Pragma(\"GCC diagnostic ignored \\\"-Wpedantic\\\"\")\nint x;\n",
	 "#pragma GCC diagnostic on -Wpedantic"},
	{"#line with a file name",
	 "int a;\n#line 40 \"/usr/include/stdio.h\"\nint x;\n",
	 "a line directive"},
	{"#line into <command-line> first",
	 "int a;\n#line 1 \"<command-line>\"\n#line 1 \"/usr/include/stdio.h\"\n"
	 "int x;\n",
	 "a line directive"},
	{"#undef of a library macro before its header",
	 "#undef _GLIBCXX_END_NAMESPACE_VERSION\n#define "
	 "_GLIBCXX_END_NAMESPACE_VERSION __asm__(\"nop\");\n#include "
	 "<numeric>\n",
	 "#undef _GLIBCXX_END_NAMESPACE_VERSION before the #include"},
	{"a function-like macro before an include",
	 "#define F(x) g(x)\n#include <numeric>\n",
	 "#define F before the #include"},
	{"function-like macros of parameters and operators (2026-11-27)",
	 "#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))\n"
	 "#define MAX(a,b) ((a) > (b) ? (a) : (b))\n#include <numeric>\n"
	 "int f(int a) { return CEIL_DIV(a, 4) + MAX(a, 1); }\n",
	 NULL},
	{"a function-like macro with a reserved name",
	 "#define __x(a) (a)\n#include <numeric>\n",
	 "#define __x before the #include"},
	{"#undef NDEBUG before <cassert> (its switch, 2026-11-27)",
	 "#undef NDEBUG\n#include <cassert>\nint f(int a) { assert(a); "
	 "return a; }\n",
	 NULL},
	{"#undef NDEBUGX before an include",
	 "#undef NDEBUGX\n#include <cassert>\n",
	 "#undef NDEBUGX before the #include"},
	{"a macro before an include, spelt with a splice and a comment",
	 "#def\\\nine /* c */ X \\\n (1 + Y)\n#include <numeric>\n",
	 "#define X before the #include"},
	{"a multi-line raw string holding a fake line marker",
	 "static const char *s = R\"x(\n# 1 \"/usr/include/stdio.h\" 1 3\n)x\";\n"
	 "#include <numeric>\n",
	 "a raw string literal over several lines"},
	{"a raw string with a quote in its delimiter over several lines",
	 "static const char *s = R\"a\"b(\n# 1 \"/usr/include/stdio.h\" 1 3\n)"
	 "a\"b\";\n#include <numeric>\n",
	 "a raw string literal over several lines"},
};

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	char got[8192], hdr[PATH_MAX];
	/* a header of the system's kind with its text in a raw string over
	 * several lines (CCCL writes its PTX so) */
	snprintf(hdr, sizeof(hdr), "%s/ptx_in_raw.h", dir);
	FILE *h = fopen(hdr, "w");
	if (h) {
		fputs("#pragma once\nstatic const char *ptx = R\"YYY(\n"
		      ".reg .b32 r;\nmov.b32 r, 1;\n)YYY\";\n",
		      h);
		fclose(h);
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct want *w = &cases[i];
		int n = check_text(w->text, got, sizeof(got));
		if (!w->message)
			CHECK(n == 0, "clean: %s (%d: %s)", w->what, n, got);
		else
			CHECK(n > 0 && strstr(got, w->message),
			      "found: %s -> '%s' (%d: %s)", w->what, w->message,
			      n, got);
	}
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		return 1;
	return check_done();
}
