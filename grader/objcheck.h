/*
 * objcheck — what a student's compiled file may define and call.
 * Three parts, one contract (this header): objcheck.c reads the object,
 * objcheck_host.c nvcc's host translation unit, objcheck_text.c the
 * student's own text (objcheck_private.h is what they share).
 *
 * The text lint (lint.h) reads what the student wrote; this module reads
 * what the compiler made of it, so no spelling trick (line splices, digit
 * separators, digraphs, macros, asm labels, typedef'd function pointers)
 * changes the answer. It runs after nvcc -c and before the link: an object
 * that breaks a rule is never linked with the harness, and the step's
 * verdict is "rejected" with every problem named.
 *
 * The rules, on the host object (ELF64, read with <elf.h>: no tool, no
 * dependency):
 *   - defined global symbols: only the lab's launchers, the kernels (the
 *     .entry names of the step's PTX), nvcc's kernel stubs
 *     (_Z<n>__device_stub__...), nvcc's host shadows of __device__ functions
 *     and other C++ functions of the student's own (mangled names) that are
 *     neither the harness's (every symbol its objects define or use) nor the
 *     C++ library's or ABI's (std::, operator new/delete, vtables, guards).
 *     No kernel's name may hold a name beginning with hx_ (its own, a
 *     namespace's or a template argument's): the judge's kernels are told
 *     from the student's by that prefix when ncu counts (2026-11-24).
 *     A C name that is not a launcher (json_dumpf, main, fwrite, malloc,
 *     cudaEventElapsedTime ...) would replace the harness's or a library's
 *     function for the whole program: rejected, naming it. So is a kernel
 *     declared extern "C" (its host stub has a C name: extern "C"
 *     __global__ void fwrite(...) would be the program's fwrite). nvcc
 *     makes the host shadows of __device__ variables static: not checked.
 *   - undefined references: on the allow-list below (the CUDA runtime calls
 *     the labs need and that the launch recorder sees, printf-style output
 *     to stdout/stderr, host math, the C++ runtime's exception and
 *     static-local support, nvcc's registration). Published error checks
 *     are on it too (2026-11-24): exit and abort (CUDA_CHECK; ending early
 *     is a crash, never a pass), cudaStreamSynchronize and
 *     cudaDeviceSynchronize (they launch nothing), fwrite (what GCC makes
 *     of fprintf(stderr, "text\n")), cudaMemcpyToSymbol(Async) (a
 *     __constant__ parameter: only the file's own symbols, whose host
 *     shadows are static, can be named), and throwing a standard
 *     exception (2026-11-24: __cxa_allocate_exception, __cxa_throw, the
 *     members and type information of <stdexcept>'s classes, undefined
 *     only; an error check that throws ends the student's process, a
 *     crash, like exit; the unwind tables it reads are the compiler's,
 *     since the file can write neither asm nor a section). Anything else (system,
 *     wordexp, dlopen, syscall, fopen, cuLaunchKernel, cudaGraphLaunch,
 *     cudaStreamCreate, cudaMemcpy, __cxa_atexit ...) is rejected, naming
 *     it: a call through a function pointer still needs the symbol.
 *   - nvcc's own registration calls (atexit, __cudaRegister*,
 *     __cudaUnregisterFatBinary, __cudaInitModule) only from nvcc's own
 *     static functions (__sti____cudaRegisterAll & co., each by its one
 *     exact mangled name with its parameters: a prefix let a student's
 *     __nv_save_fatbinhandle() call atexit, red team 2026-11-27); and
 *     those functions reference no code but the registration calls, each
 *     other, the kernels' host wrappers and stubs (2026-11-27: nvcc's
 *     stub is compiled in the student's translation unit and takes
 *     addresses with &, so a student's operator& was inlined into
 *     __sti____cudaRegisterAll and ran before main, in the process that
 *     becomes the judge; the host walk also refuses operator& on the
 *     student's lines, since inlined code that calls nothing leaves no
 *     reference to find). Since objcheck_defer_registration (below) the
 *     registration runs in the student's process only, after the fork:
 *     these rules keep it nvcc's, the move keeps it out of the judge.
 *   - static initialisers: exactly nvcc's one .init_array entry, which must
 *     point at __sti____cudaRegisterAll; no .fini_array, .ctors, .dtors,
 *     .preinit_array, .init, .fini ("static initialiser": a C++ global
 *     with a constructor, __attribute__((constructor)), a destructor).
 *   - sections: the ones a C++ compiler and nvcc make (text, data, rodata,
 *     bss, exception tables, the fatbinary ...); a .text.NAME only for a
 *     function NAME defined in it. Anything else: "unexpected section".
 *     Machine code only in .text and .text.*, and no data symbol there (a
 *     const array in section ".text" runs as code: red team, 2026-11-23),
 *     nor a label that is no function (a compiler labels code only with
 *     functions; assembler text's labels are NOTYPE: 2026-11-27).
 *
 * And on nvcc's host-side translation unit (the kept NAME.cudafe1.cpp, the
 * student's code after preprocessing, with device bodies under #if 0),
 * judged by what a line is, whichever file it comes from (2026-11-27,
 * objcheck-19; before, by where it came from, which trusted the line
 * markers: see below):
 *   - no host asm statement (function-level or file-scope, any template
 *     but the empty one and the spin-wait hints "pause" and "yield"
 *     that libcu++'s <cuda/barrier> and <cuda/atomic> put in host code;
 *     a template with no % takes no text from its operands);
 *   - an asm label (asm("name") after a declarator: a name, a ) that does
 *     not close an if/while/for/switch/catch condition, or one ]) only
 *     when unqualified, without operands and a plain symbol name
 *     ([A-Za-z_][A-Za-z0-9_]*, no escape): glibc's redirections
 *     (__isoc99_scanf). The object check then judges the symbol it makes.
 *     Never in a declaration with `register`: an explicit register
 *     variable on "rsp" moves the stack pointer with no asm statement
 *     (mov %rdi,%rsp: a stack pivot; found 2026-11-27);
 *   - section, symver, weakref, alias and ifunc attributes (in
 *     __attribute__((..)) or [[gnu::..]]) only with one plain name
 *     (section: letters, digits, _ and .; symver never): GCC copies their
 *     string into its assembly unchecked (red team, 2026-11-23:
 *     section(".rodata;.text;f:;.byte 0x0f,0x05;...") is host assembly
 *     without an asm token). The object check judges the section or
 *     symbol;
 *   - no #ident or #sccs directive (nor #pragma ident): nvcc passes it
 *     through and GCC writes its string into the assembly with the quotes
 *     unescaped (#ident "a\";.text;f:;...");
 *   - no raw string literal: cudafe++ writes every literal as an ordinary
 *     one (measured, CUDA 13.0), so the walk reads strings as GCC does
 *     without a raw-string lexer. #if 0 blocks are skipped up to their
 *     #else/#elif (read) or #endif; a line ending in \ is joined to the
 *     next, as GCC joins it (a directive's too).
 * A red team the same day (objcheck-20): a ]] inside an attribute's
 * argument (sizeof(a[a[0]])) ended the walk's [[...]] while GCC read on,
 * and gnu::section's string after it reached the assembler: a label and a
 * raw syscall in .text.saxpy. Now brackets are counted (an attribute ends
 * at the ] that closes its [[), the five attribute names are read
 * wherever ( follows them (GCC also takes section((".x"))), the )
 * closing __attribute__((..)), the ] closing [[..]] and __extension__ end
 * no declarator, and the object check refuses any label in an executable
 * section that is not a function. A second red team (objcheck-21):
 * #if 0x1 was skipped (now only cudafe++'s exact #if 0 is), a splice
 * inside a name (as\<newline>m) was two names to the walk (splices are now
 * removed first, as GCC does), __builtin_longjmp set the stack pointer
 * with no asm (it and its kin are refused in host code), and a const
 * member of __cxxabiv1 (_ZNK10...) was not on the reserved list (the
 * library's names are now objcheck_library_name's, tested against every
 * name libstdc++.so.6 exports).
 * The student's own lines (as the markers tell them) get the stricter
 * rule of earlier rounds, for a message that names their line: no asm
 * token at all, no assembler-text attribute; and (2026-11-27) no opening
 * of the C++ library's namespaces (namespace std {, __cxxabiv1,
 * __gnu_cxx ...; `using namespace std;` names it, opens nothing) and no
 * operator new or delete of the file's own: an inline member defined
 * there is a weak COMDAT definition like a header's copies, which
 * check_defined lets through (red team). That rule only adds refusals: a
 * forged marker (refused itself: objcheck_line_directives) moves a line
 * to the rule above, never past it, and every definition is hidden
 * before the link whatever its name (objcheck_hide_definitions).
 *
 * What follows was the defence of the origin-based rule until objcheck-19.
 * It stays, now for early messages that name the student's line and for
 * the include check (which file a marker names); no host assembly passes
 * or fails by it any more.
 *
 * The origin of a header's line holds only if the student's text did not
 * change the header: a macro defined before an #include is expanded inside
 * the header, at the header's lines (red team, 2026-11-24: #undef of
 * libstdc++'s _GLIBCXX_END_NAMESPACE_VERSION, redefined as an asm
 * statement, then #include <numeric>: host asm "from" libstdc++, a raw
 * system call, and a .reloc that ran the student's code before main).
 * Decided: before its last #include the student's text may hold no #undef
 * and no #define but an object-like one whose body is empty or numbers
 * and operators only (include guards, NDEBUG, a block size; (1 << 20)
 * and -1 since 2026-11-27); objcheck_line_directives
 * finds them as it finds line directives. The compile box shows the
 * student's one file, so no other text of theirs is included.
 *
 * Both rules hold only if this scan reads the text as GCC does. A second
 * red team (2026-11-24) hid #include and # N "file" lines from it four
 * ways: xR"( (to GCC the name xR and an ordinary string, here a raw
 * string), 1'_ (one pp-number to GCC, here 1 and a character), a splice
 * across a form feed, and a lone CR (a new line to GCC). The scan now
 * takes raw strings only after R, u8R, uR, UR, LR, lexes pp-numbers as
 * C++17 does (' before a letter, digit or _; a sign after e/E/p/P) and
 * splices as GCC does, and a file holding a form feed, a vertical tab or
 * a CR not before a newline is refused (the text lint reads raw strings
 * and pp-numbers the same way). A third red team the same day: $ and UTF-8
 * letters are name characters to GCC ($R"( is no raw string), a header
 * name after #include or __has_include( holds no comment (<a/ *>), and GCC
 * drops a byte-order mark (line 1 is then a directive): all read so now.
 * Still a hand-written lexer: GCC's own output is now read beside it
 * (ppview.h, 2026-11-24), which also sees directives no text scan can (a
 * macro whose body is #).
 *
 * That origin is told by the line markers of nvcc's host translation unit,
 * which the student's text could forge with a #line directive or a GNU
 * line marker (# 1 "/usr/include/stdio.h"): the red team's host asm then
 * seemed to come from stdio.h and passed. Decided (2026-11-23): the
 * student's own text may hold no line directive at all, found by
 * objcheck_line_directives below on the text as the preprocessor reads it
 * (after line splices, with comments between the tokens, # spelt %: or
 * ??=). With none in the student's file, every marker naming a file other
 * than the student's comes from a real #include of a file the compile box
 * shows, and the origin check holds. (Rejected alternatives: reading host
 * assembly from the object is not possible, machine code does not say
 * which instructions were written by hand; compiling with -P loses the
 * origin altogether.)
 *
 * Problems are collected, not stopped at: every one is reported.
 */
#ifndef CUDALAB_OBJCHECK_H
#define CUDALAB_OBJCHECK_H

#include <stddef.h>

/* Changes whenever a rule changes: part of the build cache's key, so a
 * cached verdict of the object check is never an older rule's. */
#define OBJCHECK_RULES "objcheck-53"

/* Why a macro may not come before an #include, and why a line directive
 * is refused: the messages of objcheck_line_directives, and of ppview's
 * rules on GCC's output (ppview.h), which say the same. */
#define OBJCHECK_MACRO_WHY                                                   \
	"a macro changes the headers included after it; move it below the "  \
	"#includes (only an empty one, e.g. NDEBUG, numbers and operators, " \
	"e.g. (1 << 20), a function-like one of its parameters and "        \
	"operators, or #undef NDEBUG may come first)"
#define OBJCHECK_LINE_DIRECTIVE                                              \
	"a line directive (#line or a line marker # N \"file\"): a kernel "    \
	"file may not say its lines come from another file (the check for "  \
	"host assembly goes by where each line comes from)"

struct objcheck_problem {
	char message[320];
};

struct objcheck_list {
	struct objcheck_problem *items;
	int count; /* problems found (may exceed max) */
	int max;   /* capacity of items */
};

/* The names a step may define besides kernels and stubs. */
struct objcheck_rules {
	const char *const *launchers; /* NULL-terminated */
	const char *const *kernels;   /* NULL-terminated (PTX .entry names) */
	const char *const *harness_symbols; /* NULL-terminated: defined or
					       used by the harness objects */
};

/*
 * Check the host object at path. Problems go to out (count grows). Returns
 * 0 when it was read (clean or not), -1 with err when it is not an ELF64
 * relocatable object that can be read.
 */
int objcheck_object(const char *path, const struct objcheck_rules *rules,
		    struct objcheck_list *out, char *err, size_t errlen);

/* Whether the mangled name n is the C++ library's or ABI's (std::,
 * libstdc++'s own namespaces, operator new/delete, vtables, typeinfo,
 * guards, transactional clones): a student's definition of it would take
 * libstdc++'s over in the whole program. tests/unit/test_objcheck.c checks
 * it against every C++ name the real libstdc++.so.6 exports. */
int objcheck_library_name(const char *n);

/*
 * Take nvcc's registration out of the object's static initialisers, after
 * objcheck_object found it clean: its one .init_array section becomes the
 * ordinary data section REGISTRATION_SECTION (renamed in place, type
 * PROGBITS), so the dynamic loader runs none of the student's object
 * before main, and the lab driver runs what the section points at
 * (__sti____cudaRegisterAll) in the student's process, after the fork
 * (common/labdriver.cu, hx__student_registration). Before 2026-11-27 the
 * registration ran in the process that becomes the judge, and a student's
 * operator& that nvcc's stub called ran with it (red team). Returns 0
 * (also when there is nothing to move), -1 with err.
 */
#define REGISTRATION_SECTION "hx_register" /* as long as ".init_array" */
int objcheck_defer_registration(const char *path, char *err, size_t errlen);

/*
 * Make every symbol the object defines hidden, in place, after
 * objcheck_object found the object clean: a hidden definition is linked
 * within the step program as before (the judge calls the launchers, the
 * registration names the stubs) but never exported from it, so no shared
 * library, libstdc++ or one the judge opens later (libcuda, NVML), can
 * bind to anything of the student's. This is what keeps the weak copies
 * of a header's templates and inline functions that objcheck_object lets
 * through (std::string's constructors, std::to_string: in a COMDAT group,
 * named nowhere in the judge's objects) from taking libstdc++'s place;
 * the harness's objects come first on the link line, so a copy both have
 * is the judge's. Only the student's code reaches the student's
 * definitions (2026-11-27). Returns 0 (also when there is none), -1 with
 * err.
 */
int objcheck_hide_definitions(const char *path, char *err, size_t errlen);

/*
 * After the link: how many of the names the student's object at obj
 * defines (non-local) the linked program at exe exports (defines in its
 * dynamic symbol table); 0 is the only right answer once
 * objcheck_hide_definitions ran, and the grader refuses the step
 * otherwise (err names the first). -1 with err when either cannot be read.
 */
int objcheck_exported(const char *exe, const char *obj, char *err,
		      size_t errlen);

/* Where the student's compile ran and what it may include. */
struct objcheck_source {
	const char *source_base;      /* the student file's base name */
	const char *cwd;              /* nvcc's working folder: relative
					 names in line markers are from it */
	const char *root;             /* the project's root (real path) */
	const char *const *include_ok; /* real paths of folders under root
					  whose files may be included (the
					  lab's folder, the student include
					  folder, the student file's own
					  folder); NULL-terminated */
	const char *lab_dir;     /* the lab's folder (real path) */
	const char *student_dir; /* the student file's folder (real path),
				    or NULL: a header from it other than
				    the lab's own, byte for byte, is
				    refused (it is the student's text) */
	int (*system_file)(const char *real); /* a file outside the root
				    may be included only when this says so
				    (sandbox_compiler_sees); NULL: any */
};

/*
 * Check nvcc's host translation unit text (NAME.cudafe1.cpp):
 *   - no host assembly from any file, no assembler text in an asm label or
 *     attribute (see above);
 *   - every file it was made from (its line markers name them, after all
 *     the preprocessor's spellings: splices, digraphs, macros) is outside
 *     the project root or in an include_ok folder: `#include` of
 *     ../solutions/..., common/harness.cu or any other file of the
 *     instructor's tree is rejected, naming it;
 *   - no file of the student's own folder but the student's file and
 *     copies of the lab's headers identical to them: a header there is
 *     the student's text, which the rules for the student's own lines
 *     would not read as such (the compile box shows no other file of
 *     that folder; this holds when --unsandboxed too);
 *   - no file outside the root but what system_file allows: the compile
 *     box's view of the system, so an --unsandboxed compile reaches no
 *     other file (red team, 2026-11-27: a symbolic link in the student's
 *     folder, or an absolute name, to a header of the student's
 *     elsewhere).
 */
void objcheck_host_source(const char *text, const struct objcheck_source *src,
			  struct objcheck_list *out);

/*
 * The include rules of objcheck_host_source, for the files nvcc's device
 * pass was made from (NAME.cpp1.ii: the line markers of the preprocessor
 * run with __CUDA_ARCH__ defined). An #include inside #ifdef __CUDA_ARCH__
 * never reaches the host translation unit (red team, 2026-11-27: under
 * --unsandboxed such an include put the instructor's reference kernel in
 * the student's PTX). A problem already in out is not added again.
 */
void objcheck_device_includes(const char *text,
			      const struct objcheck_source *src,
			      struct objcheck_list *out);

/*
 * Check the student's own source text: no #line directive, no GNU line
 * marker (# N "file"), no #ident/#sccs, and before an #include no #undef
 * but of NDEBUG and no #define but an empty one, one of numbers and
 * operators, or a function-like one of its parameters and operators
 * (ppview_function_macro_harmless; see above), however
 * spelt
 * (line splices inside, comments between the tokens, %: or ??= for #).
 * A problem per directive found
 * (the first four), naming source_base and the line. Conservative on
 * purpose: a directive inside #if 0 is still one.
 */
void objcheck_line_directives(const char *text, const char *source_base,
			      struct objcheck_list *out);

/*
 * Symbols of an object (defined and undefined, global and weak) as a
 * NULL-terminated array of strings appended to *names (grown with realloc;
 * *count is the number of entries, excluding the terminator). With
 * weak_undefined_only, only weak undefined symbols (a lab harness's
 * optional launchers, declared __attribute__((weak))). -1 with err.
 */
int objcheck_symbols(const char *path, int weak_undefined_only, char ***names,
		     size_t *count, char *err, size_t errlen);

/* The .entry names of PTX text, as a NULL-terminated array (free each and
 * the array). */
char **objcheck_ptx_entries(const char *ptx);

void objcheck_free_names(char **names);

#endif
