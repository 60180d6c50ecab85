/* objcheck_host — the object check's reading of nvcc's host translation
 * unit (NAME.cudafe1.cpp): host assembly, assembler-text attributes,
 * stack builtins, operator&, and the files its line markers name
 * (objcheck_host_source; the rules are in objcheck.h). One walk over
 * cudafe++'s tokens, #if 0 blocks skipped. */
#include "objcheck.h"
#include "fsutil.h"
#include "objcheck_private.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- nvcc's host translation unit ---------------------------------------- */

/* Whether the directive text at q is the word w (then a space or the end). */
static int directive_is(const char *q, const char *w)
{
	size_t n = strlen(w);
	return !strncmp(q, w, n) && !isalnum((unsigned char)q[n]) && q[n] != '_';
}

/* Whether s..s+len is the word w. */
static int word_is(const char *s, size_t len, const char *w)
{
	return strlen(w) == len && !strncmp(s, w, len);
}

/* Attributes whose string GCC writes into its assembly output unchecked
 * (red team, 2026-11-23: section(".rodata;.text;f:;.byte 0x0f,0x05;...")
 * is a raw syscall without an asm token; so are symver and weakref), and
 * alias/ifunc, which name symbols. Returns the attribute's kind: 's' for a
 * section name, 'n' for a symbol name, 'v' for symver (never plain), 0 for
 * any other attribute. */
static int assembler_attribute(const char *s, size_t len)
{
	if (len > 4 && !strncmp(s, "__", 2) && !strncmp(s + len - 2, "__", 2))
		s += 2, len -= 4; /* __section__ */
	if (word_is(s, len, "section"))
		return 's';
	if (word_is(s, len, "weakref") || word_is(s, len, "alias") ||
	    word_is(s, len, "ifunc"))
		return 'n';
	return word_is(s, len, "symver") ? 'v' : 0;
}

/* Whether the files at paths a and b have the same bytes. */
static int same_bytes(const char *a, const char *b)
{
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	int same = fa && fb;
	while (same) {
		char ba[4096], bb[4096];
		size_t na = fread(ba, 1, sizeof(ba), fa);
		size_t nb = fread(bb, 1, sizeof(bb), fb);
		same = na == nb && !memcmp(ba, bb, na);
		if (na < sizeof(ba))
			break;
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

/* A file of the student's own folder (not the lab's): the student's file,
 * or a copy of one of the lab's headers with the same bytes (handed in
 * beside the step files); anything else is the student's own text, which
 * the rules for the student's lines would not read as such. The folder
 * holds the file when its real path is in it, or the path the compiler
 * named (a symbolic link there to a file elsewhere: red team, 2026-11-27).
 * 0 when not in that folder, 1 when it may be included, 2 when not; *relp
 * is its name there. */
static int student_folder_file(const char *real, const char *given,
			       const struct objcheck_source *src,
			       const char **relp)
{
	const char *dir = src->student_dir;
	if (!dir || !dir[0] || (src->lab_dir && !strcmp(dir, src->lab_dir)))
		return 0;
	size_t dl = strlen(dir);
	int really = path_under(real, dir);
	if (!really && !path_under(given, dir))
		return 0;
	const char *rel = (really ? real : given) + dl + 1;
	while (rel[0] == '.' && rel[1] == '/')
		rel += 2;
	*relp = rel;
	if (really && src->source_base && !strcmp(rel, src->source_base))
		return 1; /* the file itself */
	char lab_copy[PATH_MAX * 2];
	snprintf(lab_copy, sizeof(lab_copy), "%s/%s",
		 src->lab_dir ? src->lab_dir : "", rel);
	return src->lab_dir && same_bytes(real, lab_copy) ? 1 : 2;
}

/* Whether name was refused already (seen, nseen of 16 kept); marks it. */
static int said_before(const char *name, char (*seen)[256], int *nseen)
{
	for (int i = 0; i < *nseen; i++)
		if (!strcmp(seen[i], name))
			return 1;
	if (*nseen < 16)
		snprintf(seen[(*nseen)++], 256, "%s", name);
	return 0;
}

/* The closing quote of a line marker's file name starting at f (GCC
 * escapes \\ and " there), or NULL when the line ends first. */
static const char *marker_name_end(const char *f)
{
	while (*f && *f != '"' && *f != '\n')
		f += f[0] == '\\' && f[1] && f[1] != '\n' ? 2 : 1;
	return *f == '"' ? f : NULL;
}

/* A file named by a line marker: outside root, or in an allowed folder. */
static void check_included(const char *name, size_t len,
			   const struct objcheck_source *src, char (*seen)[256],
			   int *nseen, struct objcheck_list *out)
{
	char given[PATH_MAX], real[PATH_MAX];
	if (!len || name[0] == '<' || !src->root)
		return;
	/* names the check would resolve otherwise than the compiler did
	 * (red team, 2026-11-27): GCC escapes \ and " in a marker, and
	 * /proc/self/... or /dev/fd/... is the grader's own here, nvcc's
	 * there; no honest include has either */
	if (memchr(name, '\\', len) ||
	    (len > 6 && !strncmp(name, "/proc/", 6)) ||
	    (len > 5 && !strncmp(name, "/dev/", 5))) {
		char shown[128];
		snprintf(shown, sizeof(shown), "%.*s", (int)(len < 100 ? len : 100),
			 name);
		if (!said_before(shown, seen, nseen))
			objcheck_add(out, "includes %s: a kernel file may include "
				     "only its lab's headers, cudalab.h and system "
				     "or CUDA headers, by their plain names", shown);
		return;
	}
	if (name[0] == '/')
		snprintf(given, sizeof(given), "%.*s", (int)len, name);
	else
		snprintf(given, sizeof(given), "%s/%.*s",
			 src->cwd ? src->cwd : ".", (int)len, name);
	if (!realpath(given, real)) {
		/* a name in the student's folder that leads nowhere from here
		 * led somewhere for the compiler (a symbolic link to
		 * /proc/self/cwd, say) */
		/* (the student's file itself, by its own name) */
		const char *base = strrchr(given, '/');
		size_t dl = src->student_dir ? strlen(src->student_dir) : 0;
		int itself = src->source_base && base &&
			     base == given + dl &&
			     !strcmp(base + 1, src->source_base);
		if (src->student_dir && path_under(given, src->student_dir) &&
		    !itself && !said_before(given, seen, nseen))
			objcheck_add(out, "includes %s, which leads out of the "
				     "student's folder: a kernel file includes "
				     "only its lab's headers", given);
		return;
	}
	const char *rel = NULL;
	int own = student_folder_file(real, given, src, &rel);
	if (own == 2 && !said_before(rel, seen, nseen))
		objcheck_add(out,
			"includes %s from the student's own folder: a kernel "
			"file is one file, and includes the lab's headers as "
			"the lab gives them (remove that file, or make it the "
			"lab's copy)", rel);
	if (own)
		return;
	/* in an allowed folder (the lab's, the student include folder, which
	 * is under the root or in a per-user cache outside it), headers only
	 * (and the student's file itself): the lab's folder also holds its
	 * harness.cu, lab.json and the other steps' files, which the sandbox
	 * hides but --unsandboxed does not (red team, 2026-11-27: the lint
	 * was then the only rule) */
	const char *base = strrchr(real, '/');
	int header = header_name(real) ||
		     (src->source_base && base &&
		      !strcmp(base + 1, src->source_base)); /* the file */
	for (const char *const *ok = src->include_ok; header && ok && *ok;
	     ok++)
		if (path_under(real, *ok) &&
		    !strchr(real + strlen(*ok) + 1, '/'))
			return;
	int in_tree = path_under(real, src->root);
	/* outside the tree: system and CUDA headers, as the compile box
	 * shows them */
	if (!in_tree && (!src->system_file || src->system_file(real)))
		return;
	const char *shown = in_tree ? real + strlen(src->root) + 1 : real;
	if (!said_before(shown, seen, nseen))
		objcheck_add(out,
			"includes %s: a kernel file may include only its lab's "
			"headers, cudalab.h and system or CUDA headers",
			shown);
}

/* The tokens of cudafe++'s output, as the walk hands them on. */
enum host_tok { TOK_IDENT, TOK_STRING, TOK_PUNCT, TOK_NUMBER };

/* An asm keyword being read, token by token, up to its decision: a label
 * (asm("name") after a declarator) or a statement (anything else). */
struct host_asm {
	int state;     /* 0 none; 1 after the keyword; 2 in its parenthesis,
			  reading the template; 3 after the template */
	int qualified; /* volatile, goto or inline: a statement */
	int declarator;/* the token before the keyword ends a declarator */
	int reg;       /* in a declaration with `register`: a register name */
	int literal;   /* the template is string literals only (no escape) */
	int strings;   /* string literals read */
	size_t len;
	char text[72]; /* the template, cut */
	long line;     /* where the keyword was */
	char file[160];
	int depth;     /* state 4: the operands' parentheses still open */
};

/* An assembler-text attribute being read: its name, then ( "string" ). */
struct host_attr {
	int kind;    /* assembler_attribute()'s; 0 when none is being read */
	int state;   /* 1 after the name; 2 in its parentheses */
	int depth;   /* parentheses open (GCC takes section((".x")) too) */
	int in_attr; /* the walk is inside __attribute__ or [[ ]] */
	int student; /* on the student's own line: refused when called */
	char name[16];
	int plain;   /* every string so far a plain name of its kind */
	int other;   /* a token that is neither a string nor a parenthesis */
	int strings;
	long line;
	char file[160];
};

/* The state of objcheck_host_source's walk over the host translation unit. */
struct host_scan {
	const struct objcheck_source *src;
	struct objcheck_list *out;
	char seen[16][256];
	int nseen;
	int student;   /* current line comes from the student's file */
	char file[160];/* the file the current line comes from, as named */
	int skipping;  /* depth of #if 0 blocks */
	long line;
	int reported;
	/* inside __attribute__((...)) (its parenthesis depth) or [[...]] */
	int attr_open, attr_depth, cxx_attr;
	int brackets;  /* [ open */
	int cxx_base;  /* brackets open before the attribute's [[ */
	/* the previous token: 'i' a name, 'k' else, do or __extension__,
	 * ']' a ], 'J' the ] closing [[...]], 'A' the ) closing
	 * __attribute__((...)),
	 * ')' closing a declarator's or a call's parenthesis, 'c' closing
	 * the condition of if, while, for, switch or catch, another
	 * punctuator, 0 at the start */
	int prev;
	int in_register;    /* `register` since the last ; { or } */
	/* on the student's lines: 1 after `namespace`; after `operator`,
	 * the token before it (library_definition) */
	int after_namespace, before_operator, after_operator, after_using;
	struct host_operator {
		int state;  /* 1 after `operator`, 2 after `&`, 3 in its ( ),
			       4 after them, 5 in its body */
		int depth, commas, angle;
		long line;
		int ntok;   /* the body's tokens (tok holds the first 48) */
		char tok[48][24];
	} op;
	int control;        /* the last name was if, while, for, switch,
			       catch (or constexpr after if) */
	int depth;          /* open parentheses, nested */
	unsigned char cond[256]; /* per depth: opened after `control` */
	struct host_asm as;
	struct host_attr at;
};

/* A problem of the walk, at most 8 of them. */
static void host_problem(struct host_scan *hs, const char *fmt, ...)
{
	if (hs->reported >= 8)
		return;
	hs->reported++;
	if (hs->out->count < hs->out->max) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(hs->out->items[hs->out->count].message,
			  sizeof(hs->out->items[0].message), fmt, ap);
		va_end(ap);
	}
	hs->out->count++;
}

/* At a backslash: the length of a line splice there (\, spaces or tabs,
 * a newline: GCC takes them all), or 0. */
static size_t splice_length(const char *p)
{
	size_t n = 1;
	while (p[n] == ' ' || p[n] == '\t')
		n++;
	return p[n] == '\n' ? n + 1 : 0;
}

/* A line marker's file name f..fe: the current file from now on. */
static void host_marker_file(struct host_scan *hs, const char *f,
			     const char *fe)
{
	const char *source_base = hs->src->source_base;
	check_included(f, (size_t)(fe - f), hs->src, hs->seen, &hs->nseen,
		       hs->out);
	const char *slash = f;
	for (const char *c = f; c < fe; c++)
		if (*c == '/')
			slash = c + 1;
	hs->student = (size_t)(fe - slash) == strlen(source_base) &&
		      !strncmp(slash, source_base, (size_t)(fe - slash));
	snprintf(hs->file, sizeof(hs->file), "%.*s", (int)(fe - slash), slash);
}

/* Whether the directive text at q is exactly `if 0` (cudafe++'s own
 * around device code): #if 0x1, #if 0||1 are compiled (red team,
 * 2026-11-27). */
static int if_zero(const char *q)
{
	if (strncmp(q, "if", 2) || (q[2] != ' ' && q[2] != '\t'))
		return 0;
	q += 2 + strspn(q + 2, " \t");
	if (*q != '0')
		return 0;
	q += 1 + strspn(q + 1, " \t");
	return *q == '\n' || *q == 0;
}

/* A directive line at p ('#'): a line marker (# N "file"), #ident, or
 * the conditionals cudafe++ writes around device code (#if 0 ... #endif).
 * Returns the end of the line. */
static const char *host_directive(struct host_scan *hs, const char *p)
{
	const char *q = p + 1;
	while (*q == ' ' || *q == '\t')
		q++;
	if (isdigit((unsigned char)*q)) {
		long n = strtol(q, (char **)&q, 10);
		while (*q == ' ')
			q++;
		const char *fe = *q == '"' ? marker_name_end(q + 1) : NULL;
		if (fe)
			host_marker_file(hs, q + 1, fe);
		hs->line = n - 1;
	} else if (!hs->skipping &&
		   (directive_is(q, "ident") || directive_is(q, "sccs") ||
		    (directive_is(q, "pragma") &&
		     (directive_is(q + 6 + strspn(q + 6, " \t"), "ident") ||
		      directive_is(q + 6 + strspn(q + 6, " \t"), "sccs"))))) {
		host_problem(hs, "%s:%ld: #ident: %s", hs->file, hs->line,
			     OBJCHECK_IDENT_WHY);
	} else if (directive_is(q, "if") || directive_is(q, "ifdef") ||
		   directive_is(q, "ifndef")) {
		if (hs->skipping || if_zero(q))
			hs->skipping++;
	} else if (directive_is(q, "else") || directive_is(q, "elif")) {
		/* the other branch of an #if 0 is compiled: read it */
		if (hs->skipping == 1)
			hs->skipping = 0;
	} else if (directive_is(q, "endif")) {
		if (hs->skipping)
			hs->skipping--;
	}
	while (*p && *p != '\n')
		p++;
	return p;
}

/* Host asm that does nothing a kernel file could misuse, whoever wrote it:
 * an empty template (a compiler barrier, whatever its operands) and the
 * spin-wait hints libcu++'s headers use in host code (<cuda/barrier>,
 * <cuda/atomic>: __cccl_thread_yield_processor's "pause", "yield" on Arm).
 * A template with no % names no operand, so its operands add no text. */
static int harmless_template(const struct host_asm *a)
{
	if (!a->literal || !a->strings)
		return 0;
	return a->len == 0 || !strcmp(a->text, "pause") ||
	       !strcmp(a->text, "yield");
}

/* Whether the template is a plain symbol name: what an asm label may be. */
static int plain_symbol(const char *s, size_t len)
{
	if (!len || isdigit((unsigned char)s[0]))
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return 0;
	return 1;
}

/* The asm keyword's decision, once its template has been read: `closed`
 * when ) came right after it (no operands). */
static void host_asm_decide(struct host_scan *hs, int closed)
{
	struct host_asm *a = &hs->as;
	int label = closed && !a->qualified && a->declarator && a->literal &&
		    a->strings;
	int mine = hs->student;
	a->state = 0;
	if (mine) {
		/* the student's own lines: no asm of any kind (the friendly
		 * rule; the ones below hold whoever wrote the line) */
		host_problem(hs,
			     "%s:%ld: host assembly (asm, an asm label or a "
			     "file-scope asm block such as .incbin) is not "
			     "allowed in a kernel file; inline PTX inside "
			     "__device__ or __global__ code is fine",
			     a->file, a->line);
	} else if (label && a->reg) {
		host_problem(hs,
			     "%s:%ld: a register variable (asm(\"%.20s\") "
			     "with register): host code that reads or writes a "
			     "machine register by name, such as the stack "
			     "pointer, is not allowed in a kernel file",
			     a->file, a->line, a->text);
	} else if (label && !plain_symbol(a->text, a->len)) {
		host_problem(hs,
			     "%s:%ld: an asm label that is not a plain symbol "
			     "name (\"%.40s\"): its text goes to the assembler "
			     "as it is written",
			     a->file, a->line, a->text);
	} else if (!label && !harmless_template(a)) {
		host_problem(hs,
			     "%s:%ld: host assembly (\"%.40s\") in host code "
			     "that a kernel file compiles: no asm statement "
			     "runs on the host but an empty one or a spin-wait "
			     "hint, whichever file it comes from",
			     a->file, a->line, a->literal ? a->text : "...");
	}
}

/* The asm keyword's next token; returns 1 when the asm took it, 0 when it
 * is no part of the asm (then read as any other token). */
static int host_asm_token(struct host_scan *hs, enum host_tok kind,
			  const char *s, size_t len)
{
	struct host_asm *a = &hs->as;
	if (a->state == 4) { /* the operands, up to the asm's own ) */
		if (kind == TOK_PUNCT && (*s == '(' || *s == ')'))
			a->depth += *s == '(' ? 1 : -1;
		if (a->depth == 0)
			a->state = 0;
		return 1;
	}
	if (a->state == 1) {
		if (kind == TOK_IDENT &&
		    (word_is(s, len, "volatile") || word_is(s, len, "__volatile") ||
		     word_is(s, len, "__volatile__") || word_is(s, len, "goto") ||
		     word_is(s, len, "inline") || word_is(s, len, "__inline") ||
		     word_is(s, len, "__inline__"))) {
			a->qualified = 1;
			return 1;
		}
		if (kind == TOK_PUNCT && *s == '(') {
			a->state = 2;
			return 1;
		}
		a->literal = 0; /* not asm's grammar: judged as a statement */
		host_asm_decide(hs, 0);
		return 0;
	}
	if (a->state == 2 && kind == TOK_STRING) {
		/* s..len is the literal with its quotes and any prefix */
		if (*s != '"' || len < 2)
			a->literal = 0;
		for (size_t i = 1; i + 1 < len && a->literal; i++) {
			if (s[i] == '\\') {
				a->literal = 0;
			} else if (a->len + 1 < sizeof(a->text)) {
				a->text[a->len++] = s[i];
				a->text[a->len] = 0;
			} else {
				a->literal = 0; /* longer than any name kept */
			}
		}
		a->strings++;
		return 1;
	}
	int closed = kind == TOK_PUNCT && *s == ')';
	if (!closed && !(kind == TOK_PUNCT && *s == ':'))
		a->literal = 0; /* a template that is no string literal */
	host_asm_decide(hs, closed);
	if (!closed) { /* read on to the asm's own ) */
		a->state = 4;
		a->depth = 1 + (kind == TOK_PUNCT && *s == '(');
	}
	return 1;
}

/* The stricter rule on the student's own lines (file, line, name). */
#define STUDENT_ATTRIBUTE                                                    \
	"%s:%ld: the attribute %.*s: its text goes to the assembler as it "  \
	"is written (host code without an asm statement) and is not "        \
	"allowed in a kernel file"

/* The attribute's next token, from its name to its closing parenthesis:
 * section(".name"), alias("name") ... pass only with plain names (the
 * object check then judges the sections and symbols). Read wherever the
 * name is followed by ( (red team, 2026-11-27: a ]] inside an attribute's
 * argument, a[a[0]], ended the walk's attribute while GCC read on, and
 * section's string went to the assembler unread); outside an attribute a
 * call with other arguments than strings is no attribute. */
static int host_attr_token(struct host_scan *hs, enum host_tok kind,
			   const char *s, size_t len)
{
	struct host_attr *t = &hs->at;
	if (t->state == 1) {
		t->state = kind == TOK_PUNCT && *s == '(' ? 2 : 0;
		t->depth = 1;
		if (t->state && t->student)
			host_problem(hs, STUDENT_ATTRIBUTE, t->file, t->line,
				     (int)strlen(t->name), t->name);
		if (!t->state || t->student)
			t->kind = 0; /* weakref with no target: nothing said */
		return t->state != 0 && !t->student;
	}
	if (kind == TOK_STRING) {
		const char *b = s + 1;
		size_t n = len >= 2 ? len - 2 : 0;
		int ok = *s == '"' && t->kind != 'v' &&
			 (t->kind == 's' ? n > 0 : plain_symbol(b, n));
		for (size_t i = 0; ok && i < n; i++)
			ok = isalnum((unsigned char)b[i]) || b[i] == '_' ||
			     (t->kind == 's' && b[i] == '.');
		t->plain = t->plain && ok;
		t->strings++;
		return 1;
	}
	if (kind == TOK_PUNCT && (*s == '(' || *s == ')')) {
		t->depth += *s == '(' ? 1 : -1;
		if (t->depth > 0)
			return 1;
	} else {
		t->other = 1;
		return 1;
	}
	if ((t->other && t->in_attr) ||
	    (!t->other && (!t->plain || t->strings > 1)))
		host_problem(hs,
			     "%s:%ld: an attribute whose text goes to the "
			     "assembler (section, symver, weakref, alias, "
			     "ifunc) with more than a plain name in it",
			     t->file, t->line);
	t->kind = 0;
	return 1;
}

/* Whether the previous token can end a declarator, so that asm("name")
 * after it is a label: a name, ) or one ]. An asm statement follows {, },
 * ;, :, else, do or the ) of a condition (cudafe++ also writes every
 * statement under if, else, for, while and do in braces: the walk does
 * not count on it). */
static int ends_declarator(const struct host_scan *hs)
{
	return hs->prev == 'i' || hs->prev == ')' || hs->prev == ']';
}

/* GCC builtins that set the stack pointer or jump to an address with no
 * asm statement (red team, 2026-11-27: __builtin_longjmp on a buffer of
 * the student's made mov ...,%rsp; jmp *%rax) or make code at run time:
 * no kernel file needs one in host code. */
static const char *const stack_builtins[] = {
	"__builtin_longjmp", "__builtin_setjmp", "__builtin_eh_return",
	"__builtin_unwind_init", "__builtin_frob_return_addr",
	"__builtin_init_trampoline", "__builtin_adjust_trampoline",
	"__builtin_init_heap_trampoline", "__builtin_init_descriptor",
	"__builtin_adjust_descriptor", "__builtin_eh_return_data_regno",
	NULL,
};

/* A name s..p (p past it): asm starts an asm, __attribute__ opens an
 * attribute, an assembler-text attribute's name starts its check. */
static void host_identifier(struct host_scan *hs, const char *s,
			    const char *p)
{
	size_t len = (size_t)(p - s);
	for (const char *const *b = stack_builtins; *b; b++)
		if (word_is(s, len, *b))
			host_problem(hs,
				     "%s:%ld: %s in host code: it moves the "
				     "stack pointer or jumps to an address "
				     "with no asm statement, and is not "
				     "allowed in a kernel file",
				     hs->file, hs->line, *b);
	int is_asm = word_is(s, len, "asm") || word_is(s, len, "__asm") ||
		     word_is(s, len, "__asm__");
	if (word_is(s, len, "__attribute__") || word_is(s, len, "__attribute"))
		hs->attr_open = 1;
	int kind = assembler_attribute(s, len);
	int in_attr = hs->attr_depth || hs->cxx_attr;
	if (kind && hs->student && in_attr) {
		host_problem(hs, STUDENT_ATTRIBUTE, hs->file, hs->line,
			     (int)len, s);
	} else if (kind) {
		hs->at = (struct host_attr){.kind = kind, .state = 1,
					    .plain = 1, .in_attr = in_attr,
					    .student = hs->student,
					    .line = hs->line};
		snprintf(hs->at.file, sizeof(hs->at.file), "%s", hs->file);
		snprintf(hs->at.name, sizeof(hs->at.name), "%.*s",
			 (int)(len < 15 ? len : 15), s);
	}
	if (is_asm) {
		hs->as = (struct host_asm){.state = 1, .literal = 1,
					   .declarator = ends_declarator(hs),
					   .reg = hs->in_register,
					   .line = hs->line};
		snprintf(hs->as.file, sizeof(hs->as.file), "%s", hs->file);
	}
}

/* What the token just read leaves as the previous one (ends_declarator). */
static void host_prev(struct host_scan *hs, enum host_tok kind,
		      const char *s, size_t len)
{
	int control = hs->control;
	hs->control = 0;
	if (kind == TOK_IDENT && word_is(s, len, "register"))
		hs->in_register = 1;
	else if (kind == TOK_PUNCT && (*s == ';' || *s == '{' || *s == '}'))
		hs->in_register = 0;
	if (kind == TOK_IDENT) {
		hs->control = word_is(s, len, "if") || word_is(s, len, "while") ||
			      word_is(s, len, "for") ||
			      word_is(s, len, "switch") ||
			      word_is(s, len, "catch") ||
			      (control && word_is(s, len, "constexpr"));
		hs->prev = word_is(s, len, "else") || word_is(s, len, "do") ||
				   word_is(s, len, "__extension__") ?
				   'k' : 'i';
	} else if (kind == TOK_PUNCT && *s == '[') {
		/* [[ opens an attribute up to the ] ] that closes it: a ]]
		 * inside (a[a[0]]) does not (red team, 2026-11-27) */
		if (hs->prev == '[' && !hs->cxx_attr) {
			hs->cxx_attr = 1;
			hs->cxx_base = hs->brackets - 1;
		}
		hs->brackets++;
		hs->prev = '[';
	} else if (kind == TOK_PUNCT && *s == ']') {
		if (hs->brackets > 0)
			hs->brackets--;
		hs->prev = ']';
		if (hs->cxx_attr && hs->brackets <= hs->cxx_base) {
			hs->cxx_attr = 0;
			hs->prev = 'J'; /* an attribute's end: no declarator */
		}
	} else if (kind == TOK_PUNCT && *s == '(') {
		if (hs->depth < (int)sizeof(hs->cond))
			hs->cond[hs->depth] = (unsigned char)control;
		hs->depth++;
		hs->prev = '(';
	} else if (kind == TOK_PUNCT && *s == ')') {
		/* too deep to remember: taken for a condition (a statement) */
		int cond = hs->depth > (int)sizeof(hs->cond) ||
			   (hs->depth > 0 && hs->cond[hs->depth - 1]);
		if (hs->depth > 0)
			hs->depth--;
		hs->prev = cond ? 'c' : ')';
	} else {
		hs->prev = kind == TOK_PUNCT ? *s : 's';
	}
}

/* Whether the body's tokens are cudafe++'s host body of a __device__
 * function, exactly: int volatile ___ = 1 ; then (void) PARAM ; for each
 * parameter, then :: exit ( ___ ) ;. Such a function only ends the
 * process (and the host cannot call the __device__ original). */
static int device_only_body(const struct host_operator *o)
{
	static const char *const head[] = {"int", "volatile", "___", "=", "1",
					   ";"};
	static const char *const tail[] = {":", ":", "exit", "(", "___", ")",
					   ";"};
	int n = o->ntok, i = 0;
	if (n > (int)(sizeof(o->tok) / sizeof(o->tok[0])))
		return 0;
	for (size_t k = 0; k < 6; k++, i++)
		if (i >= n || strcmp(o->tok[i], head[k]))
			return 0;
	while (i + 5 <= n && !strcmp(o->tok[i], "(") &&
	       !strcmp(o->tok[i + 1], "void") && !strcmp(o->tok[i + 2], ")") &&
	       (isalpha((unsigned char)o->tok[i + 3][0]) ||
		o->tok[i + 3][0] == '_') &&
	       !strcmp(o->tok[i + 4], ";"))
		i += 5;
	for (size_t k = 0; k < 7; k++, i++)
		if (i >= n || strcmp(o->tok[i], tail[k]))
			return 0;
	return i == n;
}

/* operator & ( on the student's own lines, when it can be unary: refused.
 * nvcc's registration code, compiled after the student's in the same
 * translation unit, takes addresses with & (&__fatDeviceText, &the host
 * shadow of each __device__ variable): a student's unary operator& then
 * ran in it (red team, 2026-11-27; the registration now runs in the
 * student's process only, objcheck_defer_registration, so this rule is
 * the second line). Operator functions take no default arguments, so a
 * parameter list with a comma at its top level is binary: allowed (flags
 * enums, honest-code tester). A < at that level could hide the comma in a
 * template argument: refused, as are one parameter (a member's binary
 * form or a non-member unary one: the walk cannot tell) and none. */
static void host_operator_amp(struct host_scan *hs, enum host_tok kind,
			      const char *s, size_t len)
{
	struct host_operator *o = &hs->op;
	if (o->state == 3) {
		if (kind != TOK_PUNCT)
			return;
		if (*s == '(') {
			o->depth++;
		} else if (*s == ')' && o->depth > 0) {
			o->depth--;
		} else if (*s == ')') {
			/* to its body: a __device__ function's host body is
			 * cudafe++'s {int volatile ___ = 1; ... ::exit(___);},
			 * which the host cannot call */
			o->state = !o->commas || o->angle ? 4 : 0;
		} else if (o->depth == 0 && *s == ',') {
			o->commas++;
		} else if (o->depth == 0 && (*s == '<' || *s == '>')) {
			o->angle = 1;
		}
		return;
	}
	if (o->state == 4) { /* after the parameters, to the body */
		if (kind == TOK_PUNCT && *s == ';') {
			o->state = 0; /* a declaration: the definition is read */
		} else if (kind == TOK_PUNCT && *s == '{') {
			o->state = 5;
			o->ntok = 0;
			o->depth = 1;
		}
		return; /* const, noexcept(...), a trailing return */
	}
	if (o->state == 5) { /* the body's tokens, to its } */
		if (kind == TOK_PUNCT && (*s == '{' || *s == '}'))
			o->depth += *s == '{' ? 1 : -1;
		if (o->depth > 0) {
			if (o->ntok < (int)(sizeof(o->tok) / sizeof(o->tok[0])))
				snprintf(o->tok[o->ntok], sizeof(o->tok[0]),
					 "%.*s", (int)len, s);
			o->ntok++;
			return;
		}
		if (!device_only_body(o))
			host_problem(hs,
				     "%s:%ld: a unary operator& (or one the "
				     "check cannot tell from it) in host code: "
				     "nvcc's registration takes addresses with "
				     "& in the same file, so it would run there; "
				     "use a named function (a non-member "
				     "operator& of two parameters, or a "
				     "__device__ one, is fine)",
				     hs->file, o->line);
		o->state = 0;
		return;
	}
	if (kind == TOK_IDENT && word_is(s, len, "operator") && hs->student) {
		*o = (struct host_operator){.state = 1, .line = hs->line};
		return;
	}
	if (o->state == 1 && kind == TOK_PUNCT && *s == '&') {
		o->state = 2;
		return;
	}
	o->state = o->state == 2 && kind == TOK_PUNCT && *s == '(' ? 3 : 0;
}

/* On the student's own lines: no definition in the C++ library's
 * namespaces (namespace std { ... }) and no operator new or delete of the
 * file's own (red team, 2026-11-27: an inline __cxxabiv1 member or
 * operator new[] is a weak COMDAT definition like the copies a header
 * makes, which the object check lets through; hidden before the link it
 * reaches nothing of the judge's, but only that keeps it so). Called
 * before host_prev with the token after the previous one. */
static void library_definition(struct host_scan *hs, enum host_tok kind,
			       const char *s, size_t len)
{
	if (!hs->student) {
		hs->after_namespace = hs->after_operator = hs->after_using = 0;
		return;
	}
	if (hs->after_namespace && kind == TOK_IDENT &&
	    objcheck_library_namespace(s, len))
		host_problem(hs,
			     "%s:%ld: opens the C++ library's namespace %.*s: "
			     "a kernel file may not add to it or define its "
			     "members (put helpers in a namespace of your own)",
			     hs->file, hs->line, (int)len, s);
	if (hs->after_operator && kind == TOK_IDENT &&
	    (word_is(s, len, "new") || word_is(s, len, "delete")) &&
	    (hs->before_operator == 'i' || hs->before_operator == '*' ||
	     hs->before_operator == '&'))
		host_problem(hs,
			     "%s:%ld: declares an operator %.*s of its own: "
			     "a kernel file may call new and delete but not "
			     "replace them",
			     hs->file, hs->line, (int)len, s);
	/* using namespace std; names it, opens nothing */
	hs->after_namespace = kind == TOK_IDENT &&
			      word_is(s, len, "namespace") && !hs->after_using;
	hs->after_using = kind == TOK_IDENT && word_is(s, len, "using");
	hs->after_operator = kind == TOK_IDENT && word_is(s, len, "operator");
	if (hs->after_operator)
		hs->before_operator = hs->prev;
}

/* One token of host code (not under #if 0), in order. */
static void host_token(struct host_scan *hs, enum host_tok kind,
		       const char *s, size_t len)
{
	int taken = (hs->as.state && host_asm_token(hs, kind, s, len)) ||
		    (hs->at.kind && host_attr_token(hs, kind, s, len));
	int attr_closed = 0;
	if (taken) {
		/* the asm or attribute took it */
	} else if (kind == TOK_IDENT) {
		host_identifier(hs, s, s + len);
	} else if (kind == TOK_PUNCT && *s == '(' &&
		   (hs->attr_open || hs->attr_depth)) {
		hs->attr_open = 0;
		hs->attr_depth++;
	} else if (kind == TOK_PUNCT && *s == ')' && hs->attr_depth) {
		attr_closed = --hs->attr_depth == 0;
	}
	host_operator_amp(hs, kind, s, len);
	library_definition(hs, kind, s, len);
	host_prev(hs, kind, s, len);
	if (attr_closed)
		hs->prev = 'A'; /* the end of __attribute__((...)) */
}

/* The literal at p (after any prefix at s): its end. cudafe++ writes every
 * string as an ordinary one (raw strings and digit separators are gone
 * from its output, measured with CUDA 13.0), so a raw string here is
 * refused rather than read. */
static const char *host_literal(struct host_scan *hs, const char *s,
				const char *p)
{
	if (p > s && p[-1] == 'R') {
		host_problem(hs, "%s:%ld: a raw string literal in nvcc's host "
			     "translation unit (cudafe++ writes none): the "
			     "file cannot be checked", hs->file, hs->line);
		return p + strlen(p);
	}
	char q = *p++;
	while (*p && *p != q && *p != '\n') {
		if (*p == '\\' && p[1])
			p++;
		p++;
	}
	p = *p == q ? p + 1 : p;
	if (!hs->skipping)
		host_token(hs, TOK_STRING, s, (size_t)(p - s));
	return p;
}

/* A comment at p (// or slash-star): its end, counting its lines. */
static const char *host_comment(struct host_scan *hs, const char *p)
{
	if (p[1] == '/')
		return p + strcspn(p, "\n");
	const char *end = strstr(p + 2, "*/");
	for (const char *c = p; c < (end ? end : p + strlen(p)); c++)
		hs->line += *c == '\n';
	return end ? end + 2 : p + strlen(p);
}

static void host_walk(const char *text, const struct objcheck_source *src,
		      struct objcheck_list *out);

/* text with its line splices removed, as GCC removes them before it
 * reads a token (a \ then a newline inside a name, as\<newline>m, is one
 * name to GCC: red team, 2026-11-27; cudafe++ writes a pragma ending in \
 * as it is). The newlines removed come back after the joined line, so the
 * lines after it keep their numbers. NULL when out of memory. */
static char *unspliced(const char *text)
{
	size_t n = strlen(text);
	char *out = malloc(n + 1), *o = out;
	size_t owed = 0;
	if (!out)
		return NULL;
	for (const char *p = text; *p;) {
		size_t splice = *p == '\\' ? splice_length(p) : 0;
		if (splice) {
			p += splice;
			owed++;
			continue;
		}
		*o++ = *p;
		if (*p++ == '\n')
			for (; owed; owed--)
				*o++ = '\n';
	}
	*o = 0;
	return out;
}

void objcheck_host_source(const char *text, const struct objcheck_source *src,
			  struct objcheck_list *out)
{
	char *joined = unspliced(text);
	if (!joined) {
		objcheck_add(out, "out of memory reading nvcc's host translation "
			     "unit: the file cannot be checked");
		return;
	}
	host_walk(joined, src, out);
	free(joined);
}

void objcheck_device_includes(const char *text,
			      const struct objcheck_source *src,
			      struct objcheck_list *out)
{
	char names[16][256];
	int nnames = 0;
	struct objcheck_problem items[8];
	struct objcheck_list mine = {items, 0, 8};
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p += !!p) {
		/* a line marker: # N "file" (a line of the preprocessor's
		 * output that begins with # is a directive) */
		const char *q = p;
		if (*q++ != '#')
			continue;
		q += strspn(q, " \t");
		if (!isdigit((unsigned char)*q))
			continue;
		q += strspn(q, "0123456789");
		q += strspn(q, " \t");
		if (*q != '"')
			continue;
		const char *fe = marker_name_end(q + 1);
		if (fe)
			check_included(q + 1, (size_t)(fe - q - 1), src, names,
				       &nnames, &mine);
	}
	/* what the host pass said already is not said again */
	int before = out->count < out->max ? out->count : out->max;
	for (int i = 0; i < mine.count && i < mine.max; i++) {
		int dup = 0;
		for (int k = 0; k < before && !dup; k++)
			dup = !strncmp(out->items[k].message, items[i].message,
				       strlen(items[i].message));
		if (!dup)
			objcheck_add(out, "%s (in device code)",
				     items[i].message);
	}
}

/* The walk over the host translation unit, splices removed. */
static void host_walk(const char *text, const struct objcheck_source *src,
		      struct objcheck_list *out)
{
	struct host_scan hs = {.src = src, .out = out};
	snprintf(hs.file, sizeof(hs.file), "%s", src->source_base);
	int line_start = 1;
	for (const char *p = text; p && *p;) {
		const char *s = p;
		if (*p == '\n') {
			hs.line++;
			line_start = 1;
			p++;
		} else if (isspace((unsigned char)*p)) {
			p++;
		} else if (*p == '#' && line_start) {
			p = host_directive(&hs, p);
		} else if (p[0] == '/' && (p[1] == '/' || p[1] == '*')) {
			p = host_comment(&hs, p);
		} else if (*p == '"' || *p == '\'') {
			line_start = 0;
			p = host_literal(&hs, p, p);
		} else if (isalpha((unsigned char)*p) || *p == '_' || *p == '$') {
			line_start = 0;
			while (isalnum((unsigned char)*p) || *p == '_' || *p == '$')
				p++;
			if (*p == '"' || *p == '\'')
				p = host_literal(&hs, s, p); /* u8"..", L'x' */
			else if (!hs.skipping)
				host_token(&hs, TOK_IDENT, s, (size_t)(p - s));
		} else if (isdigit((unsigned char)*p) ||
			   (*p == '.' && isdigit((unsigned char)p[1]))) {
			line_start = 0;
			while (isalnum((unsigned char)*p) || *p == '.' ||
			       *p == '_' ||
			       (*p == '\'' && isalnum((unsigned char)p[1])) ||
			       ((*p == '+' || *p == '-') &&
				strchr("eEpP", p[-1])))
				p++;
			if (!hs.skipping)
				host_token(&hs, TOK_NUMBER, s, (size_t)(p - s));
		} else {
			line_start = 0;
			p++;
			if (!hs.skipping)
				host_token(&hs, TOK_PUNCT, s, 1);
		}
	}
	if (hs.as.state) /* the text ended inside an asm */
		host_asm_decide(&hs, 0);
}
