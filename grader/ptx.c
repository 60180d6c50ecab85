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

/*
 * PTX statements end at ';' and open or close at '{' and '}', and nvcc
 * puts one on a line; inline assembly from a student's asm() need not
 * ("{ .reg .u32 t; rem.u32 %0, %1, %2; }" hid a rem on a line that
 * starts with '{': red team, 2026-11-24). So the text is read in
 * fragments split at newlines and at ';', '{' and '}', and each
 * fragment's first word, after its labels and its predicate guard, is
 * its opcode. In valid PTX no operand begins like a counted opcode (an
 * identifier holds no '.'), so a statement split over lines is counted
 * once, by its first line.
 */
static const char *next_fragment(const char *p, const char **end)
{
	size_t n = strcspn(p, "\n;{}");
	*end = p + n;
	return p[n] ? p + n + 1 : p + n;
}

/* A character of a PTX identifier (a function's name, a label). */
static int ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '$';
}

/* Does [s, e) start with an identifier followed by ':' (a label)? Then
 * *after is past the colon. */
static int label_prefix(const char *s, const char *e, const char **after)
{
	const char *q = s;
	while (q < e && (ident_char(*q) || *q == '%'))
		q++;
	if (q == s)
		return 0;
	while (q < e && isspace((unsigned char)*q))
		q++;
	if (q >= e || *q != ':')
		return 0;
	*after = q + 1;
	return 1;
}

/* The opcode of the fragment [s, end), past its labels and a predicate
 * guard (@%p1, @!%p1), in [*op, +len). */
static size_t opcode(const char *s, const char *end, const char **op)
{
	for (;;) {
		while (s < end && isspace((unsigned char)*s))
			s++;
		if (!label_prefix(s, end, &s))
			break;
	}
	if (s < end && *s == '@') {
		while (s < end && !isspace((unsigned char)*s))
			s++;
		while (s < end && isspace((unsigned char)*s))
			s++;
	}
	size_t n = 0;
	while (s + n < end && !isspace((unsigned char)s[n]))
		n++;
	*op = s;
	return n;
}

static int starts(const char *op, size_t n, const char *word)
{
	size_t w = strlen(word);
	return n >= w && !strncmp(op, word, w);
}

static void count_opcode(const char *s, size_t n, struct ptx_facts *out)
{
	int nc;
	if (n > 10 && starts(s, n, "ld.global.")) {
		int b = access_bytes(s, n, &nc);
		out->global_loads++;
		out->nc_loads += nc;
		if (b > out->max_load_bytes)
			out->max_load_bytes = b;
	} else if (n > 10 && starts(s, n, "st.global.")) {
		int b = access_bytes(s, n, &nc);
		out->global_stores++;
		if (b > out->max_store_bytes)
			out->max_store_bytes = b;
	} else if (starts(s, n, "cp.async") && !starts(s, n, "cp.async.commit") &&
		   !starts(s, n, "cp.async.wait")) {
		out->async_copies++; /* the copies, not their bookkeeping */
	} else if (n > 4 && starts(s, n, "rem.")) {
		out->rem_ops++;
	} else if (n > 9 && starts(s, n, "shfl.sync")) {
		out->shuffles++;
	} else if (starts(s, n, "bar.sync") || starts(s, n, "barrier.sync")) {
		out->barriers++;
	}
}

/* text: comments and strings already blanked (clean_text). */
static int read_facts(const char *text, struct ptx_facts *out)
{
	memset(out, 0, sizeof(*out));
	if (!text)
		return -1;
	for (const char *p = text, *e; *p;) {
		const char *s = p, *op;
		p = next_fragment(p, &e);
		size_t n = opcode(s, e, &op);
		count_opcode(op, n, out);
	}
	return 0;
}

/*
 * A copy of text with the contents of its strings (a .file name, a
 * .pragma from inline assembly: ".pragma \"call.uni _Z5decoyv\";" is
 * accepted by ptxas with a warning) turned into spaces, the quotes kept:
 * no string holds an instruction, a call or a function's start. NULL for
 * NULL or no memory.
 */
static char *blank_strings(const char *text)
{
	char *out = text ? strdup(text) : NULL;
	if (!out)
		return NULL;
	for (char *p = out; *p; p++) {
		if (*p != '"')
			continue;
		for (p++; *p && *p != '"' && *p != '\n'; p++)
			*p = ' ';
		if (!*p)
			break;
	}
	return out;
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
	char *code = blank_strings(text); /* pass 1 read the file names */
	for (const char *p = code ? code : "", *line_end; *p;) {
		const char *s = p, *op;
		p = next_fragment(p, &line_end);
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
			continue;
		int nc = 0, bytes = access_bytes(op, n, &nc);
		if (!strcmp(kind, "async")) {
			/* cp.async.ca.shared.global [dst], [src], 8; */
			const char *last = line_end;
			while (last > op && !isdigit((unsigned char)last[-1]))
				last--;
			const char *d = last;
			while (d > op && isdigit((unsigned char)d[-1]))
				d--;
			bytes = atoi(d);
		}
		json_t *o = json_pack("{s:s%, s:s, s:i, s:b}", "op", op, n,
				      "kind", kind, "bytes", bytes, "nc", nc);
		char key[16];
		snprintf(key, sizeof(key), "%d", file);
		json_t *path = json_object_get(files, key);
		if (path && lineno > 0) {
			json_object_set(o, "file", path);
			json_object_set_new(o, "line", json_integer(lineno));
		}
		json_array_append_new(ops, o);
	}
	json_decref(files);
	free(code);
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

/*
 * A function of the PTX: its name (no length limit: a decoy kernel whose
 * name was too long for a fixed buffer was not seen as a function, and its
 * 16-byte loads counted for the kernel before it: red team, 2026-11-24),
 * its text up to the next function, and whether it is a kernel.
 */
struct ptx_function {
	const char *name;
	size_t name_len;
	const char *body, *end; /* [body, end): its text */
	int entry;
};

/* The name of a function declared on the line [p, line_end) (".entry
 * NAME(" or ".func (.param ...) NAME("), or 0. */
static int function_name(const char *p, const char *line_end,
			 struct ptx_function *fn)
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
	fn->entry = e != NULL;
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
	while (q + n < line_end && ident_char(q[n]))
		n++;
	fn->name = q;
	fn->name_len = n;
	return n > 0;
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

/*
 * The functions of text (comments and strings blanked): a line at brace
 * depth 0 that declares one starts it, so nothing inside a body (inline
 * assembly) starts a function. Returns the count; *out is malloc'd.
 */
static size_t split_functions(const char *text, struct ptx_function **out)
{
	struct ptx_function *fn = NULL;
	size_t nfn = 0;
	int depth = 0;
	for (const char *p = text; *p;) {
		const char *line_end = p + strcspn(p, "\n");
		struct ptx_function f;
		if (depth == 0 && function_name(p, line_end, &f)) {
			struct ptx_function *g = realloc(fn, (nfn + 1) * sizeof(*fn));
			if (!g)
				break;
			fn = g;
			if (nfn)
				fn[nfn - 1].end = p;
			f.body = line_end;
			fn[nfn++] = f;
		}
		for (const char *q = p; q < line_end; q++)
			depth += (*q == '{') - (*q == '}');
		if (depth < 0)
			depth = 0;
		p = line_end + (*line_end == '\n');
	}
	if (nfn)
		fn[nfn - 1].end = text + strlen(text);
	*out = fn;
	return nfn;
}

static int is_named(const struct ptx_function *f, const char *s, size_t n)
{
	return f->name_len == n && !strncmp(f->name, s, n);
}

/*
 * What a function calls, by its call instructions ("call.uni (retval0),
 * NAME, (param0);"): a direct call marks NAME in reach; a call through a
 * register (an indirect call) may reach any function, so it marks every
 * .func. A function's name written anywhere else (a label, a register of
 * that name, a .pragma string, part of an opcode such as ld.param for a
 * function called "param") is no call: such mentions lent a never-called
 * function's loads to a kernel (red team, 2026-11-24).
 */
static int mark_callees(const struct ptx_function *fn, size_t nfn,
			size_t from, char *reach)
{
	int grew = 0;
	for (const char *p = fn[from].body, *e; p < fn[from].end;) {
		const char *s = p, *op;
		p = next_fragment(p, &e);
		if (e > fn[from].end)
			e = fn[from].end;
		size_t n = opcode(s, e, &op);
		if (!(n == 4 || (n > 4 && op[4] == '.')) || strncmp(op, "call", 4))
			continue;
		/* its operands run to the ';', over lines (nvcc puts the
		 * callee on the line after "call.uni (retval0),") */
		const char *q = op + n;
		e = q;
		while (e < fn[from].end && *e != ';')
			e++;
		while (q < e && isspace((unsigned char)*q))
			q++;
		if (q < e && *q == '(') { /* return values, then a comma */
			while (q < e && *q != ')')
				q++;
			while (q < e && (*q == ')' || *q == ',' ||
					 isspace((unsigned char)*q)))
				q++;
		}
		size_t len = 0;
		while (q + len < e && ident_char(q[len]))
			len++;
		size_t target = nfn; /* none: a call through a register */
		for (size_t k = 0; len && k < nfn; k++)
			if (is_named(&fn[k], q, len))
				target = k;
		for (size_t k = 0; k < nfn; k++) {
			if (fn[k].entry || reach[k] || (target < nfn && k != target))
				continue;
			reach[k] = 1;
			grew = 1;
		}
	}
	return grew;
}

/* The facts of kernel i: its own and those of every function it calls,
 * directly or not. */
static void facts_of_kernel(const struct ptx_function *fn, size_t nfn,
			    size_t i, struct ptx_facts *sum)
{
	memset(sum, 0, sizeof(*sum));
	char *reach = calloc(nfn, 1);
	if (!reach)
		return;
	reach[i] = 1;
	for (int grew = 1; grew;) {
		grew = 0;
		for (size_t a = 0; a < nfn; a++)
			if (reach[a])
				grew |= mark_callees(fn, nfn, a, reach);
	}
	for (size_t k = 0; k < nfn; k++) {
		if (!reach[k])
			continue;
		char *part = strndup(fn[k].body, (size_t)(fn[k].end - fn[k].body));
		struct ptx_facts f;
		if (!part)
			continue;
		read_facts(part, &f);
		free(part);
		add_facts(sum, &f);
	}
	free(reach);
}

static json_t *kernel_facts(const char *text)
{
	json_t *out = json_object();
	if (!text)
		return out;
	struct ptx_function *fn = NULL;
	size_t nfn = split_functions(text, &fn);
	for (size_t i = 0; i < nfn; i++) {
		if (!fn[i].entry)
			continue;
		struct ptx_facts sum;
		facts_of_kernel(fn, nfn, i, &sum);
		char *name = strndup(fn[i].name, fn[i].name_len);
		if (name)
			json_object_set_new(out, name, ptx_facts_json(&sum));
		free(name);
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

/* Who reads facts reads text without comments or strings (clean). */
static char *clean_text(const char *text)
{
	char *plain = ptx_strip_comments(text);
	char *clean = blank_strings(plain);
	free(plain);
	return clean;
}

int ptx_read_facts(const char *text, struct ptx_facts *out)
{
	if (!text)
		return read_facts(NULL, out);
	char *clean = clean_text(text);
	int rc = read_facts(clean ? clean : "", out);
	free(clean);
	return rc;
}

int ptx_dynamic_shared(const char *text)
{
	char *clean = text ? clean_text(text) : NULL;
	int n = 0;
	/* a statement ".extern" then, among its directives, ".shared" */
	for (const char *p = clean ? strstr(clean, ".extern") : NULL; p;
	     p = strstr(p + 7, ".extern")) {
		if (p != clean && !isspace((unsigned char)p[-1]) &&
		    p[-1] != ';' && p[-1] != '}' && p[-1] != '{')
			continue;
		if (!isspace((unsigned char)p[7]))
			continue;
		const char *end = p + 7;
		while (*end && *end != ';' && *end != '\n')
			end++;
		for (const char *q = p + 7; q + 7 <= end; q++)
			if (!strncmp(q, ".shared", 7) &&
			    isspace((unsigned char)q[-1]) &&
			    (q + 7 == end || isspace((unsigned char)q[7]))) {
				n++;
				break;
			}
	}
	free(clean);
	return n;
}

json_t *ptx_memory_ops(const char *text)
{
	char *plain = ptx_strip_comments(text);
	json_t *r = memory_ops(plain);
	free(plain);
	return r;
}

json_t *ptx_kernel_facts(const char *text)
{
	char *clean = clean_text(text);
	json_t *r = kernel_facts(clean);
	free(clean);
	return r;
}
