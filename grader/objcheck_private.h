/*
 * objcheck_private — what the object check's three parts share and nothing
 * a caller needs: objcheck.c (the compiled object), objcheck_host.c
 * (nvcc's host translation unit) and objcheck_text.c (the student's own
 * text). The rules and the public functions are in objcheck.h.
 */
#ifndef CUDALAB_OBJCHECK_PRIVATE_H
#define CUDALAB_OBJCHECK_PRIVATE_H

#include <stddef.h>

struct objcheck_list; /* objcheck.h */

/* Add a problem to out (its message cut to the item's size); count grows
 * even past max, so a caller knows how many there were. */
void objcheck_add(struct objcheck_list *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Why #ident is refused (red team, 2026-11-23: GCC writes its string into
 * the assembly with the quotes unescaped, so "a\";.text;f:;.byte 0x0f,
 * 0x05;..." is a raw system call; nvcc passes the directive through). */
#define OBJCHECK_IDENT_WHY                                                         \
	"its string goes to the assembler as it is written (host code "      \
	"without an asm statement) and is not allowed in a kernel file"

/* Whether s (len bytes) is the source name of one of the C++ library's
 * namespaces: std, or one of the others objcheck_library_name knows in
 * their mangled form (__cxxabiv1, __gnu_cxx, abi ...). */
int objcheck_library_namespace(const char *s, size_t len);

#endif
