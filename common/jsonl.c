#include "jsonl.h"
#include "event.h"

#include <string.h>

static size_t limit(const struct jsonl_reader *r)
{
	return r->max_line ? r->max_line : JSONL_MAX_LINE;
}

static void bad(struct jsonl_reader *r, const char *why, const char *line)
{
	if (r->on_bad)
		r->on_bad(r->arg, r->lineno, why, line);
}

/* One complete line (NUL-terminated, no newline). */
static void line(struct jsonl_reader *r, const char *text, size_t len)
{
	r->lineno++;
	if (!len || strspn(text, " \t\r") == len)
		return;
	char why[256];
	json_t *v;
	if (r->events) {
		v = event_parse(text, why, sizeof(why));
	} else {
		json_error_t jerr;
		v = json_loadb(text, len, 0, &jerr);
		if (!v) {
			snprintf(why, sizeof(why), "not JSON: %s", jerr.text);
		} else if (!json_is_object(v)) {
			snprintf(why, sizeof(why), "not a JSON object");
			json_decref(v);
			v = NULL;
		}
	}
	if (!v) {
		bad(r, why, text);
		return;
	}
	r->on_value(r->arg, v);
	json_decref(v);
}

void jsonl_feed(struct jsonl_reader *r, const char *data, size_t len)
{
	while (len) {
		const char *nl = memchr(data, '\n', len);
		size_t take = nl ? (size_t)(nl - data) : len;
		if (!r->dropping) {
			strbuf_add(&r->pending, data, take);
			if (r->pending.len > limit(r)) {
				char why[64];
				r->lineno++;
				snprintf(why, sizeof(why), "longer than %zu bytes",
					 limit(r));
				if (r->pending.len > 80)
					r->pending.buf[80] = '\0';
				bad(r, why, r->pending.buf);
				r->lineno--; /* counted again at its end */
				strbuf_reset(&r->pending);
				r->dropping = 1;
			}
		}
		if (!nl)
			return;
		if (r->dropping) {
			r->dropping = 0;
			r->lineno++;
		} else {
			line(r, strbuf_str(&r->pending), r->pending.len);
			strbuf_reset(&r->pending);
		}
		data = nl + 1;
		len -= take + 1;
	}
}

void jsonl_finish(struct jsonl_reader *r)
{
	if (r->pending.len && !r->dropping)
		line(r, strbuf_str(&r->pending), r->pending.len);
	strbuf_reset(&r->pending);
	r->dropping = 0;
}

int jsonl_read_file(struct jsonl_reader *r, FILE *f)
{
	/* a line (or a piece of a long one) at a time, so a pipe's lines
	 * are handed on as they arrive, never waiting for a full chunk */
	char chunk[65536];
	while (fgets(chunk, sizeof(chunk), f))
		jsonl_feed(r, chunk, strlen(chunk));
	int failed = ferror(f);
	jsonl_finish(r);
	return failed ? -1 : 0;
}

void jsonl_release(struct jsonl_reader *r)
{
	strbuf_release(&r->pending);
	r->lineno = 0;
	r->dropping = 0;
}
