#include "explain.h"
#include "event.h"
#include "profiler.h"
#include "ptx.h"
#include "strbuf.h"

#include <jansson.h>
#include <string.h>

static void collect(void *arg, json_t *ev)
{
	json_array_append((json_t *)arg, ev);
}

/* The last event of kind for step (borrowed), or NULL. */
static json_t *find(json_t *events, const char *kind, const char *step)
{
	json_t *found = NULL, *ev;
	size_t i;
	json_array_foreach(events, i, ev)
		if (!strcmp(event_kind(ev), kind) &&
		    (!step || !strcmp(event_str(ev, "step"), step)))
			found = ev;
	return found;
}

/* Line lineno of the text in sb (1-based), trimmed, into buf. */
static const char *source_line(const struct strbuf *sb, long lineno,
			       char *buf, size_t len)
{
	const char *p = sb->buf ? sb->buf : "";
	for (long n = 1; n < lineno && *p; n++) {
		p = strchr(p, '\n');
		p = p ? p + 1 : "";
	}
	while (*p == ' ' || *p == '\t')
		p++;
	snprintf(buf, len, "%.*s", (int)strcspn(p, "\n"), p);
	return buf;
}

static void print_compiler(FILE *out, json_t *resources)
{
	size_t i;
	json_t *k;
	json_array_foreach(json_object_get(resources, "kernels"), i, k)
		fprintf(out, "  compiler  %s: %lld registers, %lld B spilled, "
			     "%lld B shared memory, %lld B stack\n",
			event_str(k, "name"),
			json_integer_value(json_object_get(k, "registers")),
			json_integer_value(json_object_get(k, "spill_store_bytes")) +
				json_integer_value(json_object_get(k, "spill_load_bytes")),
			json_integer_value(json_object_get(k, "shared_bytes")),
			json_integer_value(json_object_get(k, "stack_bytes")));
}

/* Every global memory instruction of the step's PTX, by source line. */
static void print_memory(FILE *out, json_t *ptx, const char *source)
{
	struct strbuf text = STRBUF_INIT, src = STRBUF_INIT;
	if (strbuf_read_file(&text, event_str(ptx, "ptx_file")) < 0) {
		fprintf(out, "  memory    not shown: the PTX (%s) cannot be "
			     "read\n", event_str(ptx, "ptx_file"));
		strbuf_release(&text);
		return;
	}
	strbuf_read_file(&src, source);
	json_t *ops = ptx_memory_ops(text.buf);
	fprintf(out, "  memory    global accesses in the PTX (static: each "
		     "instruction once, however often it runs)\n");
	/* one row per (line, kind, width, path), in first-seen order: a
	 * line's two loads, or an unrolled loop's copies, become a count */
	json_t *groups = json_array();
	size_t i, j;
	json_t *o, *g;
	json_array_foreach(ops, i, o) {
		json_t *hit = NULL;
		json_array_foreach(groups, j, g)
			if (json_equal(json_object_get(g, "op"), o))
				hit = g;
		if (hit)
			json_object_set_new(hit, "count",
					    json_integer(json_integer_value(json_object_get(hit, "count")) + 1));
		else
			json_array_append_new(groups, json_pack("{s:O, s:i}", "op", o,
								"count", 1));
	}
	char src_path[4096];
	snprintf(src_path, sizeof(src_path), "%s", source);
	json_array_foreach(groups, i, g) {
		o = json_object_get(g, "op");
		long line = (long)json_integer_value(json_object_get(o, "line"));
		const char *file = event_str(o, "file");
		char where[96] = "?", code[160] = "";
		if (line > 0) {
			/* the line may be in a header (an inlined function) */
			if (strcmp(file, src_path)) {
				strbuf_release(&src);
				strbuf_read_file(&src, file);
				snprintf(src_path, sizeof(src_path), "%s", file);
			}
			const char *base = strrchr(file, '/');
			snprintf(where, sizeof(where), "%s:%ld",
				 base ? base + 1 : file, line);
			source_line(&src, line, code, sizeof(code));
		}
		const char *kind = event_str(o, "kind");
		fprintf(out, "    %-22s %3lldx %-5s %2lld B %-14s | %s\n", where,
			json_integer_value(json_object_get(g, "count")), kind,
			json_integer_value(json_object_get(o, "bytes")),
			json_is_true(json_object_get(o, "nc")) ? "read-only path"
			: !strcmp(kind, "async")	       ? "global->shared"
							       : "",
			code);
	}
	json_decref(groups);
	fprintf(out, "            %lld load(s), widest %lld B, %lld read-only; "
		     "%lld store(s), widest %lld B; %lld asynchronous copies\n",
		(long long)event_num(ptx, "global_loads"),
		(long long)event_num(ptx, "max_load_bytes"),
		(long long)event_num(ptx, "nc_loads"),
		(long long)event_num(ptx, "global_stores"),
		(long long)event_num(ptx, "max_store_bytes"),
		(long long)event_num(ptx, "async_copies"));
	json_decref(ops);
	strbuf_release(&text);
	strbuf_release(&src);
}

/* Nsight Compute on the step's timed-size case (profiler.h). */
static void print_counters(FILE *out, const char *exe, double limit_s)
{
	struct profile_result pr;
	profile_step(exe, limit_s, &pr);
	if (!pr.measured) {
		fprintf(out, "  counters  not measured: %s\n", pr.reason);
		return;
	}
	fprintf(out, "  counters  Nsight Compute, timed-size case, %d kernel "
		     "launch(es): %.0f warp instructions executed, %.0f "
		     "shared-memory bank conflicts\n",
		pr.kernels, pr.warp_instructions, pr.bank_conflicts);
}

int explain_lab(const struct grade_opts *o, FILE *out, char *err,
		size_t errlen)
{
	struct grade_opts b = *o;
	b.build_only = 1;
	json_t *events = json_array();
	int rc = grade_lab(&b, collect, events, err, errlen);
	if (rc < 0) {
		json_decref(events);
		return rc;
	}
	json_t *begin = find(events, "run_begin", NULL);
	json_t *device = find(events, "device", NULL);
	const char *src_dir = event_str(begin, "source");
	int failed = 0;
	size_t i;
	json_t *step;
	json_array_foreach(json_object_get(begin, "steps"), i, step) {
		const char *id = event_str(step, "id");
		char source[4096];
		snprintf(source, sizeof(source), "%s/%s", src_dir,
			 event_str(step, "file"));
		fprintf(out, "\n%s %s — %s  (%s)\n", event_str(begin, "lab"), id,
			event_str(step, "title"), source);
		json_t *lint = find(events, "lint", id);
		json_t *compile = find(events, "compile", id);
		if (lint) {
			json_t *p = json_array_get(json_object_get(lint, "problems"), 0);
			fprintf(out, "  rejected  line %lld: %s\n",
				json_integer_value(json_object_get(p, "line")),
				event_str(p, "message"));
			failed = 1;
			continue;
		}
		if (compile && !strcmp(event_str(compile, "status"), "failed")) {
			json_t *d = json_array_get(
				json_object_get(compile, "diagnostics"), 0);
			fprintf(out, "  does not compile: %s:%lld: %s\n",
				event_str(d, "file"),
				json_integer_value(json_object_get(d, "line")),
				event_str(d, "message"));
			failed = 1;
			continue;
		}
		json_t *res = find(events, "resources", id);
		json_t *ptx = find(events, "ptx", id);
		if (res)
			print_compiler(out, res);
		if (ptx)
			print_memory(out, ptx, source);
		if (json_is_true(json_object_get(device, "available")))
			print_counters(out, event_str(compile, "exe"),
				       o->time_limit_s > 0 ? o->time_limit_s : 120);
		else
			fprintf(out, "  counters  not measured: no CUDA device "
				     "(%s)\n", event_str(device, "reason"));
	}
	json_decref(events);
	return failed;
}
