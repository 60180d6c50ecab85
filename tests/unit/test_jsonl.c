/* jsonl: the one JSON-lines reader — lines split across feeds, a last line
 * without newline, blank lines, bad lines reported with their numbers, an
 * over-long line dropped to its newline, events vs any object. */
#include "check.h"
#include "jsonl.h"

#include <string.h>

struct seen {
	json_t *values;
	char bad[512];
	long bad_lines[8];
	int nbad;
};

static void on_value(void *arg, json_t *v)
{
	json_array_append(((struct seen *)arg)->values, v);
}

static void on_bad(void *arg, long lineno, const char *why, const char *line)
{
	struct seen *s = arg;
	if (s->nbad < 8)
		s->bad_lines[s->nbad] = lineno;
	s->nbad++;
	size_t l = strlen(s->bad);
	snprintf(s->bad + l, sizeof(s->bad) - l, "[%ld %s: %.20s]", lineno, why,
		 line);
}

int main(void)
{
	struct seen s = {json_array(), "", {0}, 0};
	struct jsonl_reader r = JSONL_READER_INIT;
	r.events = 1, r.on_value = on_value, r.on_bad = on_bad, r.arg = &s;
	const char *stream = "{\"event\":\"case\",\"ok\":true}\n\n"
			     "not json\n{\"event\":\"nosuch\"}\n"
			     "{\"event\":\"todo\",\"line\":3}";
	/* one byte at a time: a pipe may cut anywhere */
	for (const char *p = stream; *p; p++)
		jsonl_feed(&r, p, 1);
	CHECK(json_array_size(s.values) == 1, "a line fed byte by byte is one "
	      "event; the last line waits for its newline");
	jsonl_finish(&r);
	CHECK(json_array_size(s.values) == 2 &&
		      !strcmp(json_string_value(json_object_get(
				      json_array_get(s.values, 1), "event")),
			      "todo"),
	      "jsonl_finish reads a last line without newline");
	CHECK(s.nbad == 2 && s.bad_lines[0] == 3 && s.bad_lines[1] == 4 &&
		      strstr(s.bad, "not JSON") &&
		      strstr(s.bad, "unknown event kind"),
	      "bad lines are reported with their numbers and why (blank "
	      "lines are skipped, not bad): %s", s.bad);
	jsonl_release(&r);

	/* over-long: dropped up to its newline, the next line read */
	json_array_clear(s.values);
	s.nbad = 0, s.bad[0] = '\0';
	struct jsonl_reader small = JSONL_READER_INIT;
	small.max_line = 32, small.on_value = on_value, small.on_bad = on_bad;
	small.arg = &s;
	char big[200];
	memset(big, 'x', sizeof(big));
	jsonl_feed(&small, "{\"a\":\"", 6);
	for (int i = 0; i < 10; i++)
		jsonl_feed(&small, big, sizeof(big));
	CHECK(small.pending.alloc < 1024, "an endless line does not grow the "
	      "buffer (%zu bytes held)", small.pending.alloc);
	jsonl_feed(&small, "\"}\n{\"b\":1}\n[1]\n", 15);
	jsonl_finish(&small);
	CHECK(s.nbad == 2 && strstr(s.bad, "[1 longer than 32 bytes") &&
		      strstr(s.bad, "[3 not a JSON object"),
	      "the long line is bad as line 1, the array as line 3: %s", s.bad);
	CHECK(json_array_size(s.values) == 1 &&
		      json_integer_value(json_object_get(
			      json_array_get(s.values, 0), "b")) == 1,
	      "without events, any object is a value; the line after the "
	      "long one is read");
	jsonl_release(&small);

	/* a file */
	FILE *f = tmpfile();
	fputs("{\"gbps\":1}\n{\"gbps\":2}\n", f);
	rewind(f);
	json_array_clear(s.values);
	struct jsonl_reader fr = JSONL_READER_INIT;
	fr.on_value = on_value, fr.arg = &s;
	CHECK(jsonl_read_file(&fr, f) == 0 && json_array_size(s.values) == 2,
	      "jsonl_read_file reads every line of a file");
	fclose(f);
	jsonl_release(&fr);
	json_decref(s.values);
	return check_done();
}
