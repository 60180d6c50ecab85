/* sandbox: what a program under bubblewrap can and cannot see (sandbox.h).
 * Needs bwrap (make test's set-up installs it); where bwrap exists but
 * cannot make namespaces (some containers), the checks are skipped with
 * the reason. */
#include "check.h"
#include "runner.h"
#include "sandbox.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char child_path[PATH_MAX];

static void run_in(struct sandbox *sb, struct child *c, const char *const *argv)
{
	c->argv = sandbox_argv(sb, argv);
	c->wall_limit_s = 30;
	c->result_fd = 3;
	child_run(c);
}

int main(void)
{
	char cwd[PATH_MAX];
	if (!getcwd(cwd, sizeof(cwd)))
		return 1;
	snprintf(child_path, sizeof(child_path), "%s/build/tests/programs/child",
		 cwd);
	struct sandbox *sb = calloc(1, sizeof(*sb));
	const char *probe[] = {child_path, "exit", "0", NULL};
	sandbox_probe(sb, probe, NULL);
	if (!sb->on && strstr(sb->reason, "not installed")) {
		CHECK(0, "bubblewrap is installed (%s): run `make test`, whose "
			 "set-up installs it", sb->reason);
		return check_done();
	}
	if (!sb->on) {
		CHECK_SKIP("sandbox checks # SKIP %s", sb->reason);
		return check_done();
	}
	CHECK(sb->on, "bubblewrap runs a program here");

	/* a file of the grader's: in /tmp and in the project tree */
	char secret[64];
	snprintf(secret, sizeof(secret), "/tmp/cudalab-secret-%d", getpid());
	FILE *f = fopen(secret, "w");
	if (f)
		fclose(f);
	char solutions[PATH_MAX + 16];
	snprintf(solutions, sizeof(solutions), "%s/solutions", cwd);

	struct child c = CHILD_INIT;
	const char *look[] = {child_path, "exists", secret, solutions,
			      "/usr/bin", "/dev/null", "/root", NULL};
	run_in(sb, &c, look);
	const char *out = strbuf_str(&c.out);
	char want[PATH_MAX * 2 + 64];
	snprintf(want, sizeof(want), "%s no\n%s no\n/usr/bin yes\n/dev/null yes\n"
		 "/root no\n", secret, solutions);
	CHECK(c.exited && c.exit_code == 0 && !strcmp(out, want),
	      "inside: the system yes; /tmp, /root and the instructor's tree "
	      "(solutions) no (got:\n%s)", out);
	child_release(&c);
	unlink(secret);

	c = (struct child)CHILD_INIT;
	const char *write_usr[] = {child_path, "touch", "/usr/cudalab-x", NULL};
	run_in(sb, &c, write_usr);
	CHECK(!strcmp(strbuf_str(&c.out), "refused\n"),
	      "the system is read-only inside (%s)", strbuf_str(&c.out));
	child_release(&c);

	c = (struct child)CHILD_INIT;
	const char *net[] = {child_path, "cat", "/proc/net/dev", NULL};
	run_in(sb, &c, net);
	out = strbuf_str(&c.out);
	int lines = 0;
	for (const char *p = out; *p; p++)
		lines += *p == '\n';
	CHECK(c.exited && c.exit_code == 0 && strstr(out, "lo:") && lines == 3,
	      "no network inside: only the loopback device (%d lines)", lines);
	child_release(&c);

	c = (struct child)CHILD_INIT;
	const char *res[] = {child_path, "result", "{\"event\":\"x\"}", NULL};
	run_in(sb, &c, res);
	CHECK(!strcmp(strbuf_str(&c.result), "{\"event\":\"x\"}\n"),
	      "the result channel reaches the grader through the sandbox (%s)",
	      strbuf_str(&c.result));
	child_release(&c);

	free(sb);
	return check_done();
}
