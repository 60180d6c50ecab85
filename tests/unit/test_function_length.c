/* The grader in small functions (issue 19): no function in grader/ (every .c file) is
 * longer than MAX_LINES lines, from the line of its opening brace to the
 * line of its closing one. A brace-depth scanner: it skips comments,
 * string and character literals, and counts a top-level block as a
 * function when a ")" comes right before its "{" (initialisers and struct
 * definitions do not). Runs from the project root. */
#include "check.h"

#include <dirent.h>
#include <string.h>

#define MAX_LINES 120

/* Files another branch rewrites (each with why): their long functions
 * are reported as skipped, not failed, until it lands. None now. */
static const struct {
	const char *file, *why;
} pending[] = {
	{NULL, NULL},
};

struct scan {
	int longest, over;
	char worst[128];
};

/* The name of the function whose "{" is at text[at]: the identifier
 * before the "(" that opens its parameter list. */
static void name_before(const char *text, size_t at, char *buf, size_t len)
{
	int depth = 0;
	size_t i = at;
	while (i > 0) {
		i--;
		if (text[i] == ')')
			depth++;
		else if (text[i] == '(' && --depth == 0)
			break;
	}
	size_t end = i;
	while (i > 0 && (text[i - 1] == '_' || (text[i - 1] >= 'a' && text[i - 1] <= 'z') ||
			 (text[i - 1] >= 'A' && text[i - 1] <= 'Z') ||
			 (text[i - 1] >= '0' && text[i - 1] <= '9')))
		i--;
	snprintf(buf, len, "%.*s", (int)(end - i), text + i);
}

static void scan_file(const char *path, const char *text, struct scan *sc)
{
	int depth = 0, line = 1, start = 0;
	char prev = 0, name[96] = "";
	for (size_t i = 0; text[i]; i++) {
		char ch = text[i];
		if (ch == '/' && text[i + 1] == '*') {
			for (i += 2; text[i] && !(text[i] == '*' && text[i + 1] == '/'); i++)
				line += text[i] == '\n';
			i++;
			continue;
		}
		if (ch == '/' && text[i + 1] == '/') {
			while (text[i + 1] && text[i + 1] != '\n')
				i++;
			continue;
		}
		if (ch == '"' || ch == '\'') {
			for (i++; text[i] && text[i] != ch; i++)
				if (text[i] == '\\')
					i++;
			prev = ch;
			continue;
		}
		if (ch == '\n')
			line++;
		if (ch == '{') {
			if (depth == 0 && prev == ')') {
				start = line;
				name_before(text, i, name, sizeof(name));
			}
			depth++;
		} else if (ch == '}') {
			depth--;
			if (depth == 0 && start) {
				int n = line - start + 1;
				if (n > sc->longest) {
					sc->longest = n;
					snprintf(sc->worst, sizeof(sc->worst),
						 "%s %s()", path, name);
				}
				if (n > MAX_LINES) {
					printf("# %s: %s() is %d lines (line %d)\n",
					       path, name, n, start);
					sc->over++;
				}
				start = 0;
			}
		}
		if (ch != ' ' && ch != '\t' && ch != '\n')
			prev = ch;
	}
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)n + 1);
	size_t got = buf ? fread(buf, 1, (size_t)n, f) : 0;
	fclose(f);
	if (buf)
		buf[got] = '\0';
	return buf;
}

int main(void)
{
	/* the scanner itself: a planted long function is found */
	static char planted[8192];
	size_t off = (size_t)snprintf(planted, sizeof(planted),
				      "static const int t[] = {1, 2};\n"
				      "/* { */ static int f(int x)\n{\n"
				      "\tconst char *s = \"}\";\n");
	for (int k = 0; k < MAX_LINES; k++)
		off += (size_t)snprintf(planted + off, sizeof(planted) - off,
					"\tx++;\n");
	snprintf(planted + off, sizeof(planted) - off,
		 "\treturn x;\n}\nstatic int g(void) { return '{'; }\n");
	struct scan t = {0, 0, ""};
	scan_file("planted.c", planted, &t);
	CHECK(t.over == 1 && t.longest == MAX_LINES + 4 &&
		      strstr(t.worst, "f()"),
	      "the scanner finds a planted %d-line function past braces in "
	      "strings, comments and initialisers (%s, %d lines)",
	      MAX_LINES + 4, t.worst, t.longest);

	DIR *d = opendir("grader");
	struct dirent *e;
	int files = 0;
	struct scan all = {0, 0, ""};
	while (d && (e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l < 3 || strcmp(e->d_name + l - 2, ".c"))
			continue;
		char path[512];
		snprintf(path, sizeof(path), "grader/%s", e->d_name);
		char *text = slurp(path);
		if (!text)
			continue;
		files++;
		const char *why = NULL;
		for (size_t k = 0; pending[k].file; k++)
			if (!strcmp(pending[k].file, path))
				why = pending[k].why;
		struct scan sc = {0, 0, ""};
		scan_file(path, text, &sc);
		free(text);
		if (why && sc.over)
			printf("ok %d - %s: %d function(s) over %d lines # SKIP "
			       "%s\n", ++check_count, path, sc.over, MAX_LINES,
			       why);
		else
			all.over += sc.over;
		if (!why && sc.longest > all.longest) {
			all.longest = sc.longest;
			snprintf(all.worst, sizeof(all.worst), "%s", sc.worst);
		}
	}
	if (d)
		closedir(d);
	CHECK(files > 10 && all.over == 0,
	      "no function in grader/ is over %d lines (%d files; the "
	      "longest: %s, %d lines)",
	      MAX_LINES, files, all.worst, all.longest);
	return check_done();
}
