/*
 * cudalab-ui — the dashboard. It draws the grader's event stream.
 *
 *   cudalab-ui --replay FILE|-              a saved run (or a pipe)
 *   cudalab-ui --gradebook OUT|FILE          a graded class: the spread of
 *                                            % of copy per step, every
 *                                            student's verdict
 *   cudalab-ui --grader PATH --root DIR --lab LAB [--lab LAB2 ...]
 *              [--step K] [--bench] [-- GRADER_OPTIONS]
 *                                          run the grader itself, live;
 *                                          r/R rerun, ←/→ switch lab,
 *                                          e explain the selected step
 *                                          (in place: the explain view)
 *   options: --labs FILE (the `list --json` of the workshop), --history FILE
 *            (history.jsonl), --ascii, --no-color, --dump ROWSxCOLS (render
 *            the whole replay once, as text, with no terminal)
 *
 * Exit status: that of the last grader run (0 pass, 1 fail, 3 not graded;
 * 130 when quit during a run); 0 for a replay; 2 usage; 4 no terminal.
 */
#include "canvas.h"
#include "class_view.h"
#include "panels.h"
#include "render.h"
#include "source.h"
#include "state.h"
#include "strvec.h"
#include "term.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_ARGS 64

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void install_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static const char usage[] =
	"usage: cudalab-ui --replay FILE|-  [options]\n"
	"       cudalab-ui --gradebook OUT|OUT/gradebook.json  [options]\n"
	"       cudalab-ui --grader PATH --root DIR --lab LAB [--lab LAB ...]\n"
	"                  [--step K] [--bench] [options] [-- GRADER_OPTIONS]\n"
	"options: --labs FILE  --history FILE  --ascii  --no-color\n"
	"         --dump ROWSxCOLS (print the rendered replay, no terminal)\n"
	"         --keys K1,K2,... (with --dump: keys to press first, e.g.\n"
	"                           j,Enter,PgDn,Esc,?)\n"
	"keys: arrows/jk move, Enter details, Esc back, r rerun step, R rerun\n"
	"      lab, e explain step, left/right switch lab, ? help, q quit\n";

struct options {
	const char *replay, *gradebook, *grader, *root, *labs_file, *history, *step, *keys;
	const char *labs[16];
	int nlabs, bench, ascii, no_color, dump_rows, dump_cols;
	const char *extra[MAX_ARGS];
	int nextra;
};

static int is_value_option(const char *a)
{
	static const char *const names[] = {
		"--replay", "--gradebook", "--grader", "--root", "--labs", "--history",
		"--step",   "--lab",    "--dump", "--keys", NULL};
	for (const char *const *n = names; *n; n++)
		if (!strcmp(a, *n))
			return 1;
	return 0;
}

static int parse(int argc, char **argv, struct options *o)
{
	memset(o, 0, sizeof(*o));
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int takes = 1;
		if (!strcmp(a, "--")) {
			for (i++; i < argc && o->nextra < MAX_ARGS - 8; i++)
				o->extra[o->nextra++] = argv[i];
			break;
		} else if (!strcmp(a, "--help")) {
			fputs(usage, stdout);
			exit(0);
		} else if (!strcmp(a, "--ascii")) {
			o->ascii = 1, takes = 0;
		} else if (!strcmp(a, "--no-color")) {
			o->no_color = 1, takes = 0;
		} else if (!strcmp(a, "--bench")) {
			o->bench = 1, takes = 0;
		} else if (!is_value_option(a)) {
			fprintf(stderr, "cudalab-ui: unknown option %s\n%s", a, usage);
			return -1;
		} else if (!v) {
			fprintf(stderr, "cudalab-ui: %s needs a value\n%s", a, usage);
			return -1;
		} else if (!strcmp(a, "--replay")) {
			o->replay = v;
		} else if (!strcmp(a, "--gradebook")) {
			o->gradebook = v;
		} else if (!strcmp(a, "--grader")) {
			o->grader = v;
		} else if (!strcmp(a, "--root")) {
			o->root = v;
		} else if (!strcmp(a, "--labs")) {
			o->labs_file = v;
		} else if (!strcmp(a, "--keys")) {
			o->keys = v;
		} else if (!strcmp(a, "--history")) {
			o->history = v;
		} else if (!strcmp(a, "--step")) {
			o->step = v;
		} else if (!strcmp(a, "--lab")) {
			if (o->nlabs < 16)
				o->labs[o->nlabs++] = v;
		} else if (!strcmp(a, "--dump")) {
			if (sscanf(v, "%dx%d", &o->dump_rows, &o->dump_cols) != 2 ||
			    o->dump_rows < 5 || o->dump_cols < 20) {
				fprintf(stderr, "cudalab-ui: --dump needs ROWSxCOLS, "
						"e.g. 24x80\n");
				return -1;
			}
		}
		i += takes;
	}
	if (!o->replay && !o->gradebook &&
	    !(o->grader && o->root && o->nlabs)) {
		fprintf(stderr, "cudalab-ui: give --replay FILE, --gradebook OUT, "
				"or --grader, "
				"--root and --lab\n%s", usage);
		return -1;
	}
	return 0;
}

static int spawn(struct event_source *src, const struct options *o,
		 const char *lab, const char *step, struct ui_state *s)
{
	struct strvec argv = STRVEC_INIT;
	strvec_pushl(&argv, o->grader, "--root", o->root,
		     o->bench ? "bench" : "test", lab, NULL);
	if (step)
		strvec_pushl(&argv, "--step", step, NULL);
	for (int i = 0; i < o->nextra; i++)
		strvec_push(&argv, o->extra[i]);
	strvec_push(&argv, "--json");
	char err[256];
	source_close(src);
	s->stream_problem[0] = '\0';
	s->bad_line[0] = '\0';
	s->bad_lines = 0;
	s->stream_closed = 0;
	int rc = source_spawn(src, strvec_argv(&argv), err, sizeof(err));
	strvec_clear(&argv);
	if (rc < 0) {
		snprintf(s->stream_problem, sizeof(s->stream_problem), "%s", err);
		return -1;
	}
	s->run_active = 1;
	return 0;
}

/*
 * `explain` on one step, beside the dashboard: the grader's explain run
 * (--json) is a second event source whose events fill the explain view in
 * place (panel_explain.c) as Nsight Compute works. The step files come
 * from the run's --src, when it had one.
 */
static void explain_step(struct event_source *xsrc, const struct options *o,
			 const char *lab, const char *step, struct ui_state *s)
{
	struct strvec argv = STRVEC_INIT;
	strvec_pushl(&argv, o->grader, "--root", o->root, "explain", lab,
		     "--step", step, NULL);
	for (int i = 0; i + 1 < o->nextra; i++)
		if (!strcmp(o->extra[i], "--src"))
			strvec_pushl(&argv, "--src", o->extra[i + 1], NULL);
	strvec_push(&argv, "--json");
	source_close(xsrc);
	ui_state_explain_begin(s, step);
	char err[256];
	if (source_spawn(xsrc, strvec_argv(&argv), err, sizeof(err)) < 0)
		ui_state_explain_closed(s, err);
	xsrc->explain = 1;
	strvec_clear(&argv);
}

static void load_labs(struct ui_state *s, const char *path)
{
	json_t *list = path ? json_load_file(path, 0, NULL) : NULL;
	if (json_is_array(list))
		ui_state_set_labs(s, list);
	json_decref(list);
}

static int lab_index(const struct ui_state *s, const char *name)
{
	for (int i = 0; i < s->nlabs; i++)
		if (!strcmp(s->labs[i].name, name))
			return i;
	return -1;
}

static int key_code(const char *name)
{
	static const struct {
		const char *name;
		int key;
	} named[] = {{"Enter", UK_ENTER}, {"Esc", 27},	    {"Up", UK_UP},
		     {"Down", UK_DOWN},	  {"Left", UK_LEFT}, {"Right", UK_RIGHT},
		     {"PgUp", UK_PGUP},	  {"PgDn", UK_PGDN}, {"Home", UK_HOME},
		     {"BSpace", UK_BACK}};
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (!strcmp(name, named[i].name))
			return named[i].key;
	return strlen(name) == 1 ? name[0] : -1;
}

/* --keys K1,K2,... as key codes; returns how many, or -1 (reported). */
static int parse_keys(const char *list, int *codes, int max)
{
	char keys[512];
	int n = 0;
	snprintf(keys, sizeof(keys), "%s", list ? list : "");
	for (char *k = strtok(keys, ","); k && n < max; k = strtok(NULL, ",")) {
		if ((codes[n++] = key_code(k)) < 0) {
			fprintf(stderr, "cudalab-ui: unknown key \"%s\"\n", k);
			return -1;
		}
	}
	return n;
}

static void print_canvas(const struct canvas *c)
{
	char row[4096];
	for (int r = 0; r < c->rows; r++)
		printf("%s\n", canvas_row(c, r, row, sizeof(row)));
}

static int dump(const struct options *o, struct ui_state *s,
		struct event_source *src)
{
	while (src->fd >= 0)
		source_pump(src, s);
	if (o->history)
		ui_state_load_history(s, o->history);
	int codes[128], n = parse_keys(o->keys, codes, 128);
	if (n < 0)
		return 2;
	for (int i = 0; i < n; i++)
		ui_state_key(s, codes[i]);
	struct canvas *c = canvas_new(o->dump_rows, o->dump_cols);
	struct render_opts ro = {!o->ascii};
	render(s, c, &ro);
	print_canvas(c);
	canvas_free(c);
	return 0;
}

/* A canvas of the terminal's size (at start, after TERM_RESIZE); frees
 * the old one (NULL: none). */
static struct canvas *refit_canvas(struct canvas *old)
{
	int rows, cols;
	term_size(&rows, &cols);
	canvas_free(old);
	return canvas_new(rows, cols);
}

/* The class view: a gradebook, no grader. Keys move it; q quits. */
static int show_class(const struct options *o)
{
	struct class_view v = {0};
	char err[700];
	if (classbook_load(&v.book, o->gradebook, err, sizeof(err)) < 0) {
		fprintf(stderr, "cudalab-ui: %s\n", err);
		return 2;
	}
	int rc = 0;
	if (o->dump_rows) {
		int codes[128], n = parse_keys(o->keys, codes, 128);
		for (int i = 0; i < n; i++)
			class_view_key(&v, codes[i]);
		if (n >= 0) {
			struct canvas *c = canvas_new(o->dump_rows, o->dump_cols);
			struct render_opts ro = {!o->ascii};
			render_class(&v, c, &ro);
			print_canvas(c);
			canvas_free(c);
		}
		classbook_free(&v.book);
		return n < 0 ? 2 : 0;
	}
	int unicode;
	if (term_start(!o->no_color && !getenv("NO_COLOR"), &unicode, err,
		       sizeof(err)) < 0) {
		fprintf(stderr, "cudalab-ui: %s\n", err);
		classbook_free(&v.book);
		return 4;
	}
	struct render_opts ro = {unicode && !o->ascii};
	struct canvas *c = refit_canvas(NULL);
	int quit = 0, dirty = 1;
	while (!quit && !stop_signal) {
		struct pollfd p = {term_fd(), POLLIN, 0};
		if (!dirty && poll(&p, 1, 500) < 0 && errno != EINTR)
			break;
		int key;
		while ((key = term_key()) != -1) {
			dirty = 1;
			if (key == TERM_RESIZE)
				c = refit_canvas(c);
			else if (class_view_key(&v, key))
				quit = 1;
		}
		if (dirty && c) {
			render_class(&v, c, &ro);
			term_draw(c);
			dirty = 0;
		}
	}
	term_stop();
	canvas_free(c);
	classbook_free(&v.book);
	if (stop_signal)
		rc = 128 + stop_signal;
	return rc;
}

int main(int argc, char **argv)
{
	struct options o;
	if (parse(argc, argv, &o) < 0)
		return 2;
	if (o.gradebook) {
		install_signals();
		return show_class(&o);
	}
	struct ui_state s;
	ui_state_init(&s);
	if (o.replay) {
		const char *base = strrchr(o.replay, '/');
		snprintf(s.replay, sizeof(s.replay), "%s",
			 !strcmp(o.replay, "-") ? "standard input"
						: base ? base + 1 : o.replay);
	}
	load_labs(&s, o.labs_file);
	struct event_source src = EVENT_SOURCE_INIT;
	struct event_source xsrc = EVENT_SOURCE_INIT;
	xsrc.explain = 1;
	char err[512];
	if (o.replay && source_open_file(&src, o.replay, err, sizeof(err)) < 0) {
		fprintf(stderr, "cudalab-ui: %s\n", err);
		return 2;
	}
	if (o.dump_rows) {
		int rc = dump(&o, &s, &src);
		source_close(&src);
		ui_state_release(&s);
		return rc;
	}

	int unicode;
	if (term_start(!o.no_color && !getenv("NO_COLOR"), &unicode, err,
		       sizeof(err)) < 0) {
		fprintf(stderr, "cudalab-ui: %s\n", err);
		return 4;
	}
	install_signals();

	struct render_opts ro = {unicode && !o.ascii};
	int next_lab = 0, history_loaded = 0, last_status = 0;
	s.can_explain = o.grader && o.root;
	if (!o.replay) {
		s.can_rerun = 1;
		spawn(&src, &o, o.labs[next_lab++], o.step, &s);
	}
	struct canvas *c = refit_canvas(NULL);
	int dirty = 1, quit = 0;
	while (!quit && !stop_signal) {
		struct pollfd p[3] = {{term_fd(), POLLIN, 0}, {src.fd, POLLIN, 0},
				      {xsrc.fd, POLLIN, 0}};
		if (!dirty && poll(p, 3, 250) < 0 && errno != EINTR)
			break;
		if (source_pump(&xsrc, &s))
			dirty = 1;
		if (source_pump(&src, &s)) {
			dirty = 1;
			if (!history_loaded && s.lab[0] && o.history) {
				ui_state_load_history(&s, o.history);
				history_loaded = 1;
			}
			if (src.exit_status >= 0)
				last_status = src.exit_status;
			/* a queue of labs (run.py test with no lab): next one */
			if (src.fd < 0 && !o.replay && next_lab < o.nlabs &&
			    s.run_ended)
				spawn(&src, &o, o.labs[next_lab++], NULL, &s);
		}
		int key;
		while ((key = term_key()) != -1) {
			dirty = 1;
			if (key == TERM_RESIZE) {
				c = refit_canvas(c);
				continue;
			}
			enum ui_action act = ui_state_key(&s, key);
			int li = lab_index(&s, s.lab);
			switch (act) {
			case ACT_QUIT:
				quit = 1;
				break;
			case ACT_RERUN_STEP:
				spawn(&src, &o, s.lab, ui_state_selected(&s)->id, &s);
				break;
			case ACT_RERUN_LAB:
				spawn(&src, &o, s.lab, NULL, &s);
				break;
			case ACT_EXPLAIN:
				explain_step(&xsrc, &o, s.lab,
					     ui_state_selected(&s)->id, &s);
				break;
			case ACT_PREV_LAB:
			case ACT_NEXT_LAB:
				li += act == ACT_NEXT_LAB ? 1 : -1;
				if (li >= 0 && li < s.nlabs) {
					history_loaded = 0;
					spawn(&src, &o, s.labs[li].name, NULL, &s);
				}
				break;
			default:
				break;
			}
		}
		if (dirty && c) {
			render(&s, c, &ro);
			term_draw(c);
			dirty = 0;
		}
	}
	int running = src.fd >= 0 && src.pid > 0;
	source_close(&src);
	source_close(&xsrc);
	term_stop();
	canvas_free(c);
	ui_state_release(&s);
	if (stop_signal)
		return 128 + stop_signal;
	if (o.replay)
		return 0;
	return running ? 130 : last_status;
}
