#include "source.h"
#include "event.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void source_reset(struct event_source *src)
{
	strbuf_release(&src->pending);
	src->fd = src->err_fd = -1;
	src->pid = -1;
	src->lineno = 0;
	src->exit_status = -1;
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
	int out[2];
	char errpath[] = "/tmp/cudalab-ui-XXXXXX";
	int efd = mkstemp(errpath);
	if (efd < 0 || pipe(out) < 0) {
		snprintf(err, errlen, "cannot start the grader: %s",
			 strerror(errno));
		if (efd >= 0)
			close(efd);
		return -1;
	}
	unlink(errpath);
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "cannot start the grader: %s",
			 strerror(errno));
		close(out[0]);
		close(out[1]);
		close(efd);
		return -1;
	}
	if (pid == 0) {
		int null_fd = open("/dev/null", O_RDONLY);
		dup2(null_fd, 0);
		dup2(out[1], 1);
		dup2(efd, 2);
		close(out[0]);
		execvp(argv[0], (char *const *)argv);
		dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(out[1]);
	src->fd = out[0];
	src->err_fd = efd;
	src->pid = pid;
	fcntl(src->fd, F_SETFL, fcntl(src->fd, F_GETFL) | O_NONBLOCK);
	fcntl(src->fd, F_SETFD, FD_CLOEXEC);
	fcntl(efd, F_SETFD, FD_CLOEXEC);
	return 0;
}

static void apply_lines(struct event_source *src, struct ui_state *s)
{
	char *start = src->pending.buf, *nl;
	while (start && (nl = memchr(start, '\n',
				     src->pending.len -
					     (size_t)(start - src->pending.buf)))) {
		*nl = '\0';
		src->lineno++;
		char why[256];
		if (*start) {
			json_t *ev = event_parse(start, why, sizeof(why));
			if (ev && src->explain) {
				ui_state_explain_apply(s, ev);
				json_decref(ev);
			} else if (ev) {
				ui_state_apply(s, ev);
				json_decref(ev);
			} else if (!src->explain) {
				ui_state_bad_line(s, src->lineno, why);
			}
		}
		start = nl + 1;
	}
	if (!start)
		return;
	size_t rest = src->pending.len - (size_t)(start - src->pending.buf);
	memmove(src->pending.buf, start, rest);
	src->pending.len = rest;
	src->pending.buf[rest] = '\0';
}

/* The last line the grader wrote on stderr, for the problem line. */
static void grader_last_words(struct event_source *src, char *out, size_t len)
{
	out[0] = '\0';
	if (src->err_fd < 0)
		return;
	struct strbuf sb = STRBUF_INIT;
	char chunk[4096];
	ssize_t n;
	lseek(src->err_fd, 0, SEEK_SET);
	while ((n = read(src->err_fd, chunk, sizeof(chunk))) > 0)
		strbuf_add(&sb, chunk, (size_t)n);
	const char *text = strbuf_str(&sb);
	size_t end = sb.len;
	while (end > 0 && text[end - 1] == '\n')
		end--;
	size_t start = end;
	while (start > 0 && text[start - 1] != '\n')
		start--;
	snprintf(out, len, "%.*s", (int)(end - start), text + start);
	strbuf_release(&sb);
}

int source_pump(struct event_source *src, struct ui_state *s)
{
	if (src->fd < 0)
		return 0;
	int changed = 0;
	char chunk[65536];
	for (;;) {
		ssize_t n = read(src->fd, chunk, sizeof(chunk));
		if (n > 0) {
			strbuf_add(&src->pending, chunk, (size_t)n);
			apply_lines(src, s);
			changed = 1;
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return changed;
		break; /* end of input (or a read error: treated the same) */
	}
	if (src->pending.len) { /* a last line without newline */
		strbuf_add(&src->pending, "\n", 1);
		apply_lines(src, s);
	}
	close(src->fd);
	src->fd = -1;
	char why[300] = "";
	if (src->pid > 0) {
		int status;
		if (waitpid(src->pid, &status, 0) == src->pid)
			src->exit_status = WIFEXITED(status) ? WEXITSTATUS(status)
							     : 128 + WTERMSIG(status);
		src->pid = -1;
		if (src->exit_status != 0 && src->exit_status != 1 &&
		    src->exit_status != 3)
			grader_last_words(src, why, sizeof(why));
	}
	if (src->explain)
		ui_state_explain_closed(s, why);
	else
		ui_state_stream_closed(s, why);
	return 1;
}

void source_close(struct event_source *src)
{
	if (src->fd >= 0)
		close(src->fd);
	if (src->pid > 0) {
		kill(src->pid, SIGTERM);
		waitpid(src->pid, NULL, 0);
	}
	if (src->err_fd >= 0)
		close(src->err_fd);
	strbuf_release(&src->pending);
	src->fd = src->err_fd = -1;
	src->pid = -1;
}
