/*
 * compiler_report — what nvcc said, as data.
 *
 * compiler_diagnostics() turns nvcc's combined output into an array of
 * {file, line, column, severity, message} objects. It understands the CUDA
 * front end ("f.cu(12): error: ..."), the host compiler ("f.cu:12:3: error:
 * ..."), ptxas ("ptxas error : ...") and the linker ("undefined reference to
 * `saxpy'"); a missing launcher is explained in the lab's terms when
 * `launcher` (e.g. "saxpy") is given. Lines it does not recognise are not
 * diagnostics (they stay in the raw log). Notes and "In file included from"
 * lines are dropped, and so are exact repeats (the linker names a missing
 * symbol once per call site). Returns a new array (caller owns it).
 *
 * compiler_resources() reads the -Xptxas -v report into an array of
 * {name, registers, spill_store_bytes, spill_load_bytes, shared_bytes,
 *  stack_bytes}, one per kernel (entry function), in report order.
 */
#ifndef CUDALAB_COMPILER_REPORT_H
#define CUDALAB_COMPILER_REPORT_H

#include <jansson.h>

json_t *compiler_diagnostics(const char *output, const char *launcher);
json_t *compiler_resources(const char *output);

/*
 * The compiler's output with every diagnostic about a file that is not
 * shown(file, arg) cut to its location: the diagnostic's own line becomes
 * "FILE(N): [...not shown...]" and the lines that quote it (indented: the
 * source line, the caret, the context) are dropped. A compile that reads a
 * host file (#include "/etc/passwd") then cannot quote it back in its
 * error, whatever the compile box happens to show (red team, 2026-11-23).
 * Returns a new string (free it).
 */
char *compiler_hide_files(const char *output,
			  int (*shown)(const char *file, void *arg),
			  void *arg);

/* Number of diagnostics of the given severity ("error", "warning"). */
size_t compiler_count(const json_t *diagnostics, const char *severity);

#endif
