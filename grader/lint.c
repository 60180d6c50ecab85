/* lint — see lint.h for the rules. One pass over the text: comments and
 * string contents are skipped, preprocessor directives read where they
 * start, identifiers looked up with what comes before and after them. */
#include "lint.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Names rejected wherever they appear (outside member access). */
static const char *const banned_anywhere[] = {
	/* processes and programs */
	"system", "popen", "pclose", "fork", "vfork", "execl", "execlp",
	"execle", "execv", "execvp", "execvpe", "execve", "fexecve",
	"posix_spawn", "posix_spawnp", "clone", "ptrace", "pthread_create",
	"prctl", "seccomp", "setrlimit", "prlimit", "sigaction", "raise",
	"longjmp", "setjmp", "syscall",
	/* libraries loaded at run time */
	"dlopen", "dlmopen", "dlsym", "dlvsym",
	/* files and directories */
	"fopen", "fopen64", "freopen", "fdopen", "tmpfile", "opendir", "openat",
	"open64", "creat", "unlink", "unlinkat", "rmdir", "mkdir", "chdir",
	"fchdir", "mmap", "mprotect", "ioctl", "fcntl", "dup2", "dup3",
	/* network */
	"socket", "socketpair", "sendto", "sendmsg", "recvfrom", "recvmsg",
	"getaddrinfo", "gethostbyname",
	/* environment */
	"getenv", "secure_getenv", "setenv", "unsetenv", "putenv",
	"clearenv", "environ", "__environ", "program_invocation_name",
	/* ending the process early without its exit path, hooks around main
	 * (exit and abort: see exit_call below) */
	"_exit", "_Exit", "quick_exit", "atexit", "at_quick_exit",
	"constructor", "destructor", "init_priority",
	/* output to a descriptor the file names (fprintf and vfprintf to
	 * stdout or stderr are fine: the judge reads nothing the student's
	 * process prints; a FILE forged from a copy of *stderr reaches a
	 * descriptor through fprintf as well, and that process is untrusted
	 * anyway: red team, 2026-11-27) */
	"dprintf", "vdprintf", "putc", "fwrite",
	NULL,
};

/* Common words rejected only when called or their address is taken. */
static const char *const banned_calls[] = {
	"main", "read", "write", "close", "open", "pipe", "dup", "kill",
	"signal", "bind", "connect", "listen", "accept", "send", "recv",
	"remove", "rename", "lseek", "truncate", "ftruncate", "stat", NULL,
};

/* After std:: these are threads of the host, not of the GPU. */
static const char *const banned_std[] = {"thread", "jthread", "async",
					 NULL};

static const char *const banned_prefixes[] = {"hx_", "HX_", "json_",
					      "__real_", "__wrap_", NULL};

/* C++ stream headers, refused with what to use instead. */
/* Headers whose objects published code keeps in statics (std::function
 * tables, unique_ptr caches, once flags): refused with that reason. */
static const char *const with_statics[] = {"functional", "memory", "mutex",
					   NULL};

static const char *const streams[] = {"iostream", "ostream", "sstream",
				      "fstream", "iomanip", NULL};

/* Headers a kernel file may include with <...>. */
static const char *const angle_ok[] = {
	"cuda_runtime.h", "cuda_runtime_api.h", "device_launch_parameters.h",
	"cuda_fp16.h", "cuda_bf16.h", "cuda_fp8.h", "mma.h",
	"cooperative_groups.h", "cooperative_groups/reduce.h",
	"cooperative_groups/memcpy_async.h", "cooperative_groups/scan.h",
	"cuda_pipeline.h", "cuda_pipeline_primitives.h", "cuda_awbarrier.h",
	"cuda/pipeline", "cuda/barrier", "cuda/annotated_ptr",
	"vector_types.h", "vector_functions.h", "math_constants.h",
	"cstdint", "stdint.h", "cstddef", "stddef.h", "cmath", "math.h",
	"cfloat", "float.h", "climits", "limits.h", "cstdio", "stdio.h",
	"cassert", "assert.h", "type_traits", "utility", "limits",
	"algorithm", "cstring", "string.h", "cuda.h", "cstdlib", "stdlib.h",
	"array", "tuple", "numeric", "initializer_list", "stdexcept", "string",
	"cinttypes", "inttypes.h",
	/* C++17 value types and a local std::vector (honest-code tester,
	 * 2026-11-27): what they call is the object check's to judge, and a
	 * host call of <chrono>'s clocks is refused there by name */
	"optional", "string_view", "vector", "chrono",
	/* a variadic logging helper (vfprintf to stderr: honest-code
	 * tester, 2026-11-27) */
	"cstdarg", "stdarg.h",
	/* pieces of the CUDA runtime header that older published code names
	 * (Visual Studio's template, textbooks); cuda_runtime.h includes
	 * them anyway (device_functions.h and math_functions.h warn that
	 * they are internal: a warning, not an error) */
	"device_functions.h", "math_functions.h", "device_atomic_functions.h",
	"device_types.h", "driver_types.h", "cuda_occupancy.h",
	"sm_20_intrinsics.h", "sm_30_intrinsics.h", "sm_32_intrinsics.h",
	"sm_35_intrinsics.h", "sm_61_intrinsics.h", "sm_20_atomic_functions.h",
	"sm_32_atomic_functions.h", "sm_35_atomic_functions.h",
	"sm_60_atomic_functions.h", "builtin_types.h",
	/* C-style textbook code (nothing in C++) */
	"stdbool.h", NULL,
};

/* Folders of headers a kernel file may include with <...>: CUB's block-,
 * warp- and thread-level primitives run inside the student's own kernel;
 * libcu++ (<cuda/std/...>, and all of <cuda/...>: cuda::ceil_div in
 * <cuda/cmath>, cuda::atomic_ref in <cuda/atomic>, <cuda/ptx>) and
 * <nv/target> (NV_IF_TARGET) are header-only device and host code: what
 * a header could bring that a kernel file must not (a stream, an
 * allocation, a static initialiser) is named and refused by the object
 * check on what the file compiled to (2026-11-24). CUB's
 * umbrella <cub/cub.cuh> and device-wide algorithms (<cub/device/...>) are
 * not: they pull in <iostream> (a static initialiser) and NVTX's loader
 * (dlopen, getenv), which the object check rejects, and launch kernels of
 * their own. */
static const char *const angle_ok_folders[] = {
	"cub/block/", "cub/warp/", "cub/thread/", "cuda/", "nv/", NULL,
};

const char *const *lint_angle_headers(void)
{
	return angle_ok;
}

const char *const *lint_angle_folders(void)
{
	return angle_ok_folders;
}

/* Headers inside the folders above that bring <iostream> (its static
 * initialiser, std::ios_base::Init, is refused by the object check with a
 * message that names no header): said here, by name (CCCL 13.0; found
 * 2026-11-27 by compiling every header of cub/block, cub/warp and
 * cub/thread; tests/unit/test_objcheck.c leaves them out of the
 * every-allowed-header compile). */
static const char *const angle_refused[] = {
	"cub/block/block_load.cuh", "cub/warp/warp_load.cuh", NULL,
};

const char *const *lint_angle_refused(void)
{
	return angle_refused;
}

/* Inside a string of an asm statement or asm label: instructions that
 * enter the kernel directly. Only there: a string elsewhere ("no syscall
 * here" in a printf) never becomes an instruction. What decides is the
 * object check, which refuses every host asm of the student's file, the
 * section attribute and #ident, however spelt (a string in a macro that
 * an asm uses later is its to refuse); device asm is PTX, which has no
 * system-call instruction. */
static const char *const banned_asm[] = {"syscall", "sysenter", "int $0x80",
					 "int 0x80", NULL};

struct scan {
	const char *text;
	const char *const *quoted_ok;
	struct lint_problem *out;
	int max, count, line;
	int in_asm; /* after asm/__asm/__asm__, up to the next ; or } */
	int cond_depth; /* #if/#ifdef/#ifndef blocks open */
	int skipping;   /* inside an #if 0 group: nothing there is compiled */
	int skip_nest;  /* #if blocks opened inside that group */
};

static int in_list(const char *const *list, const char *s, size_t len)
{
	for (; *list; list++)
		if (strlen(*list) == len && !strncmp(*list, s, len))
			return 1;
	return 0;
}

/* Whether name (len bytes) is a header inside one of the folders, with no
 * way out of it (no "..", no "//"). */
static int in_folder(const char *const *folders, const char *name, size_t len)
{
	for (size_t i = 0; i + 1 < len; i++)
		if ((name[i] == '.' && name[i + 1] == '.') ||
		    (name[i] == '/' && name[i + 1] == '/'))
			return 0;
	for (; *folders; folders++) {
		size_t fl = strlen(*folders);
		if (len > fl && !strncmp(name, *folders, fl))
			return 1;
	}
	return 0;
}

static void problem(struct scan *s, int line, const char *fmt, ...)
{
	if (s->count < s->max) {
		struct lint_problem *p = &s->out[s->count];
		p->line = line;
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(p->message, sizeof(p->message), fmt, ap);
		va_end(ap);
	}
	s->count++;
}

/* As GCC reads names: letters, _, $ and UTF-8 (bytes >= 0x80) (red team,
 * 2026-11-24: $R"( is a name and a string, not a raw string). */
static int is_ident_start(int c)
{
	return isalpha(c) || c == '_' || c == '$' || (unsigned char)c >= 0x80;
}

static int is_ident(int c)
{
	return isalnum(c) || c == '_' || c == '$' || (unsigned char)c >= 0x80;
}

/* The first character of the identifier whose last character is at last. */
static const char *word_start(const char *text, const char *last)
{
	while (last > text && is_ident(last[-1]))
		last--;
	return last;
}

/* Skip spaces and tabs (not newlines) from p. */
static const char *skip_blank(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* The significant character before position i (skipping white space). */
static const char *before(const char *text, const char *p)
{
	while (p > text && isspace((unsigned char)p[-1]))
		p--;
	return p > text ? p - 1 : NULL;
}

static void check_include(struct scan *s, const char *p)
{
	p = skip_blank(p);
	char close = *p == '"' ? '"' : *p == '<' ? '>' : 0;
	if (!close) {
		problem(s, s->line, "#include of a computed name: include "
				    "headers by their name");
		return;
	}
	const char *name = p + 1, *end = strchr(name, close);
	const char *eol = strchr(name, '\n');
	if (!end || (eol && end > eol)) {
		problem(s, s->line, "#include with an unterminated name");
		return;
	}
	size_t len = (size_t)(end - name);
	/* "cuda_runtime.h" with quotes (Visual Studio's CUDA template): the
	 * compile finds the system's, as for <...> (the compile box shows no
	 * other file of the student's folder, and the object check refuses a
	 * header of the student's own: objcheck_host_source) */
	int system_quoted = close == '"' && !in_list(angle_refused, name, len) &&
			    (in_list(angle_ok, name, len) ||
			     in_folder(angle_ok_folders, name, len));
	if (close == '"' && !in_list(s->quoted_ok, name, len) && !system_quoted)
		problem(s, s->line,
			"#include \"%.*s\": a kernel file may include only the "
			"lab's own headers with quotes (and the system's and "
			"CUDA's on the list, better written <...>)",
			(int)len, name);
	else if (close == '>' && in_list(angle_refused, name, len))
		problem(s, s->line,
			"#include <%.*s> brings <iostream> in (through "
			"cub/iterator/cache_modified_input_iterator.cuh): a "
			"static initialiser, which a kernel file may not have; "
			"load with plain or vector loads (or cub::ThreadLoad, "
			"<cub/thread/thread_load.cuh>)",
			(int)len, name);
	else if (close == '>' && !in_list(angle_ok, name, len) &&
		 !in_folder(angle_ok_folders, name, len))
		problem(s, s->line,
			"#include <%.*s> is not on the list of headers a kernel "
			"file may use (CUDA, math, integer types, printf%s)",
			(int)len, name,
			len > 4 && !strncmp(name, "cub/", 4)
				? "; of CUB, only the block- and warp-level "
				  "headers such as <cub/block/block_reduce.cuh> "
				  "and <cub/warp/warp_reduce.cuh>"
			: in_list(streams, name, len)
				? "; C++ streams bring a static initialiser: "
				  "print with fprintf(stderr, ...) from <cstdio>"
			: len > 7 && !strncmp(name, "thrust/", 7)
				? "; Thrust's algorithms launch kernels of their "
				  "own and bring global objects: write the kernel "
				  "and launch it with <<<>>>"
			: (len > 5 && !strncmp(name, "nvtx", 4)) ||
			  (len == 19 && !strncmp(name, "cuda_profiler_api.h", 19))
				? "; profiler ranges and calls belong to the "
				  "harness (`run.py explain` profiles the step)"
			: in_list(with_statics, name, len)
				? "; its objects live in statics, which a kernel "
				  "file may not have: use plain values"
				: "");
}

/* Whether the ## at q (in a #define starting at start) is GCC's
 * `, ## __VA_ARGS__`, which drops the comma when there are no variable
 * arguments and pastes no name (honest-code tester, 2026-11-27: a DBG
 * macro of published code). */
static int comma_va_args(const char *start, const char *q)
{
	const char *b = q;
	while (b > start && (b[-1] == ' ' || b[-1] == '\t'))
		b--;
	if (b == start || b[-1] != ',')
		return 0;
	const char *a = q + 2;
	while (*a == ' ' || *a == '\t')
		a++;
	return !strncmp(a, "__VA_ARGS__", 11) && !is_ident(a[11]);
}

/* The end of the logical line at p (backslash continuations counted). */
static const char *skip_logical_line(struct scan *s, const char *p)
{
	while (*p && *p != '\n') {
		if (*p == '\\' && p[1] == '\n') {
			s->line++;
			p += 2;
			continue;
		}
		p++;
	}
	return p;
}

/* Whether the rest of an #if line at p is exactly 0, then comments only:
 * #if 0x1, #if 0 || X and #if 0 / * off * / || 1 are compiled (red team,
 * 2026-11-27), and a splice after the 0 continues the condition. */
static int if_zero(const char *p)
{
	p = skip_blank(p);
	if (*p != '0')
		return 0;
	p = skip_blank(p + 1);
	for (;;) {
		if (*p == '\n' || !*p || (p[0] == '/' && p[1] == '/'))
			return 1;
		if (p[0] != '/' || p[1] != '*')
			return 0;
		const char *close = strstr(p + 2, "*/");
		if (!close)
			return 0;
		for (const char *q = p + 2; q < close; q++)
			if (*q == '\n')
				return 0; /* a comment over lines: read on */
		p = skip_blank(close + 2);
	}
}

/* Handle a directive starting at '#'; returns where scanning goes on. */
static const char *directive(struct scan *s, const char *p)
{
	p = skip_blank(p + 1);
	const char *w = p;
	while (is_ident(*p))
		p++;
	size_t len = (size_t)(p - w);
	int opens = (len == 2 && !strncmp(w, "if", 2)) ||
		    (len == 5 && !strncmp(w, "ifdef", 5)) ||
		    (len == 6 && !strncmp(w, "ifndef", 6));
	int endif = len == 5 && !strncmp(w, "endif", 5);
	int other_branch = (len == 4 && !strncmp(w, "else", 4)) ||
			   (len == 4 && !strncmp(w, "elif", 4)) ||
			   (len == 7 && !strncmp(w, "elifdef", 7)) ||
			   (len == 8 && !strncmp(w, "elifndef", 8));
	if (opens)
		s->cond_depth++;
	else if (endif && s->cond_depth > 0)
		s->cond_depth--;
	if (s->skipping) {
		/* an #if 0 group: only its nesting matters, up to the
		 * #else/#elif/#endif that ends it */
		if (opens)
			s->skip_nest++;
		else if (endif && s->skip_nest > 0)
			s->skip_nest--;
		else if (endif || other_branch)
			s->skipping = 0;
		return skip_logical_line(s, p);
	}
	if (len == 2 && !strncmp(w, "if", 2) && if_zero(p)) {
		s->skipping = 1; /* the compiler reads none of it (the object
				  * check sees what it compiled) */
		s->skip_nest = 0;
		return skip_logical_line(s, p);
	}
	if ((len == 5 && !strncmp(w, "error", 5)) ||
	    (len == 7 && !strncmp(w, "warning", 7)))
		return skip_logical_line(s, p); /* prose: "unsupported system" */
	if ((len == 7 && !strncmp(w, "include", 7)) ||
	    (len == 12 && !strncmp(w, "include_next", 12)) ||
	    (len == 6 && !strncmp(w, "import", 6))) {
		check_include(s, p);
		while (*p && *p != '\n')
			p++;
		return p;
	}
	if (len == 6 && !strncmp(w, "define", 6)) {
		/* the logical line, with backslash continuations */
		for (const char *q = p; *q; q++) {
			if (q[0] == '#' && q[1] == '#' && !comma_va_args(p, q)) {
				problem(s, s->line,
					"#define pastes tokens with ## (a way "
					"to spell a name no check reads): not "
					"allowed in a kernel file; write names "
					"whole (GCC's `, ## __VA_ARGS__` in a "
					"debug macro is fine)");
				break;
			}
			if (*q == '\n' && (q == p || q[-1] != '\\'))
				break;
		}
	}
	return p;
}

/*
 * exit(...) whose argument starts at arg. An error check that ends the
 * program with a failure status (CUDA_CHECK's exit(EXIT_FAILURE), the
 * gpuAssert helper's exit(code)) is published everywhere and harmless: the
 * harness never reaches its end and the run is a crash, never a pass. Only
 * exit(0) / exit(EXIT_SUCCESS) is refused here: ending the program as if
 * it had succeeded is never an error check. (abort() is allowed for the
 * same reason; _exit, _Exit and quick_exit, which skip the exit path, are
 * not.)
 */
static void exit_call(struct scan *s, const char *arg, int std_qualified)
{
	while (isspace((unsigned char)*arg))
		arg++;
	const char *end = arg;
	while (is_ident(*end))
		end++;
	const char *close = end;
	while (isspace((unsigned char)*close))
		close++;
	size_t len = (size_t)(end - arg);
	if (*close != ')' || !((len == 1 && *arg == '0') ||
			       (len == 12 && !strncmp(arg, "EXIT_SUCCESS", 12))))
		return;
	problem(s, s->line,
		"uses %sexit(%.*s): ending the program with success before the "
		"harness has finished is not allowed in a kernel file (an error "
		"check may end it with exit(EXIT_FAILURE) or abort())",
		std_qualified ? "std::" : "", (int)len, arg);
}

static int is_asm_keyword(const char *start, size_t len)
{
	return (len == 3 && !strncmp(start, "asm", 3)) ||
	       (len == 5 && !strncmp(start, "__asm", 5)) ||
	       (len == 7 && !strncmp(start, "__asm__", 7));
}

/* Whether the text declares a function of its own called name (len
 * bytes) that is one of banned_calls' common words: the name follows a
 * type (an identifier that is not a keyword before an expression) and
 * is followed by '(' -- `__device__ float read(const float *p)`. Then a
 * call of it is the file's own function, and the object check still
 * refuses any reference to the C library's (an undefined read or write is
 * not on its list), so the lint gives no friendlier message there.
 * main stays refused here whatever the file declares. */
static int declares_own(const char *text, const char *name, size_t len)
{
	static const char *const not_types[] = {
		"return", "else", "case", "throw", "new", "delete", "sizeof",
		"do", "goto", "co_return", "co_await", "co_yield", "typeid",
		"decltype", "alignof", NULL,
	};
	if (len == 4 && !strncmp(name, "main", 4))
		return 0;
	for (const char *p = strpbrk(text, "(="); p; p = strpbrk(p + 1, "(=")) {
		/* NAME( of a function, or NAME = of a variable or a lambda
		 * (auto write = [&](float v) { ... }: honest-code tester,
		 * 2026-11-27); not ==, and not +=, <= ... (no name before) */
		if (*p == '=' && (p[1] == '=' || (p > text && p[-1] == '=')))
			continue;
		const char *e = before(text, p); /* the name's last char */
		if (!e || !is_ident(*e))
			continue;
		const char *b = word_start(text, e);
		if ((size_t)(e + 1 - b) != len || strncmp(b, name, len))
			continue;
		const char *t = before(text, b); /* the type's last char */
		if (!t || !is_ident(*t))
			continue;
		const char *ts = word_start(text, t);
		if (!in_list(not_types, ts, (size_t)(t + 1 - ts)))
			return 1;
	}
	return 0;
}

/* Whether the text #defines name (len bytes) itself: `#define dprintf(...)
 * ((void)0)`, a debug macro of published code (honest-code tester,
 * 2026-11-27). Its uses are then the file's macro; what it expands to is
 * read where it is used, and the object check refuses a call of the C
 * library's function whatever the spelling. */
static int defines_own_macro(const char *text, const char *name, size_t len)
{
	for (const char *p = strstr(text, "define"); p;
	     p = strstr(p + 6, "define")) {
		const char *h = p;
		while (h > text && (h[-1] == ' ' || h[-1] == '\t'))
			h--;
		if (h == text || h[-1] != '#')
			continue;
		const char *n = skip_blank(p + 6);
		if (n == p + 6 || strncmp(n, name, len) || is_ident(n[len]))
			continue;
		return 1;
	}
	return 0;
}

static void check_ident(struct scan *s, const char *start, size_t len)
{
	if (s->skipping)
		return; /* an #if 0 group: lexed as the compiler does, not read */
	if (is_asm_keyword(start, len)) {
		s->in_asm = 1;
		return;
	}
	for (const char *const *pre = banned_prefixes; *pre; pre++)
		if (len >= strlen(*pre) && !strncmp(start, *pre, strlen(*pre))) {
			problem(s, s->line,
				"uses %.*s: the harness's and JSON library's "
				"own functions are not for kernel files",
				(int)len, start);
			return;
		}
	const char *b = before(s->text, start);
	if (b && (*b == '.' || (*b == '>' && b > s->text && b[-1] == '-')))
		return; /* member access: tile.sync(), p->read */
	int std_qualified = 0;
	if (b && *b == ':' && b > s->text && b[-1] == ':') {
		const char *q = before(s->text, b - 1);
		const char *qe = q ? q + 1 : NULL;
		while (q && q >= s->text && is_ident(*q))
			q--;
		const char *qs = q ? q + 1 : s->text;
		size_t qlen = qe && qe > qs ? (size_t)(qe - qs) : 0;
		if (qlen == 3 && !strncmp(qs, "std", 3))
			std_qualified = 1;
		else if (qlen > 0)
			return; /* cg::sync, cuda::memcpy_async */
		/* ::name is the global one: checked as written */
	}
	const char *n = start + len;
	while (isspace((unsigned char)*n))
		n++;
	int called = *n == '(';
	if (called && len == 4 && !strncmp(start, "exit", 4)) {
		exit_call(s, n + 1, std_qualified);
		return;
	}
	/* & takes an address after an operator or punctuator (= ( , [ {
	 * ; ! ? :) or at the start; after a name, ), ], >, * or another &
	 * it is a reference declarator (thread_pipe &pipe) or a binary & */
	const char *ba = b && *b == '&' ? before(s->text, b) : NULL;
	int address = b && *b == '&' &&
		      !(ba && (*ba == '&' || is_ident(*ba) || *ba == ')' ||
			       *ba == ']' || *ba == '>' || *ba == '*'));
	int own_macro = !std_qualified &&
			!(len == 4 && !strncmp(start, "main", 4)) &&
			defines_own_macro(s->text, start, len);
	if ((in_list(banned_anywhere, start, len) && !own_macro) ||
	    ((called || address || std_qualified) &&
	     in_list(banned_calls, start, len) && !own_macro &&
	     (std_qualified || !declares_own(s->text, start, len))) ||
	    (std_qualified && in_list(banned_std, start, len))) {
		if (len == 4 && !strncmp(start, "main", 4) && s->cond_depth)
			; /* a test driver under #ifdef STANDALONE, published
			   * style: the object check refuses a main that is
			   * compiled in ("defines the global symbol main") */
		else if (len == 4 && !strncmp(start, "main", 4))
			problem(s, s->line,
				"defines or calls main(): the harness owns the "
				"program; a kernel file has kernels and the "
				"launcher only");
		else
			problem(s, s->line,
				"uses %s%.*s: process, file, network, "
				"environment, exit and output functions are "
				"not allowed in a kernel file",
				std_qualified ? "std::" : "", (int)len, start);
	}
}

/* Skip a string literal starting at the quote; checks its contents. */
static const char *string_lit(struct scan *s, const char *p, int raw)
{
	const char *body = p + 1, *end;
	if (raw) {
		const char *paren = strchr(body, '(');
		char delim[20] = ")";
		if (!paren || paren - body > 16)
			return body;
		snprintf(delim, sizeof(delim), ")%.*s\"", (int)(paren - body),
			 body);
		end = strstr(paren, delim);
		end = end ? end + strlen(delim) - 1 : paren + strlen(paren) - 1;
	} else {
		end = body;
		while (*end && *end != '"' && *end != '\n') {
			if (*end == '\\' && end[1])
				end++;
			end++;
		}
	}
	for (const char *const *a = banned_asm; s->in_asm && *a; a++) {
		const char *hit = strstr(body, *a);
		if (hit && hit < end) {
			problem(s, s->line, "a string holds \"%s\": system calls "
					    "are not allowed", *a);
			break;
		}
	}
	for (const char *q = body; q < end; q++)
		s->line += *q == '\n';
	return *end ? end + 1 : end;
}

int lint_text(const char *text, const char *const *quoted_ok,
	      struct lint_problem *out, int max)
{
	static const char *const none[] = {NULL};
	struct scan s = {text, quoted_ok ? quoted_ok : none, out, max, 0, 1,
			 0, 0, 0, 0};
	int line_start = 1, raw_next = 0; /* a raw-string prefix just read */
	const char *p = text;
	if (!strncmp(p, "\xEF\xBB\xBF", 3))
		p += 3; /* a byte-order mark: GCC drops it */
	while (*p) {
		char c = *p;
		if (c == '\n') {
			s.line++;
			line_start = 1;
			p++;
			continue;
		}
		if (isspace((unsigned char)c)) {
			p++;
			continue;
		}
		if (c == '/' && p[1] == '/') {
			/* a splice at its end continues the comment on the
			 * next line, as the compiler reads it (red team,
			 * 2026-11-27: `// x \` hid the #if 0 after it) */
			while (*p && !(*p == '\n' && p[-1] != '\\' &&
				       !(p[-1] == '\r' && p[-2] == '\\'))) {
				s.line += *p == '\n';
				p++;
			}
			continue;
		}
		if (c == '/' && p[1] == '*') {
			p += 2;
			while (*p && !(p[0] == '*' && p[1] == '/'))
				s.line += *p++ == '\n';
			p += *p ? 2 : 0;
			continue;
		}
		if (c == '#' && line_start) {
			p = directive(&s, p);
			line_start = 0;
			continue;
		}
		line_start = 0;
		if (c == ';' || c == '}' || s.skipping)
			s.in_asm = 0;
		if (c == '"') {
			p = string_lit(&s, p, raw_next);
			raw_next = 0;
			continue;
		}
		if (c == '\'') {
			p++;
			while (*p && *p != '\'' && *p != '\n') {
				if (*p == '\\' && p[1])
					p++;
				p++;
			}
			p += *p == '\'';
			continue;
		}
		if (is_ident_start(c)) {
			const char *start = p;
			while (is_ident(*p))
				p++;
			size_t len = (size_t)(p - start);
			if (*p == '"' && p[-1] == 'R' &&
			    ((len == 1) ||
			     (len == 2 && strchr("uUL", start[0])) ||
			     (len == 3 && !strncmp(start, "u8", 2)))) {
				raw_next = 1; /* the string: next round */
				continue; /* (xR"( is a name and a string) */
			}
			check_ident(&s, start, (size_t)(p - start));
			if ((len == 13 && !strncmp(start, "__has_include", 13)) ||
			    (len == 18 &&
			     !strncmp(start, "__has_include_next", 18))) {
				/* a header name: no comment, no escape in it */
				const char *q = skip_blank(p);
				if (*q == '(')
					q = skip_blank(q + 1);
				char close = *q == '<' ? '>' : *q == '"' ? '"' : 0;
				if (close) {
					q++;
					while (*q && *q != '\n' && *q != close)
						q++;
					p = q + (*q == close);
				}
			}
			continue;
		}
		if (isdigit((unsigned char)c)) {
			/* a pp-number as C++17 lexes it: 1'_ and 1e-6 */
			while (is_ident(*p) || *p == '.' ||
			       (*p == '\'' && is_ident(p[1])) ||
			       ((*p == '+' || *p == '-') &&
				strchr("eEpP", p[-1])))
				p++;
			continue;
		}
		p++;
	}
	return s.count;
}

int lint_file(const char *path, const char *const *quoted_ok,
	      struct lint_problem *out, int max, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "cannot read %s: %s", path,
			 strerror(errno));
		return -1;
	}
	size_t cap = 1 << 20;
	char *buf = malloc(cap + 1);
	if (!buf) {
		fclose(f);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	size_t n = fread(buf, 1, cap + 1, f);
	fclose(f);
	if (n > cap) {
		free(buf);
		snprintf(err, errlen, "%s is over 1 MiB: not a kernel file",
			 path);
		return -1;
	}
	buf[n] = 0;
	if (memchr(buf, 0, n)) {
		free(buf);
		snprintf(err, errlen, "%s holds NUL bytes: not a text file",
			 path);
		return -1;
	}
	int count = lint_text(buf, quoted_ok, out, max);
	free(buf);
	return count;
}
