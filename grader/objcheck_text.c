/* objcheck_text — the object check's reading of the student's own text:
 * line directives, #ident, and macros before an #include, however spelt
 * (objcheck_line_directives; the rules are in objcheck.h). */
#include "objcheck.h"
#include "objcheck_private.h"
#include "ppview.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the student's own text: line directives ---------------------------- */


/* One step of the student's text after line splices (a backslash, spaces
 * or tabs, then a newline: GCC takes both), counting physical lines. */
struct spliced {
	const char *p;
	long line;
};

static void splice_skip(struct spliced *s)
{
	for (;;) {
		const char *q = s->p;
		if (*q != '\\')
			return;
		q++;
		while (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\f' ||
		       *q == '\v')
			q++;
		if (*q != '\n')
			return;
		s->p = q + 1;
		s->line++;
	}
}

static char sp_peek(struct spliced *s, int ahead)
{
	struct spliced t = *s;
	for (int i = 0; i < ahead && *t.p; i++) {
		splice_skip(&t);
		if (*t.p == '\n')
			t.line++;
		if (*t.p)
			t.p++;
	}
	splice_skip(&t);
	return *t.p;
}

static char sp_next(struct spliced *s)
{
	splice_skip(s);
	char c = *s->p;
	if (c) {
		s->p++;
		if (c == '\n')
			s->line++;
	}
	return c;
}

/* Skip spaces, tabs and comments on the current line (a block comment may
 * run over lines); returns 0 at a newline or the end. */
static void sp_blank(struct spliced *s)
{
	for (;;) {
		char c = sp_peek(s, 0);
		if (c == ' ' || c == '\t' || c == '\r' || c == '\f' ||
		    c == '\v') {
			sp_next(s);
		} else if (c == '/' && sp_peek(s, 1) == '*') {
			sp_next(s);
			sp_next(s);
			while (sp_peek(s, 0) &&
			       !(sp_peek(s, 0) == '*' && sp_peek(s, 1) == '/'))
				sp_next(s);
			sp_next(s);
			sp_next(s);
		} else {
			return;
		}
	}
}

/* A #define or #undef seen before an #include that follows it. */
struct macro_before {
	long line;
	char undef;
	char name[40];
};

/* Why a macro may not change a header (red team, 2026-11-24: #undef of
 * libstdc++'s _GLIBCXX_END_NAMESPACE_VERSION, redefined as an asm
 * statement, then #include <numeric>: the asm came out at <numeric>'s
 * lines, and the origin check took it for the header's). */
#define MACRO_WHY OBJCHECK_MACRO_WHY

/* A character of a name as GCC reads it: letters, digits, _, $ and the
 * bytes of UTF-8 letters (red team, 2026-11-24: $R"( and \u00e9R"( are a
 * name and an ordinary string, not raw strings). */
static int name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '$' ||
	       (unsigned char)c >= 0x80;
}

/* Skip a header name, <...> or "..." (no comments, no escapes inside, as
 * GCC reads it after #include and in __has_include), if s is at one. */
static void header_name(struct spliced *s)
{
	sp_blank(s);
	char c = sp_peek(s, 0), close = c == '<' ? '>' : c == '"' ? '"' : 0;
	if (!close)
		return;
	sp_next(s);
	while (sp_peek(s, 0) && sp_peek(s, 0) != '\n' &&
	       sp_peek(s, 0) != close)
		sp_next(s);
	if (sp_peek(s, 0) == close)
		sp_next(s);
}

/* Skip a pp-number as C++17 lexes it (s at its first digit or a dot
 * before a digit): digits, letters, _, ., a ' before a letter, digit or _,
 * and a sign after e, E, p or P (1e-6f, 0x1p-3 are one token each). The
 * scan must read the text as GCC does, or a directive hides from it (red
 * team: 1'_'/ * read as a character, then a comment). */
static void pp_number(struct spliced *s)
{
	for (;;) {
		char c = sp_peek(s, 0), n = sp_peek(s, 1);
		if ((c == 'e' || c == 'E' || c == 'p' || c == 'P') &&
		    (n == '+' || n == '-')) {
			sp_next(s);
			sp_next(s);
		} else if (name_char(c) || c == '.' ||
			   (c == '\'' && name_char(n))) {
			sp_next(s);
		} else {
			return;
		}
	}
}

/* After "#define" or "#undef": the macro's name; for #define, whether the
 * macro may stand before an #include: object-like with an empty body or a
 * single pp-number (no identifier, string or operator that could become
 * code in the header). Leaves s inside the line. */
static int macro_harmless(struct spliced *s, int undef, char *name,
			  size_t len)
{
	sp_blank(s);
	size_t n = 0;
	while (isalnum((unsigned char)sp_peek(s, 0)) || sp_peek(s, 0) == '_') {
		char c = sp_next(s);
		if (n + 1 < len)
			name[n++] = c;
	}
	name[n] = 0;
	if (undef) { /* #undef NDEBUG, to have <cassert>'s checks: the one
		      * macro the C standard gives the user to switch a
		      * header (its host side calls __assert_fail only) */
		sp_blank(s);
		char c = sp_peek(s, 0);
		return !strcmp(name, "NDEBUG") &&
		       (!c || c == '\n' || (c == '/' && sp_peek(s, 1) == '/'));
	}
	if (!n)
		return 0;
	if (sp_peek(s, 0) == '(') { /* function-like: its line, one space
				     * for each run of blanks and comments */
		char def[512];
		size_t d = (size_t)snprintf(def, sizeof(def), "%s", name);
		for (;;) {
			char c = sp_peek(s, 0);
			if (c == ' ' || c == '\t' || (c == '/' &&
						      sp_peek(s, 1) == '*')) {
				sp_blank(s);
				c = ' ';
			} else if (!c || c == '\n' ||
				   (c == '/' && sp_peek(s, 1) == '/')) {
				break;
			} else {
				sp_next(s);
			}
			if (d + 1 >= sizeof(def))
				return 0;
			def[d++] = c;
		}
		def[d] = 0;
		return ppview_function_macro_harmless(def, def + d);
	}
	/* a body of numbers, parentheses and operators only, (1 << 20) or
	 * -1 (2026-11-27: since objcheck-19 no host-assembly rule goes by
	 * which file a line comes from, and such a body names nothing a
	 * header could be changed by) */
	for (;;) {
		sp_blank(s);
		char c = sp_peek(s, 0);
		if (isdigit((unsigned char)c) ||
		    (c == '.' && isdigit((unsigned char)sp_peek(s, 1))))
			pp_number(s);
		else if (c && strchr("()+-*%<>&|^~", c))
			sp_next(s);
		else if (c == '/' && sp_peek(s, 1) != '/' &&
			 sp_peek(s, 1) != '*')
			sp_next(s);
		else
			break;
	}
	char c = sp_peek(s, 0);
	return !c || c == '\n' || (c == '/' && sp_peek(s, 1) == '/');
}

/* What the directive scan keeps from line to line. */
struct directive_scan {
	const char *source_base;
	struct objcheck_list *out;
	int reported; /* problems found: the first four are told */
	struct macro_before pending[4]; /* not yet followed by an #include */
	int npending;
};

/* One directive, s just after its # (or %:, ??=), on line. */
static void directive(struct spliced *s, long line, struct directive_scan *d)
{
	sp_blank(s);
	char word[16] = "";
	size_t n = 0;
	while (n < sizeof(word) - 1 &&
	       (isalnum((unsigned char)sp_peek(s, 0)) || sp_peek(s, 0) == '_'))
		word[n++] = sp_next(s);
	word[n] = 0;
	int ended = !isalnum((unsigned char)sp_peek(s, 0)) &&
		    sp_peek(s, 0) != '_';
	int named = !strcmp(word, "line") && ended;
	if (ended && (!strcmp(word, "ident") || !strcmp(word, "sccs")) &&
	    d->reported++ < 4)
		objcheck_add(d->out, "%s:%ld: #%s: %s", d->source_base, line, word,
			OBJCHECK_IDENT_WHY);
	if ((named || isdigit((unsigned char)word[0])) && d->reported++ < 4)
		objcheck_add(d->out,
			"%s:%ld: " OBJCHECK_LINE_DIRECTIVE,
			d->source_base, line);
	int undef = !strcmp(word, "undef");
	if (ended && (undef || !strcmp(word, "define"))) {
		struct macro_before m = {line, (char)undef, ""};
		if (!macro_harmless(s, undef, m.name, sizeof(m.name)) &&
		    d->npending < 4)
			d->pending[d->npending++] = m;
	}
	if (ended && (!strcmp(word, "include") ||
		      !strcmp(word, "include_next") ||
		      !strcmp(word, "import"))) {
		header_name(s); /* #include <a/ *> opens no comment */
		for (int i = 0; i < d->npending; i++)
			if (d->reported++ < 4)
				objcheck_add(d->out,
					"%s:%ld: #%s %s before the #include "
					"of line %ld: %s",
					d->source_base, d->pending[i].line,
					d->pending[i].undef ? "undef"
							    : "define",
					d->pending[i].name, line, MACRO_WHY);
		d->npending = 0;
	}
}

void objcheck_line_directives(const char *text, const char *source_base,
			      struct objcheck_list *out)
{
	/* GCC drops a UTF-8 byte-order mark: line 1 starts after it */
	if (text && !strncmp(text, "\xEF\xBB\xBF", 3))
		text += 3;
	struct spliced s = {text, 1};
	struct directive_scan d = {source_base, out, 0, {{0}}, 0};
	/* bytes GCC and this scan could read differently (red team: a lone
	 * CR is a new line to GCC, so "x;\r#include" is a directive) */
	long at = 1;
	for (const char *q = text; q && *q; q++) {
		at += *q == '\n';
		if (*q == '\f' || *q == '\v' || (*q == '\r' && q[1] != '\n')) {
			objcheck_add(out, "%s:%ld: holds a %s: the compiler and the "
				     "checks could split its lines differently; "
				     "save it with plain newlines (LF or CRLF)",
				source_base, at,
				*q == '\f' ? "form feed"
				: *q == '\v' ? "vertical tab"
					     : "carriage return without a newline");
			d.reported++;
			break;
		}
	}
	while (text && sp_peek(&s, 0)) {
		/* the start of a line: is its first token # (or %:, ??=)? */
		sp_blank(&s);
		long line = s.line;
		char c = sp_peek(&s, 0);
		int hash = 0;
		if (c == '#' && sp_peek(&s, 1) != '#')
			hash = 1;
		else if (c == '%' && sp_peek(&s, 1) == ':')
			hash = 2;
		else if (c == '?' && sp_peek(&s, 1) == '?' &&
			 sp_peek(&s, 2) == '=')
			hash = 3;
		if (hash) {
			for (int i = 0; i < hash; i++)
				sp_next(&s);
			directive(&s, line, &d);
		}
		/* the rest of the line: literals and comments may hide a
		 * newline that is not the end of it */
		while ((c = sp_peek(&s, 0)) && c != '\n') {
			if (c == '/' && sp_peek(&s, 1) == '/') {
				while (sp_peek(&s, 0) && sp_peek(&s, 0) != '\n')
					sp_next(&s);
			} else if (c == '/' && sp_peek(&s, 1) == '*') {
				sp_blank(&s);
			} else if (c == '"' || c == '\'') {
				sp_next(&s);
				while (sp_peek(&s, 0) && sp_peek(&s, 0) != c &&
				       sp_peek(&s, 0) != '\n') {
					if (sp_peek(&s, 0) == '\\')
						sp_next(&s);
					sp_next(&s);
				}
				if (sp_peek(&s, 0) == c)
					sp_next(&s);
			} else if (c == 'R' && sp_peek(&s, 1) == '"') {
				/* a raw string: no splices, no escapes inside,
				 * but newlines (its lines are not directives) */
				sp_next(&s);
				sp_next(&s);
				const char *open = s.p;
				const char *paren = strchr(open, '(');
				if (!paren || paren - open > 16)
					continue;
				char delim[24];
				snprintf(delim, sizeof(delim), ")%.*s\"",
					 (int)(paren - open), open);
				const char *end = strstr(paren, delim);
				end = end ? end + strlen(delim)
					  : paren + strlen(paren);
				for (const char *q = s.p; q < end; q++)
					s.line += *q == '\n';
				s.p = end;
			} else if (isdigit((unsigned char)c)) {
				/* a pp-number: 1'000 and 1'_ are not
				 * characters */
				pp_number(&s);
			} else if (name_char(c) && !isdigit((unsigned char)c)) {
				char id[16] = "";
				size_t k = 0;
				while (name_char(sp_peek(&s, 0))) {
					/* u8R"(, uR"(, UR"(, LR"( open a raw
					 * string; xR"( is the name xR and an
					 * ordinary string (red team) */
					if (sp_peek(&s, 0) == 'R' &&
					    sp_peek(&s, 1) == '"' && k < 3 &&
					    (!strcmp(id, "u8") || !strcmp(id, "u") ||
					     !strcmp(id, "U") || !strcmp(id, "L")))
						break;
					char ch = sp_next(&s);
					if (k < sizeof(id) - 1)
						id[k++] = ch, id[k] = 0;
					else
						k = sizeof(id); /* long */
				}
				/* __has_include(<a/ *>): a header name */
				if (!strcmp(id, "__has_include") ||
				    !strcmp(id, "__has_include_next")) {
					sp_blank(&s);
					if (sp_peek(&s, 0) == '(') {
						sp_next(&s);
						header_name(&s);
					}
				}
			} else {
				sp_next(&s);
			}
		}
		sp_next(&s); /* the newline */
	}
}
