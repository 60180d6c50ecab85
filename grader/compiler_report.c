#include "compiler_report.h"
#include "demangle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *diagnostic(const char *file, long line, long col,
			  const char *severity, const char *message)
{
	json_t *d = json_pack("{s:s, s:I, s:I, s:s, s:s}", "file", file, "line",
			      (json_int_t)line, "column", (json_int_t)col,
			      "severity", severity, "message", message);
	return d;
}

/* "error", "warning" or NULL from the start of s; *rest after the colon. */
static const char *severity_at(const char *s, const char **rest)
{
	static const char *const sev[] = {"fatal error", "error", "warning"};
	while (*s == ' ')
		s++;
	for (size_t i = 0; i < 3; i++) {
		size_t n = strlen(sev[i]);
		if (strncmp(s, sev[i], n) != 0)
			continue;
		const char *p = s + n;
		/* the front end writes "warning #177-D:" */
		if (*p == ' ' && p[1] == '#')
			p = strchr(p, ':');
		if (!p || *p != ':')
			return NULL;
		*rest = p + 1 + (p[1] == ' ');
		return i == 2 ? "warning" : "error";
	}
	return NULL;
}

static json_t *parse_line(const char *line, const char *launcher)
{
	char file[1024];
	long ln = 0, col = 0;
	const char *rest;
	const char *sev;

	/* CUDA front end: path(LINE): severity: message */
	const char *paren = strstr(line, "(");
	if (paren && paren != line) {
		char *end;
		ln = strtol(paren + 1, &end, 10);
		if (ln > 0 && end[0] == ')' && end[1] == ':' &&
		    (sev = severity_at(end + 2, &rest))) {
			size_t n = (size_t)(paren - line);
			if (n >= sizeof(file))
				n = sizeof(file) - 1;
			memcpy(file, line, n);
			file[n] = '\0';
			return diagnostic(file, ln, 0, sev, rest);
		}
	}
	/* host compiler: path:LINE:COL: severity: message */
	const char *c1 = strchr(line, ':');
	if (c1 && c1 != line) {
		char *end;
		ln = strtol(c1 + 1, &end, 10);
		if (ln > 0 && *end == ':') {
			col = strtol(end + 1, &end, 10);
			if (*end == ':' && (sev = severity_at(end + 1, &rest))) {
				size_t n = (size_t)(c1 - line);
				if (n >= sizeof(file))
					n = sizeof(file) - 1;
				memcpy(file, line, n);
				file[n] = '\0';
				return diagnostic(file, ln, col, sev, rest);
			}
		}
	}
	/* ptxas */
	if (strncmp(line, "ptxas", 5) == 0 && (rest = strstr(line, "error"))) {
		const char *msg = strchr(rest, ':');
		return diagnostic("ptxas", 0, 0, "error",
				  msg ? msg + 1 + (msg[1] == ' ') : line);
	}
	/* linker */
	const char *undef = strstr(line, "undefined reference to ");
	if (undef) {
		char msg[512];
		const char *sym = undef + strlen("undefined reference to ");
		if (launcher && strstr(sym, launcher) == sym + 1 &&
		    !strchr("_0123456789abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
			    sym[1 + strlen(launcher)]))
			snprintf(msg, sizeof(msg),
				 "the file does not define the launcher %s() "
				 "with the lab's exact signature (see the lab "
				 "README's interface; a different parameter "
				 "type makes it a different function)",
				 launcher);
		else
			snprintf(msg, sizeof(msg), "link error: %s", undef);
		return diagnostic("(link)", 0, 0, "error", msg);
	}
	if (strstr(line, "multiple definition of ")) {
		return diagnostic("(link)", 0, 0, "error",
				  strstr(line, "multiple definition of "));
	}
	return NULL;
}

/* The linker names one missing symbol once per call site: keep one. */
static int already_listed(const json_t *list, const json_t *d)
{
	size_t i;
	json_t *x;
	json_array_foreach(list, i, x)
	{
		if (json_equal(x, (json_t *)d))
			return 1;
	}
	return 0;
}

json_t *compiler_diagnostics(const char *output, const char *launcher)
{
	json_t *out = json_array();
	const char *p = output;
	while (*p) {
		size_t len = strcspn(p, "\n");
		char *line = strndup(p, len);
		json_t *d = line ? parse_line(line, launcher) : NULL;
		if (d && already_listed(out, d))
			json_decref(d);
		else if (d)
			json_array_append_new(out, d);
		free(line);
		p += len + (p[len] == '\n');
	}
	return out;
}

size_t compiler_count(const json_t *diagnostics, const char *severity)
{
	size_t n = 0, i;
	json_t *d;
	json_array_foreach(diagnostics, i, d)
	{
		const char *s = json_string_value(json_object_get(d, "severity"));
		n += s && strcmp(s, severity) == 0;
	}
	return n;
}

static long number_before(const char *line, const char *unit)
{
	const char *u = strstr(line, unit);
	if (!u)
		return -1;
	const char *p = u;
	while (p > line && p[-1] == ' ')
		p--;
	while (p > line && p[-1] >= '0' && p[-1] <= '9')
		p--;
	return strtol(p, NULL, 10);
}

json_t *compiler_resources(const char *output)
{
	json_t *kernels = json_array();
	json_t *cur = NULL;
	int in_kernel_props = 1; /* no "Function properties" line seen */
	const char *p = output;
	while (*p) {
		size_t len = strcspn(p, "\n");
		char line[1024];
		snprintf(line, sizeof(line), "%.*s", (int)(len < 1023 ? len : 1023),
			 p);
		p += len + (p[len] == '\n');

		const char *fn = strstr(line, "Compiling entry function '");
		if (fn) {
			fn += strlen("Compiling entry function '");
			size_t n = strcspn(fn, "'");
			char name[512];
			snprintf(name, sizeof(name), "%.*s", (int)n, fn);
			cur = json_pack("{s:s, s:i, s:i, s:i, s:i, s:i}", "name",
					name, "registers", 0,
					"spill_store_bytes", 0,
					"spill_load_bytes", 0, "shared_bytes",
					0, "stack_bytes", 0);
			char pretty[512];
			json_object_set_new(cur, "demangled",
					    json_string(demangle(name, pretty,
								 sizeof(pretty))));
			json_array_append_new(kernels, cur);
			continue;
		}
		/* "Function properties for F" precedes F's stack and spill
		 * line; F may be a device function the kernel calls (sin's
		 * slow path, say), whose figures are not the kernel's */
		const char *props = strstr(line, "Function properties for ");
		if (props) {
			props += strlen("Function properties for ");
			in_kernel_props = cur && !strcmp(props, json_string_value(
						  json_object_get(cur, "name")));
			continue;
		}
		if (!cur)
			continue;
		long v;
		if (strstr(line, "bytes stack frame") && in_kernel_props) {
			if ((v = number_before(line, "bytes stack frame")) >= 0)
				json_object_set_new(cur, "stack_bytes",
						    json_integer(v));
			if ((v = number_before(line, "bytes spill stores")) >= 0)
				json_object_set_new(cur, "spill_store_bytes",
						    json_integer(v));
			if ((v = number_before(line, "bytes spill loads")) >= 0)
				json_object_set_new(cur, "spill_load_bytes",
						    json_integer(v));
		}
		if (strstr(line, "Used ") && strstr(line, "registers")) {
			if ((v = number_before(line, "registers")) >= 0)
				json_object_set_new(cur, "registers",
						    json_integer(v));
			if ((v = number_before(line, "bytes smem")) >= 0)
				json_object_set_new(cur, "shared_bytes",
						    json_integer(v));
		}
	}
	return kernels;
}

/* The file a diagnostic line starts with, "F(N): ..." (the CUDA front end)
 * or "F:N:..." (the host compiler, the assembler), into file; its line in
 * *ln. 0 when the line is not a diagnostic's. */
static int located(const char *line, char *file, size_t cap, long *ln)
{
	for (const char *p = strchr(line, '('); p && p != line;
	     p = strchr(p + 1, '(')) {
		char *end;
		long n = strtol(p + 1, &end, 10);
		if (n > 0 && end[0] == ')' && end[1] == ':') {
			snprintf(file, cap, "%.*s", (int)(p - line), line);
			*ln = n;
			return 1;
		}
	}
	const char *c = strchr(line, ':');
	if (c && c != line && c[1] >= '0' && c[1] <= '9') {
		char *end;
		long n = strtol(c + 1, &end, 10);
		if (n > 0 && *end == ':') {
			snprintf(file, cap, "%.*s", (int)(c - line), line);
			*ln = n;
			return 1;
		}
	}
	return 0;
}

/* Append m bytes to the growing string *out (size *size, used *k). */
static int append(char **out, size_t *size, size_t *k, const char *s,
		  size_t m)
{
	if (*k + m + 1 > *size) {
		size_t want = 2 * (*k + m + 1);
		char *grown = realloc(*out, want);
		if (!grown)
			return -1;
		*out = grown;
		*size = want;
	}
	memcpy(*out + *k, s, m);
	*k += m;
	return 0;
}

char *compiler_hide_files(const char *output,
			  int (*shown)(const char *file, void *arg), void *arg)
{
	size_t size = strlen(output) + 1, k = 0;
	char *out = malloc(size);
	if (!out)
		return NULL;
	int hidden = 0;
	for (const char *p = output; *p;) {
		size_t len = strcspn(p, "\n");
		char line[1024], file[1024];
		snprintf(line, sizeof(line), "%.*s", (int)(len < 1023 ? len : 1023),
			 p);
		const char *next = p + len + (p[len] == '\n');
		long ln = 0;
		if (line[0] == ' ' || line[0] == '\t' || !line[0]) {
			/* a quoted line, a caret, context: part of the last
			 * diagnostic */
		} else if (located(line, file, sizeof(file), &ln)) {
			hidden = !shown(file, arg);
		} else {
			hidden = 0;
		}
		int rc = 0;
		if (!hidden) {
			rc = append(&out, &size, &k, p, (size_t)(next - p));
		} else if (ln) {
			char note[1300];
			int n = snprintf(note, sizeof(note),
					 "%.1000s(%ld): error: what the compiler "
					 "said here quotes a file a kernel file "
					 "may not include (only its lab's "
					 "headers, cudalab.h and system or CUDA "
					 "headers): not shown\n", file, ln);
			rc = append(&out, &size, &k, note,
				    n > 0 && (size_t)n < sizeof(note) ? (size_t)n
								      : 0);
		}
		if (rc < 0)
			break;
		p = next;
	}
	out[k] = 0;
	return out;
}
