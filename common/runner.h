/*
 * runner — run one child process with limits, in its own process group.
 * (common/: the grader's steps and tools, and the dashboard's grader.)
 *
 * Modelled on git's run-command: one struct describes the child, CHILD_INIT
 * gives the defaults, and there are three verbs:
 *
 *   child_start(c)   fork + exec; returns 0, or -1 with c->error set (the
 *                    command could not be started: not found, no memory...).
 *   child_finish(c)  drain the child's output and result channel, enforce the
 *                    wall-clock limit, reap it; returns 0 when it was reaped
 *                    (whatever its exit status: read the fields below).
 *   child_run(c)     start + finish.
 *
 * and, for callers with their own event loop, child_poll (one round of
 * finish) and child_stop (signal, then finish); see below. The grader and
 * the dashboard (ui/source.c) both start their children here.
 *
 * Descriptors: the runner opens and closes every pipe and file it uses. The
 * child gets only stdin (/dev/null), stdout, stderr and the result fd. Its stdout and stderr go together either to
 * out_path (a file the runner creates) or, when out_path is NULL, into `out`
 * (the first out_limit bytes are kept, the rest counted in out_dropped, so a
 * child that floods its output cannot fill memory). When result_fd >= 0, the
 * child gets the write end of a pipe at that descriptor number, and what it
 * writes there is collected in `result` (at most result_limit bytes; a child
 * that writes more is killed and flagged result_overflow). When on_result is
 * set, result bytes are handed to it as they arrive instead of being kept in
 * `result` (the limit still counts them), so a caller can show live progress.
 *
 * pass_fd: an open descriptor of the caller's (-1: none) that the child gets
 * at the number pass_fd_as, e.g. the GPU lock (common/gpulock.h). The caller
 * keeps and closes its own copy; anything the child sets on the open file
 * (a lock) is shared with that copy until both are closed.
 *
 * Process group: the child leads a new process group. On timeout the whole
 * group is killed with SIGKILL; after a normal exit the group is killed too,
 * so no grandchild outlives the run or holds its pipes open.
 *
 * Limits (0 = none): wall_limit_s (measured by the runner; extend_s, when
 * set, points at seconds the caller adds to it while the child runs — e.g.
 * time the child spent waiting for the GPU lock — read at every poll and
 * capped at max_extend_s), cpu_limit_s
 * (RLIMIT_CPU), file_limit_bytes (RLIMIT_FSIZE), nproc_limit: how many more
 * processes and threads the child may create beyond those its user already
 * has (RLIMIT_NPROC is per user, so the runner counts them in /proc first).
 * The kernel does not apply RLIMIT_NPROC to root: there, the wall-clock
 * limit and the group kill are what end a fork bomb.
 *
 * Interruption: child_kill_all() kills the process group of every child
 * started and not yet reaped (async-signal-safe: the grader's SIGINT,
 * SIGTERM and SIGHUP handlers call it, so Ctrl-C never leaves a student's
 * program spinning on the GPU). A child is also killed when the grader
 * dies outright (PR_SET_PDEATHSIG); its own children go with the group
 * kill above, or with the sandbox's --die-with-parent.
 *
 * env: NULL inherits the grader's environment; otherwise it is the child's
 * whole environment (NULL-terminated "NAME=value" strings).
 */
#ifndef CUDALAB_RUNNER_H
#define CUDALAB_RUNNER_H

#include <stddef.h>
#include <sys/types.h>

#include "strbuf.h"

struct child {
	const char *const *argv;
	const char *const *env;
	const char *dir;
	const char *out_path;
	size_t out_limit;
	int result_fd;
	size_t result_limit;
	int pass_fd, pass_fd_as;
	void (*on_result)(void *arg, const char *data, size_t len);
	void *on_result_arg;
	double wall_limit_s;
	const double *extend_s;
	double max_extend_s;
	long cpu_limit_s;
	long file_limit_bytes;
	long nproc_limit;
	long nproc_base;   /* set by child_start: the user's tasks before */

	/* set by child_start / child_finish */
	pid_t pid;
	int out_pipe, result_pipe;
	double started, seconds;
	struct strbuf out, result;
	size_t out_dropped;
	size_t streamed;   /* result bytes handed to on_result */
	int exited;        /* exited normally: exit_code is valid */
	int exit_code;
	int term_signal;   /* killed by this signal (0 if exited) */
	int timed_out;     /* the runner killed it at wall_limit_s */
	int result_overflow;
	int reaped;        /* the child has been waited for */
	size_t result_dropped; /* result bytes past result_limit */
	char error[256];
};

#define CHILD_INIT                                                          \
	{                                                                   \
		.out_limit = 64 * 1024, .result_fd = -1, .pass_fd = -1,     \
		.pass_fd_as = -1,                                           \
		.result_limit = 16 << 20, .pid = -1, .out_pipe = -1,        \
		.result_pipe = -1, .out = STRBUF_INIT, .result = STRBUF_INIT \
	}

int child_start(struct child *c);
int child_finish(struct child *c);
int child_run(struct child *c);

/*
 * One round of child_finish, for a caller with its own loop (the
 * dashboard, which reads a grader's events while it draws): reads what the
 * pipes hold (waiting at most wait_ms for it; 0: not at all), enforces the
 * wall-clock limit and reaps the child when it has ended. Returns 0 while
 * it runs or its pipes are open, 1 when it is over (the fields below are
 * final), -1 when it was never started. out_pipe and result_pipe are the
 * descriptors to poll(2) on meanwhile (-1 once closed).
 */
int child_poll(struct child *c, int wait_ms);
/* Send sig to the child's process group and finish it (no-op when it is
 * over): the dashboard stopping a grader it no longer needs (SIGTERM lets
 * the grader end its own children). */
void child_stop(struct child *c, int sig);
void child_kill_all(void);

/* Free the captured output; the struct may be reused after CHILD_INIT. */
void child_release(struct child *c);

/*
 * A short description of how the child ended, for messages:
 * "exit code 3", "killed by signal 11 (Segmentation fault)",
 * "timed out after 60 s". Writes into buf and returns it.
 */
const char *child_describe_end(const struct child *c, char *buf, size_t len);

#endif
