#include "sass.h"
#include "runner.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

int sass_width_bytes(int i)
{
	static const int bytes[SASS_WIDTHS] = {1, 2, 4, 8, 16};
	return i >= 0 && i < SASS_WIDTHS ? bytes[i] : 0;
}

/* Width index of an opcode's suffixes (".E.128.CONSTANT" -> 16 B). */
static int width_of(const char *suffixes)
{
	if (strstr(suffixes, ".128"))
		return 4;
	if (strstr(suffixes, ".64"))
		return 3;
	if (strstr(suffixes, ".U16") || strstr(suffixes, ".S16"))
		return 1;
	if (strstr(suffixes, ".U8") || strstr(suffixes, ".S8"))
		return 0;
	return 2;
}

int sass_parse(const char *text, struct sass_counts *out)
{
	memset(out, 0, sizeof(*out));
	int seen = 0;
	for (const char *line = text; line && *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char buf[512];
		snprintf(buf, sizeof(buf), "%.*s", (int)(len < 511 ? len : 511), line);
		line = end ? end + 1 : NULL;
		if (strstr(buf, "Function :")) {
			out->functions++;
			continue;
		}
		/* an instruction: address comment, predicate?, opcode, e.g.
		 *   "/" "*01b0*" "/   @!P0 LDG.E.128.CONSTANT R4, ..." */
		char *p = strstr(buf, "/*");
		if (!p || !isxdigit((unsigned char)p[2]))
			continue;
		p = strstr(p + 2, "*/");
		if (!p)
			continue;
		p += 2;
		while (*p == ' ')
			p++;
		if (*p == '@') { /* a predicate */
			while (*p && *p != ' ')
				p++;
			while (*p == ' ')
				p++;
		}
		char op[64];
		size_t n = 0;
		while (n + 1 < sizeof(op) && (isalnum((unsigned char)p[n]) || p[n] == '.' ||
					      p[n] == '_'))
			op[n] = p[n], n++;
		op[n] = '\0';
		if (!n)
			continue;
		seen++;
		char base[16];
		size_t b = strcspn(op, ".");
		snprintf(base, sizeof(base), "%.*s", (int)(b < 15 ? b : 15), op);
		const char *suffixes = op + b;
		int w = width_of(suffixes);
		if (!strcmp(base, "LDG")) {
			out->loads[w]++;
			if (strstr(suffixes, ".CONSTANT"))
				out->nc_loads[w]++;
		} else if (!strcmp(base, "STG")) {
			out->stores[w]++;
		} else if (!strcmp(base, "LDGSTS")) {
			out->async[w]++;
		} else if (!strcmp(base, "LDL")) {
			out->local_loads++;
		} else if (!strcmp(base, "STL")) {
			out->local_stores++;
		}
	}
	return seen;
}

int sass_read(const char *cubin, struct sass_counts *out, char *why,
	      size_t len)
{
	const char *argv[] = {"cuobjdump", "-sass", cubin, NULL};
	struct child c = CHILD_INIT;
	c.argv = argv;
	c.out_limit = 16 << 20;
	c.wall_limit_s = 60;
	char how[160];
	int rc = -1;
	if (child_run(&c) < 0)
		snprintf(why, len, "cuobjdump not found on PATH");
	else if (!c.exited || c.exit_code != 0)
		snprintf(why, len, "cuobjdump %s",
			 child_describe_end(&c, how, sizeof(how)));
	else if (sass_parse(strbuf_str(&c.out), out) == 0)
		snprintf(why, len, "cuobjdump printed no SASS for %s", cubin);
	else
		rc = 0;
	child_release(&c);
	return rc;
}
