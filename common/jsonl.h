/*
 * jsonl — the one reader of JSON lines in cudalab's C: event streams (a
 * grader's --json output, a harness's result channel, a recorded run), the
 * results and history files.
 *
 * Bytes go in as they come (jsonl_feed: a pipe read in pieces) or a whole
 * file at once (jsonl_read_file). Each complete line is parsed and handed
 * to on_value; blank lines are skipped; a line that is not what the reader
 * wants goes to on_bad with its number (from 1), the reason, and its text.
 * jsonl_finish() takes a last line that has no newline (call it at end of
 * input; jsonl_read_file does).
 *
 * What a line must be: with `events` set, an event (event_parse: a JSON
 * object with a known "event" kind, no duplicate keys, event.h); else any
 * JSON object (results and history lines, which are not all events).
 *
 * Bounded: a line longer than max_line bytes (0: JSONL_MAX_LINE) is not
 * kept: the reader drops it up to its newline and reports it as bad
 * ("longer than N bytes"), so input without newlines cannot grow memory
 * without bound.
 *
 * Ownership: on_value borrows the value (the reader drops it after the
 * call; json_incref to keep it). The reader owns its buffer:
 * jsonl_release() frees it and returns the struct to JSONL_READER_INIT's
 * state, callbacks kept.
 */
#ifndef CUDALAB_JSONL_H
#define CUDALAB_JSONL_H

#include <jansson.h>
#include <stdio.h>

#include "strbuf.h"

#define JSONL_MAX_LINE ((size_t)4 << 20)

struct jsonl_reader {
	int events;       /* lines must be events (event.h), else objects */
	size_t max_line;  /* 0: JSONL_MAX_LINE */
	void (*on_value)(void *arg, json_t *value);
	/* may be NULL: bad lines are then skipped silently */
	void (*on_bad)(void *arg, long lineno, const char *why,
		       const char *line);
	void *arg;

	/* the reader's own */
	struct strbuf pending; /* the line being read */
	long lineno;           /* lines seen */
	int dropping;          /* inside a line over max_line */
};

#define JSONL_READER_INIT {.events = 0, .pending = STRBUF_INIT}

void jsonl_feed(struct jsonl_reader *r, const char *data, size_t len);
/* End of input: a last line without a newline is read. */
void jsonl_finish(struct jsonl_reader *r);
/* Every line of f (to its end), then jsonl_finish. Returns 0, or -1 on a
 * read error (errno set; the lines before it were read). */
int jsonl_read_file(struct jsonl_reader *r, FILE *f);
void jsonl_release(struct jsonl_reader *r);

#endif
