/*
 * ppview — the student's directives as GCC's own preprocessor saw them.
 *
 * objcheck's host-assembly rule goes by where each line of nvcc's host
 * translation unit comes from (its line markers), so it holds only if the
 * student's text can neither say its lines come from a header nor change
 * a header with a macro. objcheck_line_directives reads the student's
 * text for that with a lexer of ours; three red teams found a way past it
 * in one day (2026-11-24), each where it read the text differently from
 * GCC. And a text scan cannot see this one at all (found 2026-11-24):
 *
 *     #define HASH #
 *     #define NOTHING
 *     NOTHING HASH 1 "/usr/include/stdio.h" 3
 *     __asm__("...raw system call...");
 *
 * GCC expands the third line to ` # 1 "/usr/include/stdio.h" 3` (it puts a
 * blank before a # that starts an output line, so that GCC itself would
 * not read it as a directive again); cudafe++, which reads that output,
 * takes it for a line marker, and the asm came out "from stdio.h".
 *
 * So the facts come from GCC's output instead, never from a lexer of the
 * student's text:
 *
 *   host_ii    nvcc's host preprocessing output (NAME.cpp4.ii, kept by
 *              --keep): exactly what cudafe++ read.
 *   view       the same preprocessing command (build.c takes it from nvcc
 *              --dryrun of the same compile) run again with -dD -dI
 *              -Wpedantic -Wsystem-headers: every #define, #undef and
 *              #include GCC carried out, in place, macros as GCC stored
 *              them;
 *   messages   that run's diagnostics (stderr);
 *   plain      the same command run with -P (no line markers at all).
 *
 * The rules:
 *   1. In host_ii, a line whose first token is # (or %:, ??=) is a
 *      directive to cudafe++. GCC writes its own (line markers, #pragma,
 *      #ident) at column 0 with #, and never a # token of the program
 *      there. Any other such line is a directive made by the student's
 *      macros: refused.
 *   2. A raw string literal that spans lines, in the student's lines, is
 *      refused (its lines could look like the preprocessor's own in these
 *      outputs). Found without lexing: a line holding R"delim( with no
 *      )delim" after it on that line (over-approximates: R"x( inside
 *      another literal counts too). Headers' are not (CCCL writes its PTX
 *      in them): what a header holds is not the student's, and the first
 *      line of the student's own raw string is still under a marker GCC
 *      wrote.
 *   3. In view, a line marker without flags that names another file than
 *      the current one is a #line "file" (GCC changes files only with flag
 *      1, entering, or 2, returning, but from <command-line> into the main
 *      file): refused.
 *   4. In messages, "style of line directive is a GCC extension" is GCC's
 *      -Wpedantic warning on a GNU line marker (# N "file") it carried
 *      out; with -Wsystem-headers it is given in any file: refused. A
 *      #pragma GCC diagnostic naming pedantic in the student's lines is
 *      refused too (newer GCCs apply it to the preprocessor's warnings).
 *   5. In view, in the student's lines (those under a marker naming
 *      source_base: after 2-4, only GCC's own markers say where a line is
 *      from): an #undef, or a #define other than an object-like one whose
 *      body is empty or numbers and operators only ((1 << 20): since
 *      2026-11-27), before an #include is refused, with
 *      objcheck's message (a macro changes the headers included after it).
 *
 *   6. In plain, a line whose first token is # (or %:, ??=) is refused
 *      unless it is #pragma, #ident or #sccs at column 0 (GCC's own: with
 *      -P it writes no line markers). A red team (2026-11-24) broke rule
 *      1's premise: when the tokens of one output line switch between a
 *      system header's (NULL) and the student's, GCC starts a new line
 *      with a marker and indents the next token by its column, so a
 *      macro's # from column 1 lands at column 0 of host_ii, as
 *      `# 1 "/usr/include/stdio.h" 1 3`, a marker in every respect. With
 *      -P there is no such switch: the # keeps GCC's blank before it.
 *      -P has no markers to tell whose line it is, so a raw string with a
 *      line that starts with #, in any file, is refused too (none of the
 *      labs' headers has one: the honest fixtures and solutions build).
 *
 * The text scan (objcheck_line_directives) stays beside these rules: it
 * gives the same messages before any compile output is read, and two
 * independent readings must both be fooled.
 *
 * A problem already in out (the text scan's) is not added twice.
 */
#ifndef CUDALAB_PPVIEW_H
#define CUDALAB_PPVIEW_H

#include "objcheck.h"

struct ppview_input {
	const char *host_ii;     /* cudafe++'s input, as nvcc kept it */
	const char *view;        /* -dD -dI output of the same command */
	const char *messages;    /* that command's diagnostics */
	const char *plain;       /* the same command with -P */
	const char *source_base; /* the student file's base name */
};

void ppview_check(const struct ppview_input *in, struct objcheck_list *out);

/* Whether a function-like macro, p..end being its name, parameters and
 * body on one line without comments, is harmless before an #include: a
 * name that is neither reserved (a leading _) nor a keyword GCC gives a
 * meaning to, and a body of its own parameters, numbers, parentheses and
 * operators only (#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))). Such a
 * macro names nothing new; it can only rearrange what a header passes it,
 * and host assembly is judged by what it is wherever it comes from
 * (objcheck_host_source). Shared by ppview's rule 5 and the object check's
 * directive scan (2026-11-27, honest-code tester). */
int ppview_function_macro_harmless(const char *p, const char *end);

/* The flags added to nvcc's host preprocessing command for the view
 * (after it, "-o" and the view's path), NULL-terminated. */
extern const char *const ppview_flags[];

#endif
