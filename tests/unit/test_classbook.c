/* classbook (common/) and class_view (ui/): a gradebook as data, and the
 * class view's keys. */
#include "check.h"
#include "class_view.h"
#include "classbook.h"
#include "state.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *fixture(void)
{
	static char path[512];
	const char *root = getenv("CUDALAB_ROOT");
	snprintf(path, sizeof(path), "%s/tests/fixtures/class",
		 root ? root : ".");
	return path;
}

static int index_of(const struct cb_step *st, const char *name)
{
	for (int i = 0; i < st->nstudents; i++)
		if (!strcmp(st->students[i].name, name))
			return i;
	return -1;
}

static int count_of(const struct cb_step *st, const char *verdict)
{
	for (int i = 0; i < st->nverdicts; i++)
		if (!strcmp(st->verdicts[i].verdict, verdict))
			return st->verdicts[i].count;
	return 0;
}

static void load_fixture(void)
{
	struct classbook b;
	char err[512] = "";
	int rc = classbook_load(&b, fixture(), err, sizeof(err));
	CHECK(rc == 0, "the fixture gradebook loads from its folder (%s)", err);
	if (rc)
		return;
	CHECK(b.nstudents == 9 && b.nsteps == 2, "9 students, 2 steps (got %d, %d)",
	      b.nstudents, b.nsteps);
	CHECK(strstr(b.path, "gradebook.json") != NULL,
	      "a folder means its gradebook.json");
	const struct cb_step *v1 = &b.steps[0], *v2 = &b.steps[1];
	CHECK(!strcmp(v1->lab, "saxpy") && !strcmp(v1->id, "v1") &&
		      !strcmp(v2->id, "v2"),
	      "steps in the lab's order");
	CHECK(v1->passed == 5 && v1->submitted == 8,
	      "v1: 5 passed of 8 submitted (the missing one is not counted; "
	      "got %d/%d)", v1->passed, v1->submitted);
	CHECK(v1->measured == 6, "v1: 6 measured (crash, timeout and missing "
				 "have no %% of copy; got %d)", v1->measured);
	CHECK(v1->min == 40.0 && v1->max == 99.0 && v1->median == 89.0,
	      "v1 spread 40 / 89 / 99 (median of 6 = mean of 88 and 90; got "
	      "%g %g %g)", v1->min, v1->median, v1->max);
	CHECK(v1->threshold == 60 && v2->threshold == 80,
	      "thresholds from the pct_of_copy checks (got %g, %g)",
	      v1->threshold, v2->threshold);
	CHECK(v2->median == 85.0 && v2->min == 12.0 && v2->max == 101.0,
	      "v2 spread 12 / 85 / 101 (a fail with a measurement counts)");
	CHECK(count_of(v1, "pass") == 5 && count_of(v1, "crash") == 1 &&
		      count_of(v1, "timeout") == 1 && count_of(v1, "missing") == 1 &&
		      count_of(v1, "fail") == 1,
	      "v1 verdict counts");
	CHECK(count_of(v2, "compile_error") == 1 && count_of(v2, "fail") == 3,
	      "v2 verdict counts");
	CHECK(!strcmp(v1->students[0].name, "ivy") &&
		      !strcmp(v1->students[5].name, "cy"),
	      "students sorted by %% of copy, best first (%s ... %s)",
	      v1->students[0].name, v1->students[5].name);
	CHECK(index_of(v1, "eli") == 6 && index_of(v1, "fay") == 7 &&
		      index_of(v1, "hal") == 8,
	      "unmeasured students last, by verdict (crash, missing, timeout)");

	int bins[11];
	classbook_histogram(v1, 110, bins, 11);
	CHECK(bins[4] == 1 && bins[6] == 1 && bins[8] == 1 && bins[9] == 3 &&
		      bins[0] == 0 && bins[10] == 0,
	      "v1 histogram in 10%% bins: 40 | 62.5 | 88 | 90 91.5 99");
	classbook_histogram(v2, 100, bins, 10);
	CHECK(bins[9] == 3 && bins[1] == 1,
	      "values at or over the scale go in the last bin (94.5, 95, 101)");

	struct class_view v = {b, 0, 0};
	CHECK(class_view_key(&v, 'j') == 0 && v.selected == 1, "j selects the next step");
	class_view_key(&v, UK_DOWN);
	CHECK(v.selected == 1, "no step past the last");
	class_view_key(&v, UK_PGDN);
	CHECK(v.scroll == 5, "PgDn scrolls the students by 5");
	class_view_key(&v, UK_PGDN);
	CHECK(v.scroll == 8, "not past the last student (got %d)", v.scroll);
	class_view_key(&v, 'k');
	CHECK(v.selected == 0 && v.scroll == 0,
	      "another step starts its list at the top");
	CHECK(class_view_key(&v, 'q') == 1, "q quits");
	classbook_free(&b);
	classbook_free(&b);
	CHECK(b.steps == NULL, "free twice is safe");
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void bad_files(void)
{
	struct classbook b;
	char err[512] = "";
	CHECK(classbook_load(&b, "/nonexistent/gradebook.json", err,
			     sizeof(err)) < 0 &&
		      strstr(err, "/nonexistent/gradebook.json: no such file"),
	      "a missing file is an error naming it (%s)", err);
	char dir[] = "/tmp/cudalab-classbook-XXXXXX";
	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp");
		return;
	}
	char path[600];
	snprintf(path, sizeof(path), "%s/gradebook.json", dir);
	write_file(path, "{\"labs\": ");
	CHECK(classbook_load(&b, dir, err, sizeof(err)) < 0 && err[0],
	      "truncated JSON is an error (%s)", err);
	write_file(path, "[1, 2]");
	CHECK(classbook_load(&b, path, err, sizeof(err)) < 0 &&
		      strstr(err, "not a gradebook"),
	      "JSON that is not a gradebook says so (%s)", err);
	write_file(path, "{\"labs\": {}, \"students\": []}");
	CHECK(classbook_load(&b, path, err, sizeof(err)) == 0 && b.nsteps == 0 &&
		      b.nstudents == 0,
	      "an empty class loads (nothing to draw, no crash)");
	struct class_view ev = {b, 0, 0};
	class_view_key(&ev, UK_DOWN);
	class_view_key(&ev, UK_END);
	CHECK(ev.selected == 0 && ev.scroll == 0, "keys on an empty class");
	classbook_free(&b);
	/* a student whose lab record is short or absent */
	write_file(path, "{\"labs\": {\"saxpy\": [{\"id\": \"v1\"}, {\"id\": "
			 "\"v2\"}]}, \"students\": [{\"student\": \"x\", "
			 "\"labs\": {\"saxpy\": [{\"verdict\": \"pass\", "
			 "\"pct_of_copy\": \"fast\"}]}}]}");
	CHECK(classbook_load(&b, path, err, sizeof(err)) == 0 &&
		      b.steps[0].measured == 0 && b.steps[0].passed == 1 &&
		      !strcmp(b.steps[1].students[0].verdict, "missing") &&
		      b.steps[0].threshold < 0,
	      "odd records: a non-number %% is not measured, an absent step "
	      "is missing, no check means no threshold");
	classbook_free(&b);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	load_fixture();
	bad_files();
	return check_done();
}
