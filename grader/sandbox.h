/*
 * sandbox — run an untrusted step program under bubblewrap (bwrap).
 *
 * Inside, the program sees the system read-only (/usr, /lib*, /bin, /sbin,
 * /etc, /opt, /sys, and the folders of LD_LIBRARY_PATH), a fresh /proc, a
 * minimal /dev with the NVIDIA device nodes, an empty /tmp, and the one
 * folder holding its executable (read-only). Not the instructor's tree
 * (solutions, hidden cases, manifests), not other submissions, not /home.
 * All namespaces are new (no network); it dies with the grader.
 *
 * sandbox_probe() decides once whether that works here: bwrap must be on
 * PATH and must run `probe_argv` (a CUDA program) to a clean exit with
 * `must_print` in its output (NULL: any output); when not, sb->on is 0 and sb->reason says why, and callers fall
 * back to the runner's limits alone (and say so once).
 *
 * sandbox_argv() turns argv into the bwrap command line. The strings it
 * makes live in sb (valid until the next call); argv's own are borrowed.
 */
#ifndef CUDALAB_SANDBOX_H
#define CUDALAB_SANDBOX_H

#include <limits.h>
#include <stddef.h>

#define SANDBOX_MAX_ARGS 160

struct sandbox {
	int on;
	char reason[512];
	char bwrap[PATH_MAX];
	/* storage for the strings of one command line */
	char paths[48][PATH_MAX];
	const char *argv[SANDBOX_MAX_ARGS];
};

int sandbox_probe(struct sandbox *sb, const char *const *probe_argv,
		  const char *must_print);
const char *const *sandbox_argv(struct sandbox *sb, const char *const *argv);

#endif
