/*
 * lint — what a student's kernel file may contain, checked before it builds.
 *
 * A step file holds kernels and the lab's launcher; the harness owns the
 * process. So a student file is rejected (verdict "rejected", with file:line
 * and the reason) when it:
 *   - includes anything but the headers on the allow-list (lint.c), or a
 *     quoted header that is neither one of the lab's (quoted_ok) nor on
 *     that list ("cuda_runtime.h" with quotes, Visual Studio's template:
 *     the compile finds the system's; a file of the student's own folder
 *     is refused by the object check), or uses a computed #include. CUB's block-, warp- and thread-level headers
 *     (<cub/block/block_reduce.cuh> ...), libcu++ (<cuda/std/...> and
 *     every <cuda/...>: <cuda/cmath>, <cuda/atomic>), <nv/target> and the
 *     header-only C++ containers <array>, <tuple>, <numeric>,
 *     <initializer_list> and <stdexcept> (no I/O, no static initialiser;
 *     2026-11-24), <string> (an error check's message built with
 *     operator+: the object check lets libstdc++'s own std::string
 *     members be called and hides the copies of its templates, 2026-11-27)
 *     and <cinttypes> are
 *     on it; CUB's umbrella <cub/cub.cuh> and its device-wide algorithms
 *     are not, by decision (2026-11-24): they bring <iostream>'s static
 *     initialiser and NVTX's loader (dlopen, getenv, weak C symbols), which
 *     the object check must refuse, so the message names the block-level
 *     headers to include instead. Thrust and <iostream> stay off the list;
 *   - defines or calls a host entry point or hook: main (not under an
 *     #if/#ifdef: a published test driver; the object check refuses a
 *     main compiled in), constructors and
 *     destructors (__attribute__((constructor)), init_priority), atexit;
 *   - names a process, file, network, environment or exit function (system,
 *     fork, exec*, fopen, open, socket, dlopen, getenv, _exit, ...), or
 *     calls exit(0) / exit(EXIT_SUCCESS): exit with a failure status and
 *     abort() are what published error checks do (CUDA_CHECK, gpuAssert)
 *     and are allowed (the run is then a crash, never a pass);
 *     or an output function that writes to a descriptor or FILE it names
 *     (write, fwrite, dprintf ...; printf, puts and fprintf to stdout or
 *     stderr are fine: neither is parsed);
 *   - names the harness's or the JSON library's own functions (hx_*, json_*,
 *     __real_*, __wrap_*): only the harness speaks on the result channel;
 *   - pastes tokens with ## (but GCC's `, ## __VA_ARGS__`, which pastes
 *     no name: 2026-11-27) (a way to spell a banned name without writing
 *     it), or has a string of an asm statement or asm label that holds a
 *     system-call instruction. Only there (2026-11-24): printf("no syscall
 *     here") is prose, and a string elsewhere becomes an instruction only
 *     through host asm, a section attribute or #ident, which the object
 *     check refuses whatever the string says; device asm is PTX, which has
 *     no system-call instruction.
 * The scan ignores comments, the contents of strings, #if 0 groups (up to
 * their #else, #elif or #endif: nothing in them is compiled, and the
 * object check sees what was) and the prose of #error and #warning, and
 * it knows member
 * access: `block.sync()` or `tile.thread_rank()` are fine, a variable called
 * `read` is not flagged unless it is called or its address is taken, and
 * not even then when the file declares a function of its own by that
 * name (`__device__ float read(const float *p)`, 2026-11-27: the object
 * check refuses any reference to the C library's read or write; main
 * stays refused), or a variable or lambda (`auto write = [&](...)`), or
 * #defines a macro of that name (`#define dprintf(...) ((void)0)`).
 *
 * This check reads text, and text can be spelled past any word list (line
 * splices, digit separators, digraphs, asm labels): it is only the early,
 * friendly message, with a line number, for honest mistakes. What decides
 * is the object check on the compiled file (objcheck.h), which sees what
 * the compiler made of every spelling, and the sandbox (sandbox.h). So
 * harmless published code is not rejected here: <cuda.h> and <cstdlib>
 * may be included (a driver-API or system() call is still rejected, by
 * the object check), and debug fprintf(stderr, ...) is allowed. Every
 * problem of a file is reported, not only the first. (The lint runs
 * before the compile: a file it rejects is not compiled.)
 */
#ifndef CUDALAB_LINT_H
#define CUDALAB_LINT_H

#include <stddef.h>

struct lint_problem {
	int line;
	char message[240];
};

/*
 * Check the text of one file (NUL-terminated). quoted_ok: NULL-terminated
 * list of header names a quoted #include may name. Fills at most max
 * problems and returns how many there were in all (0: clean).
 */
int lint_text(const char *text, const char *const *quoted_ok,
	      struct lint_problem *out, int max);

/* The same for a file; -1 with err set when it cannot be read (or is over
 * 1 MiB, which no kernel file is). */
int lint_file(const char *path, const char *const *quoted_ok,
	      struct lint_problem *out, int max, char *err, size_t errlen);

/* The headers a kernel file may include with <...> and the folders whose
 * headers it may (NULL-terminated; the lint's own lists, for the test that
 * compiles every one of them and checks that none brings host assembly:
 * tests/unit/test_objcheck.c). */
const char *const *lint_angle_headers(void);
const char *const *lint_angle_folders(void);
/* Headers in those folders refused by name (they bring <iostream>). */
const char *const *lint_angle_refused(void);

#endif
