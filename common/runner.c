#include "runner.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/*
 * The process groups of the children now running, for child_kill_all():
 * slots are claimed and released with atomics, so the batch's worker
 * threads and a signal handler can share the table without a lock.
 */
#define MAX_LIVE 256
static pid_t live_groups[MAX_LIVE];

static void live_add(pid_t pg)
{
	for (int i = 0; i < MAX_LIVE; i++) {
		pid_t none = 0;
		if (__atomic_compare_exchange_n(&live_groups[i], &none, pg, 0,
						__ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST))
			return;
	}
}

static void live_remove(pid_t pg)
{
	for (int i = 0; i < MAX_LIVE; i++) {
		pid_t want = pg;
		if (__atomic_compare_exchange_n(&live_groups[i], &want, 0, 0,
						__ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST))
			return;
	}
}

void child_kill_all(void)
{
	for (int i = 0; i < MAX_LIVE; i++) {
		pid_t pg = __atomic_load_n(&live_groups[i], __ATOMIC_SEQ_CST);
		if (pg > 0)
			kill(-pg, SIGKILL);
	}
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The hard limit is one above the soft one, so the soft limit's signal
 * (SIGXCPU) arrives first and says why the child died. */
static void set_limit(int resource, long value)
{
	if (value <= 0)
		return;
	struct rlimit rl = {(rlim_t)value,
			    (rlim_t)value + (resource == RLIMIT_CPU)};
	setrlimit(resource, &rl);
}

/* In the child, between fork and exec: only async-signal-safe calls. */
static void child_exec(struct child *c, int out_fd, int result_w,
		       int report_w, pid_t parent)
{
	setpgid(0, 0);
	/* if the grader is killed outright (SIGKILL), so is the child */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(127);
	signal(SIGPIPE, SIG_DFL);
	/* the passed descriptor, out of the way of the dup2s below */
	int pass_tmp = -1;
	if (c->pass_fd >= 0 && c->pass_fd_as > 2 &&
	    c->pass_fd_as != c->result_fd) {
		pass_tmp = fcntl(c->pass_fd, F_DUPFD_CLOEXEC, 512);
		if (pass_tmp < 0)
			goto fail;
	}
	/* O_CLOEXEC: only 0, 1, 2 (and the result fd) reach the program */
	int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (null_fd < 0 || dup2(null_fd, 0) < 0 || dup2(out_fd, 1) < 0 ||
	    dup2(out_fd, 2) < 0)
		goto fail;
	if (result_w >= 0 && c->result_fd >= 0) {
		if (result_w == c->result_fd) {
			int flags = fcntl(result_w, F_GETFD);
			fcntl(result_w, F_SETFD, flags & ~FD_CLOEXEC);
		} else if (dup2(result_w, c->result_fd) < 0) {
			goto fail;
		}
	}
	if (pass_tmp >= 0) {
		if (report_w == c->pass_fd_as)
			report_w = fcntl(report_w, F_DUPFD_CLOEXEC, 512);
		if (report_w < 0 || dup2(pass_tmp, c->pass_fd_as) < 0)
			goto fail;
	}
	/* Whatever the grader inherited stays with the grader. */
	for (int fd = 3; fd < 1024; fd++)
		if (fd != c->result_fd && fd != report_w &&
		    (fd != c->pass_fd_as || pass_tmp < 0))
			close(fd);
	if (c->dir && chdir(c->dir) < 0)
		goto fail;
	set_limit(RLIMIT_CPU, c->cpu_limit_s);
	set_limit(RLIMIT_FSIZE, c->file_limit_bytes);
	set_limit(RLIMIT_NPROC, c->nproc_limit ? c->nproc_base + c->nproc_limit
					       : 0);
	set_limit(RLIMIT_CORE, 0);
	if (c->env)
		execvpe(c->argv[0], (char *const *)c->argv,
			(char *const *)c->env);
	else
		execvp(c->argv[0], (char *const *)c->argv);
fail:;
	int e = errno;
	ssize_t ignored = write(report_w, &e, sizeof(e));
	(void)ignored;
	_exit(127);
}

/*
 * Tasks (threads included: that is what RLIMIT_NPROC counts) that belong to
 * this real user now, from /proc. 0 when /proc cannot be read.
 */
static long user_tasks(void)
{
	DIR *d = opendir("/proc");
	if (!d)
		return 0;
	long total = 0;
	uid_t me = getuid();
	struct dirent *e;
	char path[300], line[256];
	while ((e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/status", e->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		long uid = -1, threads = 0;
		while (fgets(line, sizeof(line), f)) {
			if (!strncmp(line, "Uid:", 4))
				uid = strtol(line + 4, NULL, 10);
			else if (!strncmp(line, "Threads:", 8))
				threads = strtol(line + 8, NULL, 10);
		}
		fclose(f);
		if (uid == (long)me)
			total += threads;
	}
	closedir(d);
	return total;
}

int child_start(struct child *c)
{
	if (c->nproc_limit)
		c->nproc_base = user_tasks();
	int out_fd = -1, outp[2] = {-1, -1}, resp[2] = {-1, -1},
	    report[2] = {-1, -1};
	c->error[0] = '\0';
	if (c->out_path) {
		out_fd = open(c->out_path, O_WRONLY | O_CREAT | O_TRUNC |
						   O_CLOEXEC, 0644);
		if (out_fd < 0) {
			snprintf(c->error, sizeof(c->error),
				 "cannot create %s: %s", c->out_path,
				 strerror(errno));
			return -1;
		}
	} else if (pipe2(outp, O_CLOEXEC) < 0) {
		goto sys_fail;
	} else {
		out_fd = outp[1];
	}
	if (c->result_fd >= 0 && pipe2(resp, O_CLOEXEC) < 0)
		goto sys_fail;
	if (pipe2(report, O_CLOEXEC) < 0)
		goto sys_fail;

	fflush(NULL);
	c->started = now();
	pid_t parent = getpid();
	c->pid = fork();
	if (c->pid < 0)
		goto sys_fail;
	if (c->pid == 0)
		child_exec(c, out_fd, resp[1], report[1], parent);

	setpgid(c->pid, c->pid); /* also in the parent: no race with kill */
	live_add(c->pid);
	close(report[1]);
	close(out_fd);
	if (resp[1] >= 0)
		close(resp[1]);
	c->out_pipe = outp[0];
	c->result_pipe = resp[0];

	int child_errno = 0;
	ssize_t n;
	do
		n = read(report[0], &child_errno, sizeof(child_errno));
	while (n < 0 && errno == EINTR);
	close(report[0]);
	if (n == sizeof(child_errno)) {
		snprintf(c->error, sizeof(c->error), "cannot run %s: %s",
			 c->argv[0], strerror(child_errno));
		waitpid(c->pid, NULL, 0);
		live_remove(c->pid);
		if (c->out_pipe >= 0)
			close(c->out_pipe);
		if (c->result_pipe >= 0)
			close(c->result_pipe);
		c->out_pipe = c->result_pipe = -1;
		c->pid = -1;
		return -1;
	}
	return 0;

sys_fail:
	snprintf(c->error, sizeof(c->error), "cannot start %s: %s", c->argv[0],
		 strerror(errno));
	int fds[] = {out_fd, outp[0], resp[0], resp[1], report[0], report[1]};
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return -1;
}

/*
 * Read what is available on *fd; closes it and sets -1 at EOF. Keeps up to
 * limit bytes in keep (or hands them to c->on_result when stream is set).
 */
static void drain(struct child *c, int *fd, struct strbuf *keep, size_t limit,
		  size_t *dropped, int stream)
{
	char chunk[65536];
	ssize_t n = read(*fd, chunk, sizeof(chunk));
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close(*fd);
		*fd = -1;
		return;
	}
	if (stream) {
		size_t room = c->streamed < limit ? limit - c->streamed : 0;
		size_t take = (size_t)n < room ? (size_t)n : room;
		c->on_result(c->on_result_arg, chunk, take);
		c->streamed += take;
		*dropped += (size_t)n - take;
		return;
	}
	size_t room = keep->len < limit ? limit - keep->len : 0;
	size_t take = (size_t)n < room ? (size_t)n : room;
	strbuf_add(keep, chunk, take);
	*dropped += (size_t)n - take;
}

static void reap(struct child *c, int status)
{
	c->exited = WIFEXITED(status);
	c->exit_code = c->exited ? WEXITSTATUS(status) : -1;
	c->term_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	c->seconds = now() - c->started;
	kill(-c->pid, SIGKILL); /* stragglers of the group */
	live_remove(c->pid);
}

int child_poll(struct child *c, int wait_ms)
{
	if (c->pid < 0 && !c->reaped)
		return -1;
	if (c->reaped && c->out_pipe < 0 && c->result_pipe < 0)
		return 1;
	double deadline = c->wall_limit_s > 0 ? c->started + c->wall_limit_s : 0;
	if (!c->reaped) {
		int status;
		pid_t r = waitpid(c->pid, &status, WNOHANG);
		if (r == c->pid) {
			reap(c, status);
			c->reaped = 1;
		}
	}
	double extra = c->extend_s ? *c->extend_s : 0;
	if (extra > c->max_extend_s)
		extra = c->max_extend_s;
	if (deadline && !c->reaped && now() >= deadline + extra) {
		c->timed_out = 1;
		kill(-c->pid, SIGKILL);
		int status;
		waitpid(c->pid, &status, 0);
		reap(c, status);
		c->reaped = 1;
	}
	struct pollfd pfd[2];
	int np = 0;
	if (c->out_pipe >= 0)
		pfd[np++] = (struct pollfd){c->out_pipe, POLLIN, 0};
	if (c->result_pipe >= 0)
		pfd[np++] = (struct pollfd){c->result_pipe, POLLIN, 0};
	if (np == 0) {
		if (!c->reaped && wait_ms > 0) {
			struct timespec ts = {0, 20 * 1000 * 1000};
			nanosleep(&ts, NULL);
		}
		return c->reaped;
	}
	if (poll(pfd, (nfds_t)np, c->reaped && wait_ms > 0 ? 1000 : wait_ms) < 0 &&
	    errno != EINTR)
		goto give_up;
	for (int i = 0; i < np; i++) {
		if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		if (pfd[i].fd == c->out_pipe)
			drain(c, &c->out_pipe, &c->out, c->out_limit,
			      &c->out_dropped, 0);
		else
			drain(c, &c->result_pipe, &c->result,
			      c->result_limit, &c->result_dropped,
			      c->on_result != NULL);
	}
	if (c->result_dropped && !c->result_overflow) {
		c->result_overflow = 1;
		kill(-c->pid, SIGKILL);
	}
	/* A reaped group whose pipes stay open past a second: give up. */
	if (c->reaped && now() - c->started - c->seconds > 2.0)
		goto give_up;
	return c->reaped && c->out_pipe < 0 && c->result_pipe < 0;

give_up:
	if (c->out_pipe >= 0)
		close(c->out_pipe);
	if (c->result_pipe >= 0)
		close(c->result_pipe);
	c->out_pipe = c->result_pipe = -1;
	return c->reaped;
}

int child_finish(struct child *c)
{
	if (c->pid < 0)
		return -1;
	int r;
	while ((r = child_poll(c, 50)) == 0)
		;
	if (!c->reaped) { /* poll itself failed: end it the hard way */
		kill(-c->pid, SIGKILL);
		int status;
		waitpid(c->pid, &status, 0);
		reap(c, status);
		c->reaped = 1;
	}
	if (c->out_pipe >= 0)
		close(c->out_pipe);
	if (c->result_pipe >= 0)
		close(c->result_pipe);
	c->out_pipe = c->result_pipe = -1;
	return 0;
}

void child_stop(struct child *c, int sig)
{
	if (c->pid < 0 || c->reaped)
		return;
	kill(-c->pid, sig);
	child_finish(c);
}

int child_run(struct child *c)
{
	if (child_start(c) < 0)
		return -1;
	return child_finish(c);
}

void child_release(struct child *c)
{
	strbuf_release(&c->out);
	strbuf_release(&c->result);
}

const char *child_describe_end(const struct child *c, char *buf, size_t len)
{
	if (c->timed_out)
		snprintf(buf, len, "timed out after %.0f s and was killed",
			 c->wall_limit_s);
	else if (c->result_overflow)
		snprintf(buf, len, "wrote more than %zu bytes of results and "
				   "was killed", c->result_limit);
	else if (c->term_signal == SIGXCPU)
		snprintf(buf, len, "used more than %ld s of CPU time and was "
				   "killed", c->cpu_limit_s);
	else if (c->term_signal == SIGXFSZ)
		snprintf(buf, len, "wrote a file larger than %ld bytes and "
				   "was killed", c->file_limit_bytes);
	else if (c->term_signal)
		snprintf(buf, len, "killed by signal %d (%s)", c->term_signal,
			 strsignal(c->term_signal));
	else
		snprintf(buf, len, "exit code %d", c->exit_code);
	return buf;
}
