/* ppview — the student's directives as GCC's preprocessor saw them
 * (ppview.h). */
#include "ppview.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const ppview_flags[] = {"-dD", "-dI", "-Wpedantic",
				    "-Wsystem-headers",
				    "-fno-diagnostics-show-caret", NULL};

#define MACRO_WHY OBJCHECK_MACRO_WHY

/* Add a problem unless the same text is already in out. */
static void problem(struct objcheck_list *out, const char *fmt, ...)
{
	char msg[sizeof(out->items[0].message)];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (int i = 0; i < out->count && i < out->max; i++)
		if (!strcmp(out->items[i].message, msg))
			return;
	if (out->count < out->max)
		snprintf(out->items[out->count].message, sizeof(msg), "%s", msg);
	out->count++;
}

/* Where a line of GCC's output comes from: its line markers. */
struct place {
	char file[256]; /* base name of the current file, "" at the start */
	int pseudo;     /* <built-in>, <command-line> */
	long line;
};

/* A GCC line marker at p ("# N \"file\" flags"): 1 with its parts, else 0.
 * flags: bit 1 for flag 1 (entering), bit 2 for flag 2 (returning). */
static int marker(const char *p, const char *end, long *n, char *file,
		  size_t len, int *flags)
{
	if (p[0] != '#' || p[1] != ' ' || !isdigit((unsigned char)p[2]))
		return 0;
	char *after;
	*n = strtol(p + 2, &after, 10);
	const char *q = after;
	if (q >= end || *q != ' ' || q[1] != '"')
		return 0;
	const char *f = q + 2, *fe = f;
	while (fe < end && *fe != '"') {
		if (*fe == '\\' && fe + 1 < end)
			fe++;
		fe++;
	}
	if (fe >= end)
		return 0;
	const char *base = f;
	for (const char *c = f; c < fe; c++)
		if (*c == '/')
			base = c + 1;
	snprintf(file, len, "%.*s", (int)(fe - base), base);
	*flags = 0;
	for (q = fe + 1; q < end; q++)
		if (*q == '1' && (q[-1] == ' ') && (q + 1 == end || q[1] == ' '))
			*flags |= 1;
		else if (*q == '2' && q[-1] == ' ' &&
			 (q + 1 == end || q[1] == ' '))
			*flags |= 2;
	return 1;
}

/* Follow a marker: the place of the lines after it. */
static void move(struct place *pl, long n, const char *file)
{
	snprintf(pl->file, sizeof(pl->file), "%s", file);
	pl->pseudo = file[0] == '<';
	pl->line = n - 1; /* the next line is n */
}

/* Rule 2: R"delim( with no )delim" after it on the line [p, end). */
static int opens_multiline_raw(const char *p, const char *end)
{
	for (const char *r = p; r + 2 < end; r++) {
		if (r[0] != 'R' || r[1] != '"')
			continue;
		const char *d = r + 2, *paren = d;
		/* a d-char is anything but blanks, ( ) and \ (" too: R"a"b(
		 * opens a raw string; red team) */
		while (paren < end && paren - d <= 16 && *paren != '(' &&
		       *paren != ')' && *paren != '\\' &&
		       !isspace((unsigned char)*paren))
			paren++;
		if (paren >= end || *paren != '(' || paren - d > 16)
			continue;
		char close[24];
		int cl = snprintf(close, sizeof(close), ")%.*s\"",
				  (int)(paren - d), d);
		int found = 0;
		for (const char *c = paren + 1; c + cl <= end; c++)
			if (!memcmp(c, close, (size_t)cl)) {
				found = 1;
				break;
			}
		if (!found)
			return 1;
	}
	return 0;
}

/* Rule 1 on cudafe++'s input. */
static void check_host_ii(const char *text, const char *source_base,
			  struct objcheck_list *out)
{
	struct place pl = {"", 1, 0};
	int told = 0;
	for (const char *p = text; p && *p && told < 4;) {
		const char *end = strchr(p, '\n');
		if (!end)
			end = p + strlen(p);
		pl.line++;
		long n;
		int flags;
		char file[256];
		if (marker(p, end, &n, file, sizeof(file), &flags)) {
			move(&pl, n, file);
		} else {
			const char *q = p + strspn(p, " \t\f\v\r");
			int hash = q < end && (*q == '#' ||
					       (q[0] == '%' && q[1] == ':') ||
					       (q[0] == '?' && q[1] == '?' &&
						q[2] == '='));
			if (hash && (q != p || *q != '#')) {
				told++;
				problem(out,
					"%s:%ld: a macro made a line that starts "
					"with %.*s (after preprocessing: %.*s): "
					"nvcc's front end reads it as a "
					"directive, such as a line marker that "
					"says the lines after it come from "
					"another file; GCC never writes one "
					"there itself",
					pl.file[0] ? pl.file : source_base,
					pl.line, *q == '#' ? 1 : *q == '%' ? 2 : 3,
					q, (int)(end - q < 60 ? end - q : 60), q);
			}
		}
		p = *end ? end + 1 : end;
	}
}

/* Past a run of blanks, pp-numbers (1e-6f, 0x1p-3, 1'000) and the
 * characters of ops, from p; where the run stops (end at the end). */
static const char *numbers_and_operators(const char *p, const char *end,
					 const char *ops)
{
	while (p < end) {
		if (*p == ' ' || *p == '\t' || strchr(ops, *p)) {
			p++;
		} else if (isdigit((unsigned char)*p) ||
			   (*p == '.' && p + 1 < end &&
			    isdigit((unsigned char)p[1]))) {
			p++;
			while (p < end &&
			       (isalnum((unsigned char)*p) || *p == '.' ||
				*p == '_' || *p == '\'' ||
				((*p == '+' || *p == '-') &&
				 strchr("eEpP", p[-1]))))
				p++;
		} else {
			break;
		}
	}
	return p;
}

int ppview_function_macro_harmless(const char *p, const char *end)
{
	static const char *const words[] = {
		"asm", "sizeof", "alignof", "alignas", "decltype", "noexcept",
		"static_assert", "typeid", "operator", "throw", "return", "if",
		"while", "for", "switch", "new", "delete", "defined", "main",
		NULL,
	};
	const char *name = p;
	while (p < end && (isalnum((unsigned char)*p) || *p == '_'))
		p++;
	size_t nlen = (size_t)(p - name);
	if (!nlen || *name == '_' || p >= end || *p != '(')
		return 0;
	for (const char *const *w = words; *w; w++)
		if (strlen(*w) == nlen && !strncmp(name, *w, nlen))
			return 0;
	/* the parameters: names and commas */
	const char *params = ++p;
	while (p < end && *p != ')') {
		if (!(isalnum((unsigned char)*p) || *p == '_' || *p == ',' ||
		      *p == ' '))
			return 0;
		p++;
	}
	if (p >= end)
		return 0;
	const char *params_end = p++;
	/* the body: the parameters, numbers, parentheses and operators */
	while ((p = numbers_and_operators(p, end, "()+-*/%<>&|^~?:!=")) < end) {
		if (isalpha((unsigned char)*p) || *p == '_') {
			const char *w = p;
			while (p < end && (isalnum((unsigned char)*p) || *p == '_'))
				p++;
			size_t wl = (size_t)(p - w);
			int param = 0;
			for (const char *q = params; q < params_end && !param;) {
				while (q < params_end && (*q == ',' || *q == ' '))
					q++;
				const char *qs = q;
				while (q < params_end && *q != ',' && *q != ' ')
					q++;
				param = (size_t)(q - qs) == wl &&
					!strncmp(qs, w, wl);
			}
			if (!param)
				return 0;
		} else {
			return 0; /* a string, #, ##, a comma, a brace ... */
		}
	}
	return 1;
}

/* A macro as GCC's -dD prints it (p after "#define " or "#undef "):
 * harmless before an #include when object-like with an empty or
 * single-number body. */
static int harmless_definition(const char *p, const char *end, int undef)
{
	const char *name_start = p;
	if (undef) { /* only #undef NDEBUG (<cassert>'s switch) */
		while (end > p && isspace((unsigned char)end[-1]))
			end--;
		return end - p == 6 && !strncmp(p, "NDEBUG", 6);
	}
	while (p < end && (isalnum((unsigned char)*p) || *p == '_' ||
			   *p == '$' || (unsigned char)*p >= 0x80))
		p++;
	if (p < end && *p == '(') /* function-like */
		return ppview_function_macro_harmless(name_start, end);
	/* numbers, parentheses and operators only: (1 << 20), -1 */
	return numbers_and_operators(p, end, "()+-*/%<>&|^~") == end;
}

static int starts(const char *p, const char *end, const char *w)
{
	size_t n = strlen(w);
	return (size_t)(end - p) >= n && !strncmp(p, w, n);
}

/* Rules 2, 3 and 5 on the -dD -dI view. */
static void check_view(const char *text, const char *source_base,
		       struct objcheck_list *out)
{
	struct place pl = {"", 1, 0};
	struct {
		long line;
		int undef;
		char name[64];
	} pending[4];
	int npending = 0, raw_told = 0, line_told = 0, macro_told = 0;
	int preamble = 1;
	for (const char *p = text; p && *p;) {
		const char *end = strchr(p, '\n');
		if (!end)
			end = p + strlen(p);
		pl.line++;
		int mine = !strcmp(pl.file, source_base);
		long n;
		int flags;
		char file[256];
		/* the student's lines only: CCCL's headers write their PTX
		 * in raw strings over several lines */
		if (mine && !raw_told && opens_multiline_raw(p, end)) {
			raw_told = 1;
			problem(out,
				"%s:%ld: a raw string literal over several "
				"lines: its lines could pass for the "
				"preprocessor's own in the outputs the checks "
				"read; write it on one line, or as ordinary "
				"strings with \\n",
				pl.file[0] ? pl.file : source_base, pl.line);
		}
		if (marker(p, end, &n, file, sizeof(file), &flags)) {
			/* GCC's preamble: # 0 "main", # 0 "<built-in>",
			 * # 0 "<command-line>", ..., then # 1 "main" */
			if (!flags && pl.pseudo && n >= 1 &&
			    !strcmp(file, source_base))
				preamble = 0;
			if (!flags && !preamble && !pl.pseudo &&
			    strcmp(file, pl.file) && line_told++ < 4)
				problem(out,
					"%s:%ld: " OBJCHECK_LINE_DIRECTIVE,
					pl.file, pl.line);
			move(&pl, n, file);
		} else if (mine && (starts(p, end, "#define ") ||
				    starts(p, end, "#undef "))) {
			int undef = p[1] == 'u';
			const char *name = p + (undef ? 7 : 8);
			if (!harmless_definition(name, end, undef) &&
			    npending < 4) {
				size_t k = strcspn(name, " (\n");
				pending[npending].line = pl.line;
				pending[npending].undef = undef;
				snprintf(pending[npending].name,
					 sizeof(pending[0].name), "%.*s",
					 (int)(k < 63 ? k : 63), name);
				npending++;
			}
		} else if (mine && (starts(p, end, "#include ") ||
				    starts(p, end, "#include_next ") ||
				    starts(p, end, "#import "))) {
			for (int i = 0; i < npending; i++)
				if (macro_told++ < 4)
					problem(out,
						"%s:%ld: #%s %s before the "
						"#include of line %ld: %s",
						source_base, pending[i].line,
						pending[i].undef ? "undef"
								 : "define",
						pending[i].name, pl.line,
						MACRO_WHY);
			npending = 0;
		} else if (mine && starts(p, end, "#pragma ")) {
			const char *q = p + 8;
			q += strspn(q, " ");
			if (starts(q, end, "GCC diagnostic")) {
				for (const char *c = q; c + 8 <= end; c++)
					if (!strncmp(c, "pedantic", 8)) {
						problem(out,
							"%s:%ld: #pragma GCC "
							"diagnostic on "
							"-Wpedantic: the check "
							"for line markers reads "
							"that warning",
							source_base, pl.line);
						break;
					}
			}
		}
		p = *end ? end + 1 : end;
	}
	if (preamble)
		problem(out, "%s: the preprocessor's view never reached the "
			     "file's own lines: it cannot be checked",
			source_base);
}

/* Rule 4 on the view's diagnostics. */
static void check_messages(const char *text, const char *source_base,
			   struct objcheck_list *out)
{
	int told = 0;
	for (const char *p = text; p && *p && told < 4;) {
		const char *end = strchr(p, '\n');
		if (!end)
			end = p + strlen(p);
		const char *hit = NULL;
		for (const char *c = p; c + 14 <= end && !hit; c++)
			if (!strncmp(c, "style of line directive", 23))
				hit = c;
		if (hit) {
			/* "path:line:col: warning: style of ..." */
			const char *colon = memchr(p, ':', (size_t)(hit - p));
			const char *base = p;
			for (const char *c = p; colon && c < colon; c++)
				if (*c == '/')
					base = c + 1;
			char file[256];
			snprintf(file, sizeof(file), "%.*s",
				 colon && colon > base ? (int)(colon - base) : 0,
				 base);
			long line = colon ? strtol(colon + 1, NULL, 10) : 0;
			told++;
			problem(out,
				"%s:%ld: " OBJCHECK_LINE_DIRECTIVE,
				file[0] ? file : source_base, line);
		}
		p = *end ? end + 1 : end;
	}
}

/* Rule 6 on the -P output: no line markers there, so any line that
 * starts with # but GCC's own #pragma and #ident is the program's. */
static void check_plain(const char *text, const char *source_base,
			struct objcheck_list *out)
{
	int told = 0;
	for (const char *p = text; p && *p && told < 4;) {
		const char *end = strchr(p, '\n');
		if (!end)
			end = p + strlen(p);
		const char *q = p + strspn(p, " \t\f\v\r");
		int hash = q < end && (*q == '#' ||
				       (q[0] == '%' && q[1] == ':') ||
				       (q[0] == '?' && q[1] == '?' && q[2] == '='));
		if (hash && !(q == p && (starts(q, end, "#pragma ") ||
					 starts(q, end, "#ident ") ||
					 starts(q, end, "#sccs ")))) {
			told++;
			problem(out,
				"%s: a macro made a line that starts with %.*s "
				"(after preprocessing: %.*s): nvcc's front end "
				"reads it as a directive, such as a line marker "
				"that says the lines after it come from another "
				"file",
				source_base, *q == '#' ? 1 : *q == '%' ? 2 : 3, q,
				(int)(end - q < 60 ? end - q : 60), q);
		}
		p = *end ? end + 1 : end;
	}
}

void ppview_check(const struct ppview_input *in, struct objcheck_list *out)
{
	if (in->plain)
		check_plain(in->plain, in->source_base, out);
	if (in->host_ii)
		check_host_ii(in->host_ii, in->source_base, out);
	if (in->view)
		check_view(in->view, in->source_base, out);
	if (in->messages)
		check_messages(in->messages, in->source_base, out);
}
