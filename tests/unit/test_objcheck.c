/* objcheck: rules on the compiled object and nvcc's host translation unit
 * (grader/objcheck.h). Objects are made here by the C compiler, so no nvcc
 * is needed; the CLI tests run nvcc's own objects through the grader. */
#include "check.h"
#include "lint.h"
#include "objcheck.h"
#include "strbuf.h"

#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[] = "/tmp/cudalab-objcheck-XXXXXX";

static const char *const launchers[] = {"saxpy", NULL};
static const char *const kernels[] = {"_Z11saxpy_naiveifPKfPf", NULL};
static const char *const harness[] = {"_Z7hx_emitP6json_t", NULL};

/* Compile C text into an object; its path in obj. */
static int compile(const char *name, const char *text, char *obj, size_t len)
{
	char src[PATH_MAX], cmd[PATH_MAX * 3];
	snprintf(src, sizeof(src), "%s/%s.c", dir, name);
	snprintf(obj, len, "%s/%s.o", dir, name);
	FILE *f = fopen(src, "w");
	if (!f)
		return -1;
	fputs(text, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cc -O2 -c -o %s %s 2>&1", obj, src);
	return system(cmd) == 0 ? 0 : -1;
}

/* Problems of the object compiled from text, joined by " | ". */
static int check_text(const char *name, const char *text, char *joined,
		      size_t len)
{
	char obj[PATH_MAX], err[256] = "";
	struct objcheck_problem items[16];
	struct objcheck_list list = {items, 0, 16};
	struct objcheck_rules rules = {launchers, kernels, harness};
	joined[0] = 0;
	if (compile(name, text, obj, sizeof(obj)) < 0) {
		snprintf(joined, len, "(does not compile)");
		return -1;
	}
	if (objcheck_object(obj, &rules, &list, err, sizeof(err)) < 0) {
		snprintf(joined, len, "(error: %s)", err);
		return -1;
	}
	for (int i = 0; i < list.count && i < list.max; i++) {
		strncat(joined, items[i].message, len - strlen(joined) - 1);
		strncat(joined, " | ", len - strlen(joined) - 1);
	}
	return list.count;
}

/* objcheck_source.system_file for the tests: /usr only */
static int usr_only(const char *real)
{
	return !strncmp(real, "/usr/", 5);
}

/* objcheck_host_source's problems for text as src sees it, joined. */
static int source_problems(const char *text,
			   const struct objcheck_source *src, char *joined,
			   size_t len)
{
	struct objcheck_problem items[16];
	struct objcheck_list list = {items, 0, 16};
	objcheck_host_source(text, src, &list);
	joined[0] = 0;
	for (int i = 0; i < list.count && i < list.max; i++) {
		strncat(joined, items[i].message, len - strlen(joined) - 1);
		strncat(joined, " | ", len - strlen(joined) - 1);
	}
	return list.count;
}

static int host_problems(const char *text, const char *root,
			 const char *const *ok, char *joined, size_t len)
{
	struct objcheck_source src = {"saxpy_v1.cu", root, root, ok, NULL, NULL, NULL};
	return source_problems(text, &src, joined, len);
}

/* host_problems of text as the student's own lines (a marker naming the
 * student's file first). */
static int student_lines(const char *text, const char *root,
			 const char *const *ok, char *joined, size_t len)
{
	char marked[2048];
	snprintf(marked, sizeof(marked), "# 1 \"/tmp/s/saxpy_v1.cu\"\n%s",
		 text);
	return host_problems(marked, root, ok, joined, len);
}

static void touch(const char *path)
{
	FILE *f = fopen(path, "w");
	if (f)
		fclose(f);
}

/* Line directives found in text (objcheck_line_directives), joined. */
static int directives(const char *text, char *joined, size_t len)
{
	struct objcheck_problem items[8];
	struct objcheck_list list = {items, 0, 8};
	objcheck_line_directives(text, "saxpy_v1.cu", &list);
	joined[0] = 0;
	for (int i = 0; i < list.count && i < list.max; i++) {
		strncat(joined, items[i].message, len - strlen(joined) - 1);
		strncat(joined, " | ", len - strlen(joined) - 1);
	}
	return list.count;
}

/* Every .cu and .h under root/top/LAB: how many hold a line directive
 * (their names in bad). */
static int directives_in_tree(const char *top, int *files, char *bad,
			      size_t len)
{
	char cmd[PATH_MAX];
	snprintf(cmd, sizeof(cmd), "ls %s/*/*.cu %s/*/*.h 2>/dev/null", top,
		 top);
	FILE *ls = popen(cmd, "r");
	char path[PATH_MAX];
	int found = 0;
	while (ls && fgets(path, sizeof(path), ls)) {
		path[strcspn(path, "\n")] = 0;
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		static char text[1 << 20];
		size_t n = fread(text, 1, sizeof(text) - 1, f);
		text[n] = 0;
		fclose(f);
		char got[1024];
		(*files)++;
		if (directives(text, got, sizeof(got))) {
			found++;
			strncat(bad, path, len - strlen(bad) - 1);
			strncat(bad, " ", len - strlen(bad) - 1);
		}
	}
	if (ls)
		pclose(ls);
	return found;
}


/* The CCCL include folder of the nvcc on PATH, or "" without one. */
static void cccl_folder(char *out, size_t len)
{
	out[0] = 0;
	FILE *p = popen("command -v nvcc", "r");
	char nvcc[PATH_MAX] = "", real[PATH_MAX];
	if (p && fgets(nvcc, sizeof(nvcc), p))
		nvcc[strcspn(nvcc, "\n")] = 0;
	if (p)
		pclose(p);
	if (!nvcc[0] || !realpath(nvcc, real))
		return;
	*strrchr(real, '/') = 0; /* .../bin */
	const char *tries[] = {"../include/cccl",
			       "../targets/x86_64-linux/include/cccl", NULL};
	for (int i = 0; tries[i]; i++) {
		char c[PATH_MAX * 2];
		snprintf(c, sizeof(c), "%s/%s/cuda", real, tries[i]);
		struct stat st;
		if (stat(c, &st) == 0) {
			snprintf(out, len, "%s/%s", real, tries[i]);
			return;
		}
	}
}

/* #include lines for every regular file directly in cccl/folder. */
static void include_folder(FILE *f, const char *cccl, const char *folder)
{
	char pattern[PATH_MAX * 2];
	glob_t g;
	snprintf(pattern, sizeof(pattern), "%s/%s*", cccl, folder);
	if (glob(pattern, 0, NULL, &g) != 0)
		return;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct stat st;
		int refused = 0;
		for (const char *const *r = lint_angle_refused(); *r; r++)
			refused |= !strcmp(g.gl_pathv[i] + strlen(cccl) + 1, *r);
		if (!refused && stat(g.gl_pathv[i], &st) == 0 &&
		    S_ISREG(st.st_mode))
			fprintf(f, "#include <%s>\n",
				g.gl_pathv[i] + strlen(cccl) + 1);
	}
	globfree(&g);
}

/* text compiled by the real nvcc as name.cu in dir, its intermediates
 * kept there (name.cudafe1.cpp, name.ptx, name.o); -1 when nvcc failed. */
static int nvcc_keep(const char *name, const char *text)
{
	char src[PATH_MAX], cmd[PATH_MAX * 4];
	snprintf(src, sizeof(src), "%s/%s.cu", dir, name);
	FILE *f = fopen(src, "w");
	if (!f)
		return -1;
	fputs(text, f);
	fclose(f);
	/* the flags the grader gives a student file (build.c) */
	snprintf(cmd, sizeof(cmd), "cd %s && nvcc -arch=sm_75 -std=c++17 -O3 "
		 "--extended-lambda --expt-relaxed-constexpr "
		 "--keep --keep-dir %s -c %s.cu -o %s.o > %s.log 2>&1", dir, dir,
		 name, name, name);
	if (system(cmd) != 0)
		return -1;
	return 0;
}

/* nvcc's host translation unit of text (compiled as name.cu in dir),
 * checked as if every line came from another file than the student's (a
 * forged marker): problems joined into got. -1 when nvcc failed. */
static int real_host_tu(const char *name, const char *text, char *got,
			size_t len)
{
	char tu[PATH_MAX];
	if (nvcc_keep(name, text) < 0)
		return -1;
	snprintf(tu, sizeof(tu), "%s/%s.cudafe1.cpp", dir, name);
	struct strbuf host = STRBUF_INIT;
	if (strbuf_read_file(&host, tu) < 0)
		return -1;
	struct objcheck_problem items[16];
	struct objcheck_list list = {items, 0, 16};
	const char *const none[] = {NULL};
	struct objcheck_source src_info = {"someone_else.cu", dir, NULL, none,
					   NULL, NULL, NULL};
	objcheck_host_source(strbuf_str(&host), &src_info, &list);
	strbuf_release(&host);
	got[0] = 0;
	for (int i = 0; i < list.count && i < list.max; i++) {
		strncat(got, items[i].message, len - strlen(got) - 1);
		strncat(got, " | ", len - strlen(got) - 1);
	}
	return list.count;
}

/* The object check of text compiled by the real nvcc (name.cu in dir),
 * with the kernels of its PTX: problems joined into got; -1 when nvcc
 * failed. */
static int real_object(const char *name, const char *text, char *got,
		       size_t len)
{
	char obj[PATH_MAX], ptx[PATH_MAX];
	if (nvcc_keep(name, text) < 0)
		return -1;
	snprintf(obj, sizeof(obj), "%s/%s.o", dir, name);
	snprintf(ptx, sizeof(ptx), "%s/%s.ptx", dir, name);
	struct strbuf p = STRBUF_INIT;
	if (strbuf_read_file(&p, ptx) < 0)
		return -1;
	char **kernels = objcheck_ptx_entries(strbuf_str(&p));
	strbuf_release(&p);
	struct objcheck_problem items[16];
	struct objcheck_list list = {items, 0, 16};
	const char *const go[] = {"go", NULL};
	struct objcheck_rules rules = {go, (const char *const *)kernels,
				       harness};
	char err[256] = "";
	int rc = objcheck_object(obj, &rules, &list, err, sizeof(err));
	objcheck_free_names(kernels);
	snprintf(got, len, "%s", err);
	for (int i = 0; i < list.count && i < list.max; i++) {
		strncat(got, items[i].message, len - strlen(got) - 1);
		strncat(got, " | ", len - strlen(got) - 1);
	}
	return rc < 0 ? -1 : list.count;
}

/* objcheck_defer_registration: nvcc's .init_array becomes hx_register in
 * place; an object without one is left as it is; what is not an object
 * is an error naming it. */
static void registration_deferred(void)
{
	char path[PATH_MAX], cmd[PATH_MAX * 2], err[PATH_MAX + 128] = "";
	FILE *p;
	char out[256] = "";
	if (nvcc_keep("deferred", "__global__ void k(float *p) { p[0] = 1; }\n"
			"extern \"C\" void go(float *p) { k<<<1, 1>>>(p); }\n") < 0) {
		printf("ok - # SKIP no nvcc on PATH: registration not moved\n");
	} else {
		snprintf(path, sizeof(path), "%s/deferred.o", dir);
		int rc = objcheck_defer_registration(path, err, sizeof(err));
		snprintf(cmd, sizeof(cmd), "readelf -SW %s | grep -c "
			 "'INIT_ARRAY\\|hx_register *PROGBITS'", path);
		p = popen(cmd, "r");
		if (p && !fgets(out, sizeof(out), p))
			out[0] = 0;
		if (p)
			pclose(p);
		out[strcspn(out, "\n")] = 0;
		snprintf(cmd, sizeof(cmd), "readelf -SW %s | grep -q INIT_ARRAY",
			 path);
		CHECK(rc == 0 && atoi(out) == 1 && system(cmd) != 0,
		      "nvcc's .init_array becomes the data section hx_register "
		      "(rc %d, %s, sections found %s)", rc, err, out);
	}
	char obj[PATH_MAX];
	CHECK(compile("no_init", "int f(int x) { return x + 1; }\n", obj,
		      sizeof(obj)) == 0 &&
		      objcheck_defer_registration(obj, err, sizeof(err)) == 0,
	      "an object without an initialiser is left as it is (%s)", err);
	snprintf(path, sizeof(path), "%s/not_an_object.o", dir);
	FILE *f = fopen(path, "w");
	if (f) {
		fputs("not ELF\n", f);
		fclose(f);
	}
	err[0] = 0;
	CHECK(objcheck_defer_registration(path, err, sizeof(err)) == -1 &&
		      strstr(err, "not_an_object.o"),
	      "a file that is not an object is an error naming it (%s)", err);
}

/* nvcc's registration (run before main, in the process that becomes the
 * judge) may reference only registration: an honest file's, with device
 * and constant variables and template kernels, does; a noinline operator&
 * the stub's & calls is found (red team, 2026-11-27). */
static void registration_holds_only_registration(void)
{
	char got[4096], cccl[PATH_MAX];
	cccl_folder(cccl, sizeof(cccl));
	if (!cccl[0]) {
		printf("ok - # SKIP no nvcc on PATH: registration not "
		       "compiled\n");
		return;
	}
	int n = real_object("honest_registration",
			    "__device__ float dv[4];\n__constant__ float cv[8];\n"
			    "template <class T> __global__ void tk(T *p) "
			    "{ p[0] = dv[0] + cv[0]; }\n"
			    "__global__ void k(float *p) { p[0] = 1; }\n"
			    "static __global__ void ks(float *p) { p[0] = 2; }\n"
			    "static __global__ void k_L2_hot(float *p) { p[0] = 4; }\n"
			    "namespace a { namespace b { template <int B> "
			    "__global__ void __launch_bounds__(B) kn(float *p) "
			    "{ p[0] = B; } } }\n"
			    "namespace { __global__ void ka(float *p) { p[0] = 3; } }\n"
			    "struct F { __device__ float operator()(float v) const "
			    "{ return v; } };\n"
			    "template <class G> __global__ void kf(G g, float *p) "
			    "{ p[0] = g(p[0]); }\n"
			    "template <class G> __global__ void fe(int n, G g) "
			    "{ if ((int)threadIdx.x < n) g((int)threadIdx.x); }\n"
			    "extern \"C\" void go(float *p) { k<<<1, 1>>>(p); "
			    "tk<float><<<1, 1>>>(p); tk<int><<<1, 1>>>((int *)p); "
			    "ks<<<1, 1>>>(p); k_L2_hot<<<1, 1>>>(p); "
			    "a::b::kn<64><<<1, 64>>>(p); "
			    "ka<<<1, 1>>>(p); kf<<<1, 1>>>(F(), p); "
			    "auto d = [=] __device__(int i) { p[i] = 1; }; "
			    "fe<<<1, 32>>>(32, d); "
			    "auto hd = [=] __host__ __device__(int i) "
			    "{ p[i] = 2; }; fe<<<1, 32>>>(32, hd); }\n",
			    got, sizeof(got));
	CHECK(n == 0, "nvcc's registration of device and constant variables "
	      "and of kernels that are templates, static (one with L2 in its "
	      "name), in a namespace, in "
	      "an anonymous namespace (GCC's L in the host names), take a "
	      "functor or a __device__ or __host__ __device__ lambda "
	      "(--extended-lambda: the host wrapper's name holds nvcc's "
	      "wrapper type) passes the object check (%d: %s)", n, got);
	n = real_object("operator_amp_noinline",
			"struct S { float a; __attribute__((noinline)) S *operator&() "
			"{ static int c; c++; return this; } };\n"
			"__device__ S s;\n"
			"__global__ void k(float *p) { p[0] = s.a; }\n"
			"extern \"C\" void go(float *p) { k<<<1, 1>>>(p); }\n",
			got, sizeof(got));
	CHECK(n >= 1 && strstr(got, "into nvcc's registration"),
	      "a student's function called from nvcc's registration (a "
	      "noinline operator& on a __device__ variable) is found (%d: %s)",
	      n, got);
	/* honest-code tester, 2026-11-27: the first message named
	 * __dso_handle and nothing a student could act on */
	n = real_object("local_static_vector",
			"#include <vector>\n"
			"__global__ void k(float *p) { p[0] = 1; }\n"
			"extern \"C\" void go(float *p) {\n"
			"  static std::vector<int> sizes{128, 256};\n"
			"  k<<<1, sizes[0]>>>(p); }\n",
			got, sizeof(got));
	CHECK(n >= 1 && strstr(got, "__dso_handle") &&
	      strstr(got, "function-local static") &&
	      !strstr(got, "belong to the harness"),
	      "a function-local static std::vector is refused saying why "
	      "(%d: %s)", n, got);
}

/* Every header a kernel file may include, through the real nvcc: none may
 * bring host assembly (the rule judges a line by what it is, whichever
 * file it comes from, so a header with host asm would reject honest
 * files); a system header with host asm is found in it. */
static void headers_bring_no_host_asm(void)
{
	char cccl[PATH_MAX], got[4096];
	cccl_folder(cccl, sizeof(cccl));
	if (!cccl[0]) {
		printf("ok - # SKIP no nvcc with CCCL on PATH: allowed "
		       "headers not compiled\n");
		return;
	}
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/every_header.cu", dir);
	FILE *f = fopen(path, "w");
	int headers = 0;
	for (const char *const *h = lint_angle_headers(); f && *h; h++, headers++)
		fprintf(f, "#include <%s>\n", *h);
	for (const char *const *d = lint_angle_folders(); f && *d; d++)
		include_folder(f, cccl, *d);
	if (f) {
		include_folder(f, cccl, "cuda/std/");
		fputs("__global__ void k(float *x) { x[0] = 1; }\n", f);
		fclose(f);
	}
	struct strbuf text = STRBUF_INIT;
	strbuf_read_file(&text, path);
	int n = real_host_tu("every_header_tu", strbuf_str(&text), got,
			     sizeof(got));
	strbuf_release(&text);
	CHECK(n == 0, "every header a kernel file may include (%d named, "
	      "CUB's block/warp/thread, libcu++'s cuda/ and cuda/std/, "
	      "nv/), compiled by nvcc, brings no host assembly, whichever "
	      "file it comes from (%d: %s)", headers, n, got);
	n = real_host_tu("cpuid_tu",
			 "#include <cpuid.h>\n"
			 "unsigned f(void) { unsigned a, b, c, d; "
			 "__get_cpuid(0, &a, &b, &c, &d); return a; }\n",
			 got, sizeof(got));
	CHECK(n >= 1 && strstr(got, "cpuid.h:") && strstr(got, "host assembly"),
	      "a system header's host asm (<cpuid.h>, through the real nvcc) "
	      "is found and named by its file (%d: %s)", n, got);
	/* every C++ name the real libstdc++ exports is the library's: a
	 * student's definition of one would take it over in both processes
	 * (red team, 2026-11-27: _ZNK10__cxxabiv1...__do_catch) */
	{
		FILE *nm = popen("nm -D --defined-only "
				 "\"$(g++ -print-file-name=libstdc++.so.6)\" "
				 "2>/dev/null", "r");
		char row[4096], missed[512] = "";
		int names = 0, free_names = 0;
		while (nm && fgets(row, sizeof(row), nm)) {
			char *name = strrchr(row, ' ');
			if (!name || strncmp(name + 1, "_Z", 2))
				continue;
			name++;
			name[strcspn(name, "\n@")] = 0;
			names++;
			if (!objcheck_library_name(name) && free_names++ < 3) {
				strncat(missed, name,
					sizeof(missed) - strlen(missed) - 2);
				strncat(missed, " ", 2);
			}
		}
		if (nm)
			pclose(nm);
		CHECK(names > 1000 && free_names == 0,
		      "every C++ name the real libstdc++.so.6 exports (%d) is "
		      "the library's (objcheck_library_name); missed %d: %s",
		      names, free_names, missed);
		CHECK(!objcheck_library_name("_Z5saxpyv") &&
		      !objcheck_library_name("_ZN6mylib4stepEv") &&
		      !objcheck_library_name("_ZN4cuda3std3__44swapERiS2_") &&
		      objcheck_library_name("_ZNK10__cxxabiv117__class_type_"
					    "info10__do_catchEPKSt9type_infoPPvj") &&
		      objcheck_library_name("_ZGTtNSt11logic_errorC1EPKc"),
		      "a student's own C++ names are not the library's; "
		      "__cxxabiv1's const members and transactional clones are");
	}

	/* a register variable on the stack pointer moves it with no asm
	 * statement (mov %rdi,%rsp: a stack pivot); cudafe++ writes the
	 * register's name as GCC's "sp" */
	n = real_host_tu("register_tu",
			 "void *f(void *b) { register void *sp asm(\"rsp\"); "
			 "sp = b; return sp; }\n"
			 "register long g asm(\"r15\");\n",
			 got, sizeof(got));
	CHECK(n == 2 && strstr(got, "a register variable"),
	      "register variables (local on rsp, global on r15), through the "
	      "real nvcc, are found (%d: %s)", n, got);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	char got[4096];
	int n;

	n = check_text("clean",
		       "#include <stdio.h>\n"
		       "void saxpy(int n, float a, const float *x, float *y)\n"
		       "{ printf(\"%d %f %p %p\\n\", n, a, (void *)x, (void *)y); }\n",
		       got, sizeof(got));
	CHECK(n == 0, "a launcher that calls printf is clean (%d: %s)", n, got);

	n = check_text("json", "int json_dumpf(void) { return 0; }\n"
			       "void saxpy(void) {}\n", got, sizeof(got));
	CHECK(n == 1 && strstr(got, "defines the global symbol json_dumpf"),
	      "defining a library's function is rejected, naming it (%s)", got);

	n = check_text("harness",
		       "void e(void) __asm__(\"_Z7hx_emitP6json_t\");\n"
		       "void e(void) {}\nvoid saxpy(void) {}\n", got,
		       sizeof(got));
	CHECK(n == 1 && strstr(got, "_Z7hx_emitP6json_t"),
	      "a harness function's mangled name is rejected (%s)", got);

	n = check_text("ostream",
		       "void e(void) __asm__(\"_ZNSo5flushEv\");\n"
		       "void e(void) {}\nvoid saxpy(void) {}\n", got,
		       sizeof(got));
	CHECK(n == 1 && strstr(got, "_ZNSo5flushEv"),
	      "a libstdc++ member by abbreviation (std::ostream::flush, "
	      "_ZNSo...) is reserved (%s)", got);

	{
		static const char *const c_kernels[] = {"scale", NULL};
		char obj[PATH_MAX], err2[256] = "";
		struct objcheck_problem items[4];
		struct objcheck_list list = {items, 0, 4};
		struct objcheck_rules rules = {launchers, c_kernels, harness};
		compile("ckernel", "void scale(void) {}\n", obj, sizeof(obj));
		objcheck_object(obj, &rules, &list, err2, sizeof(err2));
		CHECK(list.count == 1 &&
			      strstr(items[0].message, "kernel scale with C "
						       "linkage"),
		      "a kernel with C linkage is rejected (%s)",
		      list.count ? items[0].message : "");
	}

	{
		/* a kernel named hx_*, in an hx_ namespace or with an hx_
		 * template argument would be left out of ncu's counters */
		static const char *const hx_kernels[] = {
			"_Z7hx_workifPKfPf", "_ZN5hx_ns4workEv",
			"_Z4workI6hx_argEvv", "_Z8phx_workv", "_Z9work_hx_av",
			NULL};
		char obj[PATH_MAX], err2[256] = "";
		struct objcheck_problem items[8];
		struct objcheck_list list = {items, 0, 8};
		struct objcheck_rules rules = {launchers, hx_kernels, harness};
		compile("hxkernel", "void saxpy(void) {}\n", obj, sizeof(obj));
		objcheck_object(obj, &rules, &list, err2, sizeof(err2));
		int named = list.count == 3;
		for (int i = 0; named && i < 3; i++)
			named = strstr(items[i].message, hx_kernels[i]) &&
				strstr(items[i].message, "beginning with hx_");
		CHECK(named,
		      "kernels whose names hold a name beginning with hx_ are "
		      "rejected, naming each (own, namespace, template "
		      "argument); phx_ and _hx_ are not (%d: %s)",
		      list.count, list.count ? items[0].message : "");
	}

	n = check_text("throws",
		       "void ctor(void *, const char *) "
		       "__asm__(\"_ZNSt13runtime_errorC1EPKc\");\n"
		       "void *__cxa_allocate_exception(unsigned long);\n"
		       "void __cxa_throw(void *, void *, void (*)(void *));\n"
		       "extern char ti __asm__(\"_ZTISt13runtime_error\");\n"
		       "void saxpy(void) { void *e = __cxa_allocate_exception(16);"
		       " ctor(e, \"x\"); __cxa_throw(e, &ti, 0); }\n",
		       got, sizeof(got));
	CHECK(n == 0, "throwing std::runtime_error is fine (%d: %s)", n, got);

	n = check_text("stdexcept", "void e(void) "
		       "__asm__(\"_ZNSt13runtime_errorC1EPKc\");\n"
		       "void e(void) {}\nvoid saxpy(void) {}\n", got, sizeof(got));
	CHECK(n == 1 && strstr(got, "_ZNSt13runtime_errorC1EPKc"),
	      "defining a <stdexcept> member is still reserved (%s)", got);

	/* an error check's message built as a std::string: libstdc++'s own
	 * members, its throw helpers, operator new/delete (2026-11-27) */
	n = check_text("stdstring",
		       "void app(void *, const char *) __asm__(\"_ZNSt7__cxx1112"
		       "basic_stringIcSt11char_traitsIcESaIcEE6appendEPKc\");\n"
		       "unsigned long sz(const void *) __asm__(\"_ZNKSt7__cxx11"
		       "12basic_stringIcSt11char_traitsIcESaIcEE4sizeEv\");\n"
		       "void *nw(unsigned long) __asm__(\"_Znwm\");\n"
		       "void len(const char *) __asm__(\"_ZSt20__throw_length_"
		       "errorPKc\");\n"
		       "void saxpy(void) { char s[32]; app(s, \"x\"); "
		       "if (sz(s) > 9) len(\"long\"); nw(8); }\n",
		       got, sizeof(got));
	CHECK(n == 0, "calling std::string's members, its throw helpers and "
		      "operator new is fine (%d: %s)", n, got);
	n = check_text("wstring",
		       "void app(void *, const int *) __asm__(\"_ZNSt7__cxx1112"
		       "basic_stringIwSt11char_traitsIwESaIwEE6appendEPKw\");\n"
		       "void saxpy(void) { char s[32]; app(s, 0); }\n",
		       got, sizeof(got));
	CHECK(n == 1 && strstr(got, "calls or uses _ZNSt7__cxx1112basic_stringIw"),
	      "only std::string (char), not other basic_strings (%s)", got);
	/* a weak copy in a COMDAT group, as the compiler emits a header's
	 * template or inline function (std::to_string at -O3) */
#define TO_STRING_COMDAT                                                     \
	"__asm__(\".section .text._ZNSt7__cxx119to_stringEi,\\\"axG\\\","       \
	"@progbits,_ZNSt7__cxx119to_stringEi,comdat\\n"                       \
	".weak _ZNSt7__cxx119to_stringEi\\n"                                  \
	".type _ZNSt7__cxx119to_stringEi, @function\\n"                       \
	"_ZNSt7__cxx119to_stringEi: ret\\n"                                   \
	".size _ZNSt7__cxx119to_stringEi, 1\\n.text\");\n"                     \
	"void saxpy(void) {}\n"
	n = check_text("to_string", TO_STRING_COMDAT, got, sizeof(got));
	CHECK(n == 0, "a weak copy of a header's library function in a "
		      "COMDAT group (std::to_string at -O3), named nowhere by "
		      "the judge, is let through, to be hidden (%d: %s)", n,
	      got);
	n = check_text("weak_do_catch",
		       "__attribute__((weak)) int dc(const void *t, void **p, "
		       "unsigned o) __asm__(\"_ZNK10__cxxabiv117__class_type_"
		       "info10__do_catchEPKSt9type_infoPPvj\");\n"
		       "__attribute__((weak)) int dc(const void *t, void **p, "
		       "unsigned o) { return 1; }\nvoid saxpy(void) {}\n",
		       got, sizeof(got));
	CHECK(n == 1 && strstr(got, "_ZNK10__cxxabiv117__class_type_info"),
	      "a weak definition of a library name that is the file's own, "
	      "in no COMDAT group (red team: __do_catch made weak), is "
	      "refused (%d: %s)", n, got);
	{
		char obj[PATH_MAX], err[256] = "", cmd[PATH_MAX * 3];
		struct objcheck_problem items[4];
		struct objcheck_list list = {items, 0, 4};
		static const char *const judge_names[] = {
			"_ZNSt7__cxx119to_stringEi", NULL};
		struct objcheck_rules judged = {launchers, kernels,
						judge_names};
		int rc = compile("to_string_judge", TO_STRING_COMDAT, obj,
				 sizeof(obj));
		rc = rc ? rc : objcheck_object(obj, &judged, &list, err,
					       sizeof(err));
		CHECK(rc == 0 && list.count == 1 &&
			      strstr(items[0].message,
				     "_ZNSt7__cxx119to_stringEi"),
		      "the same copy is refused when the judge's objects name "
		      "it (%d: %s)", list.count,
		      list.count ? items[0].message : err);
		rc = objcheck_hide_definitions(obj, err, sizeof(err));
		snprintf(cmd, sizeof(cmd),
			 "readelf -sW %s | grep -q 'WEAK *HIDDEN .* "
			 "_ZNSt7__cxx119to_stringEi$' && readelf -sW %s | "
			 "grep -q 'GLOBAL *HIDDEN .* saxpy$' && ! readelf -sW "
			 "%s | grep -v ' UND ' | grep -q 'GLOBAL *DEFAULT\\|"
			 "WEAK *DEFAULT'", obj, obj, obj);
		CHECK(rc == 0 && system(cmd) == 0,
		      "objcheck_hide_definitions makes every definition "
		      "hidden, the library-named copy and the launcher "
		      "(rc %d %s)", rc, err);
	}
#undef TO_STRING_COMDAT
	{ /* objcheck_exported: what a linked program exports, read back */
		char obj[PATH_MAX], exe[PATH_MAX], err[PATH_MAX + 128] = "";
		char cmd[PATH_MAX * 3];
		snprintf(exe, sizeof(exe), "%s/exports", dir);
		int rc = compile("exports",
				 "int exported_fn(void) { return 1; }\n"
				 "int main(void) { return exported_fn(); }\n",
				 obj, sizeof(obj));
		snprintf(cmd, sizeof(cmd), "cc -rdynamic -o %s %s", exe, obj);
		rc = rc ? rc : system(cmd);
		int n1 = rc ? -2 : objcheck_exported(exe, obj, err, sizeof(err));
		CHECK(n1 >= 1 && strstr(err, "exported_fn"),
		      "a program linked with the object's definitions visible "
		      "exports them, and objcheck_exported names one (%d: %s)",
		      n1, err);
		err[0] = 0;
		rc = objcheck_hide_definitions(obj, err, sizeof(err));
		rc = rc ? rc : system(cmd);
		int n2 = rc ? -2 : objcheck_exported(exe, obj, err, sizeof(err));
		CHECK(n2 == 0, "after objcheck_hide_definitions the same link "
			       "(-rdynamic) exports none of them (%d: %s)", n2,
		      err);
		CHECK(objcheck_exported(obj, obj, err, sizeof(err)) == -1 &&
			      strstr(err, "not an ELF64 program"),
		      "an object given as the program is an error (%s)", err);
	}
	n = check_text("string_member_def",
		       "void app(void) __asm__(\"_ZNSt7__cxx1112basic_stringIc"
		       "St11char_traitsIcESaIcEE6appendEPKc\");\n"
		       "void app(void) {}\nvoid saxpy(void) {}\n",
		       got, sizeof(got));
	CHECK(n == 1 && strstr(got, "defines the global symbol "
				    "_ZNSt7__cxx1112basic_string"),
	      "defining a std::string member is still reserved (%s)", got);

	n = check_text("mine", "void _Z6helperv(void) {}\nvoid saxpy(void) {}\n",
		       got, sizeof(got));
	CHECK(n == 0, "a C++ function of the student's own is fine (%s)", got);

	n = check_text("std", "void _ZSt9terminatev(void) {}\n"
			      "void saxpy(void) {}\n", got, sizeof(got));
	CHECK(n == 1 && strstr(got, "_ZSt9terminatev"),
	      "a C++ library symbol is not the student's (%s)", got);

	n = check_text("ctor",
		       "int volatile seen;\n"
		       "__attribute__((__constructor__)) static void early(void) "
		       "{ seen = 1; }\n"
		       "void saxpy(void) {}\n", got, sizeof(got));
	CHECK(n >= 1 && strstr(got, "static initialiser") && strstr(got, "early"),
	      "a constructor is a static initialiser, named (%s)", got);

	n = check_text("dtor",
		       "int volatile seen;\n"
		       "__attribute__((destructor)) static void late(void) "
		       "{ seen = 2; }\n"
		       "void saxpy(void) {}\n", got, sizeof(got));
	CHECK(n >= 1 && strstr(got, "finaliser"),
	      "a destructor is rejected too (%s)", got);

	n = check_text("calls",
		       "int system(const char *);\nvoid *dlopen(const char *, int);\n"
		       "typedef int (*fn)(const char *);\n"
		       "static fn volatile run = system;\n"
		       "void saxpy(void) { run(\"id\"); dlopen(\"x\", 1); }\n",
		       got, sizeof(got));
	CHECK(n == 2 && strstr(got, "calls or uses system") &&
		      strstr(got, "calls or uses dlopen"),
	      "every banned call is named, through a function pointer too (%s)",
	      got);

	n = check_text("atexit",
		       "#include <stdlib.h>\nstatic void bye(void) {}\n"
		       "void saxpy(void) { atexit(bye); }\n", got, sizeof(got));
	CHECK(n == 1 && strstr(got, "calls atexit from saxpy"),
	      "atexit only from nvcc's registration (%s)", got);

	n = check_text("section",
		       "__attribute__((section(\".secret\"))) const char s[] = \"x\";\n"
		       "void saxpy(void) {}\n", got, sizeof(got));
	CHECK(n >= 1 && strstr(got, "unexpected section .secret"),
	      "an unexpected section is named (%s)", got);

	/* red team, 2026-11-27: a section attribute's string put a label
	 * and a system call in .text.saxpy beside the launcher */
	n = check_text("bare_label",
		       "__attribute__((section(\".text.saxpy;ev:;movl $39,%eax;"
		       "syscall;ret;#\"))) void saxpy(void) {}\n",
		       got, sizeof(got));
	CHECK(n >= 1 && strstr(got, "has the label ev in the executable "
			       "section .text.saxpy that is no function"),
	      "a label in an executable section that is no function is "
	      "named (%s)", got);

	char err[256];
	struct objcheck_list none = {NULL, 0, 0};
	struct objcheck_rules rules = {launchers, kernels, harness};
	CHECK(objcheck_object("/nonexistent.o", &rules, &none, err,
			      sizeof(err)) == -1 && strstr(err, "/nonexistent.o"),
	      "an unreadable object is an error naming it (%s)", err);

	/* nvcc's host translation unit */
	char root[PATH_MAX], lab[PATH_MAX], sol[PATH_MAX], hdr[PATH_MAX],
		solfile[PATH_MAX + 16];
	snprintf(root, sizeof(root), "%s", dir);
	snprintf(lab, sizeof(lab), "%s/labs", root);
	mkdir(lab, 0755);
	snprintf(lab, sizeof(lab), "%s/labs/saxpy", root);
	mkdir(lab, 0755);
	snprintf(sol, sizeof(sol), "%s/solutions", root);
	mkdir(sol, 0755);
	snprintf(hdr, sizeof(hdr), "%s/saxpy.h", lab);
	touch(hdr);
	snprintf(solfile, sizeof(solfile), "%s/saxpy_v5.cu", sol);
	touch(solfile);
	const char *ok[] = {lab, NULL};
	char text[4 * PATH_MAX];

	snprintf(text, sizeof(text),
		 "# 1 \"/tmp/s/saxpy_v1.cu\"\n"
		 "# 1 \"labs/saxpy/saxpy.h\" 1\n"
		 "int saxpy(int);\n"
		 "# 200 \"/usr/include/stdio.h\" 3\n"
		 "extern int f(void) __asm__(\"x\");\n"
		 "# 5 \"/tmp/s/saxpy_v1.cu\" 2\n"
		 "int k(int x) {int volatile ___ = 1;::exit(___);}\n"
		 "#if 0\n# 5\n{ asm(\"mov.u32 %%0, %%1;\"); }\n#endif\n"
		 "const char *r = \"x(\\n#if 0\\n)x\";\n"
		 "int y = 1'000;\n"
		 "# 12 \"/tmp/s/saxpy_v1.cu\"\n"
		 "__asm__(\".incbin \\\"/etc/passwd\\\"\");\n");
	n = host_problems(text, root, ok, got, sizeof(got));
	CHECK(n == 1 && strstr(got, "saxpy_v1.cu:12: host assembly"),
	      "host asm from the student's file is found at its line; a "
	      "header's asm label, device inline PTX under #if 0, a string "
	      "and digit separators are not (%d: %s)", n, got);

	/* the student's own folder: the file itself and copies of the
	 * lab's headers with the same bytes; a changed copy or a header of
	 * its own is refused, once (--unsandboxed: the compile box shows
	 * none of them) */
	{
		char sdir[PATH_MAX], sfile[PATH_MAX + 16], scopy[PATH_MAX + 16],
			sown[PATH_MAX + 16];
		snprintf(sdir, sizeof(sdir), "%s/student", root);
		mkdir(sdir, 0755);
		snprintf(sfile, sizeof(sfile), "%s/saxpy_v1.cu", sdir);
		snprintf(scopy, sizeof(scopy), "%s/saxpy.h", sdir);
		snprintf(sown, sizeof(sown), "%s/helpers.h", sdir);
		touch(sfile);
		touch(scopy); /* the lab's saxpy.h is empty too */
		FILE *f = fopen(sown, "w");
		if (f) {
			fputs("namespace std { }\n", f);
			fclose(f);
		}
		struct objcheck_source src = {"saxpy_v1.cu", root, root, ok,
					      lab, sdir, NULL};
		snprintf(text, sizeof(text),
			 "# 1 \"%s\"\n# 1 \"%s\" 1\nint saxpy(int);\n"
			 "# 2 \"%s\" 2\n# 1 \"%s\" 1\nint h;\n"
			 "# 3 \"%s\" 2\n# 1 \"%s\" 1\nint h2;\n",
			 sfile, scopy, sfile, sown, sfile, sown);
		n = source_problems(text, &src, got, sizeof(got));
		CHECK(n == 1 && strstr(got, "includes helpers.h from the "
					    "student's own folder"),
		      "the student's folder: the file and an unchanged copy "
		      "of saxpy.h pass, its own helpers.h is refused once "
		      "(%d: %s)", n, got);
		f = fopen(scopy, "w");
		if (f) {
			fputs("#define private public\n", f);
			fclose(f);
		}
		n = source_problems(text, &src, got, sizeof(got));
		CHECK(n == 2 && strstr(got, "includes saxpy.h from"),
		      "a changed copy of the lab's saxpy.h is refused (%d: %s)",
		      n, got);
		/* outside the root: only what the compile box shows */
		char outside[PATH_MAX + 16];
		snprintf(outside, sizeof(outside), "%s_outside.h", root);
		f = fopen(outside, "w");
		if (f)
			fclose(f);
		src.system_file = usr_only;
		snprintf(text, sizeof(text),
			 "# 1 \"%s\"\n# 1 \"%s\" 1\nint o;\n"
			 "# 2 \"%s\" 2\n# 1 \"/usr/include/stdio.h\" 1 3\n",
			 sfile, outside, sfile);
		n = source_problems(text, &src, got, sizeof(got));
		CHECK(n == 1 && strstr(got, "_outside.h"),
		      "a header outside the root and outside what the compile "
		      "box shows is refused; a system header is not (%d: %s)",
		      n, got);
		/* a symbolic link in the student's folder to a header
		 * elsewhere is the folder's (red team, 2026-11-27) */
		char link_in[PATH_MAX + 16];
		snprintf(link_in, sizeof(link_in), "%s/cuda_runtime.h", sdir);
		CHECK(symlink(outside, link_in) == 0, "a link made (%s)", link_in);
		src.system_file = NULL;
		snprintf(text, sizeof(text),
			 "# 1 \"%s\"\n# 1 \"%s\" 1\nint o;\n# 2 \"%s\" 2\n",
			 sfile, link_in, sfile);
		n = source_problems(text, &src, got, sizeof(got));
		CHECK(n == 1 && strstr(got, "includes cuda_runtime.h from the "
					    "student's own folder"),
		      "a link in the student's folder to a file outside it is "
		      "refused as the folder's own (%d: %s)", n, got);
		unlink(link_in);
		unlink(outside);
		src.system_file = NULL;
		src.student_dir = lab; /* run.py test in the lab's folder */
		snprintf(text, sizeof(text), "# 1 \"%s/saxpy_v1.cu\"\n"
			 "# 1 \"%s\" 1\nint saxpy(int);\n", lab, hdr);
		n = source_problems(text, &src, got, sizeof(got));
		CHECK(n == 0,
		      "in the lab's own folder the lab's headers are the "
		      "lab's (%d: %s)", n, got);
	}

	/* host asm judged by what it is, whichever file it comes from: a
	 * line marker the student forged changes nothing (objcheck-19) */
	static const struct {
		const char *what, *text, *expect; /* NULL: no problem */
	} any_file[] = {
		{"a header's asm statement (syscall), after a forged marker",
		 "# 1 \"/usr/include/stdio.h\" 3\n"
		 "int f(int x) { if (x) { __asm__(\"syscall\"); } return x; }\n",
		 "stdio.h:1: host assembly (\"syscall\")"},
		{"a header's file-scope asm",
		 "# 7 \"/usr/include/stdio.h\" 3\n"
		 "int y;\n__asm__(\".incbin \\\"/etc/passwd\\\"\");\n",
		 "stdio.h:8: host assembly"},
		{"a header's asm label with assembler text in it",
		 "# 1 \"/usr/include/stdio.h\" 3\n"
		 "extern int f(void) __asm__(\"f\\n.byte 15,5\");\n",
		 "host assembly"},
		{"a header's asm label with a space in it",
		 "# 1 \"/usr/include/stdio.h\" 3\n"
		 "extern int f(void) __asm__(\"f; syscall\");\n",
		 "an asm label that is not a plain symbol name"},
		{"glibc's labels, libcu++'s pause, a compiler barrier",
		 "# 1 \"/usr/include/stdio.h\" 3\n"
		 "extern int scanf(const char *, ...) __asm__(\"\" \"__isoc99_scanf\");\n"
		 "int v __asm__(\"vv\") = 1, w[2] __asm__(\"ww\");\n"
		 "inline void p() { { __asm__ volatile(\"pause\" : :); } }\n"
		 "inline void b() { __asm__ volatile(\"\" : : : \"memory\"); }\n",
		 NULL},
		{"asm in the compiled branch of #if 0 ... #else",
		 "# 1 \"/usr/include/stdio.h\" 3\n"
		 "#if 0\n{ asm(\"mov.u32 %r1, 0;\"); }\n#else\n"
		 "void g() { __asm__(\"syscall\"); }\n#endif\n",
		 "host assembly (\"syscall\")"},
		{"a qualified asm with a plain name after a declarator's )",
		 "# 1 \"/usr/include/stdio.h\" 3\n"
		 "void g() { for (;;) __asm__ volatile(\"syscall\"); }\n",
		 "host assembly (\"syscall\")"},
		{"a plain-name asm statement after a condition, no braces",
		 "# 1 \"/usr/include/stdio.h\" 3\n"
		 "void g(int x) { if constexpr (1) __asm__(\"syscall\"); "
		 "while ((x)) asm(\"int3\"); if (x) ; else asm(\"ret\"); }\n",
		 "host assembly (\"syscall\")"},
		{"every unbraced plain-name asm statement is found",
		 "# 1 \"/usr/include/stdio.h\" 3\n"
		 "void g(int x) { while ((x)) asm(\"int3\"); "
		 "do asm(\"ret\"); while (0); }\n",
		 "stdio.h:1: host assembly (\"ret\")"},
		{"a register variable in a declaration list",
		 "# 1 \"/usr/include/stdio.h\" 3\n"
		 "void g() { register int a, *b __asm__(\"sp\"); }\n",
		 "a register variable"},
		{"a static local's label after a register declaration",
		 "# 1 \"/usr/include/stdio.h\" 3\n"
		 "void g() { register int a; static int b __asm__(\"bb\"); }\n",
		 NULL},
		{"a ]] inside an attribute's argument does not end it",
		 "# 1 \"/usr/include/stdio.h\" 3\n"
		 "[[gnu::aligned(sizeof(p[p[0]])), gnu::section(\".text.s;"
		 "ev:;syscall;ret;#\")]] void s() {}\n",
		 "an attribute whose text goes to the assembler"},
		{"a parenthesized section string outside any attribute the "
		 "walk saw",
		 "# 1 \"/usr/include/stdio.h\" 3\n"
		 "int v; section((\".x;nop\"));\n",
		 "an attribute whose text goes to the assembler"},
		{"__extension__ before an asm statement",
		 "# 1 \"/usr/include/stdio.h\" 3\n"
		 "int g(int x) { __extension__ __asm__(\"syscall\"); return x; }\n",
		 "host assembly (\"syscall\")"},
		{"an asm statement after an attribute's )",
		 "# 1 \"/usr/include/stdio.h\" 3\n"
		 "void g() { __attribute__((unused)) __asm__(\"int3\"); }\n",
		 "host assembly (\"int3\")"},
		{"an asm statement after [[...]]",
		 "# 1 \"/usr/include/stdio.h\" 3\n"
		 "void g() { [[likely]] __asm__(\"int3\"); }\n",
		 "host assembly (\"int3\")"},
		{"operands' parentheses do not unbalance a later condition",
		 "# 1 \"/usr/include/stdio.h\" 3\n"
		 "void g(int x) { __asm__ volatile(\"\" : \"=r\"(x) : "
		 "\"r\"((x))); if (x) __asm__(\"syscall\"); }\n",
		 "host assembly (\"syscall\")"},
		{"a directive ending in \\ joins the next line",
		 "# 1 \"/usr/include/stdio.h\" 3\n"
		 "#pragma foo \\\n#if 0\nvoid g() { __asm__(\"syscall\"); }\n",
		 "host assembly (\"syscall\")"},
		{"#if 0x1 is compiled: read",
		 "# 1 \"/usr/include/stdio.h\" 3\n"
		 "#if 0x1\nvoid g() { __asm__(\"syscall\"); }\n#endif\n",
		 "host assembly (\"syscall\")"},
		{"#if 0 with blanks around is skipped",
		 "# 1 \"/usr/include/stdio.h\" 3\n"
		 "#if  0 \n{ asm(\"mov.u32 %r1, 0;\"); }\n#endif\n",
		 NULL},
		{"a splice inside asm is one name to GCC",
		 "# 1 \"/usr/include/stdio.h\" 3\n"
		 "void g() { as\\\nm volatile(\".byte 15,5\"); }\n",
		 "host assembly"},
		{"a splice inside section is one name to GCC",
		 "# 1 \"/usr/include/stdio.h\" 3\n"
		 "sec\\ \ntion((\".text;f:;nop\")) int v;\n",
		 "an attribute whose text goes to the assembler"},
		{"lines after a splice keep their numbers",
		 "# 1 \"/usr/include/stdio.h\" 3\n"
		 "int a \\\n= 1;\nint b;\n__asm__(\"nop\");\n",
		 "stdio.h:4: host assembly"},
		{"__builtin_longjmp (a stack pivot without asm)",
		 "# 1 \"/usr/include/stdio.h\" 3\n"
		 "static void *jb[5]; void g() { __builtin_longjmp(jb, 1); }\n",
		 "__builtin_longjmp in host code"},
		{"a header's section attribute with assembler in it",
		 "# 1 \"/usr/include/stdio.h\" 3\n"
		 "__attribute((section(\".rodata;.text;f:\"))) int t[2];\n",
		 "an attribute whose text goes to the assembler"},
		{"a header's plain section and alias (judged on the object)",
		 "# 1 \"/usr/include/stdio.h\" 3\n"
		 "[[gnu::section(\".text.h\")]] int h() { return 1; }\n"
		 "__attribute__((__alias__(\"h\"))) int h2();\n",
		 NULL},
		{"a header's symver",
		 "# 1 \"/usr/include/stdio.h\" 3\n"
		 "__attribute__((symver(\"h@V1\"))) int h() { return 1; }\n",
		 "an attribute whose text goes to the assembler"},
		{"#ident from a header",
		 "# 1 \"/usr/include/stdio.h\" 3\n#ident \"a\"\n",
		 "stdio.h:1: #ident"},
		{"a raw string (cudafe++ writes none)",
		 "const char *r = R\"(a)\";\n",
		 "a raw string literal"},
		{"an asm whose template is no string",
		 "# 1 \"/usr/include/stdio.h\" 3\n"
		 "void g() { __asm__ volatile((s)); }\n",
		 "host assembly"},
	};
	/* operator& on the student's lines (nvcc's registration takes
	 * addresses with &): unary refused, binary and device-only allowed */
	static const struct {
		const char *what, *text;
		int refused;
	} amp[] = {
		{"a non-member binary operator& (flags enum)",
		 "enum class O : unsigned { a = 1 };\nconstexpr O operator&(O a, O b) "
		 "{ return static_cast<O>(unsigned(a) & unsigned(b)); }\n", 0},
		{"a __device__ member operator& (cudafe++'s host body)",
		 "struct M { unsigned m; M operator&(M o) const "
		 "{int volatile ___ = 1;(void)o;::exit(___);}\n#if 0\n"
		 "{ return {m & o.m}; }\n#endif\n};\n", 0},
		{"a host unary member operator&",
		 "struct V { V *operator&() const { return nullptr; } };\n", 1},
		{"a template whose comma is a template argument's",
		 "template <class T, class U> void *operator&(const P<T, U> &p) "
		 "{ return 0; }\n", 1},
		{"cudafe++'s device body with a statement added",
		 "struct V { V *operator&() const {int volatile ___ = 1; f(); "
		 "::exit(___);} };\n", 1},
		{"operator&= and operator&&",
		 "struct B { B &operator&=(B o); bool operator&&(B o) const; };\n", 0},
	};
	for (size_t i = 0; i < sizeof(amp) / sizeof(amp[0]); i++) {
		n = student_lines(amp[i].text, root, ok, got, sizeof(got));
		CHECK(amp[i].refused ? n == 1 && strstr(got, "unary operator&")
				     : n == 0,
		      "operator& on the student's lines: %s: %s (%d: %s)",
		      amp[i].what, amp[i].refused ? "refused" : "allowed", n,
		      got);
	}

	/* the C++ library's namespaces and operator new/delete on the
	 * student's lines (red team, 2026-11-27: an inline __cxxabiv1
	 * member is a weak COMDAT definition like a header's copies) */
	static const struct {
		const char *what, *text, *expect; /* expect NULL: allowed */
	} lib[] = {
		{"namespace __cxxabiv1 { ... }",
		 "namespace __cxxabiv1 { struct C { bool f() const; }; }\n",
		 "namespace __cxxabiv1"},
		{"namespace std { ... }", "namespace std { class type_info; }\n",
		 "namespace std"},
		{"inline namespace std", "inline namespace std { int x; }\n",
		 "namespace std"},
		{"operator new[] of the file's own",
		 "inline void *operator new[](unsigned long n) { return 0; }\n",
		 "operator new of its own"},
		{"operator delete of the file's own",
		 "void operator delete(void *p) noexcept { }\n",
		 "operator delete of its own"},
		{"using namespace std, an alias, a namespace of its own",
		 "using namespace std;\nnamespace cg = cooperative_groups;\n"
		 "namespace mine { int f(); }\nnamespace { int g(); }\n", NULL},
		{"calling operator new and new expressions",
		 "void *p = ::operator new(8);\nvoid *q = operator new(8);\n"
		 "int *r = new int[4];\n", NULL},
	};
	for (size_t i = 0; i < sizeof(lib) / sizeof(lib[0]); i++) {
		char text2[2048];
		n = student_lines(lib[i].text, root, ok, got, sizeof(got));
		CHECK(lib[i].expect ? n == 1 && strstr(got, lib[i].expect)
				    : n == 0,
		      "library definitions on the student's lines: %s: %s "
		      "(%d: %s)", lib[i].what,
		      lib[i].expect ? "refused" : "allowed", n, got);
		/* the same in a header's lines is a header's business */
		snprintf(text2, sizeof(text2),
			 "# 1 \"/usr/include/c++/12/new\" 3\n%s", lib[i].text);
		n = host_problems(text2, root, ok, got, sizeof(got));
		CHECK(n == 0, "the same in a system header is allowed: %s "
			      "(%d: %s)", lib[i].what, n, got);
	}

	for (size_t i = 0; i < sizeof(any_file) / sizeof(any_file[0]); i++) {
		n = host_problems(any_file[i].text, root, ok, got, sizeof(got));
		if (any_file[i].expect)
			CHECK(n >= 1 && strstr(got, any_file[i].expect),
			      "host source, any file: %s: found (%d: %s)",
			      any_file[i].what, n, got);
		else
			CHECK(n == 0, "host source, any file: %s: allowed "
			      "(%d: %s)", any_file[i].what, n, got);
	}

	snprintf(text, sizeof(text),
		 "# 1 \"/tmp/s/saxpy_v1.cu\"\n"
		 "# 1 \"labs/saxpy/../../solutions/saxpy_v5.cu\" 1\n"
		 "int saxpy(int);\n"
		 "# 2 \"/tmp/s/saxpy_v1.cu\" 2\n");
	n = host_problems(text, root, ok, got, sizeof(got));
	CHECK(n == 1 && strstr(got, "includes solutions/saxpy_v5.cu"),
	      "a file of the instructor's tree outside the lab's folder is "
	      "named (%s)", got);
	snprintf(hdr, sizeof(hdr), "%s/lab.json", lab);
	touch(hdr);
	snprintf(text, sizeof(text),
		 "# 1 \"/tmp/s/saxpy_v1.cu\"\n"
		 "# 1 \"labs/saxpy/lab.json\" 1\n"
		 "int saxpy(int);\n"
		 "# 1 \"labs/saxpy/saxpy.h\" 1\n"
		 "int saxpy(int);\n"
		 "# 2 \"/tmp/s/saxpy_v1.cu\" 2\n");
	n = host_problems(text, root, ok, got, sizeof(got));
	CHECK(n == 1 && strstr(got, "includes labs/saxpy/lab.json"),
	      "in the lab's folder only headers may be included: lab.json "
	      "is named, saxpy.h is not (%d: %s)", n, got);

	/* the device pass's files (red team, 2026-11-27: an include under
	 * #ifdef __CUDA_ARCH__ is in no host file) */
	{
		struct objcheck_source src = {"saxpy_v1.cu", root, root, ok,
					      NULL, NULL, NULL};
		struct objcheck_problem items[16];
		struct objcheck_list list = {items, 0, 16};
		snprintf(text, sizeof(text),
			 "# 1 \"/tmp/s/saxpy_v1.cu\"\n"
			 "# 1 \"labs/saxpy/saxpy.h\" 1\n"
			 "#pragma once\n"
			 "# 4 \"/tmp/s/saxpy_v1.cu\" 2\n"
			 "# 1 \"labs/saxpy/../../solutions/saxpy_v5.cu\" 1\n"
			 "__global__ void k(float *x) {}\n"
			 "# 5 \"/tmp/s/saxpy_v1.cu\" 2\n");
		objcheck_device_includes(text, &src, &list);
		CHECK(list.count == 1 &&
		      strstr(items[0].message, "includes solutions/saxpy_v5.cu") &&
		      strstr(items[0].message, "device code"),
		      "an include only the device pass read is named (%d: %s)",
		      list.count, list.count ? items[0].message : "");
		objcheck_device_includes(text, &src, &list);
		CHECK(list.count == 1, "what was said already is not said "
		      "again (%d)", list.count);
		list.count = 0;
		snprintf(text, sizeof(text),
			 "# 1 \"/tmp/s/saxpy_v1.cu\"\n"
			 "# 1 \"labs/saxpy/saxpy.h\" 1\n"
			 "# 4 \"/tmp/s/saxpy_v1.cu\" 2\n");
		objcheck_device_includes(text, &src, &list);
		CHECK(list.count == 0, "the lab's header in the device pass is "
		      "allowed (%d)", list.count);
	}

	/* names resolved otherwise here than by the compiler (red team,
	 * 2026-11-27): /proc/self/cwd is the grader's cwd here, a \\ is
	 * escaped in a marker */
	snprintf(text, sizeof(text),
		 "# 1 \"/tmp/s/saxpy_v1.cu\"\n"
		 "# 1 \"/proc/self/cwd/solutions/saxpy_v5.cu\" 1\n"
		 "int saxpy(int);\n"
		 "# 1 \"/tmp/s/q\\\\/../../solutions/saxpy_v5.cu\" 1\n"
		 "int saxpy(int);\n");
	n = host_problems(text, root, ok, got, sizeof(got));
	CHECK(n == 2 && strstr(got, "/proc/self/cwd") && strstr(got, "q\\\\/"),
	      "an include through /proc or with a backslash is refused "
	      "(%d: %s)", n, got);

	headers_bring_no_host_asm();
	registration_holds_only_registration();
	registration_deferred();

	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);

	/* line directives in the student's text (red team: #line made host
	 * asm seem to come from stdio.h) */
	{
		static const struct {
			const char *text, *what;
			int want;
			long line;
		} cases[] = {
			{"int a;\n#line 1 \"/usr/include/stdio.h\"\n", "#line", 1, 2},
			{"int a;\n# 1 \"/usr/include/stdio.h\" 1 3\n",
			 "a GNU line marker", 1, 2},
			{"  %:line 7\n", "a digraph %:line", 1, 1},
			{"?\?=line 7\n", "a trigraph ?\?=line", 1, 1},
			{"#li\\\nne 3 \"x.h\"\n", "#line split by a splice", 1, 1},
			{"#li\\  \nne 3\n", "a splice with spaces before the "
					     "newline", 1, 1},
			{"/* c */ # /* c */ line 3\n", "comments around", 1, 1},
			{"#\\\n 12 \"x.h\"\n", "a marker after a splice", 1, 1},
			{"int a; /* a comment\n#line 3 */\n", "inside a comment",
			 0, 0},
			{"const char *s = \"#line 3\";\n", "inside a string", 0, 0},
			{"const char *s = R\"x(\n#line 3\n)x\";\n",
			 "inside a raw string", 0, 0},
			{"int a = 1'000;\n#line 5\n", "after a digit separator",
			 1, 2},
			{"#define L 1\n#if L\n#endif\n#include \"saxpy.h\"\n"
			 "#pragma unroll\n#linear\n",
			 "#define, #if, #include, #pragma, #linear", 0, 0},
			{"## 1\n", "## (not a directive)", 0, 0},
			/* red team, 2026-11-24: read as GCC reads it */
			{"#define O xR\"(\"\n#line 3 \"x.h\"\n#define C \")\"\n",
			 "after a fake raw-string prefix xR\"(", 1, 2},
			{"int a = 1'_'/*';\n#line 5 \"x.h\"\n// */\n",
			 "after a digit separator before _", 1, 2},
			{"#li\\\f\nne 3\n", "a splice across a form feed", 2, 1},
			{"const char *s = u8R\"(\n#line 3\n)\";\n",
			 "inside a u8R raw string", 0, 0},
			{"#define O $R\"(\"\n#line 3 \"x.h\"\n#define C \")\"\n",
			 "after $R\"( (a name to GCC)", 1, 2},
			{"#if __has_include(<a/*>)\n#endif\n#line 3 \"x.h\"\n// */\n",
			 "after __has_include(<a/*>) (a header name)", 1, 3},
			{"\xEF\xBB\xBF# 1 \"/usr/include/stdio.h\" 3\n",
			 "on line 1 after a byte-order mark", 1, 1},
		};
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			n = directives(cases[i].text, got, sizeof(got));
			char at[32];
			snprintf(at, sizeof(at), "saxpy_v1.cu:%ld:",
				 cases[i].line);
			CHECK(n == cases[i].want &&
				      (!n || (strstr(got, at) &&
					      strstr(got, "line directive"))),
			      "line directive: %s: %s (%d: %s)", cases[i].what,
			      cases[i].want ? "found, with its line"
					    : "not one", n, got);
		}
		n = directives("int a;\n  %:  ident \"a\\\";.text\"\n#sccs \"b\"\n"
			       "#identity\n", got, sizeof(got));
		CHECK(n == 2 && strstr(got, "saxpy_v1.cu:2: #ident:") &&
			      strstr(got, "saxpy_v1.cu:3: #sccs:") &&
			      strstr(got, "assembler"),
		      "#ident and #sccs are found (not #identity) (%d: %s)", n,
		      got);
		/* a macro before an #include changes the header (red team:
		 * #undef/#define _GLIBCXX_END_NAMESPACE_VERSION as an asm
		 * statement, then #include <numeric>) */
		static const struct {
			const char *text, *what, *name;
			int want;
			long line;
		} macros[] = {
			{"#include \"saxpy.h\"\n#undef _GLIBCXX_X\n"
			 "#define _GLIBCXX_X __asm__(\"x\")\n#include <numeric>\n",
			 "#undef and #define before an #include", "#undef _GLIBCXX_X",
			 2, 2},
			{"#define namespace asm(\"x\"); namespace\n"
			 "#inc\\\nlude <numeric>\n",
			 "a keyword's macro before a spliced #include",
			 "#define namespace", 1, 1},
			{"#define F(x) g(x)\n%:include <cstdio>\n",
			 "a function-like macro before a digraph include",
			 "#define F", 1, 1},
			{"#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))\n"
			 "#define MAX(a,b) /* c */ ((a) > (b) ? (a) : (b))\n"
			 "#include <cstdio>\n",
			 "function-like macros of their parameters and "
			 "operators before (2026-11-27)", "", 0, 0},
			{"#define _F(x) (x)\n#include <cstdio>\n",
			 "a reserved name's function-like macro", "#define _F",
			 1, 1},
			{"#define decltype(x) (x)\n#include <cstdio>\n",
			 "a keyword's function-like macro", "#define decltype",
			 1, 1},
			{"#define S(x) #x\n#include <cstdio>\n",
			 "a stringizing macro", "#define S", 1, 1},
			{"#define S \"s\"\n#include_next <cstdio>\n",
			 "a string before #include_next", "#define S", 1, 1},
			{"#define EPS 1e-6f\n#define H 0x1p-3\n#define K 1'000\n"
			 "#include <cstdio>\n",
			 "numbers with exponents and separators before", "", 0, 0},
			{"#define N (1 << 20)\n#define NEG -1\n#define B (256)\n"
			 "#define M ((1 << 20) / 4 * 3) // rows\n#include <cstdio>\n",
			 "numbers and operators before (2026-11-27)", "", 0, 0},
			{"#define N (1 << SHIFT)\n#include <cstdio>\n",
			 "a name among the operators before", "#define N", 1, 1},
			{"#undef NDEBUG // asserts on\n#include <cassert>\n",
			 "#undef NDEBUG before <cassert> (2026-11-27)", "", 0, 0},
			{"#undef NDEBUG_X\n#include <cassert>\n",
			 "another #undef before", "#undef NDEBUG_X", 1, 1},
			{"#ifndef G\n#define G\n#include <cstdio>\n#endif\n"
			 "#define B 256 // block\n#define E /* c */\n"
			 "#include \"saxpy.h\"\n#undef B\n#define C(x) asm(x)\n",
			 "a guard, a number, an empty one before; anything after",
			 "", 0, 0},
		};
		for (size_t i = 0; i < sizeof(macros) / sizeof(macros[0]); i++) {
			n = directives(macros[i].text, got, sizeof(got));
			char at[32];
			snprintf(at, sizeof(at), "saxpy_v1.cu:%ld:",
				 macros[i].line);
			CHECK(n == macros[i].want &&
				      (!n || (strstr(got, at) &&
					      strstr(got, macros[i].name) &&
					      strstr(got, "before the #include"))),
			      "macro before an #include: %s: %s (%d: %s)",
			      macros[i].what,
			      macros[i].want ? "found, named, with its line"
					     : "allowed", n, got);
		}
		char bad[2048] = "";
		int files = 0, found = 0;
		found += directives_in_tree("solutions", &files, bad,
					    sizeof(bad));
		found += directives_in_tree("labs", &files, bad, sizeof(bad));
		CHECK(files >= 40 && found == 0,
		      "no line directive found in any of the %d solution and "
		      "lab files (%s)", files, bad);
	}
	return check_done();
}
