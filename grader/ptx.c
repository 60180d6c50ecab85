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

int ptx_read_facts(const char *text, struct ptx_facts *out)
{
	memset(out, 0, sizeof(*out));
	if (!text)
		return -1;
	const char *p = text;
	while (*p) {
		size_t len = strcspn(p, "\n");
		const char *s = p, *line_end = p + len;
		p += len + (*line_end == '\n');
		while (s < line_end && isspace((unsigned char)*s))
			s++;
		if (*s == '@') { /* predicate guard: @%p1 ld.global... */
			while (s < line_end && !isspace((unsigned char)*s))
				s++;
			while (s < line_end && isspace((unsigned char)*s))
				s++;
		}
		size_t oplen = 0;
		while (s + oplen < line_end &&
		       !isspace((unsigned char)s[oplen]) && s[oplen] != ';')
			oplen++;
		int nc;
		if (oplen > 10 && strncmp(s, "ld.global.", 10) == 0) {
			int b = access_bytes(s, oplen, &nc);
			out->global_loads++;
			out->nc_loads += nc;
			if (b > out->max_load_bytes)
				out->max_load_bytes = b;
		} else if (oplen > 10 && strncmp(s, "st.global.", 10) == 0) {
			int b = access_bytes(s, oplen, &nc);
			out->global_stores++;
			if (b > out->max_store_bytes)
				out->max_store_bytes = b;
		} else if (oplen >= 8 && strncmp(s, "cp.async", 8) == 0 &&
			   strncmp(s, "cp.async.commit", 15) &&
			   strncmp(s, "cp.async.wait", 13)) {
			out->async_copies++; /* the copies, not their bookkeeping */
		} else if (oplen > 4 && strncmp(s, "rem.", 4) == 0) {
			out->rem_ops++;
		} else if (oplen > 9 && strncmp(s, "shfl.sync", 9) == 0) {
			out->shuffles++;
		} else if ((oplen >= 8 && strncmp(s, "bar.sync", 8) == 0) ||
			   (oplen >= 12 && strncmp(s, "barrier.sync", 12) == 0)) {
			out->barriers++;
		}
	}
	return 0;
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

json_t *ptx_memory_ops(const char *text)
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
