/*
 * state — everything the dashboard knows, as plain data.
 *
 * The state changes only through the functions below: events from the
 * grader (ui_state_apply), problems with the stream itself, and keys
 * (ui_state_key). None of them touches the terminal, so every transition is
 * unit-tested without one; render.h draws a state, and never changes it.
 *
 * A run_begin for the lab already shown resets only the steps it names (a
 * rerun of one step keeps the others' results); a run_begin for another lab
 * replaces the step list. The run's counts (passed, failed, not graded, of
 * total) are those of every step shown, so a rerun of one step keeps the
 * others in the footer.
 */
#ifndef CUDALAB_UI_STATE_H
#define CUDALAB_UI_STATE_H

#include <jansson.h>

#define UI_MAX_STEPS 32
#define UI_MAX_LABS 32
#define UI_HISTORY 16

enum step_phase {
	PH_QUEUED,
	PH_COMPILING,
	PH_COMPILED,
	PH_RUNNING,
	PH_DONE,
};

struct ui_step {
	char id[16];
	char title[96];
	char file[96];
	char hint[512];
	enum step_phase phase;
	char verdict[24];      /* when PH_DONE: pass, fail, crash, ... */
	char summary[768];
	char progress[48];     /* "case 12/38", "timing 2/5" */
	double progress_frac;  /* 0..1 of the current phase */
	int has_timing;
	double median_us, gbps, pct_of_copy, speedup;
	double threshold_pct;  /* the pct_of_copy bound; < 0 when none */
	int implemented;       /* without a device, from the build: 1 the
				  step is written, 0 still the starter's
				  CUDALAB_TODO() stub, -1 not said */
	char todo[128];        /* "file:line" of that CUDALAB_TODO() */
	/* details, owned (json_decref on release) */
	json_t *diagnostics;   /* array */
	json_t *resources;     /* array of kernels */
	json_t *ptx;           /* object */
	json_t *launch;        /* object */
	json_t *profile;       /* object */
	json_t *checks;        /* array of check events */
	json_t *cases;         /* array of failed case events */
	json_t *guards;        /* array of guard events */
	json_t *errors;        /* array of error events */
	json_t *timings;       /* array of the step's timing events */
	json_t *sweep;         /* array of the step's sweep events (bench) */
	double history[UI_HISTORY]; /* GB/s of past runs, oldest first */
	int nhistory;
};

struct ui_lab {
	char name[32];
	char title[96];
	int order, passed, steps;
};

enum ui_view { VIEW_STEPS, VIEW_DETAILS, VIEW_HELP, VIEW_EXPLAIN };

/*
 * explain's view of a step (the `e` key: `cudalab-grader explain --json`
 * runs beside the dashboard and its events land here; or the explain
 * events of a replayed run). Shown in place, over the steps.
 */
struct ui_explain {
	char step[16];      /* the step asked for ("" when from a replay) */
	int running;        /* its grader is still at work */
	json_t *events;     /* explain's events, in order (owned) */
	char problem[300];  /* its grader's end, when not a clean one */
};

enum ui_key {
	UK_UP = 1000, UK_DOWN, UK_LEFT, UK_RIGHT, UK_ENTER, UK_BACK,
	UK_PGUP, UK_PGDN, UK_HOME, UK_END,
};

enum ui_action {
	ACT_NONE,
	ACT_QUIT,
	ACT_RERUN_STEP,
	ACT_RERUN_LAB,
	ACT_PREV_LAB,
	ACT_NEXT_LAB,
	ACT_EXPLAIN,   /* run `explain` on the selected step */
};

struct ui_state {
	/* the device */
	int device_known, device_available;
	char device_name[96], device_reason[256], cc[16], driver[16],
		runtime[16], copy_method[48];
	int sm_count;
	double copy_gbps;
	/* the run */
	char lab[32], lab_title[96], mode[16], commit[32];
	int run_active, run_ended;
	char activity[64];   /* lab-level work after the steps: "sweep 3/40 · v6" */
	char run_verdict[16];
	int passed, failed, not_graded, total;
	double run_seconds;
	struct ui_step steps[UI_MAX_STEPS];
	int nsteps;
	int has_vendor;
	char vendor_name[64];
	double vendor_gbps, vendor_pct;
	/* the workshop */
	struct ui_lab labs[UI_MAX_LABS];
	int nlabs;
	/* the stream */
	int bad_lines;
	char bad_line[256];       /* the first line that was not an event */
	char stream_problem[300]; /* the stream's early end, or a start error */
	int stream_closed, stream_truncated;
	/* the view */
	enum ui_view view;
	int selected;
	int scroll;
	int can_rerun;
	int can_explain; /* the grader is known (live mode, or given) */
	char notice[160];
	char replay[160];  /* the file replayed ("" when live): the header
			      says so */
	struct ui_explain explain;
};

void ui_state_init(struct ui_state *s);
void ui_state_release(struct ui_state *s);

void ui_state_apply(struct ui_state *s, const json_t *ev);
/* A line of the stream that was not an event (lineno from 1). */
void ui_state_bad_line(struct ui_state *s, long lineno, const char *why);
/* The stream reached its end (EOF); truncated unless run_end was seen. */
void ui_state_stream_closed(struct ui_state *s, const char *why);

/* The labs and progress from `cudalab-grader list --json` (an array). */
void ui_state_set_labs(struct ui_state *s, const json_t *list);
/* Past GB/s of this lab's steps from history.jsonl (lines of JSON). */
void ui_state_load_history(struct ui_state *s, const char *path);

/* True for the events of explain's phase (common/event.h): explain,
 * accesses, sass, advice, roofline, and profile with set "explain". */
int ui_event_is_explain(const json_t *ev);
/* `e` on step: a new explanation begins (the view switches to it). */
void ui_state_explain_begin(struct ui_state *s, const char *step);
/* An event of the explain run started for the view (any kind: only
 * explain's are kept). */
void ui_state_explain_apply(struct ui_state *s, const json_t *ev);
/* Its stream ended; why: the grader's last words when it failed. */
void ui_state_explain_closed(struct ui_state *s, const char *why);

/* A key press: moves the view; returns what the program must do. */
enum ui_action ui_state_key(struct ui_state *s, int key);

const struct ui_step *ui_state_selected(const struct ui_state *s);

#endif
