/*
 * lint — what a student's kernel file may contain, checked before it builds.
 *
 * A step file holds kernels and the lab's launcher; the harness owns the
 * process. So a student file is rejected (verdict "rejected", with file:line
 * and the reason) when it:
 *   - includes anything but the headers on the allow-list below, or a
 *     quoted header that is not one of the lab's (quoted_ok), or uses a
 *     computed #include;
 *   - defines or calls a host entry point or hook: main, constructors and
 *     destructors (__attribute__((constructor)), init_priority), atexit;
 *   - names a process, file, network, environment or exit function (system,
 *     fork, exec*, fopen, open, socket, dlopen, getenv, exit, abort, ...),
 *     or an output function other than printf/puts (the result channel is
 *     the harness's: fprintf, write, fwrite, dprintf ...);
 *   - names the harness's or the JSON library's own functions (hx_*, json_*,
 *     __real_*, __wrap_*): only the harness speaks on the result channel;
 *   - pastes tokens with ## (a way to spell a banned name without writing
 *     it), or has a string that holds a system-call instruction.
 * The scan ignores comments and the contents of strings, and knows member
 * access: `block.sync()` or `tile.thread_rank()` are fine, a variable called
 * `read` is not flagged unless it is called or its address is taken.
 *
 * This is a guard rail for honest mistakes and a first wall against a
 * forged result; the sandbox (sandbox.h) and the result-channel checks are
 * the others.
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

#endif
