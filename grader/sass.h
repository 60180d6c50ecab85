/*
 * sass — the memory instructions of a step's machine code (SASS), read with
 * `cuobjdump -sass` from the step's cubin, for `explain`: global loads and
 * stores by width and whether they take the read-only path (.CONSTANT),
 * asynchronous global->shared copies (LDGSTS), and local-memory accesses
 * (LDL/STL: spills or a stack array). The PTX says what the compiler was
 * asked for; the SASS is what runs — e.g. whether two 8-byte loads were
 * fused into one LDG.E.128, as the memory-access-tuning lab discusses.
 *
 * Widths are in bytes from the opcode's suffix (.U8/.S8 1, .U16/.S16 2,
 * .64 8, .128 16, none 4). cuobjdump comes from PATH; without it the step
 * says "not shown" and why.
 */
#ifndef CUDALAB_SASS_H
#define CUDALAB_SASS_H

#include <stddef.h>

#define SASS_WIDTHS 5 /* 1, 2, 4, 8, 16 bytes */

struct sass_counts {
	int loads[SASS_WIDTHS], nc_loads[SASS_WIDTHS], stores[SASS_WIDTHS];
	int async[SASS_WIDTHS];
	int local_loads, local_stores;
	int functions; /* "Function :" headers seen */
};

/* Bytes of width index i (0..4). */
int sass_width_bytes(int i);

/* Count the memory instructions of cuobjdump -sass output. Returns the
 * number of instructions read. */
int sass_parse(const char *text, struct sass_counts *out);

/* Run cuobjdump -sass on cubin and count. 0, or -1 with why. */
int sass_read(const char *cubin, struct sass_counts *out, char *why,
	      size_t len);

#endif
