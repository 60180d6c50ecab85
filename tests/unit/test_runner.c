/* runner: limits, process groups and the result channel, with a child
 * program that misbehaves in every way a student's step can. */
#include "check.h"
#include "runner.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHILD "build/tests/programs/child"

static int run(struct child *c, const char *mode, const char *arg)
{
	static const char *argv[4];
	argv[0] = CHILD;
	argv[1] = mode;
	argv[2] = arg;
	argv[3] = NULL;
	c->argv = argv;
	return child_run(c);
}

/* Members of process group g that are not zombies (from /proc). */
static int live_in_group(pid_t g)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int live = 0;
	while (d && (e = readdir(d))) {
		char path[300], buf[512];
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = 0;
		char state;
		int ppid, pgrp;
		const char *rp = strrchr(buf, ')');
		if (rp && sscanf(rp + 1, " %c %d %d", &state, &ppid, &pgrp) == 3 &&
		    pgrp == g && state != 'Z')
			live++;
	}
	if (d)
		closedir(d);
	return live;
}

int main(void)
{
	char how[160];
	{
		struct child c = CHILD_INIT;
		c.wall_limit_s = 1;
		run(&c, "hang", NULL);
		CHECK(c.timed_out && c.term_signal == SIGKILL && c.seconds < 3,
		      "a hang is killed at the wall-clock limit (%.1f s)",
		      c.seconds);
		CHECK(strstr(child_describe_end(&c, how, sizeof(how)),
			     "timed out after 1 s"),
		      "and described as timed out (%s)", how);
		child_release(&c);
	}
	{
		struct child c = CHILD_INIT;
		run(&c, "crash", NULL);
		CHECK(!c.exited && c.term_signal == SIGSEGV,
		      "a crash reports its signal");
		CHECK(strstr(child_describe_end(&c, how, sizeof(how)),
			     "signal 11"),
		      "described with the signal (%s)", how);
		child_release(&c);
	}
	{
		struct child c = CHILD_INIT;
		c.wall_limit_s = 1;
		c.out_limit = 1000;
		run(&c, "flood", NULL);
		CHECK(c.out.len == 1000 && c.out_dropped > 1000 && c.timed_out,
		      "flooded output is capped (kept %zu, dropped %zu) and "
		      "the flood ends at the limit",
		      c.out.len, c.out_dropped);
		child_release(&c);
	}
	{
		struct child c = CHILD_INIT;
		c.result_fd = 3;
		run(&c, "exit", "0");
		CHECK(c.exited && c.exit_code == 0 && c.result.len == 0,
		      "an early exit 0 leaves the result channel empty");
		child_release(&c);
	}
	{
		struct child c = CHILD_INIT;
		c.result_fd = 3;
		run(&c, "result", "{\"event\":\"harness_end\",\"ok\":true}");
		CHECK(!strcmp(strbuf_str(&c.result),
			      "{\"event\":\"harness_end\",\"ok\":true}\n") &&
			      c.out.len == 0,
		      "the result channel is separate from stdout");
		child_release(&c);
	}
	{
		struct child c = CHILD_INIT;
		run(&c, "result", "PASS");
		CHECK(c.exited && c.exit_code != 0,
		      "without a result channel, fd 3 is closed: writing "
		      "fails (exit %d)", c.exit_code);
		child_release(&c);
	}
	{
		struct child c = CHILD_INIT;
		c.result_fd = 3;
		c.result_limit = 100000;
		c.wall_limit_s = 10;
		run(&c, "result_flood", NULL);
		CHECK(c.result_overflow && c.seconds < 5 &&
			      c.result.len == 100000,
		      "a result-channel flood is cut at its limit and killed");
		child_release(&c);
	}
	{
		struct child c = CHILD_INIT;
		c.cpu_limit_s = 1;
		c.wall_limit_s = 20;
		run(&c, "spin", NULL);
		CHECK(c.term_signal == SIGXCPU &&
			      strstr(child_describe_end(&c, how, sizeof(how)),
				     "CPU time"),
		      "the CPU-time limit stops a spinning child (%s)",
		      child_describe_end(&c, how, sizeof(how)));
		child_release(&c);
	}
	{
		char path[64];
		snprintf(path, sizeof(path), "/tmp/cudalab-big-%d", getpid());
		struct child c = CHILD_INIT;
		c.file_limit_bytes = 1 << 20;
		c.wall_limit_s = 20;
		run(&c, "bigfile", path);
		CHECK(c.term_signal == SIGXFSZ &&
			      strstr(child_describe_end(&c, how, sizeof(how)),
				     "larger than"),
		      "the file-size limit stops a growing file (%s)", how);
		unlink(path);
		child_release(&c);
	}
	{
		struct child c = CHILD_INIT;
		c.nproc_limit = 64;
		c.wall_limit_s = 3;
		run(&c, "forkbomb", NULL);
		int made = atoi(strbuf_str(&c.out) + 7);
		pid_t group = c.pid;
		int gone = 0;
		for (int i = 0; i < 20 && !gone; i++) {
			usleep(100 * 1000);
			gone = live_in_group(group) == 0;
		}
		if (getuid() == 0)
			CHECK(c.timed_out && gone,
			      "a fork bomb (as root, where RLIMIT_NPROC does not "
			      "apply: %d forks) ends at the wall limit with its "
			      "whole group killed", made);
		else
			CHECK(c.timed_out && gone && made > 0 && made <= 64,
			      "a fork bomb stops at the process limit (%d more "
			      "processes) and its whole group is killed at the "
			      "wall limit", made);
		child_release(&c);
	}
	{
		struct child c = CHILD_INIT;
		c.wall_limit_s = 30;
		run(&c, "grandchild", NULL);
		CHECK(c.exited && c.exit_code == 0 && c.seconds < 5 &&
			      strstr(strbuf_str(&c.out), "parent done"),
		      "a grandchild holding the pipes does not keep the run "
		      "alive: the group is killed (%.1f s)", c.seconds);
		child_release(&c);
	}
	{
		/* what the grader's Ctrl-C handler does */
		struct child a = CHILD_INIT, b = CHILD_INIT;
		const char *hang[] = {CHILD, "hang", NULL};
		a.argv = b.argv = hang;
		a.wall_limit_s = b.wall_limit_s = 60;
		int started = child_start(&a) == 0 && child_start(&b) == 0;
		child_kill_all();
		child_finish(&a);
		child_finish(&b);
		CHECK(started && a.term_signal == SIGKILL &&
			      b.term_signal == SIGKILL && !a.timed_out &&
			      a.seconds < 5 && b.seconds < 5,
		      "child_kill_all() kills every running child's group "
		      "(%.1f s, %.1f s)", a.seconds, b.seconds);
		child_release(&a);
		child_release(&b);
		struct child c = CHILD_INIT;
		c.wall_limit_s = 5;
		run(&c, "exit", "0");
		CHECK(c.exited && c.exit_code == 0,
		      "a child started after child_kill_all() runs normally");
		child_release(&c);
	}
	{
		/* a grader killed outright (SIGKILL) takes its child along */
		int fds[2];
		pid_t kid = -1;
		if (pipe(fds) == 0) {
			pid_t grader = fork();
			if (grader == 0) {
				struct child c = CHILD_INIT;
				const char *hang[] = {CHILD, "hang", NULL};
				c.argv = hang;
				if (child_start(&c) == 0)
					(void)!write(fds[1], &c.pid, sizeof(c.pid));
				raise(SIGKILL);
			}
			close(fds[1]);
			if (read(fds[0], &kid, sizeof(kid)) != sizeof(kid))
				kid = -1;
			close(fds[0]);
			waitpid(grader, NULL, 0);
		}
		int gone = 0;
		for (int i = 0; kid > 0 && i < 100 && !gone; i++) {
			gone = kill(kid, 0) < 0 || live_in_group(kid) == 0;
			usleep(20000);
		}
		CHECK(kid > 0 && gone,
		      "a child dies with a grader killed by SIGKILL "
		      "(PR_SET_PDEATHSIG)");
	}
	{
		const char *env[] = {"ONLY=this", NULL};
		struct child c = CHILD_INIT;
		c.env = env;
		run(&c, "env", "HOME");
		CHECK(!strcmp(strbuf_str(&c.out), "(unset)\n"),
		      "an explicit environment replaces the grader's");
		child_release(&c);
	}
	{
		struct child c = CHILD_INIT;
		const char *argv[] = {"/nonexistent/nvcc", NULL};
		c.argv = argv;
		CHECK(child_start(&c) == -1 && strstr(c.error, "cannot run") &&
			      strstr(c.error, "No such file"),
		      "a missing program fails to start with a reason (%s)",
		      c.error);
		child_release(&c);
	}
	{
		struct child c = CHILD_INIT;
		c.out_path = "/nonexistent/dir/log";
		const char *argv[] = {CHILD, "exit", "0", NULL};
		c.argv = argv;
		CHECK(child_start(&c) == -1 && strstr(c.error, "cannot create"),
		      "an unwritable output file is reported (%s)", c.error);
	}
	return check_done();
}
