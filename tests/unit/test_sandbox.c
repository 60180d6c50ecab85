/* sandbox: a hostile program (tests/programs/escape.c, which no static
 * check sees) tries every way out of the box (sandbox.h); each attempt must
 * fail, checked from outside where it can be (files unchanged, no process
 * left). Then compute-sanitizer and ncu stand-ins run it inside the box,
 * and the figures must be the tools' own, whatever the program printed or
 * tried to write. Needs bwrap (make test's set-up installs it); where bwrap
 * exists but cannot make namespaces (some containers), the checks are
 * skipped with the reason. */
#include "check.h"
#include "profiler.h"
#include "runner.h"
#include "sandbox.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char escape[PATH_MAX], cwd[PATH_MAX], parent[PATH_MAX + 16];
static struct sandbox *sb;

/* Run escape with one attempt in a box (limits adjusted by tweak). */
static const char *attempt(struct child *c, struct box *b,
			   const char *const *argv)
{
	char rw[PATH_MAX + 32];
	sandbox_folder(sb, b->uid, parent, 0, rw, sizeof(rw));
	b->rw = rw;
	box_ro(b, escape);
	*c = (struct child)CHILD_INIT;
	c->argv = sandbox_argv(sb, b, NULL, argv);
	c->wall_limit_s = 60;
	c->result_fd = 3;
	/* the runner's own limits, as grade.c sets them on a step run: the
	 * box's may only lower them */
	c->cpu_limit_s = 90;
	c->file_limit_bytes = 64L << 20;
	child_run(c);
	sandbox_remove(rw);
	return strbuf_str(&c->out);
}

static const char *simple(struct child *c, const char *mode, const char *arg)
{
	struct box b;
	box_for_run(&b);
	b.gpu = 0;
	const char *argv[] = {escape, mode, arg, NULL};
	return attempt(c, &b, argv);
}

static int exists(const char *p)
{
	struct stat st;
	return lstat(p, &st) == 0;
}

static int process_named(const char *name)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int found = 0;
	while (d && (e = readdir(d)) && !found) {
		char p[300], comm[64] = "";
		snprintf(p, sizeof(p), "/proc/%s/comm", e->d_name);
		FILE *f = fopen(p, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f))
			found = !strncmp(comm, name, strlen(name));
		fclose(f);
	}
	if (d)
		closedir(d);
	return found;
}

int main(void)
{
	if (!getcwd(cwd, sizeof(cwd)))
		return 1;
	snprintf(escape, sizeof(escape), "%s/build/tests/programs/escape", cwd);
	snprintf(parent, sizeof(parent), "%s/build/box", cwd);
	sb = calloc(1, sizeof(*sb));
	const char *probe[] = {escape, "whoami", NULL};
	sandbox_probe(sb, probe, NULL);
	if (!sb->on && (strstr(sb->reason, "not installed") ||
			strstr(sb->reason, "box-exec"))) {
		CHECK(0, "the sandbox can start (%s): run `make test`, whose "
			 "set-up installs bubblewrap", sb->reason);
		return check_done();
	}
	if (!sb->on) {
		CHECK_SKIP("sandbox checks # SKIP %s", sb->reason);
		return check_done();
	}
	CHECK(sb->on, "bubblewrap runs a program here");
	CHECK(sb->landlock, "Landlock works here, so tools may run in the box");
	struct child c;
	const char *out;

	/* who it is: nobody, with nothing */
	out = simple(&c, "whoami", "");
	if (sb->as_root)
		CHECK(atol(out + (strncmp(out, "uid ", 4) ? 0 : 4)) >=
			      SANDBOX_UID_BASE &&
		      strstr(out, "CapEff:\t0000000000000000") &&
		      strstr(out, "CapBnd:\t0000000000000000") &&
		      strstr(out, "NoNewPrivs:\t1"),
		      "as root, the program runs as a uid of its box's (from "
		      "SANDBOX_UID_BASE) with no "
		      "capability, an empty bounding set and no_new_privs "
		      "(got:\n%s)", out);
	else
		CHECK(strstr(out, "CapEff:\t0000000000000000") != NULL,
		      "the program has no capability (got:\n%s)", out);
	child_release(&c);

	/* a box's processes do not count against another's (red team,
	 * 2026-11-27: every box was nobody, and one program holding 500
	 * processes made the other boxes fail at exec) */
	if (sb->as_root) {
		struct box hb;
		box_for_run(&hb);
		hb.gpu = 0;
		char rw[PATH_MAX + 32];
		sandbox_folder(sb, hb.uid, parent, 0, rw, sizeof(rw));
		hb.rw = rw;
		box_ro(&hb, escape);
		const char *hargv[] = {escape, "hold", NULL};
		struct child h = CHILD_INIT;
		h.argv = sandbox_argv(sb, &hb, NULL, hargv);
		h.wall_limit_s = 6;
		child_start(&h);
		sleep(3); /* its children forked (fork fails at the box's 512) */
		char first[64];
		snprintf(first, sizeof(first), "%s", simple(&c, "whoami", ""));
		int ran = c.exited && c.exit_code == 0;
		child_release(&c);
		out = simple(&c, "whoami", "");
		CHECK(ran && c.exited && c.exit_code == 0 &&
		      strncmp(first, out, 16) != 0,
		      "while one box holds all the processes its limit allows, "
		      "two more boxes start, each its own uid (%s | %.40s)",
		      first, out);
		child_release(&c);
		child_finish(&h);
		CHECK(strstr(strbuf_str(&h.out), "held ") != NULL,
		      "the holding box forked (%s)", strbuf_str(&h.out));
		child_release(&h);
		sandbox_remove(rw);
	}

	/* the instructor's tree and the system's secrets */
	char solutions[PATH_MAX + 64], grader_src[PATH_MAX + 64];
	snprintf(solutions, sizeof(solutions), "%s/solutions/saxpy/saxpy_v5.cu",
		 cwd);
	snprintf(grader_src, sizeof(grader_src), "%s/grader/sandbox.c", cwd);
	const char *secrets[] = {solutions, grader_src, "/etc/shadow", NULL};
	for (const char *const *s = secrets; *s; s++) {
		if (!exists(*s) || (!sb->as_root && !strcmp(*s, "/etc/shadow")))
			continue;
		out = simple(&c, "read", *s);
		CHECK(!strncmp(out, "read: refused", 13),
		      "cannot read %s (got: %s)", *s, out);
		child_release(&c);
	}

	/* writing: only its own folder */
	char host_tmp[64], in_tree[PATH_MAX + 64];
	snprintf(host_tmp, sizeof(host_tmp), "/tmp/cudalab-escape-%d", getpid());
	snprintf(in_tree, sizeof(in_tree), "%s/build/escaped-%d", cwd, getpid());
	const char *targets[] = {host_tmp, in_tree, "/usr/cudalab-escaped", NULL};
	for (const char *const *t = targets; *t; t++) {
		out = simple(&c, "write", *t);
		CHECK(!exists(*t), "a write to %s changes nothing outside (it "
				   "said: %s)", *t, out);
		child_release(&c);
	}
	out = simple(&c, "write", "/cudalab-escaped");
	CHECK(!strncmp(out, "write: refused", 14),
	      "the box's own root is read-only: no unbounded writes beside /tmp "
	      "(got: %s)", out);
	child_release(&c);
	out = simple(&c, "write", "mine");
	CHECK(!strncmp(out, "write: ok", 9),
	      "its own folder is writable (got: %s)", out);
	child_release(&c);

	/* regaining privileges */
	out = simple(&c, "remount", "/usr/cudalab-escaped");
	CHECK(strstr(out, "remount: refused") &&
		      !exists("/usr/cudalab-escaped"),
	      "remounting the read-only system writable fails, even from a "
	      "new user namespace (got: %s)", out);
	child_release(&c);
	out = simple(&c, "keys", "");
	CHECK(!strncmp(out, "keys: refused", 13),
	      "the kernel's keyrings are refused in the box (the grader's "
	      "session keyring, a key left for a later box) (got: %s)", out);
	child_release(&c);
	out = simple(&c, "capset", "");
	CHECK(!strncmp(out, "capset: refused", 15),
	      "capabilities cannot be raised (got: %s)", out);
	child_release(&c);

	/* no process outlives the run */
	char name[16];
	snprintf(name, sizeof(name), "cl-linger%d", (int)(getpid() % 10000));
	out = simple(&c, "linger", name);
	usleep(300 * 1000);
	CHECK(strstr(out, "linger: ok") && !process_named(name),
	      "a setsid + double-fork process dies with the box (%s)",
	      process_named(name) ? "one is still running" : out);
	child_release(&c);

	/* no network */
	out = simple(&c, "net", "");
	CHECK(!strncmp(out, "net: refused", 12),
	      "no network: a TCP connect fails (got: %s)", out);
	child_release(&c);

	/* bounded /tmp and heap */
	struct box b;
	box_for_run(&b);
	b.gpu = 0;
	b.tmp_bytes = 8L << 20;
	const char *fill[] = {escape, "filltmp", NULL};
	out = attempt(&c, &b, fill);
	long bytes = -1;
	sscanf(out, "filltmp: %ld", &bytes);
	CHECK(bytes >= 0 && bytes <= (8L << 20),
	      "/tmp holds at most its size, 8 MiB (wrote %ld bytes)", bytes);
	child_release(&c);
	box_for_run(&b);
	b.gpu = 0;
	b.data_bytes = 256L << 20;
	const char *mem[] = {escape, "memory", NULL};
	out = attempt(&c, &b, mem);
	long mib = -1;
	sscanf(out, "memory: %ld", &mib);
	CHECK(mib >= 0 && mib < 256,
	      "the heap is bounded: 256 MiB limit, got %ld MiB", mib);
	child_release(&c);

	/* a step's result channel (fd 3) reaches the grader through the box */
	box_for_run(&b);
	b.gpu = 0;
	b.keep_fd = 3;
	const char *res[] = {escape, "forge", NULL};
	attempt(&c, &b, res);
	CHECK(!strcmp(strbuf_str(&c.result), "{\"event\":\"case\",\"ok\":true,\"n\":4096}\n"),
	      "a step's result channel reaches the grader through the box "
	      "(got: %s)", strbuf_str(&c.result));
	child_release(&c);

	/* the tools' reports are the tools' */
	char tool[PATH_MAX + 64];
	snprintf(tool, sizeof(tool), "%s/tests/programs/fake_sanitizer.sh", cwd);
	setenv("CUDALAB_SANITIZER", tool, 1);
	struct sanitizer_result sr;
	sanitizer_run(sb, parent, "racecheck", escape, "small", NULL, 60, &sr);
	CHECK(sr.errors == 3 && strstr(sr.report, "ERROR SUMMARY: 3 errors"),
	      "compute-sanitizer in the box: its report says 3 errors and the "
	      "grader counts 3, whatever the program printed (got %ld: %s)",
	      sr.errors, sr.reason);
	if (sb->landlock)
		CHECK(!strstr(sr.report, "0 errors"),
		      "the program could not write into the tool's report "
		      "(report:\n%s)", sr.report);
	snprintf(tool, sizeof(tool), "%s/tests/programs/fake_ncu.sh", cwd);
	setenv("CUDALAB_NCU", tool, 1);
	struct profile_result pr;
	profile_step(sb, parent, escape, 60, PROFILE_CHECKS, NULL, &pr);
	CHECK(pr.elements == 4096,
	      "under a tool in the box, the program's result channel still "
	      "reaches the grader (n %.0f)", pr.elements);
	CHECK(pr.measured && pr.bank_conflicts == 65536,
	      "ncu in the box: the bank conflicts are the tool's 65536 from "
	      "its report file, not the program's CSV (measured %d, %.0f: %s)",
	      pr.measured, pr.bank_conflicts, pr.reason);

	setenv("CUDALAB_NCU", "/nonexistent/ncu", 1);
	profile_step(sb, parent, escape, 60, PROFILE_CHECKS, NULL, &pr);
	CHECK(!pr.measured && !strcmp(pr.reason, "Nsight Compute not found at "
				      "/nonexistent/ncu (CUDALAB_NCU)"),
	      "a missing tool is named as such, box or not (got: %s)",
	      pr.reason);

	/* the folders the runs used are gone */
	DIR *d = opendir(parent);
	struct dirent *e;
	int left = 0;
	while (d && (e = readdir(d)))
		left += e->d_name[0] != '.';
	if (d)
		closedir(d);
	CHECK(left == 0, "every box's folder was removed (%d left in %s)",
	      left, parent);

	free(sb);
	return check_done();
}
