/*
 * demangle — a kernel's or function's name as a person writes it.
 *
 * nvcc names kernels by their C++ mangled symbol (_Z10saxpy_vec4ifPKfPf);
 * reports show saxpy_vec4(int, float, float const*, float*) instead. The
 * C++ runtime's own demangler does the work (libstdc++'s __cxa_demangle,
 * linked with -lstdc++), so every front end spells a name the same way.
 */
#ifndef CUDALAB_DEMANGLE_H
#define CUDALAB_DEMANGLE_H

#include <stddef.h>

/*
 * Writes the demangled form of sym into buf (truncated to len) and returns
 * buf; a name that is not mangled (a C symbol, "") is copied as it is.
 */
const char *demangle(const char *sym, char *buf, size_t len);

/*
 * The function name alone: "saxpy_vec4" for _Z10saxpy_vec4ifPKfPf (no
 * parameters, no template arguments kept) — for narrow columns.
 */
const char *demangle_short(const char *sym, char *buf, size_t len);

#endif
