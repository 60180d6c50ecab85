#include "ptx.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Bytes of a PTX type suffix such as "f32", "b64", "u8"; 0 if not a type. */
static int type_bytes(const char *t, size_t len)
{
	if (len < 2 || !strchr("fbus", t[0]))
		return 0;
	int bits = 0;
	for (size_t i = 1; i < len; i++) {
		if (!isdigit((unsigned char)t[i]))
			return 0;
		bits = bits * 10 + (t[i] - '0');
	}
	return bits / 8;
}

/*
 * Width in bytes of the access named by opcode (e.g. "ld.global.nc.v4.f32"),
 * and whether it is non-coherent.
 */
static int access_bytes(const char *op, size_t len, int *nc)
{
	int vec = 1, elem = 0;
	*nc = 0;
	const char *p = op, *end = op + len;
	while (p < end) {
		const char *dot = memchr(p, '.', (size_t)(end - p));
		size_t n = dot ? (size_t)(dot - p) : (size_t)(end - p);
		if (n == 2 && p[0] == 'n' && p[1] == 'c')
			*nc = 1;
		else if (n == 2 && p[0] == 'v' && isdigit((unsigned char)p[1]))
			vec = p[1] - '0';
		else if (type_bytes(p, n))
			elem = type_bytes(p, n);
		p += n + 1;
	}
	return vec * elem;
}

/* The first word of a PTX line (after a predicate guard), in [*op, +len). */
static size_t opcode(const char *s, const char *line_end, const char **op)
{
	while (s < line_end && isspace((unsigned char)*s))
		s++;
	if (*s == '@') {
		while (s < line_end && !isspace((unsigned char)*s))
			s++;
		while (s < line_end && isspace((unsigned char)*s))
			s++;
	}
	size_t n = 0;
	while (s + n < line_end && !isspace((unsigned char)s[n]) && s[n] != ';')
		n++;
	*op = s;
	return n;
}

/*
 * Where the PTX statement starting at s ends: at the first ';', '{' or '}'
 * outside a string, or at line_end. Inline assembly puts a whole block on
 * one line ("{ .reg .pred p; shfl.sync.down.b32 r0|p, ...; @p add.f32
 * ...; }": CUB's WarpReduce, found 2026-11-24), so an instruction is not
 * only the first word of a line. A vector operand's braces
 * ({%f1, %f2}) end a statement early: the opcode before them is whole.
 */
static const char *statement_end(const char *s, const char *line_end)
{
	int quoted = 0;
	for (; s < line_end; s++) {
		if (*s == '"')
			quoted = !quoted;
		else if (!quoted && (*s == ';' || *s == '{' || *s == '}'))
			return s;
	}
	return line_end;
}

/* Count the one statement [s, end) into out. */
static void count_statement(const char *s, const char *end,
			    struct ptx_facts *out)
{
	const char *op;
	size_t oplen = opcode(s, end, &op);
	int nc;
	if (oplen > 10 && strncmp(op, "ld.global.", 10) == 0) {
		int b = access_bytes(op, oplen, &nc);
		out->global_loads++;
		out->nc_loads += nc;
		if (b > out->max_load_bytes)
			out->max_load_bytes = b;
	} else if (oplen > 10 && strncmp(op, "st.global.", 10) == 0) {
		int b = access_bytes(op, oplen, &nc);
		out->global_stores++;
		if (b > out->max_store_bytes)
			out->max_store_bytes = b;
	} else if (oplen >= 8 && strncmp(op, "cp.async", 8) == 0 &&
		   strncmp(op, "cp.async.commit", 15) &&
		   strncmp(op, "cp.async.wait", 13)) {
		out->async_copies++; /* the copies, not their bookkeeping */
	} else if (oplen > 4 && strncmp(op, "rem.", 4) == 0) {
		out->rem_ops++;
	} else if (oplen > 9 && strncmp(op, "shfl.sync", 9) == 0) {
		out->shuffles++;
	} else if ((oplen >= 8 && strncmp(op, "bar.sync", 8) == 0) ||
		   (oplen >= 12 && strncmp(op, "barrier.sync", 12) == 0)) {
		out->barriers++;
	}
}

static int read_facts(const char *text, struct ptx_facts *out)
{
	memset(out, 0, sizeof(*out));
	if (!text)
		return -1;
	const char *p = text;
	while (*p) {
		size_t len = strcspn(p, "\n");
		const char *s = p, *line_end = p + len;
		p += len + (*line_end == '\n');
		for (const char *e; s < line_end; s = e + 1) {
			e = statement_end(s, line_end);
			count_statement(s, e, out);
		}
	}
	return 0;
}

/* The memory instruction of the statement [s, end) as
 * {op kind bytes nc}, or NULL when it is none. */
static json_t *memory_op(const char *s, const char *end)
{
	const char *op;
	size_t n = opcode(s, end, &op);
	const char *kind = NULL;
	if (n > 10 && !strncmp(op, "ld.global.", 10))
		kind = "load";
	else if (n > 10 && !strncmp(op, "st.global.", 10))
		kind = "store";
	else if (n >= 8 && !strncmp(op, "cp.async", 8) &&
		 strncmp(op, "cp.async.commit", 15) &&
		 strncmp(op, "cp.async.wait", 13))
		kind = "async";
	if (!kind)
		return NULL;
	int nc = 0, bytes = access_bytes(op, n, &nc);
	if (!strcmp(kind, "async")) {
		/* cp.async.ca.shared.global [dst], [src], 8; */
		const char *last = end;
		while (last > op && !isdigit((unsigned char)last[-1]))
			last--;
		const char *d = last;
		while (d > op && isdigit((unsigned char)d[-1]))
			d--;
		bytes = atoi(d);
	}
	return json_pack("{s:s%, s:s, s:i, s:b}", "op", op, n, "kind", kind,
			 "bytes", bytes, "nc", nc);
}

static json_t *memory_ops(const char *text)
{
	json_t *ops = json_array(), *files = json_object();
	if (!text)
		return ops;
	/* pass 1: .file N "path" */
	for (const char *p = text; *p;) {
		size_t len = strcspn(p, "\n");
		char line[1024];
		snprintf(line, sizeof(line), "%.*s", (int)(len < 1023 ? len : 1023), p);
		p += len + (p[len] == '\n');
		int idx;
		char path[1000];
		if (sscanf(line, " .file %d \"%999[^\"]\"", &idx, path) == 2) {
			char key[16];
			snprintf(key, sizeof(key), "%d", idx);
			json_object_set_new(files, key, json_string(path));
		}
	}
	/* pass 2: the memory instructions, each with the last .loc followed
	 * out through its "inlined_at" chain to the code that called it: a
	 * copy inside a header's inline function belongs to the line of the
	 * student's file that used it */
	struct inlined {
		int f, l, c, at_f, at_l, at_c;
	} chain[256];
	int nchain = 0;
	int file = -1, lineno = -1;
	for (const char *p = text; *p;) {
		size_t len = strcspn(p, "\n");
		const char *s = p, *line_end = p + len;
		p += len + (*line_end == '\n');
		const char *op;
		size_t n = opcode(s, line_end, &op);
		if (n == 4 && !strncmp(op, ".loc", 4)) {
			char loc[256]; /* this line only: op is not terminated */
			snprintf(loc, sizeof(loc), "%.*s", (int)(line_end - op), op);
			int col = 0;
			if (sscanf(loc + 4, " %d %d %d", &file, &lineno, &col) < 2) {
				file = lineno = -1;
				continue;
			}
			const char *at = strstr(loc, "inlined_at");
			struct inlined e = {file, lineno, col, 0, 0, 0};
			if (at && nchain < 256 &&
			    sscanf(at + 10, " %d %d %d", &e.at_f, &e.at_l,
				   &e.at_c) == 3)
				chain[nchain++] = e;
			/* follow the chain outwards (bounded: no cycles) */
			for (int hop = 0; hop < 32; hop++) {
				int k = nchain - 1;
				while (k >= 0 && !(chain[k].f == file &&
						   chain[k].l == lineno &&
						   chain[k].c == col))
					k--;
				if (k < 0)
					break;
				file = chain[k].at_f;
				lineno = chain[k].at_l;
				col = chain[k].at_c;
			}
			continue;
		}
		for (const char *e; s < line_end; s = e + 1) {
			e = statement_end(s, line_end);
			json_t *o = memory_op(s, e);
			if (!o)
				continue;
			char key[16];
			snprintf(key, sizeof(key), "%d", file);
			json_t *path = json_object_get(files, key);
			if (path && lineno > 0) {
				json_object_set(o, "file", path);
				json_object_set_new(o, "line",
						    json_integer(lineno));
			}
			json_array_append_new(ops, o);
		}
	}
	json_decref(files);
	return ops;
}

json_t *ptx_facts_json(const struct ptx_facts *f)
{
	return json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i}",
			 "global_loads", f->global_loads, "global_stores",
			 f->global_stores, "max_load_bytes", f->max_load_bytes,
			 "max_store_bytes", f->max_store_bytes, "nc_loads",
			 f->nc_loads, "async_copies", f->async_copies, "rem_ops",
			 f->rem_ops, "shuffles", f->shuffles, "barriers",
			 f->barriers);
}

/* ---- per kernel -------------------------------------------------------- */

struct ptx_function {
	char name[256];
	const char *body, *end; /* [body, end): its text */
	int entry;
};

/* The name of a function declared on the line at p (".entry NAME(" or
 * ".func (.param ...) NAME("), or 0. */
static int function_name(const char *p, const char *line_end, char *name,
			 size_t len, int *entry)
{
	const char *e = NULL, *f = NULL;
	for (const char *q = p; q + 6 <= line_end; q++) {
		if (!strncmp(q, ".entry", 6) && (q == p || isspace((unsigned char)q[-1])))
			e = q + 6;
		if (!strncmp(q, ".func", 5) && (q == p || isspace((unsigned char)q[-1])))
			f = q + 5;
	}
	const char *q = e ? e : f;
	if (!q)
		return 0;
	*entry = e != NULL;
	while (q < line_end && isspace((unsigned char)*q))
		q++;
	if (q < line_end && *q == '(') { /* return parameters */
		int depth = 0;
		for (; q < line_end; q++) {
			depth += *q == '(';
			depth -= *q == ')';
			if (depth == 0) {
				q++;
				break;
			}
		}
		while (q < line_end && isspace((unsigned char)*q))
			q++;
	}
	size_t n = 0;
	while (q + n < line_end && (isalnum((unsigned char)q[n]) ||
				    q[n] == '_' || q[n] == '$' || q[n] == '.'))
		n++;
	if (!n || n >= len)
		return 0;
	memcpy(name, q, n);
	name[n] = 0;
	return 1;
}

static void add_facts(struct ptx_facts *sum, const struct ptx_facts *f)
{
	sum->global_loads += f->global_loads;
	sum->global_stores += f->global_stores;
	sum->nc_loads += f->nc_loads;
	sum->async_copies += f->async_copies;
	sum->rem_ops += f->rem_ops;
	sum->shuffles += f->shuffles;
	sum->barriers += f->barriers;
	if (f->max_load_bytes > sum->max_load_bytes)
		sum->max_load_bytes = f->max_load_bytes;
	if (f->max_store_bytes > sum->max_store_bytes)
		sum->max_store_bytes = f->max_store_bytes;
}

/* Does [body, end) name `name` as a whole word (a call)? */
static int mentions(const char *body, const char *end, const char *name)
{
	size_t n = strlen(name);
	for (const char *q = body; q + n <= end; q++) {
		q = memchr(q, name[0], (size_t)(end - q));
		if (!q || q + n > end)
			return 0;
		if (!strncmp(q, name, n) &&
		    (q == body || !(isalnum((unsigned char)q[-1]) || q[-1] == '_' || q[-1] == '$')) &&
		    (q + n == end || !(isalnum((unsigned char)q[n]) || q[n] == '_' || q[n] == '$')))
			return 1;
	}
	return 0;
}

static json_t *kernel_facts(const char *text)
{
	json_t *out = json_object();
	if (!text)
		return out;
	struct ptx_function *fn = NULL;
	size_t nfn = 0;
	for (const char *p = text; *p;) {
		size_t len = strcspn(p, "\n");
		const char *line_end = p + len;
		char name[256];
		int entry = 0;
		if (function_name(p, line_end, name, sizeof(name), &entry)) {
			struct ptx_function *g = realloc(fn, (nfn + 1) * sizeof(*fn));
			if (!g)
				break;
			fn = g;
			if (nfn)
				fn[nfn - 1].end = p;
			snprintf(fn[nfn].name, sizeof(fn[nfn].name), "%s", name);
			fn[nfn].body = line_end;
			fn[nfn].entry = entry;
			nfn++;
		}
		p = line_end + (*line_end == '\n');
	}
	if (nfn)
		fn[nfn - 1].end = text + strlen(text);
	/* a declaration (".func NAME(...);" with no body) holds nothing */
	for (size_t i = 0; i < nfn; i++) {
		if (!fn[i].entry)
			continue;
		char *reach = calloc(nfn, 1);
		if (!reach)
			break;
		reach[i] = 1;
		for (int grew = 1; grew;) { /* everything it calls, transitively */
			grew = 0;
			for (size_t a = 0; a < nfn; a++)
				for (size_t b = 0; reach[a] && b < nfn; b++)
					if (!reach[b] && !fn[b].entry &&
					    mentions(fn[a].body, fn[a].end,
						     fn[b].name))
						reach[b] = grew = 1;
		}
		struct ptx_facts sum, f;
		memset(&sum, 0, sizeof(sum));
		for (size_t k = 0; k < nfn; k++) {
			if (!reach[k])
				continue;
			char *part = strndup(fn[k].body,
					     (size_t)(fn[k].end - fn[k].body));
			if (!part)
				continue;
			read_facts(part, &f);
			free(part);
			add_facts(&sum, &f);
		}
		free(reach);
		json_object_set_new(out, fn[i].name, ptx_facts_json(&sum));
	}
	free(fn);
	return out;
}

json_t *ptx_facts_launched(const json_t *kernels, const json_t *launched)
{
	struct ptx_facts sum;
	memset(&sum, 0, sizeof(sum));
	size_t i;
	json_t *name;
	json_array_foreach(launched, i, name)
	{
		json_t *k = json_object_get(kernels, json_string_value(name)
							     ? json_string_value(name)
							     : "");
		if (!json_is_object(k))
			continue;
		struct ptx_facts f = {
			(int)json_integer_value(json_object_get(k, "global_loads")),
			(int)json_integer_value(json_object_get(k, "global_stores")),
			(int)json_integer_value(json_object_get(k, "max_load_bytes")),
			(int)json_integer_value(json_object_get(k, "max_store_bytes")),
			(int)json_integer_value(json_object_get(k, "nc_loads")),
			(int)json_integer_value(json_object_get(k, "async_copies")),
			(int)json_integer_value(json_object_get(k, "rem_ops")),
			(int)json_integer_value(json_object_get(k, "shuffles")),
			(int)json_integer_value(json_object_get(k, "barriers")),
		};
		add_facts(&sum, &f);
	}
	return ptx_facts_json(&sum);
}

char *ptx_strip_comments(const char *text)
{
	if (!text)
		return NULL;
	char *out = strdup(text);
	if (!out)
		return NULL;
	for (char *p = out; *p;) {
		if (p[0] == '/' && p[1] == '/') {
			while (*p && *p != '\n')
				*p++ = ' ';
		} else if (p[0] == '/' && p[1] == '*') {
			*p++ = ' ';
			*p++ = ' ';
			while (*p && !(p[0] == '*' && p[1] == '/')) {
				if (*p != '\n')
					*p = ' ';
				p++;
			}
			if (*p) {
				*p++ = ' ';
				*p++ = ' ';
			}
		} else if (*p == '"') {
			/* a string (.file names): not a comment's start */
			p++;
			while (*p && *p != '"' && *p != '\n')
				p++;
			if (*p == '"')
				p++;
		} else {
			p++;
		}
	}
	return out;
}

int ptx_read_facts(const char *text, struct ptx_facts *out)
{
	char *clean = ptx_strip_comments(text);
	int rc = read_facts(clean ? clean : text, out);
	free(clean);
	return rc;
}

json_t *ptx_memory_ops(const char *text)
{
	char *clean = ptx_strip_comments(text);
	json_t *r = memory_ops(clean ? clean : text);
	free(clean);
	return r;
}

json_t *ptx_kernel_facts(const char *text)
{
	char *clean = ptx_strip_comments(text);
	json_t *r = kernel_facts(clean ? clean : text);
	free(clean);
	return r;
}
