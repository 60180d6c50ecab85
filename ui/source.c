#include "source.h"
#include "event.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void source_reset(struct event_source *src)
{
	jsonl_release(&src->lines);
	src->lines.events = 1;
	child_release(&src->child);
	src->child = (struct child)CHILD_INIT;
	src->fd = -1;
	src->pid = -1;
	src->exit_status = -1;
}

/* source_pump's callbacks: the state to change rides in arg */
struct pump {
	struct event_source *src;
	struct ui_state *s;
};

static void on_event(void *arg, json_t *ev)
{
	struct pump *p = arg;
	if (p->src->explain)
		ui_state_explain_apply(p->s, ev);
	else
		ui_state_apply(p->s, ev);
}

static void on_bad_line(void *arg, long lineno, const char *why,
			const char *line)
{
	struct pump *p = arg;
	(void)line;
	if (!p->src->explain)
		ui_state_bad_line(p->s, lineno, why);
}

/* The runner hands the grader's stdout here as it arrives. */
static void on_stream(void *arg, const char *data, size_t len)
{
	struct pump *p = arg;
	jsonl_feed(&p->src->lines, data, len);
}

int source_open_file(struct event_source *src, const char *path, char *err,
		     size_t errlen)
{
	source_reset(src);
	src->fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC)
				    : dup(0);
	if (src->fd < 0) {
		snprintf(err, errlen, "cannot read %s: %s", path,
			 strerror(errno));
		return -1;
	}
	fcntl(src->fd, F_SETFL, fcntl(src->fd, F_GETFL) | O_NONBLOCK);
	return 0;
}

int source_spawn(struct event_source *src, const char *const *argv,
		 char *err, size_t errlen)
{
	source_reset(src);
	struct child *c = &src->child;
	c->argv = argv;
	c->result_fd = 1;             /* its stdout: the event stream */
	c->result_limit = (size_t)1 << 30;
	c->on_result = on_stream;     /* arg: set by each source_pump */
	c->out_limit = 64 * 1024;     /* its stderr: the last words */
	if (child_start(c) < 0) {
		snprintf(err, errlen, "cannot start the grader: %s", c->error);
		return -1;
	}
	src->pid = c->pid;
	src->fd = c->result_pipe;
	return 0;
}

/* The last line the grader wrote on stderr, for the problem line. */
static void grader_last_words(const struct child *c, char *out, size_t len)
{
	const char *text = strbuf_str(&c->out);
	size_t end = c->out.len;
	while (end > 0 && text[end - 1] == '\n')
		end--;
	size_t start = end;
	while (start > 0 && text[start - 1] != '\n')
		start--;
	snprintf(out, len, "%.*s", (int)(end - start), text + start);
}

/* A file or pipe: read what is there. Returns 1 when something was read,
 * 0 when nothing is (yet), -1 at its end. */
static int read_file(struct event_source *src)
{
	char chunk[65536];
	int changed = 0;
	for (;;) {
		ssize_t n = read(src->fd, chunk, sizeof(chunk));
		if (n > 0) {
			jsonl_feed(&src->lines, chunk, (size_t)n);
			changed = 1;
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return changed;
		return -1; /* end of input (or a read error: the same) */
	}
}

/* A grader: one round of the runner at a time, until nothing more is
 * there. Returns as read_file does. */
static int read_child(struct event_source *src, struct pump *p)
{
	struct child *c = &src->child;
	c->on_result_arg = p;
	int changed = 0;
	for (;;) {
		size_t before = c->streamed + c->out.len;
		int over = child_poll(c, 0);
		changed |= c->streamed + c->out.len != before;
		if (over)
			return -1;
		if (c->streamed + c->out.len == before)
			return changed;
	}
}

int source_pump(struct event_source *src, struct ui_state *s)
{
	if (src->fd < 0)
		return 0;
	struct pump p = {src, s};
	src->lines.on_value = on_event;
	src->lines.on_bad = on_bad_line;
	src->lines.arg = &p;
	int r = src->pid > 0 ? read_child(src, &p) : read_file(src);
	if (r >= 0) {
		src->fd = src->pid > 0 ? src->child.result_pipe : src->fd;
		if (src->fd >= 0)
			return r;
	}
	jsonl_finish(&src->lines); /* a last line without newline */
	char why[300] = "";
	if (src->pid > 0) {
		struct child *c = &src->child;
		/* its stream is over: it is ending (as before, wait for it) */
		child_finish(c);
		src->exit_status = c->exited ? c->exit_code : 128 + c->term_signal;
		src->pid = -1;
		if (src->exit_status != 0 && src->exit_status != 1 &&
		    src->exit_status != 3)
			grader_last_words(c, why, sizeof(why));
	} else {
		close(src->fd);
	}
	src->fd = -1;
	if (src->explain)
		ui_state_explain_closed(s, why);
	else
		ui_state_stream_closed(s, why);
	return 1;
}

void source_close(struct event_source *src)
{
	if (src->pid > 0)
		child_stop(&src->child, SIGTERM);
	else if (src->fd >= 0)
		close(src->fd);
	jsonl_release(&src->lines);
	child_release(&src->child);
	src->fd = -1;
	src->pid = -1;
}
