#include "event.h"

#include <string.h>

static const char *const kinds[] = {
	"run_begin", "device", "step_begin", "compile", "resources", "ptx",
	"progress", "profile", "sanitizer", "case", "guard", "launch", "timing",
	"todo", "error", "integrity", "gpu_state", "lint", "sandbox", "sweep",
	"calibration",
	/* explain's phase (grader/explain.h) */
	"explain", "accesses", "sass", "advice", "roofline",
	"harness_end", "check", "step_end", "run_end",
	/* the workshop server's, around a remote run (tools/server.py) */
	"server", "queued", "job_end",
};

int event_kind_known(const char *name)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(kinds[i], name) == 0)
			return 1;
	return 0;
}

const char *event_str(const json_t *ev, const char *key)
{
	const char *v = json_string_value(json_object_get(ev, key));
	return v ? v : "";
}

double event_num(const json_t *ev, const char *key)
{
	return json_number_value(json_object_get(ev, key));
}

const char *event_kind(const json_t *ev)
{
	const char *k = json_string_value(json_object_get(ev, "event"));
	return k ? k : "";
}

int event_write(FILE *out, const json_t *ev)
{
	if (json_dumpf(ev, out, JSON_COMPACT | JSON_ENSURE_ASCII) != 0)
		return -1;
	if (fputc('\n', out) == EOF || fflush(out) != 0)
		return -1;
	return 0;
}

json_t *event_parse(const char *line, char *err, size_t errlen)
{
	json_error_t jerr;
	json_t *ev = json_loads(line, JSON_REJECT_DUPLICATES, &jerr);
	if (!ev) {
		snprintf(err, errlen, "not JSON: %s", jerr.text);
		return NULL;
	}
	if (!json_is_object(ev)) {
		snprintf(err, errlen, "not a JSON object");
		json_decref(ev);
		return NULL;
	}
	const char *kind = event_kind(ev);
	if (!event_kind_known(kind)) {
		snprintf(err, errlen, "unknown event kind \"%s\"", kind);
		json_decref(ev);
		return NULL;
	}
	return ev;
}

/* --- constructors (event.h) ------------------------------------------- */

static json_t *make(const char *kind)
{
	return json_pack("{s:s}", "event", kind);
}

static void put_str(json_t *ev, const char *key, const char *v)
{
	if (v)
		json_object_set_new(ev, key, json_string(v));
}

json_t *event_error(const char *step, const char *kind, const char *message)
{
	json_t *ev = make("error");
	put_str(ev, "step", step);
	put_str(ev, "kind", kind);
	put_str(ev, "message", message);
	return ev;
}

json_t *event_progress(const char *step, const char *phase, int done,
		       int total, const char *message)
{
	json_t *ev = make("progress");
	put_str(ev, "step", step);
	put_str(ev, "phase", phase);
	json_object_set_new(ev, "done", json_integer(done));
	json_object_set_new(ev, "total", json_integer(total));
	put_str(ev, "message", message);
	return ev;
}

json_t *event_build_progress(const char *what, const char *part, int done,
			     int total)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:i, s:i}", "event", "progress",
			 "phase", "build", "what", what,
			 strcmp(what, "harness") ? "step" : "file", part,
			 "done", done, "total", total);
}

json_t *event_step_begin(const char *step, const char *title,
			 const char *file)
{
	return json_pack("{s:s, s:s, s:s, s:s}", "event", "step_begin", "step",
			 step, "title", title, "file", file);
}

json_t *event_compile_started(const char *step, const char *file)
{
	return json_pack("{s:s, s:s, s:s, s:s}", "event", "compile", "step",
			 step, "status", "started", "file", file);
}

json_t *event_compile_skipped(const char *step, const char *file,
			      const char *reason)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s}", "event", "compile",
			 "step", step, "status", "skipped", "file", file,
			 "reason", reason);
}

json_t *event_compile_result(const char *step, const char *status,
			     double seconds, json_t *diagnostics,
			     const char *output, const char *exe)
{
	json_t *ev = json_pack("{s:s, s:s, s:s, s:f, s:O, s:s}", "event",
			       "compile", "step", step, "status", status,
			       "seconds", seconds, "diagnostics", diagnostics,
			       "output", output);
	put_str(ev, "exe", exe);
	return ev;
}

json_t *event_lint(const char *step, const char *file, const char *check,
		   int count, json_t *problems)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:i, s:o}", "event", "lint",
			 "check", check, "step", step, "file", file, "count",
			 count, "problems", problems);
}

json_t *event_lint_problem(int line, json_t *message)
{
	return json_pack("{s:i, s:o}", "line", line, "message", message);
}

json_t *event_resources(const char *step, json_t *kernels)
{
	return json_pack("{s:s, s:s, s:O}", "event", "resources", "step", step,
			 "kernels", kernels);
}

json_t *event_ptx(const char *step, const json_t *facts, const char *ptx_file,
		  const char *cubin_file)
{
	json_t *ev = json_deep_copy(facts);
	if (!ev)
		ev = json_object();
	json_object_set_new(ev, "event", json_string("ptx"));
	put_str(ev, "step", step);
	put_str(ev, "ptx_file", ptx_file);
	put_str(ev, "cubin_file", cubin_file);
	return ev;
}

json_t *event_sandbox(int on, const char *model, const char *reason)
{
	json_t *ev = json_pack("{s:s, s:b, s:b}", "event", "sandbox", "on", on,
			       "unsandboxed", !on);
	put_str(ev, "model", model);
	put_str(ev, "reason", reason);
	return ev;
}

json_t *event_sanitizer(const char *step, const char *tool, long errors,
			const char *reason, const char *output)
{
	json_t *ev = json_pack("{s:s, s:s, s:s}", "event", "sanitizer", "step",
			       step, "tool", tool);
	if (errors < 0)
		put_str(ev, "reason", reason);
	put_str(ev, "output", output);
	json_object_set_new(ev, "measured", json_boolean(errors >= 0));
	if (errors >= 0)
		json_object_set_new(ev, "errors", json_integer(errors));
	return ev;
}

json_t *event_profile(const char *step, const char *tool, int measured)
{
	return json_pack("{s:s, s:s, s:s, s:b}", "event", "profile", "step",
			 step, "tool", tool, "measured", measured);
}

json_t *event_sweep(const char *step, const char *define, int value)
{
	return json_pack("{s:s, s:s, s:s, s:i}", "event", "sweep", "step", step,
			 "define", define, "value", value);
}

json_t *event_calibration(const char *step, json_t *gbps, json_t *ci_rel,
			  const char *into)
{
	return json_pack("{s:s, s:s, s:O, s:O, s:s}", "event", "calibration",
			 "step", step, "gbps", gbps, "ci_rel", ci_rel, "into",
			 into);
}

json_t *event_check(const struct event_check *c)
{
	json_t *ev = json_pack("{s:s, s:s, s:s, s:s, s:f, s:s, s:s}", "event",
			       "check", "step", c->step, "id", c->id, "metric",
			       c->metric, "required", c->required, "op", c->op,
			       "unit", c->unit);
	if (c->has_measured) {
		json_object_set_new(ev, "measured", json_real(c->measured));
		json_object_set_new(ev, "margin", json_real(c->margin));
		if (c->has_margin_pct)
			json_object_set_new(ev, "margin_pct",
					    json_real(c->margin_pct));
		if (c->noise > 0)
			json_object_set_new(ev, "noise", json_real(c->noise));
		if (c->has_required_pct_of_copy)
			json_object_set_new(ev, "required_pct_of_copy",
					    json_real(c->required_pct_of_copy));
	}
	put_str(ev, "status", c->status);
	put_str(ev, "message", c->message);
	if (c->needs_gpu)
		json_object_set_new(ev, "needs_gpu", json_true());
	return ev;
}

json_t *event_step_end(const char *step, const char *verdict,
		       const char *summary, double seconds)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:f}", "event", "step_end",
			 "step", step, "verdict", verdict, "summary", summary,
			 "seconds", seconds);
}

json_t *event_run_begin(const char *lab, const char *title,
			const char *mode, const char *started, json_t *steps,
			const char *source, const char *commit)
{
	return json_pack("{s:s, s:i, s:s, s:s, s:s, s:s, s:o, s:s, s:s}",
			 "event", "run_begin", "schema", EVENT_SCHEMA, "lab",
			 lab, "title", title, "mode", mode, "started", started,
			 "steps", steps, "source", source, "commit", commit);
}

json_t *event_run_end(const char *lab, const char *verdict, int passed,
		      int failed, int not_graded, int total, double seconds)
{
	return json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:f}", "event",
			 "run_end", "lab", lab, "verdict", verdict, "passed",
			 passed, "failed", failed, "not_graded", not_graded,
			 "total", total, "seconds", seconds);
}

json_t *event_no_device(const char *reason)
{
	return json_pack("{s:s, s:b, s:s}", "event", "device", "available", 0,
			 "reason", reason);
}
