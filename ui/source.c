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
	jsonl_release(&src->lines);
	src->lines.events = 1;
	src->fd = src->err_fd = -1;
	src->pid = -1;
	src->exit_status = -1;
}

/* source_pump's reader callbacks: the state to change rides in arg */
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
	struct pump p = {src, s};
	src->lines.on_value = on_event;
	src->lines.on_bad = on_bad_line;
	src->lines.arg = &p;
	for (;;) {
		ssize_t n = read(src->fd, chunk, sizeof(chunk));
		if (n > 0) {
			jsonl_feed(&src->lines, chunk, (size_t)n);
			changed = 1;
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return changed;
		break; /* end of input (or a read error: treated the same) */
	}
	jsonl_finish(&src->lines); /* a last line without newline */
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
	jsonl_release(&src->lines);
	src->fd = src->err_fd = -1;
	src->pid = -1;
}
