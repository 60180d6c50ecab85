/*
 * source — where the dashboard's events come from: a file (a saved run,
 * `run.py show`), standard input (a pipe from the grader), or a grader the
 * dashboard starts itself (so it can rerun a step, or explain one).
 *
 * A grader is started with the runner (common/runner.h), as the grader
 * starts its own children: its own process group, stdin /dev/null, its
 * stdout (the event stream) read as it comes, its stderr kept (the first
 * 64 KiB) for the problem line; it dies with the dashboard.
 *
 * source_pump() reads what is available without blocking, applies every
 * complete line to the state (common/jsonl.h; a line that is not an event
 * is reported with ui_state_bad_line, never fatal), and at end of input
 * reaps a spawned grader and calls ui_state_stream_closed (with the
 * grader's last words on stderr when it failed). It returns 1 when the
 * state changed.
 */
#ifndef CUDALAB_UI_SOURCE_H
#define CUDALAB_UI_SOURCE_H

#include <sys/types.h>

#include "jsonl.h"
#include "runner.h"
#include "state.h"

struct event_source {
	int fd;        /* to poll(2) on; -1 when closed */
	pid_t pid;     /* a spawned grader, or -1 */
	struct child child; /* that grader (runner.h) */
	struct jsonl_reader lines; /* the stream, line by line (jsonl.h) */
	int exit_status; /* of the grader: -1 until reaped */
	int explain;     /* an `explain --json` run for the explain view: its
			    events go to ui_state_explain_apply, its end to
			    ui_state_explain_closed */
};

#define EVENT_SOURCE_INIT \
	{ .fd = -1, .pid = -1, .child = CHILD_INIT, .exit_status = -1 }

/* path "-" is standard input. Returns 0, or -1 with err. */
int source_open_file(struct event_source *src, const char *path, char *err,
		     size_t errlen);
/* Start argv (the grader with --json; argv is read only while starting);
 * its stdout is the stream. */
int source_spawn(struct event_source *src, const char *const *argv,
		 char *err, size_t errlen);
int source_pump(struct event_source *src, struct ui_state *s);
/* Stop reading; stop a spawned grader that is still running (SIGTERM). */
void source_close(struct event_source *src);

#endif
