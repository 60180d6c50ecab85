/* gradebook — exporters of a graded class; see gradebook.h. */
#include "gradebook.h"
#include "jsonl.h"
#include "classbook.h"
#include "fsutil.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* gradebook_last_event's reader: keeps the last event of a kind. */
struct last_of {
	const char *kind;
	json_t *last;
};

static void keep_last(void *arg, json_t *ev)
{
	struct last_of *l = arg;
	const char *k = json_string_value(json_object_get(ev, "event"));
	if (k && !strcmp(k, l->kind)) {
		json_decref(l->last);
		l->last = json_incref(ev);
	}
}

json_t *gradebook_last_event(const char *path, const char *kind)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	struct last_of l = {kind, NULL};
	struct jsonl_reader r = JSONL_READER_INIT;
	r.on_value = keep_last;
	r.arg = &l;
	jsonl_read_file(&r, f);
	jsonl_release(&r);
	fclose(f);
	return l.last;
}

/* load_steps' reader: what one results file says, step by step. */
struct results_file {
	json_t *steps, *checks;
	int *finished, *unsandboxed;
};

static void results_line(void *arg, json_t *ev)
{
	struct results_file *rf = arg;
	const char *k = json_string_value(json_object_get(ev, "event"));
	const char *step = json_string_value(json_object_get(ev, "step"));
	if (k && step && !strcmp(k, "check")) {
		json_t *list = json_object_get(rf->checks, step);
		if (!list)
			json_object_set_new(rf->checks, step, list = json_array());
		json_array_append(list, ev);
	} else if (k && step && !strcmp(k, "step_end")) {
		json_t *c = json_object_get(rf->checks, step);
		json_object_set(ev, "checks", c ? c : json_array());
		json_object_set(rf->steps, step, ev);
	} else if (k && !strcmp(k, "run_end")) {
		*rf->finished = 1;
	} else if (k && !strcmp(k, "sandbox") &&
		   json_is_true(json_object_get(ev, "unsandboxed"))) {
		*rf->unsandboxed = 1; /* grade.h: SANDBOX_OFF */
	}
}

/* Per (student, lab): step id -> step_end event, plus its checks. */
static json_t *load_steps(const char *path, int *finished, int *unsandboxed)
{
	json_t *steps = json_object();
	*finished = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return steps;
	struct results_file rf = {steps, json_object(), finished, unsandboxed};
	struct jsonl_reader r = JSONL_READER_INIT;
	r.on_value = results_line;
	r.arg = &rf;
	jsonl_read_file(&r, f);
	jsonl_release(&r);
	json_decref(rf.checks);
	fclose(f);
	return steps;
}

static char *utf8_whole(char *s);

/* The row's intake notes, each followed by sep except the last. */
static const char *join_notes(json_t *row, const char *sep, char *buf,
			      size_t len)
{
	size_t n;
	json_t *note;
	buf[0] = 0;
	json_array_foreach(json_object_get(row, "notes"), n, note) {
		size_t used = strlen(buf);
		snprintf(buf + used, len - used, "%s%s", used ? sep : "",
			 json_string_value(note));
	}
	return utf8_whole(buf);
}

/* Bytes of the valid UTF-8 sequence at s and its code point; 0 when the
 * bytes are not one (a stray byte, a truncated or overlong sequence). */
static int utf8_next(const unsigned char *s, unsigned *cp)
{
	int n = s[0] < 0x80 ? 1 : (s[0] & 0xE0) == 0xC0 ? 2
		: (s[0] & 0xF0) == 0xE0 ? 3 : (s[0] & 0xF8) == 0xF0 ? 4 : 0;
	if (!n)
		return 0;
	unsigned c = n == 1 ? s[0] : s[0] & (0x7F >> n);
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3F);
	}
	static const unsigned least[] = {0, 0, 0x80, 0x800, 0x10000};
	if (c < least[n] || c > 0x10FFFF)
		return 0;
	*cp = c;
	return n;
}

/* Cut s before its first byte that does not begin a whole UTF-8 sequence:
 * text cut to a buffer's size (snprintf) may end inside a character, and
 * jansson refuses such a string, a spreadsheet misreads the file (red
 * team, 2026-11-24: a 4096-byte note cut inside a euro sign left a
 * student's results.json empty and the next students' unwritten). */
static char *utf8_whole(char *s)
{
	unsigned c;
	unsigned char *p = (unsigned char *)s;
	for (int n; *p; p += n)
		if (!(n = utf8_next(p, &c))) {
			*p = 0;
			break;
		}
	return s;
}

/* A cell of student-controlled text (a name, a compiler message): quoted,
 * newlines as spaces, capped, and never a formula: a spreadsheet runs a
 * cell that begins with = + - @ (or a tab or CR before one), so such a cell
 * gets a leading ' (OWASP's advice for CSV injection). */
#define CSV_CELL_MAX 2000
static void csv_field(FILE *f, const char *s)
{
	fputc('"', f);
	if (strchr("=+-@\t\r", *s) && *s)
		fputc('\'', f);
	/* whole characters only: a cut inside one makes the file unreadable
	 * as UTF-8 (red team, 2026-11-24); a byte that is not UTF-8 is ? */
	for (size_t n = 0; *s;) {
		unsigned c;
		int k = utf8_next((const unsigned char *)s, &c);
		if (n + (k ? k : 1) > CSV_CELL_MAX)
			break;
		if (!k) {
			fputc('?', f);
			s++, n++;
			continue;
		}
		if (*s == '"')
			fputc('"', f);
		if (*s == '\n' || *s == '\r')
			fputc(' ', f);
		else
			fwrite(s, 1, (size_t)k, f);
		s += k, n += (size_t)k;
	}
	fputc('"', f);
}

/* Text in an XML attribute or element: escaped, and without what XML 1.0
 * forbids even escaped (control characters but tab and newline, U+FFFE,
 * U+FFFF, surrogates, bytes that are not UTF-8): a compiler message that
 * quotes a student's #error must not make junit.xml unreadable. */
static void xml_text(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		unsigned c;
		int n = utf8_next(p, &c);
		if (!n) {
			p++; /* not UTF-8: dropped */
			continue;
		}
		if (c == '<')
			fputs("&lt;", f);
		else if (c == '>')
			fputs("&gt;", f);
		else if (c == '&')
			fputs("&amp;", f);
		else if (c == '"')
			fputs("&quot;", f);
		else if (c == '\n' || c == '\t')
			fputc((int)c, f);
		else if (c < 0x20 || (c >= 0x7F && c < 0xA0))
			fputc(' ', f);
		else if (!((c >= 0xD800 && c <= 0xDFFF) || c == 0xFFFE ||
			   c == 0xFFFF))
			fwrite(p, 1, (size_t)n, f);
		p += n;
	}
}

/*
 * The class as one JSON document: {"labs": {LAB: [step...]}, "students":
 * [{student, source, notes, passed, total, labs: {LAB: [step results]}}]}.
 */
static json_t *collect(const char *out_dir, json_t *intake)
{
	json_t *labs = json_object_get(intake, "steps");
	json_t *doc = json_pack("{s:O, s:[]}", "labs", labs, "students");
	json_t *rows = json_object_get(doc, "students");
	size_t i;
	json_t *st;
	json_array_foreach(json_object_get(intake, "students"), i, st) {
		const char *sid = json_string_value(json_object_get(st, "student"));
		json_t *row = json_pack("{s:s, s:O, s:O, s:{}}", "student", sid,
					"source", json_object_get(st, "source"),
					"notes", json_object_get(st, "notes"),
					"labs");
		int passed = 0, total = 0, not_graded = 0, unsandboxed = 0;
		const char *lab;
		json_t *steps;
		json_object_foreach(labs, lab, steps) {
			char path[PATH_MAX];
			snprintf(path, sizeof(path), "%s/results/%s/%s.jsonl",
				 out_dir, sid, lab);
			int submitted = json_object_get(
				json_object_get(st, "labs"), lab) != NULL;
			int finished = 0;
			json_t *ends = load_steps(path, &finished, &unsandboxed);
			/* why a step was not graded is said once per run, by
			 * its device event: each such step's row quotes it */
			json_t *dev = gradebook_last_event(path, "device");
			char why_ng[600] = "";
			if (dev && !json_is_true(json_object_get(dev, "available")))
				snprintf(why_ng, sizeof(why_ng),
					 "NOT GRADED: no CUDA device on the grading "
					 "machine (%s); no score: grade again on a "
					 "machine with a GPU",
					 json_string_value(json_object_get(dev, "reason")));
			json_decref(dev);
			json_t *out = json_array();
			size_t k;
			json_t *spec;
			json_array_foreach(steps, k, spec) {
				const char *id = json_string_value(
					json_object_get(spec, "id"));
				json_t *e = json_object_get(ends, id);
				const char *file = json_string_value(
					json_object_get(spec, "file"));
				int file_missing = 0;
				size_t m;
				json_t *mf;
				json_array_foreach(json_object_get(json_object_get(json_object_get(st, "labs"), lab), "missing"), m, mf)
					file_missing |= file && !strcmp(json_string_value(mf), file);
				json_t *r;
				if (file_missing) {
					char why[300];
					snprintf(why, sizeof(why),
						 "not submitted (%s)", file);
					r = json_pack("{s:s, s:s, s:s}", "step", id,
						      "verdict", "missing",
						      "summary", why);
				} else if (e) {
					r = json_deep_copy(e);
					const char *ev = json_string_value(
						json_object_get(r, "verdict"));
					if (ev && !strcmp(ev, "not_graded") && why_ng[0])
						json_object_set_new(r, "summary",
								    json_string(why_ng));
				} else {
					const char *v = !submitted ? "missing"
							: "incomplete";
					r = json_pack(
						"{s:s, s:s, s:s}", "step", id,
						"verdict", v, "summary",
						!submitted
							? "not submitted"
							: access(path, F_OK)
								  ? "not graded yet"
								  : "the grading run did "
								    "not finish this step");
				}
				json_object_del(r, "event");
				json_object_set(r, "title",
						json_object_get(spec, "title"));
				const char *v = json_string_value(
					json_object_get(r, "verdict"));
				passed += v && !strcmp(v, "pass");
				not_graded += v && !strcmp(v, "not_graded");
				total++;
				json_array_append_new(out, r);
			}
			(void)finished;
			json_decref(ends);
			json_object_set_new(json_object_get(row, "labs"), lab, out);
		}
		/* every row graded without the sandbox says so */
		json_object_set_new(row, "unsandboxed", json_boolean(unsandboxed));
		if (unsandboxed) {
			json_t *notes = json_deep_copy(json_object_get(row, "notes"));
			if (!json_is_array(notes)) {
				json_decref(notes);
				notes = json_array();
			}
			json_array_append_new(notes, json_string(
				"UNSANDBOXED: graded without the sandbox "
				"(--unsandboxed)"));
			json_object_set_new(row, "notes", notes);
		}
		json_object_set_new(row, "passed", json_integer(passed));
		json_object_set_new(row, "total", json_integer(total));
		json_object_set_new(row, "not_graded", json_integer(not_graded));
		json_array_append_new(rows, row);
	}
	return doc;
}

static int write_csv(const char *path, json_t *doc)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	json_t *labs = json_object_get(doc, "labs");
	fputs("student,source", f);
	const char *lab;
	json_t *steps;
	size_t k, i;
	json_t *spec, *row;
	json_object_foreach(labs, lab, steps) json_array_foreach(steps, k, spec)
	{
		const char *id = json_string_value(json_object_get(spec, "id"));
		fprintf(f, ",%s/%s,%s/%s %%copy", lab, id, lab, id);
	}
	fputs(",passed,total,not_graded,notes\n", f);
	json_array_foreach(json_object_get(doc, "students"), i, row) {
		csv_field(f, json_string_value(json_object_get(row, "student")));
		fputc(',', f);
		csv_field(f, json_string_value(json_object_get(row, "source")));
		json_object_foreach(labs, lab, steps) {
			json_t *res = json_object_get(json_object_get(row, "labs"),
						      lab);
			json_t *r;
			json_array_foreach(res, k, r) {
				fputc(',', f);
				csv_field(f, json_string_value(
						     json_object_get(r, "verdict")));
				json_t *pct = json_object_get(r, "pct_of_copy");
				if (json_is_number(pct))
					fprintf(f, ",%.1f", json_number_value(pct));
				else
					fputc(',', f);
			}
		}
		/* a row with steps not graded has no score: passed is left
		 * empty rather than a count that reads like a grade */
		long long ng = json_integer_value(json_object_get(row, "not_graded"));
		if (ng)
			fputc(',', f);
		else
			fprintf(f, ",%lld", json_integer_value(
						   json_object_get(row, "passed")));
		fprintf(f, ",%lld,%lld,",
			json_integer_value(json_object_get(row, "total")), ng);
		char notes[4096];
		join_notes(row, "; ", notes, sizeof(notes));
		if (ng) {
			size_t used = strlen(notes);
			snprintf(notes + used, sizeof(notes) - used,
				 "%sNOT GRADED: %lld step(s), no score (each "
				 "step's summary says why)", used ? "; " : "", ng);
		}
		csv_field(f, notes);
		fputc('\n', f);
	}
	return fclose(f);
}

static int write_gradescope(const char *out_dir, json_t *doc)
{
	int failed = 0;
	size_t i, k;
	json_t *row, *r;
	json_array_foreach(json_object_get(doc, "students"), i, row) {
		const char *sid = json_string_value(json_object_get(row, "student"));
		char dir[PATH_MAX], path[PATH_MAX + 16];
		snprintf(dir, sizeof(dir), "%s/gradescope/%s", out_dir, sid);
		if (mkdirs(dir) < 0) {
			failed = -1;
			continue; /* the other students still get theirs */
		}
		json_t *tests = json_array();
		const char *lab;
		json_t *res;
		json_object_foreach(json_object_get(row, "labs"), lab, res)
			json_array_foreach(res, k, r) {
			const char *v = json_string_value(json_object_get(r, "verdict"));
			char name[256];
			snprintf(name, sizeof(name), "%s %s: %s", lab,
				 json_string_value(json_object_get(r, "step")),
				 json_string_value(json_object_get(r, "title")));
			utf8_whole(name);
			int pass = v && !strcmp(v, "pass");
			char out[1400];
			snprintf(out, sizeof(out), "%s",
				 json_string_value(json_object_get(r, "summary")));
			utf8_whole(out);
			json_t *test = json_pack("{s:s, s:i, s:s, s:s}", "name",
						 name, "max_score", 1, "output",
						 out, "visibility", "visible");
			/* not graded: no score and no status, only the reason */
			if (!v || strcmp(v, "not_graded")) {
				json_object_set_new(test, "score",
						    json_integer(pass));
				json_object_set_new(test, "status",
						    json_string(pass ? "passed"
								     : "failed"));
			}
			json_array_append_new(tests, test);
		}
		char notes[4096];
		long long ng = json_integer_value(json_object_get(row, "not_graded"));
		if (ng)
			snprintf(notes, sizeof(notes),
				 "NOT GRADED: %lld step(s) could not be graded "
				 "(each test says why, e.g. no CUDA device on the "
				 "grading machine); no score is given. ", ng);
		else
			notes[0] = 0;
		size_t used = strlen(notes);
		join_notes(row, "\n", notes + used, sizeof(notes) - used);
		json_t *gs = json_pack(
			"{s:O, s:o, s:s}", "max_score", json_object_get(row, "total"),
			"tests", tests, "output", notes);
		if (!ng)
			json_object_set(gs, "score", json_object_get(row, "passed"));
		snprintf(path, sizeof(path), "%s/results.json", dir);
		if (!gs || json_dump_file(gs, path, JSON_INDENT(1)) < 0)
			failed = -1; /* and on to the next student */
		json_decref(gs);
	}
	return failed;
}

static int write_junit(const char *path, json_t *doc)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"cudalab\">\n", f);
	size_t i, k;
	json_t *row, *r;
	json_array_foreach(json_object_get(doc, "students"), i, row) {
		long long total = json_integer_value(json_object_get(row, "total"));
		long long passed = json_integer_value(json_object_get(row, "passed"));
		long long ng = json_integer_value(json_object_get(row, "not_graded"));
		fputs("  <testsuite name=\"", f);
		xml_text(f, json_string_value(json_object_get(row, "student")));
		fprintf(f, "\" tests=\"%lld\" failures=\"%lld\" skipped=\"%lld\">\n",
			total, total - passed - ng, ng);
		const char *lab;
		json_t *res;
		json_object_foreach(json_object_get(row, "labs"), lab, res)
			json_array_foreach(res, k, r) {
			const char *v = json_string_value(json_object_get(r, "verdict"));
			fputs("    <testcase classname=\"", f);
			xml_text(f, json_string_value(json_object_get(row, "student")));
			fputc('.', f);
			xml_text(f, lab);
			fputs("\" name=\"", f);
			xml_text(f, json_string_value(json_object_get(r, "step")));
			fputs(" ", f);
			xml_text(f, json_string_value(json_object_get(r, "title")));
			fprintf(f, "\" time=\"%.3f\"",
				json_number_value(json_object_get(r, "seconds")));
			if (v && !strcmp(v, "pass")) {
				fputs("/>\n", f);
				continue;
			}
			if (v && !strcmp(v, "not_graded")) {
				/* not a failure: JUnit's skipped, the reason as text */
				fputs(">\n      <skipped message=\"NOT GRADED\">", f);
				xml_text(f, json_string_value(json_object_get(r, "summary")));
				fputs("</skipped>\n    </testcase>\n", f);
				continue;
			}
			fputs(">\n      <failure type=\"", f);
			xml_text(f, v ? v : "");
			fputs("\" message=\"", f);
			xml_text(f, json_string_value(json_object_get(r, "summary")));
			fputs("\"/>\n    </testcase>\n", f);
		}
		fputs("  </testsuite>\n", f);
	}
	fputs("</testsuites>\n", f);
	return fclose(f);
}

/* Per step: how many passed, and the spread of % of copy over the class
 * (the numbers of the dashboard's class view: common/classbook.h). */
static void write_summary(FILE *f, json_t *doc)
{
	struct classbook b;
	char err[256];
	if (classbook_from_json(&b, doc, "gradebook.json", err, sizeof(err)) < 0) {
		fprintf(f, "class summary: %s\n", err);
		return;
	}
	fprintf(f, "class summary: %d student(s)\n", b.nstudents);
	for (int k = 0; k < b.nsteps; k++) {
		const struct cb_step *st = &b.steps[k];
		int ng = 0;
		for (int v = 0; v < st->nverdicts; v++)
			if (!strcmp(st->verdicts[v].verdict, "not_graded"))
				ng = st->verdicts[v].count;
		if (ng)
			fprintf(f, "  %-10s %-4s NOT GRADED %d/%d, passed %d",
				st->lab, st->id, ng, st->submitted, st->passed);
		else
			fprintf(f, "  %-10s %-4s passed %3d/%-3d", st->lab, st->id,
				st->passed, st->submitted);
		if (st->measured) {
			/* histogram of % of copy, 10-point bins up to 110+ */
			int bins[12];
			classbook_histogram(st, 120, bins, 12);
			fprintf(f, "  %% of copy: min %5.1f median %5.1f max %5.1f  |",
				st->min, st->median, st->max);
			static const char *const bars = " .:-=+*#%@";
			for (int i = 0; i < 12; i++) {
				int level = bins[i] == 0 ? 0
					    : 1 + (int)(8.0 * bins[i] / st->measured);
				fputc(bars[level > 9 ? 9 : level], f);
			}
			fputs("| 0..110%+", f);
		}
		fputc('\n', f);
	}
	classbook_free(&b);
}

int gradebook_write(const char *out_dir, FILE *summary, char *err,
		    size_t errlen)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/intake.json", out_dir);
	json_error_t je;
	json_t *intake = json_load_file(path, 0, &je);
	if (!intake) {
		snprintf(err, errlen, "%s: %s", path, je.text);
		return -1;
	}
	json_t *doc = collect(out_dir, intake);
	time_t t = time(NULL);
	char when[32];
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	json_object_set_new(doc, "generated", json_string(when));
	int rc = 0;
	snprintf(path, sizeof(path), "%s/gradebook.json", out_dir);
	rc |= json_dump_file(doc, path, JSON_INDENT(1));
	snprintf(path, sizeof(path), "%s/gradebook.csv", out_dir);
	rc |= write_csv(path, doc);
	rc |= write_gradescope(out_dir, doc);
	snprintf(path, sizeof(path), "%s/junit.xml", out_dir);
	rc |= write_junit(path, doc);
	snprintf(path, sizeof(path), "%s/summary.txt", out_dir);
	FILE *f = fopen(path, "w");
	if (f) {
		write_summary(f, doc);
		rc |= fclose(f);
	} else {
		rc = -1;
	}
	if (summary) {
		write_summary(summary, doc);
		fprintf(summary, "gradebook: %s/gradebook.csv (also .json, "
				 "junit.xml, gradescope/, summary.txt)\n",
			out_dir);
	}
	long long ng = 0;
	size_t i;
	json_t *row;
	json_array_foreach(json_object_get(doc, "students"), i, row)
		ng += json_integer_value(json_object_get(row, "not_graded"));
	if (summary && ng)
		fprintf(summary, "NOT GRADED: %lld step run(s) could not be graded "
				 "(no score in the gradebook; each says why, e.g. no "
				 "CUDA device: grade on a machine with a GPU)\n", ng);
	json_decref(doc);
	json_decref(intake);
	if (rc) {
		snprintf(err, errlen, "could not write the gradebook in %s: %s",
			 out_dir, strerror(errno));
		return -1;
	}
	return ng ? 1 : 0;
}

static int copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb");
	if (!in)
		return -1;
	FILE *out = fopen(to, "wb");
	if (!out) {
		fclose(in);
		return -1;
	}
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, out);
	fclose(in);
	return fclose(out);
}

/* Every shard K of N given, each finished: else err names the one that is
 * not (a Slurm task that failed or never ran). Folders without shard.json
 * (graded before it existed) are taken as they are. */
static int shards_complete(char *const *shards, int nshards, char *err,
			   size_t errlen)
{
	int of = 0;
	unsigned char have[256] = {0};
	for (int s = 0; s < nshards; s++) {
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%s/shard.json", shards[s]);
		json_t *j = json_load_file(path, 0, NULL);
		if (!j)
			continue;
		int k = (int)json_integer_value(json_object_get(j, "shard"));
		int n = (int)json_integer_value(json_object_get(j, "shards"));
		int done = json_is_true(json_object_get(j, "finished"));
		json_decref(j);
		if (n < 1 || n > 256 || k < 0 || k >= n || (of && n != of)) {
			snprintf(err, errlen, "%s: shard %d of %d does not belong "
				 "with the others (of %d)", shards[s], k, n, of);
			return -1;
		}
		of = n;
		if (!done) {
			snprintf(err, errlen, "shard %d/%d (%s) did not finish: "
				 "run its `grade --shard %d/%d` again (it resumes), "
				 "then merge", k, n, shards[s], k, n);
			return -1;
		}
		have[k] = 1;
	}
	for (int k = 0; k < of; k++)
		if (!have[k]) {
			snprintf(err, errlen, "shard %d/%d is missing: none of the "
				 "%d folder(s) given graded it (did its Slurm task "
				 "run? see its slurm-%d.log); grade it with `run.py "
				 "grade ... --shard %d/%d`, then merge again",
				 k, of, nshards, k, k, of);
			return -1;
		}
	return 0;
}

/* The row of id in an intake's students, or NULL. */
static json_t *intake_row(json_t *students, const char *id)
{
	size_t i;
	json_t *st;
	json_array_foreach(students, i, st) {
		const char *sid = json_string_value(json_object_get(st, "student"));
		if (sid && id && !strcmp(sid, id))
			return st;
	}
	return NULL;
}

/* The first student whose row differs between two intakes, in words
 * (a static buffer). */
static const char *intake_difference(json_t *a, json_t *b)
{
	static char why[512];
	for (int pass = 0; pass < 2; pass++) {
		json_t *from = pass ? a : b, *other = pass ? b : a;
		size_t i;
		json_t *st;
		json_array_foreach(from, i, st) {
			const char *id = json_string_value(
				json_object_get(st, "student"));
			const char *src = json_string_value(
				json_object_get(st, "source"));
			json_t *o = intake_row(other, id);
			if (o && json_equal(o, st))
				continue;
			const char *osrc =
				json_string_value(json_object_get(o, "source"));
			if (!o)
				snprintf(why, sizeof(why), "'%s' (from '%s') is "
					 "in one only", id ? id : "?",
					 src ? src : "?");
			else
				snprintf(why, sizeof(why), "'%s' is '%s' in one "
					 "and '%s' in the other, or its files "
					 "differ", id ? id : "?", src ? src : "?",
					 osrc ? osrc : "?");
			return why;
		}
	}
	return "the same rows in another order";
}

int gradebook_merge(const char *out_dir, char *const *shards, int nshards,
		    FILE *summary, char *err, size_t errlen)
{
	if (shards_complete(shards, nshards, err, errlen) < 0)
		return -1;
	json_t *merged = NULL, *first_students = NULL;
	json_t *seen = json_object();
	for (int s = 0; s < nshards; s++) {
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%s/intake.json", shards[s]);
		json_error_t je;
		json_t *in = json_load_file(path, 0, &je);
		if (!in) {
			snprintf(err, errlen, "%s: %s", path, je.text);
			json_decref(merged);
			json_decref(seen);
			return -1;
		}
		/* every shard took in the same class: the same ids for the
		 * same sources (red team, 2026-11-27: a folder added between
		 * two shards' intakes moved ids, and one student's results
		 * landed on another's row) */
		if (merged && !json_equal(json_object_get(in, "students"),
					  first_students)) {
			snprintf(err, errlen, "%s took in other students than %s "
				 "(the submissions changed between the shards' "
				 "runs: %s): grade every shard again from one "
				 "unchanging copy of the submissions, then merge",
				 shards[s], shards[0],
				 intake_difference(first_students,
						   json_object_get(in, "students")));
			json_decref(in);
			json_decref(merged);
			json_decref(seen);
			json_decref(first_students);
			return -1;
		}
		if (!merged) {
			first_students = json_incref(json_object_get(in, "students"));
			merged = json_pack("{s:O, s:O, s:O, s:[]}", "submissions",
					   json_object_get(in, "submissions"), "labs",
					   json_object_get(in, "labs"), "steps",
					   json_object_get(in, "steps"), "students");
		}
		size_t i;
		json_t *st;
		json_array_foreach(json_object_get(in, "students"), i, st) {
			const char *sid = json_string_value(json_object_get(st, "student"));
			const char *lab;
			json_t *info;
			json_object_foreach(json_object_get(st, "labs"), lab, info) {
				(void)info;
				char from[PATH_MAX], dir[PATH_MAX], to[PATH_MAX + 64];
				snprintf(from, sizeof(from), "%s/results/%s/%s.jsonl",
					 shards[s], sid, lab);
				if (access(from, F_OK))
					continue;
				snprintf(dir, sizeof(dir), "%s/results/%s", out_dir, sid);
				snprintf(to, sizeof(to), "%s/%s.jsonl", dir, lab);
				if (mkdirs(dir) < 0 || copy_file(from, to) < 0) {
					snprintf(err, errlen, "cannot copy %s to %s",
						 from, to);
					json_decref(in);
					json_decref(merged);
					json_decref(seen);
					return -1;
				}
			}
			if (!json_object_get(seen, sid)) {
				json_object_set_new(seen, sid, json_true());
				json_array_append(json_object_get(merged, "students"), st);
			}
		}
		json_decref(in);
	}
	json_decref(seen);
	json_decref(first_students);
	if (!merged) {
		snprintf(err, errlen, "merge needs at least one shard folder");
		return -1;
	}
	char path[PATH_MAX];
	if (mkdirs(out_dir) < 0) {
		snprintf(err, errlen, "cannot create %s", out_dir);
		json_decref(merged);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/intake.json", out_dir);
	int rc = json_dump_file(merged, path, JSON_INDENT(1));
	json_decref(merged);
	if (rc < 0) {
		snprintf(err, errlen, "cannot write %s", path);
		return -1;
	}
	return gradebook_write(out_dir, summary, err, errlen);
}
