#include "state.h"
#include "event.h"
#include "jsonl.h"

#include <stdio.h>
#include <string.h>

static void copy(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

#define COPY(dst, src) copy(dst, sizeof(dst), src)

/* Drop everything a step owns. */
static void step_free(struct ui_step *st)
{
	json_t **owned[] = {&st->diagnostics, &st->resources, &st->ptx,
			    &st->launch,      &st->profile,   &st->checks,
			    &st->cases,       &st->guards,    &st->errors,
			    &st->timings,     &st->sweep};
	for (size_t i = 0; i < sizeof(owned) / sizeof(owned[0]); i++) {
		json_decref(*owned[i]);
		*owned[i] = NULL;
	}
}

/* Forget a step's last run (keep its identity, hint, threshold, history). */
static void step_clear_run(struct ui_step *st)
{
	step_free(st);
	st->phase = PH_QUEUED;
	st->verdict[0] = st->summary[0] = st->progress[0] = '\0';
	st->progress_frac = 0;
	st->has_timing = 0;
	st->median_us = st->gbps = st->pct_of_copy = st->speedup = 0;
	st->implemented = -1;
	st->todo[0] = '\0';
	st->checks = json_array();
	st->cases = json_array();
	st->guards = json_array();
	st->errors = json_array();
	st->timings = json_array();
	st->sweep = json_array();
}

void ui_state_init(struct ui_state *s)
{
	memset(s, 0, sizeof(*s));
	s->view = VIEW_STEPS;
}

void ui_state_release(struct ui_state *s)
{
	for (int i = 0; i < s->nsteps; i++)
		step_free(&s->steps[i]);
	s->nsteps = 0;
	json_decref(s->explain.events);
	s->explain.events = NULL;
}

int ui_event_is_explain(const json_t *ev)
{
	static const char *const kinds[] = {"explain", "accesses", "sass",
					    "advice", "roofline"};
	const char *k = event_kind(ev);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(k, kinds[i]))
			return 1;
	return !strcmp(k, "profile") && !strcmp(event_str(ev, "set"), "explain");
}

void ui_state_explain_begin(struct ui_state *s, const char *step)
{
	json_decref(s->explain.events);
	s->explain.events = json_array();
	COPY(s->explain.step, step);
	s->explain.running = 1;
	s->explain.problem[0] = '\0';
	s->view = VIEW_EXPLAIN;
	s->scroll = 0;
}

void ui_state_explain_apply(struct ui_state *s, const json_t *ev)
{
	if (!ui_event_is_explain(ev) && strcmp(event_kind(ev), "resources"))
		return;
	if (!s->explain.events)
		s->explain.events = json_array();
	json_array_append(s->explain.events, (json_t *)ev);
}

void ui_state_explain_closed(struct ui_state *s, const char *why)
{
	s->explain.running = 0;
	COPY(s->explain.problem, why);
}

static struct ui_step *find_step(struct ui_state *s, const char *id)
{
	for (int i = 0; i < s->nsteps; i++)
		if (!strcmp(s->steps[i].id, id))
			return &s->steps[i];
	return NULL;
}

static void threshold_from(struct ui_step *st, const json_t *checks)
{
	size_t i;
	json_t *c;
	json_array_foreach(checks, i, c)
	{
		if (!strcmp(event_str(c, "metric"), "pct_of_copy") &&
		    !strcmp(event_str(c, "op"), ">="))
			st->threshold_pct = event_num(c, "bound");
	}
}

static void on_run_begin(struct ui_state *s, const json_t *ev)
{
	if (strcmp(s->lab, event_str(ev, "lab"))) {
		ui_state_release(s);
		s->selected = 0;
		s->scroll = 0;
		s->view = VIEW_STEPS;
	}
	COPY(s->lab, event_str(ev, "lab"));
	COPY(s->lab_title, event_str(ev, "title"));
	COPY(s->mode, event_str(ev, "mode"));
	COPY(s->commit, event_str(ev, "commit"));
	s->run_active = 1;
	s->run_ended = 0;
	s->activity[0] = '\0';
	s->stream_truncated = 0;
	s->run_verdict[0] = '\0';
	s->has_vendor = 0;
	size_t i;
	json_t *step;
	json_array_foreach(json_object_get(ev, "steps"), i, step)
	{
		struct ui_step *st = find_step(s, event_str(step, "id"));
		if (!st) {
			if (s->nsteps >= UI_MAX_STEPS)
				continue;
			st = &s->steps[s->nsteps++];
			memset(st, 0, sizeof(*st));
			COPY(st->id, event_str(step, "id"));
			st->threshold_pct = -1;
		}
		COPY(st->title, event_str(step, "title"));
		COPY(st->file, event_str(step, "file"));
		if (*event_str(step, "hint"))
			COPY(st->hint, event_str(step, "hint"));
		threshold_from(st, json_object_get(step, "checks"));
		step_clear_run(st);
	}
}

static void on_device(struct ui_state *s, const json_t *ev)
{
	s->device_known = 1;
	s->device_available = json_is_true(json_object_get(ev, "available"));
	COPY(s->device_name, event_str(ev, "name"));
	COPY(s->device_reason, event_str(ev, "reason"));
	COPY(s->cc, event_str(ev, "cc"));
	COPY(s->driver, event_str(ev, "driver"));
	COPY(s->runtime, event_str(ev, "runtime"));
	COPY(s->copy_method, event_str(ev, "copy_method"));
	s->sm_count = (int)event_num(ev, "sm_count");
	s->copy_gbps = event_num(ev, "copy_gbps");
}

static void keep(json_t **slot, const json_t *v)
{
	json_decref(*slot);
	*slot = json_deep_copy(v);
}

static void add_history(struct ui_step *st, double gbps)
{
	if (st->nhistory == UI_HISTORY) {
		memmove(st->history, st->history + 1,
			sizeof(double) * (UI_HISTORY - 1));
		st->nhistory--;
	}
	st->history[st->nhistory++] = gbps;
}

static void on_step_event(struct ui_state *s, const char *kind,
			  const json_t *ev)
{
	struct ui_step *st = find_step(s, event_str(ev, "step"));
	if (!st)
		return;
	if (!strcmp(kind, "compile")) {
		const char *status = event_str(ev, "status");
		if (!strcmp(status, "started")) {
			st->phase = PH_COMPILING;
		} else {
			st->phase = PH_COMPILED;
			keep(&st->diagnostics, json_object_get(ev, "diagnostics"));
		}
	} else if (!strcmp(kind, "resources")) {
		keep(&st->resources, json_object_get(ev, "kernels"));
	} else if (!strcmp(kind, "ptx")) {
		keep(&st->ptx, ev);
	} else if (!strcmp(kind, "step_begin")) {
		st->phase = PH_RUNNING;
		COPY(st->progress, "starting");
	} else if (!strcmp(kind, "progress") &&
		   !strcmp(event_str(ev, "phase"), "sweep")) {
		/* the lab's sweep runs after every step has ended */
		snprintf(s->activity, sizeof(s->activity), "sweep %d/%d · %s",
			 (int)event_num(ev, "done") + 1,
			 (int)event_num(ev, "total"), st->id);
	} else if (!strcmp(kind, "progress") &&
		   !strcmp(event_str(ev, "phase"), "waiting for the GPU")) {
		/* another run is timing on this GPU (common/gpulock.h) */
		snprintf(st->progress, sizeof(st->progress),
			 "waiting for the GPU %d s",
			 (int)event_num(ev, "waited_s"));
		st->progress_frac = 0;
	} else if (!strcmp(kind, "progress") &&
		   !strcmp(event_str(ev, "phase"), "build")) {
		/* a compile ended: its "compile" event follows with the facts */
	} else if (!strcmp(kind, "progress")) {
		double done = event_num(ev, "done"), total = event_num(ev, "total");
		const char *phase = event_str(ev, "phase");
		snprintf(st->progress, sizeof(st->progress), "%s %d/%d",
			 !strcmp(phase, "timing")  ? "timing"
			 : !strcmp(phase, "sweep") ? "sweep"
						   : "case",
			 (int)done + 1, (int)total);
		st->progress_frac = total > 0 ? (done + 1) / total : 0;
	} else if (!strcmp(kind, "case")) {
		if (!json_is_true(json_object_get(ev, "ok")))
			json_array_append(st->cases, (json_t *)ev);
	} else if (!strcmp(kind, "guard")) {
		json_array_append(st->guards, (json_t *)ev);
	} else if (!strcmp(kind, "error")) {
		json_array_append(st->errors, (json_t *)ev);
	} else if (!strcmp(kind, "launch")) {
		keep(&st->launch, ev);
	} else if (!strcmp(kind, "timing")) {
		json_array_append(st->timings, (json_t *)ev);
	} else if (!strcmp(kind, "sweep")) {
		json_array_append(st->sweep, (json_t *)ev);
	} else if (!strcmp(kind, "profile")) {
		keep(&st->profile, ev);
	} else if (!strcmp(kind, "check")) {
		json_array_append(st->checks, (json_t *)ev);
		if (st->threshold_pct < 0 &&
		    !strcmp(event_str(ev, "metric"), "pct_of_copy") &&
		    !strcmp(event_str(ev, "op"), ">="))
			st->threshold_pct = event_num(ev, "required");
		/* a bar relative to the reference, in % of copy terms */
		if (!strcmp(event_str(ev, "metric"), "pct_of_reference") &&
		    json_is_number(json_object_get(ev, "required_pct_of_copy")))
			st->threshold_pct = event_num(ev, "required_pct_of_copy");
	} else if (!strcmp(kind, "step_end")) {
		st->phase = PH_DONE;
		COPY(st->verdict, event_str(ev, "verdict"));
		COPY(st->summary, event_str(ev, "summary"));
		if (*event_str(ev, "hint"))
			COPY(st->hint, event_str(ev, "hint"));
		st->progress[0] = '\0';
		json_t *impl = json_object_get(ev, "implemented");
		st->implemented = json_is_boolean(impl) ? json_is_true(impl)
							: -1;
		if (json_is_false(impl))
			snprintf(st->todo, sizeof(st->todo), "%s:%d",
				 event_str(ev, "todo_file"),
				 (int)event_num(ev, "todo_line"));
		if (json_is_number(json_object_get(ev, "gbps"))) {
			st->has_timing = 1;
			st->median_us = event_num(ev, "median_us");
			st->gbps = event_num(ev, "gbps");
			st->pct_of_copy = event_num(ev, "pct_of_copy");
			/* a lab that times its own baseline reports the
			 * speedup over it; else over step 1 of this run */
			st->speedup = json_is_number(json_object_get(
					      ev, "speedup_vs_baseline"))
					      ? event_num(ev, "speedup_vs_baseline")
					      : event_num(ev, "speedup_vs_first");
			add_history(st, st->gbps);
		}
	}
}

void ui_state_apply(struct ui_state *s, const json_t *ev)
{
	const char *kind = event_kind(ev);
	if (ui_event_is_explain(ev)) {
		/* a replayed explain run: its view is there for `e` */
		ui_state_explain_apply(s, ev);
		return;
	}
	if (!strcmp(kind, "run_begin")) {
		on_run_begin(s, ev);
	} else if (!strcmp(kind, "device")) {
		on_device(s, ev);
	} else if (!strcmp(kind, "run_end")) {
		s->activity[0] = '\0';
		s->run_active = 0;
		s->run_ended = 1;
		COPY(s->run_verdict, event_str(ev, "verdict"));
		s->passed = (int)event_num(ev, "passed");
		s->failed = (int)event_num(ev, "failed");
		s->not_graded = (int)event_num(ev, "not_graded");
		s->total = (int)event_num(ev, "total");
		s->run_seconds = event_num(ev, "seconds");
		if (s->total < s->nsteps) {
			/* a rerun of some steps: count every step shown */
			s->passed = s->failed = s->not_graded = 0;
			for (int i = 0; i < s->nsteps; i++) {
				const char *v = s->steps[i].verdict;
				s->passed += !strcmp(v, "pass");
				s->not_graded += !strcmp(v, "not_graded") ||
						 !*v;
				s->failed += *v && strcmp(v, "pass") &&
					     strcmp(v, "not_graded");
			}
			s->total = s->nsteps;
			COPY(s->run_verdict, s->failed ? "fail"
					     : s->not_graded ? "not_graded"
							     : "pass");
		}
		for (int i = 0; i < s->nlabs; i++)
			if (!strcmp(s->labs[i].name, s->lab) && s->total == s->labs[i].steps)
				s->labs[i].passed = s->passed;
	} else if (!strcmp(kind, "queued")) {
		/* a remote run waiting in the workshop server's queue */
		s->run_active = 1;
		snprintf(s->activity, sizeof(s->activity),
			 "queued on the server: %d ahead (about %.0f s)",
			 (int)event_num(ev, "ahead"), event_num(ev, "eta_s"));
	} else if (!strcmp(kind, "server")) {
		snprintf(s->activity, sizeof(s->activity),
			 "on the server's GPU %s", event_str(ev, "gpu"));
	} else if (!strcmp(kind, "timing") &&
		   !strcmp(event_str(ev, "who"), "vendor")) {
		s->has_vendor = 1;
		COPY(s->vendor_name, event_str(ev, "name"));
		s->vendor_gbps = event_num(ev, "gbps");
		s->vendor_pct = event_num(ev, "pct_of_copy");
	} else if (*event_str(ev, "step")) {
		on_step_event(s, kind, ev);
	}
}

void ui_state_bad_line(struct ui_state *s, long lineno, const char *why)
{
	if (!s->bad_lines++)
		snprintf(s->bad_line, sizeof(s->bad_line),
			 "ignored a malformed line %ld of the event stream: %s",
			 lineno, why);
}

void ui_state_stream_closed(struct ui_state *s, const char *why)
{
	s->stream_closed = 1;
	if (!strcmp(s->mode, "explain") && json_array_size(s->explain.events)) {
		/* a recorded explain run ends with its explanations */
		s->run_active = 0;
		return;
	}
	if (s->run_active || !s->run_ended) {
		s->stream_truncated = 1;
		s->run_active = 0;
		snprintf(s->stream_problem, sizeof(s->stream_problem),
			 "the event stream ended before the run finished%s%s",
			 why && *why ? ": " : "", why ? why : "");
		for (int i = 0; i < s->nsteps; i++)
			if (s->steps[i].phase != PH_DONE &&
			    s->steps[i].phase != PH_QUEUED) {
				s->steps[i].phase = PH_DONE;
				COPY(s->steps[i].verdict, "incomplete");
				COPY(s->steps[i].summary,
				     "no result: the run stopped while this step "
				     "was in progress");
			}
	}
}

void ui_state_set_labs(struct ui_state *s, const json_t *list)
{
	s->nlabs = 0;
	size_t i;
	json_t *lab;
	json_array_foreach(list, i, lab)
	{
		if (s->nlabs >= UI_MAX_LABS)
			break;
		struct ui_lab *l = &s->labs[s->nlabs++];
		COPY(l->name, event_str(lab, "name"));
		COPY(l->title, event_str(lab, "title"));
		l->order = (int)event_num(lab, "order");
		l->passed = (int)event_num(lab, "passed");
		l->steps = (int)event_num(lab, "steps");
	}
}

static void history_line(void *arg, json_t *h)
{
	struct ui_state *s = arg;
	struct ui_step *st = !strcmp(event_str(h, "lab"), s->lab)
				     ? find_step(s, event_str(h, "step"))
				     : NULL;
	if (st && json_is_number(json_object_get(h, "gbps")))
		add_history(st, event_num(h, "gbps"));
}

void ui_state_load_history(struct ui_state *s, const char *path)
{
	FILE *f = path ? fopen(path, "r") : NULL;
	if (!f)
		return;
	struct jsonl_reader r = JSONL_READER_INIT;
	r.on_value = history_line;
	r.arg = s;
	jsonl_read_file(&r, f);
	jsonl_release(&r);
	fclose(f);
}

const struct ui_step *ui_state_selected(const struct ui_state *s)
{
	if (s->selected < 0 || s->selected >= s->nsteps)
		return NULL;
	return &s->steps[s->selected];
}

enum ui_action ui_state_key(struct ui_state *s, int key)
{
	s->notice[0] = '\0';
	if (s->view == VIEW_HELP) {
		if (key == 'q')
			return ACT_QUIT;
		s->view = VIEW_STEPS;
		return ACT_NONE;
	}
	switch (key) {
	case 'q':
		return ACT_QUIT;
	case '?':
		s->view = VIEW_HELP;
		return ACT_NONE;
	case UK_UP:
	case 'k':
		if (s->view == VIEW_DETAILS || s->view == VIEW_EXPLAIN)
			s->scroll = s->scroll > 0 ? s->scroll - 1 : 0;
		else if (s->selected > 0)
			s->selected--;
		return ACT_NONE;
	case UK_DOWN:
	case 'j':
		if (s->view == VIEW_DETAILS || s->view == VIEW_EXPLAIN)
			s->scroll++;
		else if (s->selected + 1 < s->nsteps)
			s->selected++;
		return ACT_NONE;
	case UK_PGUP:
		s->scroll = s->scroll > 10 ? s->scroll - 10 : 0;
		return ACT_NONE;
	case UK_PGDN:
		s->scroll += 10;
		return ACT_NONE;
	case UK_HOME:
		s->scroll = 0;
		if (s->view == VIEW_STEPS)
			s->selected = 0;
		return ACT_NONE;
	case UK_ENTER:
		if (s->nsteps) {
			s->view = VIEW_DETAILS;
			s->scroll = 0;
		}
		return ACT_NONE;
	case UK_BACK:
	case 27:
		s->view = VIEW_STEPS;
		return ACT_NONE;
	case UK_LEFT:
	case UK_RIGHT:
		if (s->view != VIEW_STEPS || s->nlabs < 2)
			return ACT_NONE;
		if (!s->can_rerun || s->run_active) {
			snprintf(s->notice, sizeof(s->notice), "%s",
				 s->can_rerun ? "a run is in progress: wait for "
						"it to finish"
					      : "switching labs is not available "
						"in a replay");
			return ACT_NONE;
		}
		return key == UK_LEFT ? ACT_PREV_LAB : ACT_NEXT_LAB;
	case 'e':
		if (!s->can_explain && json_array_size(s->explain.events)) {
			s->view = VIEW_EXPLAIN;
			s->scroll = 0;
			return ACT_NONE;
		}
		if (!s->can_explain) {
			snprintf(s->notice, sizeof(s->notice),
				 "explain needs the grader: `python3 run.py "
				 "explain %s --step K`", s->lab);
			return ACT_NONE;
		}
		if (s->run_active) {
			snprintf(s->notice, sizeof(s->notice),
				 "a run is in progress: wait for it to finish");
			return ACT_NONE;
		}
		return ui_state_selected(s) ? ACT_EXPLAIN : ACT_NONE;
	case 'r':
	case 'R':
		if (!s->can_rerun) {
			snprintf(s->notice, sizeof(s->notice),
				 "rerun is not available in a replay");
			return ACT_NONE;
		}
		if (s->run_active) {
			snprintf(s->notice, sizeof(s->notice),
				 "a run is in progress: wait for it to finish");
			return ACT_NONE;
		}
		if (key == 'r' && !ui_state_selected(s))
			return ACT_NONE;
		return key == 'r' ? ACT_RERUN_STEP : ACT_RERUN_LAB;
	default:
		return ACT_NONE;
	}
}
