/* lint: what a kernel file may and may not contain (grader/lint.h). */
#include "check.h"
#include "lint.h"

#include <stdio.h>
#include <string.h>

static const char *const lab_headers[] = {"saxpy.h", "cudalab.h", NULL};

/* text must be rejected with a problem on line `line` whose message holds
 * `words`. */
static void rejects(const char *what, const char *text, int line,
		    const char *words)
{
	struct lint_problem p[8];
	int n = lint_text(text, lab_headers, p, 8);
	CHECK(n >= 1 && p[0].line == line && strstr(p[0].message, words),
	      "rejects %s (got %d: line %d %s)", what, n, n ? p[0].line : 0,
	      n ? p[0].message : "");
}

static void accepts(const char *what, const char *text)
{
	struct lint_problem p[8];
	int n = lint_text(text, lab_headers, p, 8);
	CHECK(n == 0, "accepts %s (got %d: %s)", what, n, n ? p[0].message : "");
}

int main(void)
{
	accepts("a plain kernel file",
		"#include \"saxpy.h\"\n#include <cuda_bf16.h>\n"
		"#include <cooperative_groups.h>\n"
		"namespace cg = cooperative_groups;\n"
		"__global__ void k(int n, float *y) {\n"
		"  cg::thread_block b = cg::this_thread_block();\n"
		"  b.sync(); int read = 3; y[0] = read;\n"
		"  asm volatile(\"cp.async.commit_group;\");\n"
		"  printf(\"n=%d\\n\", n);\n}\n"
		"void saxpy(int n, float a, const float *x, float *y)\n"
		"{ k<<<1, 32>>>(n, y); }\n");
	accepts("banned words in comments and strings",
		"// system(\"rm -rf /\") and exit(0)\n/* fork() */\n"
		"const char *s = \"main( fopen( getenv(\";\n");
	accepts("member access and other namespaces",
		"void f() { p->write(1); q.open(); cuda::exit(); }\n");
	accepts("a raw string with a quote inside",
		"const char *s = R\"x(a \" b)x\"; int ok;\n");

	rejects("main", "#include \"saxpy.h\"\nint main() { return 0; }\n", 2,
		"main()");
	rejects("system", "void f() {\n  system(\"id\");\n}\n", 2, "system");
	/* a device helper of the file's own named like a C library call
	 * (2026-11-27): the object check refuses the C library's */
	accepts("device helpers of the file's own named read and write",
		"__device__ __forceinline__ float read(const float *p, int i)"
		" { return p[i]; }\n"
		"__device__ void write(float *p, int i, float v) { p[i] = v; }\n"
		"__global__ void k(float *y) { write(y, 0, read(y, 1)); }\n");
	rejects("read called with no declaration of the file's own",
		"void f(char *b) {\n  return read(0, b, 8);\n}\n", 2, "read");
	rejects("write after return, declared nowhere",
		"int f(char *b) {\n  return write(1, b, 8); }\n", 2, "write");
	accepts("a reference parameter named pipe (a declarator, not &)",
		"__device__ void issue(thread_pipe &pipe, int k) { }\n"
		"__device__ void two(const thread_pipe & pipe) { }\n");
	rejects("the address of pipe after =",
		"void f() {\n  void *p = & pipe;\n}\n", 2, "pipe");
	rejects("the address of pipe as an argument",
		"void f() {\n  g(1, &pipe);\n}\n", 2, "pipe");
	accepts("main under #ifdef (a test driver that is off: the object "
		"check refuses one compiled in)",
		"#ifdef STANDALONE_TEST\nint main() { return 0; }\n#endif\n");
	rejects("main after the #endif",
		"#ifdef X\n#endif\nint main() { return 0; }\n", 3, "main");
	rejects("<iostream>, naming fprintf", "#include <iostream>\n", 1,
		"fprintf(stderr");
	/* honest-code tester, 2026-11-27: each refused header says why */
	accepts("C++17 value types and a local std::vector",
		"#include <optional>\n#include <string_view>\n"
		"#include <vector>\n#include <chrono>\n");
	rejects("<thrust/...>, naming <<<>>>", "#include <thrust/transform.h>\n",
		1, "launch it with <<<>>>");
	rejects("NVTX, naming the harness", "#include <nvtx3/nvToolsExt.h>\n",
		1, "belong to the harness");
	rejects("<cuda_profiler_api.h>, naming the harness",
		"#include <cuda_profiler_api.h>\n", 1, "belong to the harness");
	rejects("<functional>, naming statics", "#include <functional>\n", 1,
		"use plain values");
	rejects("main, even declared by the file",
		"int main(void);\nvoid f() { main(); }\n", 1, "main");
	rejects("::system", "void f() { ::system(\"id\"); }\n", 1, "system");
	rejects("std::exit", "void f() { std::exit(0); }\n", 1, "exit");
	rejects("std::thread", "#include <cstdio>\nstd::thread t;\n", 2,
		"std::thread");
	rejects("exit after a block comment", "/* a\nb\n*/ void f() { exit(0); }",
		3, "exit");
	rejects("a constructor", "__attribute__((constructor)) void f() {}\n",
		1, "constructor");
	rejects("atexit", "static int x = atexit(0);\n", 1, "atexit");
	rejects("a function pointer to system", "auto f = system;\n", 1,
		"system");
	rejects("the address of write", "auto f = &write;\n", 1, "write");
	rejects("a call to write", "void f() { write(3, \"x\", 1); }\n", 1,
		"write");
	accepts("fprintf to stderr and <cuda.h> (the object check decides)",
		"#include <cuda.h>\n"
		"void f() { fprintf(stderr, \"x\"); }\n");
	rejects("dprintf", "void f() { dprintf(3, \"x\"); }\n", 1,
		"dprintf");
	rejects("fopen", "void f() { fopen(\"/etc/passwd\", \"r\"); }\n", 1,
		"fopen");
	rejects("getenv", "void f() { getenv(\"HOME\"); }\n", 1, "getenv");
	rejects("dlsym", "void *p = dlsym(0, \"system\");\n", 1, "dlsym");
	rejects("the harness's functions", "void f() { hx_emit(0); }\n", 1,
		"hx_emit");
	rejects("jansson", "void f() { json_pack(\"{}\"); }\n", 1, "json_pack");
	rejects("__real_ launch hooks", "extern int __real_cudaLaunchKernel;\n",
		1, "__real_");
	rejects("token pasting", "#define CAT(a, b) a ## b\nCAT(sys, tem);\n",
		1, "##");
	rejects("a computed include", "#define H <stdio.h>\n#include H\n", 2,
		"computed");
	rejects("a quoted include outside the lab",
		"#include \"../../solutions/saxpy/saxpy_v5.cu\"\n", 1,
		"lab's own headers");
	rejects("an include not on the list", "\n#include <unistd.h>\n", 2,
		"<unistd.h>");
	/* red team, 2026-11-24: xR"( is the name xR and an ordinary string,
	 * not a raw string that would hide the lines after it; 1'_ is one
	 * pp-number, not 1 and a character */
	rejects("an include after a fake raw-string prefix",
		"#define O xR\"(\"\n#include <unistd.h>\n#define C \")\"\n", 2,
		"not on the list");
	rejects("an include after a digit separator before _",
		"int a = 1'_'/*';\n#include <unistd.h>\n// */\n", 2,
		"not on the list");
	accepts("a real raw string with a u8 prefix",
		"const char *s = u8R\"(\n#include <unistd.h>\n)\";\n");
	rejects("cub's umbrella header, naming the block-level ones",
		"#include <cub/cub.cuh>\n", 1, "<cub/block/block_reduce.cuh>");
	rejects("a device-wide cub header",
		"#include <cub/device/device_reduce.cuh>\n", 1, "device_reduce");
	rejects("a way out of an allowed folder",
		"#include <cub/block/../../stdio.h>\n", 1, "cub/block/..");
	accepts("cub's block- and warp-level headers, libcu++",
		"#include <cub/block/block_reduce.cuh>\n"
		"#include <cub/warp/warp_reduce.cuh>\n"
		"#include <cuda/std/cstdint>\n");
	accepts("libcu++'s <cuda/...> headers and <nv/target>",
		"#include <cuda/cmath>\n#include <cuda/atomic>\n"
		"#include <nv/target>\n");
	rejects("a way out of libcu++'s folder",
		"#include <cuda/../unistd.h>\n", 1, "cuda/..");
	accepts("an error check that exits or aborts with a failure status "
		"(CUDA_CHECK, gpuAssert with a parameter named abort)",
		"#define CHECK(x) do { if ((x) != cudaSuccess) { "
		"fprintf(stderr, \"%s\", cudaGetErrorString(x)); "
		"exit(EXIT_FAILURE); } } while (0)\n"
		"inline void a(int c, bool abort = true) { if (abort) exit(c); "
		"std::exit(1); abort(); }\n");
	rejects("exit(EXIT_SUCCESS)", "void f() {\n exit( EXIT_SUCCESS ); }\n",
		2, "exit(EXIT_SUCCESS)");
	rejects("_Exit", "void f() { _Exit(1); }\n", 1, "_Exit");
	rejects("a syscall in inline asm",
		"void f() { asm(\"mov $60, %eax; syscall\"); }\n", 1, "syscall");
	rejects("a syscall in an asm label and in __asm__ volatile",
		"int g(void) __asm__(\"x\" \"syscall\");\n", 1, "syscall");
	accepts("the word syscall in a printf, after an asm statement ended",
		"__device__ void d() { asm volatile(\"membar.gl;\"); }\n"
		"void f() { printf(\"no syscall, no system(), no fopen\\n\"); }\n");
	accepts("header-only C++ containers (the object check decides)",
		"#include <array>\n#include <tuple>\n#include <numeric>\n");

	rejects("CUB's BlockLoad, which brings <iostream> (named, with what "
		"to use instead)",
		"#include \"saxpy.h\"\n#include <cub/block/block_load.cuh>\n", 2,
		"brings <iostream> in");
	rejects("CUB's WarpLoad, likewise",
		"#include <cub/warp/warp_load.cuh>\n", 1, "cub::ThreadLoad");
	accepts("GCC's , ## __VA_ARGS__ in a debug macro",
		"#define DBG(fmt, ...) printf(fmt , ## __VA_ARGS__)\n"
		"#define DBG2(fmt, ...) printf(fmt,##__VA_ARGS__)\n");
	rejects("## pasting a name", "#define CAT(a, b) a ## b\n", 1,
		"pastes tokens with ##");
	rejects("## after a comma that pastes another name",
		"#define P(a, ...) f(a, ## sys ## tem)\n", 1,
		"pastes tokens with ##");
	accepts("CUB's BlockReduce and ThreadLoad",
		"#include <cub/block/block_reduce.cuh>\n"
		"#include <cub/thread/thread_load.cuh>\n");

	/* honest-code tester, second round (2026-11-27) */
	accepts("Visual Studio's template: CUDA's headers with quotes",
		"#include \"cuda_runtime.h\"\n"
		"#include \"device_launch_parameters.h\"\n"
		"#include \"cuda/std/cmath\"\n");
	rejects("a quoted header of the student's own",
		"#include \"cuda_runtime.h\"\n#include \"helpers.h\"\n", 2,
		"lab's own headers");
	rejects("a quoted header the list refuses",
		"#include \"cub/block/block_load.cuh\"\n", 1,
		"lab's own headers");
	accepts("a variadic logger: <cstdarg>, vfprintf to stderr",
		"#include <cstdarg>\n#include <stdarg.h>\n#include <cstdio>\n"
		"static void log_error(const char *fmt, ...) {\n"
		"  va_list ap; va_start(ap, fmt); vfprintf(stderr, fmt, ap);\n"
		"  va_end(ap);\n}\n");
	accepts("a lambda named write (the file's own)",
		"__global__ void k(float *y) {\n"
		"  auto write = [&](float v) { y[0] = v; };\n  write(1.0f);\n}\n");
	rejects("write called with only a comparison named write",
		"void f(int write) { if (write == 1) write(1, \"x\", 1); }\n", 1,
		"uses write");
	accepts("an #if 0 group, nested #ifs inside, is not read",
		"#if 0\n#include <iostream>\n#ifdef X\nsystem(\"ls\");\n#endif\n"
		"fork();\n#endif\n__global__ void k() {}\n");
	rejects("the #else of an #if 0 is read",
		"#if 0\n#include <iostream>\n#else\nvoid f() { fork(); }\n#endif\n",
		4, "uses fork");
	rejects("#if 0x1 is compiled", "#if 0x1\nvoid f() { fork(); }\n#endif\n",
		2, "uses fork");
	rejects("#if 0 || 1 is compiled",
		"#if 0 || 1\nvoid f() { fork(); }\n#endif\n", 2, "uses fork");
	rejects("after an #if 0 group's #endif, reading goes on",
		"#if 0 // off\nfork();\n#endif\nvoid f() { fork(); }\n", 4,
		"uses fork");
	/* red team, 2026-11-27: the lint and the compiler read the same
	 * group */
	rejects("#if 0, a comment, then || 1 is compiled",
		"#if 0 /* off */ || 1\n#include <unistd.h>\n#endif\n", 2,
		"not on the list");
	rejects("a // comment spliced onto the #if 0 line: no group",
		"// note \\\n#if 0\n#include <unistd.h>\n", 3,
		"not on the list");
	rejects("a \"/*\" string inside an #if 0 group opens no comment",
		"#if 0\nconst char *s = \"/*\";\n#endif\n"
		"#include <unistd.h>\nconst char *t = \"*/\";\n", 4,
		"not on the list");
	accepts("a debug macro of the file's own named dprintf",
		"#define dprintf(...) ((void)0)\n"
		"void f(int n) { dprintf(\"n=%d\\n\", n); }\n");
	rejects("dprintf with no macro of the file's own",
		"void f(int n) { dprintf(2, \"n=%d\\n\", n); }\n", 1,
		"uses dprintf");
	rejects("#undef dprintf is no definition",
		"#undef dprintf\nvoid f(int n) { dprintf(2, \"x\"); }\n", 1,
		"uses dprintf");
	accepts("the prose of #error and #warning",
		"#if __CUDA_ARCH__ < 700\n#error unsupported system \\\n"
		"  (fork it)\n#warning no system here\n#endif\n");

	struct lint_problem p[2];
	int n = lint_text("void f() { exit(0); _Exit(1); fork(); }\n", NULL, p,
			  2);
	CHECK(n == 3 && p[1].line == 1 && strstr(p[1].message, "_Exit"),
	      "every problem is counted, the first max are kept (%d)", n);

	char err[256];
	CHECK(lint_file("/nonexistent.cu", NULL, p, 2, err, sizeof(err)) == -1 &&
		      strstr(err, "/nonexistent.cu"),
	      "an unreadable file is an error naming it (%s)", err);
	return check_done();
}
