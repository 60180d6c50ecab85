/*
 * ptx — simple facts read from a step's PTX text.
 *
 * Counts global-memory instructions as they appear in the text (static
 * counts, not executed ones): ld.global / st.global with their access width
 * in bytes (vector count x element size: ld.global.nc.v4.f32 is 16 bytes),
 * non-coherent loads (ld.global.nc, the read-only path that const
 * __restrict__ enables), asynchronous copies (cp.async), remainders (rem,
 * the % operator), warp shuffles (shfl.sync) and block barriers (bar.sync,
 * barrier.sync: __syncthreads). Returns 0;
 * -1 when text is NULL.
 *
 * Every reader below reads the text without its comments and without the
 * contents of its strings (a .pragma "..." from a student's asm() is
 * accepted by ptxas), in statements split at newlines, ';', '{' and '}',
 * each one's opcode after its labels and predicate guard: inline assembly
 * may put several instructions on a line ("{ .reg .u32 t; rem.u32 ...; }"
 * hid a rem, red team 2026-11-24).
 */
#ifndef CUDALAB_PTX_H
#define CUDALAB_PTX_H

#include <jansson.h>

struct ptx_facts {
	int global_loads;
	int global_stores;
	int max_load_bytes;
	int max_store_bytes;
	int nc_loads;
	int async_copies;
	int rem_ops;      /* rem.* : the % operator */
	int shuffles;     /* shfl.sync.* : warp shuffles */
	int barriers;     /* bar.sync / barrier.sync: __syncthreads() */
};

int ptx_read_facts(const char *text, struct ptx_facts *out);

/*
 * The text with its comments (// and block comments, which inline PTX in a
 * student's asm() may open: "/\* ld.global.nc.v4.f32 ... *\/" forged a
 * 16-byte load, red team 2026-11-23) turned into spaces, newlines kept, so
 * line numbers stay. Every reader below reads the text through it. New
 * string (free it); NULL for NULL.
 */
char *ptx_strip_comments(const char *text);

/*
 * Every global-memory instruction of the PTX in text order, with the source
 * line the compiler attributed it to (the last ".loc" before it; PTX built
 * with -lineinfo has them), followed out of inlined functions to the line
 * that called them ("inlined_at"), and that line's file (from the ".file"
 * table, which PTX puts at the end). Returns a JSON array (new reference) of
 * {op kind("load"|"store"|"async") bytes nc(bool) file? line?}; file and
 * line are absent when the PTX has no line information. NULL text: empty.
 */
json_t *ptx_memory_ops(const char *text);

/* The facts as a JSON object (new reference). */
json_t *ptx_facts_json(const struct ptx_facts *f);

/*
 * How many dynamic shared-memory arrays the PTX declares (`extern
 * __shared__ T buf[]` becomes `.extern .shared .align A .b8 buf[];`, a
 * module-level declaration): their size is the launch's third <<<>>>
 * argument, which no static reading knows. 0 for NULL text.
 */
int ptx_dynamic_shared(const char *text);

/*
 * The facts of each kernel: a JSON object (new reference) from each .entry
 * name (as compiled: the mangled name, which the launch recorder reports)
 * to its facts, counting the instructions of the kernel and of every .func
 * it calls, directly or not. A function starts at a line, outside any
 * body, that declares it (a name of any length); it calls what its call
 * instructions name, and a call through a register may call any .func.
 * A function's name written elsewhere (a label, a register of that name,
 * a .pragma string, "param" in ld.param) is no call: such mentions lent a
 * never-called function's 16-byte loads to the launched kernel (red team,
 * 2026-11-24). Still counted: instructions that never execute (a branch
 * never taken, a call in one); the facts are static. Empty for NULL text.
 */
json_t *ptx_kernel_facts(const char *text);

/*
 * The facts of the kernels a run launched: `kernels` is ptx_kernel_facts'
 * object, `launched` an array of kernel symbols (the "launch" event's
 * "kernels"). Counts add up and widths take the largest; a launched kernel
 * the PTX does not hold (not the student's: a library's) adds nothing.
 * So a kernel that is compiled but never launched lends no fact.
 * New reference, in ptx_facts_json's form.
 */
json_t *ptx_facts_launched(const json_t *kernels, const json_t *launched);

#endif
