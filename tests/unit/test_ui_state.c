/* ui state and render: every transition without a terminal, and what the
 * renderer draws for a state (text, bar, threshold marker, ASCII mode). */
#include "check.h"
#include "render.h"
#include "state.h"

#include <string.h>

static void apply(struct ui_state *s, const char *json)
{
	json_t *ev = json_loads(json, 0, NULL);
	if (!ev) {
		printf("# bad test JSON: %s\n", json);
		return;
	}
	ui_state_apply(s, ev);
	json_decref(ev);
}

static const char *BEGIN =
	"{\"event\":\"run_begin\",\"lab\":\"saxpy\",\"title\":\"SAXPY\","
	"\"mode\":\"test\",\"steps\":["
	"{\"id\":\"v1\",\"title\":\"naive\",\"file\":\"saxpy_v1.cu\","
	"\"hint\":\"h1\",\"checks\":[{\"metric\":\"pct_of_copy\",\"op\":\">=\","
	"\"bound\":60}]},"
	"{\"id\":\"v2\",\"title\":\"coarse\",\"file\":\"saxpy_v2.cu\","
	"\"hint\":\"h2\",\"checks\":[{\"metric\":\"pct_of_copy\",\"op\":\">=\","
	"\"bound\":80}]}]}";

static int find(const struct canvas *c, const char *text, int *row)
{
	char buf[4096];
	for (int r = 0; r < c->rows; r++)
		if (strstr(canvas_row(c, r, buf, sizeof(buf)), text)) {
			if (row)
				*row = r;
			return 1;
		}
	return 0;
}

/* Display column of glyph in row r (-1 if absent). */
static int column_of(const struct canvas *c, int r, const char *glyph)
{
	for (int x = 0; x < c->cols; x++)
		if (!strcmp(c->cells[r * c->cols + x].glyph, glyph))
			return x;
	return -1;
}

static void transitions(void)
{
	struct ui_state s;
	ui_state_init(&s);
	apply(&s, BEGIN);
	CHECK(s.nsteps == 2 && s.steps[0].threshold_pct == 60 &&
		      s.steps[1].threshold_pct == 80 && s.run_active,
	      "run_begin lists the steps with their thresholds");
	apply(&s, "{\"event\":\"compile\",\"step\":\"v1\",\"status\":\"started\"}");
	CHECK(s.steps[0].phase == PH_COMPILING, "compile started: compiling");
	apply(&s, "{\"event\":\"compile\",\"step\":\"v1\",\"status\":\"ok\","
		  "\"diagnostics\":[]}");
	CHECK(s.steps[0].phase == PH_COMPILED && s.steps[0].diagnostics,
	      "compile done: compiled, diagnostics kept");
	apply(&s, "{\"event\":\"step_begin\",\"step\":\"v1\"}");
	apply(&s, "{\"event\":\"progress\",\"step\":\"v1\",\"phase\":"
		  "\"correctness\",\"done\":2,\"total\":38}");
	CHECK(s.steps[0].phase == PH_RUNNING &&
		      !strcmp(s.steps[0].progress, "case 3/38"),
	      "progress: running, case 3/38 (%s)", s.steps[0].progress);
	apply(&s, "{\"event\":\"case\",\"step\":\"v1\",\"name\":\"n=1\","
		  "\"ok\":false,\"first\":[]}");
	apply(&s, "{\"event\":\"step_end\",\"step\":\"v1\",\"verdict\":\"pass\","
		  "\"summary\":\"ok\",\"median_us\":300,\"gbps\":2690,"
		  "\"pct_of_copy\":91.5,\"speedup_vs_first\":1}");
	CHECK(s.steps[0].phase == PH_DONE && s.steps[0].has_timing &&
		      s.steps[0].gbps == 2690 && s.steps[0].nhistory == 1 &&
		      json_array_size(s.steps[0].cases) == 1,
	      "step_end: done with numbers, one history point, the case kept");
	apply(&s, "{\"event\":\"step_end\",\"step\":\"v2\",\"verdict\":"
		  "\"not_implemented\",\"summary\":\"todo\"}");
	apply(&s, "{\"event\":\"run_end\",\"verdict\":\"fail\",\"passed\":1,"
		  "\"failed\":1,\"not_graded\":0,\"total\":2,\"seconds\":3}");
	CHECK(s.run_ended && !s.run_active && !strcmp(s.run_verdict, "fail"),
	      "run_end: the run's verdict");

	/* rerun of v2 only keeps v1 */
	apply(&s, "{\"event\":\"run_begin\",\"lab\":\"saxpy\",\"title\":\"SAXPY\","
		  "\"mode\":\"test\",\"steps\":[{\"id\":\"v2\",\"title\":"
		  "\"coarse\",\"file\":\"saxpy_v2.cu\"}]}");
	CHECK(s.nsteps == 2 && !strcmp(s.steps[0].verdict, "pass") &&
		      s.steps[1].phase == PH_QUEUED && s.steps[1].verdict[0] == 0,
	      "a one-step rerun resets that step and keeps the others");
	CHECK(!strcmp(s.steps[1].hint, "h2") && s.steps[1].threshold_pct == 80,
	      "and keeps what the rerun's run_begin does not repeat");

	apply(&s, "{\"event\":\"timing\",\"step\":\"v1\",\"who\":"
		  "\"student\",\"variant\":\"offset 0\",\"median_us\":1,"
		  "\"gbps\":1,\"pct_of_copy\":50}");
	CHECK(json_array_size(s.steps[0].timings) == 1,
	      "a step's timing events are kept for the details");
	ui_state_stream_closed(&s, "grader died");
	CHECK(s.stream_truncated && strstr(s.stream_problem, "grader died"),
	      "EOF before run_end: truncated, with the reason");
	ui_state_bad_line(&s, 7, "not JSON");
	ui_state_bad_line(&s, 9, "not JSON");
	CHECK(s.bad_lines == 2 && strstr(s.bad_line, "line 7"),
	      "bad lines: counted, the first one named");

	apply(&s, "{\"event\":\"run_begin\",\"lab\":\"haxpy\",\"title\":\"H\","
		  "\"mode\":\"test\",\"steps\":[{\"id\":\"h1\",\"title\":\"t\","
		  "\"file\":\"haxpy.cu\"}]}");
	CHECK(s.nsteps == 1 && !strcmp(s.steps[0].id, "h1") &&
		      s.steps[0].threshold_pct < 0,
	      "another lab replaces the steps (no threshold: none drawn)");
	ui_state_release(&s);
}

static void keys(void)
{
	struct ui_state s;
	ui_state_init(&s);
	apply(&s, BEGIN);
	CHECK(ui_state_key(&s, 'k') == ACT_NONE && s.selected == 0,
	      "k at the top stays");
	ui_state_key(&s, 'j');
	ui_state_key(&s, UK_DOWN);
	CHECK(s.selected == 1, "j/down stop at the last step");
	ui_state_key(&s, UK_ENTER);
	CHECK(s.view == VIEW_DETAILS, "Enter opens details");
	ui_state_key(&s, 'j');
	CHECK(s.scroll == 1 && s.selected == 1, "j scrolls in details");
	ui_state_key(&s, 27);
	CHECK(s.view == VIEW_STEPS, "Esc goes back");
	ui_state_key(&s, '?');
	CHECK(s.view == VIEW_HELP, "? opens help");
	CHECK(ui_state_key(&s, 'x') == ACT_NONE && s.view == VIEW_STEPS,
	      "any key leaves help");
	CHECK(ui_state_key(&s, 'r') == ACT_NONE && strstr(s.notice, "replay"),
	      "r without a grader: a notice, no action");
	s.can_rerun = 1;
	CHECK(ui_state_key(&s, 'r') == ACT_NONE && strstr(s.notice, "progress"),
	      "r during a run: a notice");
	s.run_active = 0;
	CHECK(ui_state_key(&s, 'r') == ACT_RERUN_STEP &&
		      ui_state_key(&s, 'R') == ACT_RERUN_LAB,
	      "r/R when idle: rerun step / lab");
	CHECK(ui_state_key(&s, 'q') == ACT_QUIT, "q quits");
	ui_state_release(&s);
}

static void rendering(void)
{
	struct ui_state s;
	ui_state_init(&s);
	apply(&s, BEGIN);
	apply(&s, "{\"event\":\"device\",\"available\":true,\"name\":\"GPU X\","
		  "\"sm_count\":132,\"cc\":\"9.0\",\"runtime\":\"13.0\","
		  "\"driver\":\"13.0\",\"copy_gbps\":2946}");
	apply(&s, "{\"event\":\"step_end\",\"step\":\"v1\",\"verdict\":\"pass\","
		  "\"summary\":\"ok\",\"median_us\":298.8,\"gbps\":2696,"
		  "\"pct_of_copy\":91.5,\"speedup_vs_first\":1}");
	apply(&s, "{\"event\":\"step_end\",\"step\":\"v2\",\"verdict\":\"fail\","
		  "\"summary\":\"too slow\",\"hint\":\"h2\",\"median_us\":400,"
		  "\"gbps\":2000,\"pct_of_copy\":67.9,\"speedup_vs_first\":0.75}");
	struct render_opts uni = {1}, ascii = {0};
	struct canvas *c = canvas_new(24, 80);
	render(&s, c, &uni);
	int r1 = -1, r2 = -1;
	char buf[4096];
	CHECK(find(c, "GPU X · copy 2946 GB/s · 132 SMs", NULL),
	      "header: GPU and ceiling");
	CHECK(find(c, "v1", &r1) && strstr(canvas_row(c, r1, buf, sizeof(buf)),
					   "298.8µs  2696") &&
		      strstr(buf, "91.5%  1.00×") && strstr(buf, "PASS"),
	      "v1 row: verdict, time, GB/s, %% and speedup (%s)", buf);
	CHECK(find(c, "v2  coarse", &r2) &&
		      strstr(canvas_row(c, r2, buf, sizeof(buf)), "FAIL"),
	      "v2 row: FAIL");
	int m1 = column_of(c, r1, "┃"), m2 = column_of(c, r2, "┃");
	int b1 = column_of(c, r1, "█");
	/* both bars start at b1; scale 110%: markers at 60/110 and 80/110 */
	CHECK(m1 > b1 && m2 > m1 &&
		      (double)(m1 - b1) / (m2 - b1) > 0.70 &&
		      (double)(m1 - b1) / (m2 - b1) < 0.80,
	      "the markers sit at 60%% and 80%% of one scale (cols %d, %d "
	      "from %d)", m1, m2, b1);
	CHECK(c->cells[r2 * c->cols + b1].style == ST_FAIL &&
		      c->cells[r1 * c->cols + b1].style == ST_PASS,
	      "a bar below its threshold is drawn as failing");
	s.selected = 1;
	render(&s, c, &uni);
	CHECK(find(c, "too slow", NULL) && find(c, "h2", NULL),
	      "the selected failing step's summary and hint are shown");

	render(&s, c, &ascii);
	CHECK(column_of(c, r1, "|") > 0 && column_of(c, r1, "#") > 0 &&
		      column_of(c, r1, "┃") < 0,
	      "ASCII mode: # bars and | markers");

	struct canvas *wide = canvas_new(40, 130);
	render(&s, wide, &uni);
	CHECK(find(wide, "% of copy  (┃ threshold)", NULL),
	      "a wide screen labels the marker");
	canvas_free(wide);

	s.view = VIEW_DETAILS;
	s.selected = 0;
	render(&s, c, &uni);
	CHECK(find(c, "v1 · naive · saxpy_v1.cu", NULL) &&
		      find(c, "298.8 µs median", NULL),
	      "details view of the selected step");
	canvas_free(c);
	ui_state_release(&s);
}

static void canvas_basics(void)
{
	struct canvas *c = canvas_new(3, 10);
	char buf[256];
	CHECK(canvas_text(c, 0, 7, "abcdef", ST_NORMAL, -1) == 10 &&
		      !strcmp(canvas_row(c, 0, buf, sizeof(buf)), "       abc"),
	      "text is clipped at the edge");
	canvas_text(c, 1, 0, "µs█x", ST_NORMAL, -1);
	CHECK(!strcmp(canvas_row(c, 1, buf, sizeof(buf)), "µs█x") &&
		      utf8_width("µs█x") == 4,
	      "multi-byte glyphs take one column each");
	canvas_text(c, 2, 0, "a\tb\x1b[31m", ST_NORMAL, -1);
	CHECK(!strchr(canvas_row(c, 2, buf, sizeof(buf)), '\x1b') &&
		      !strchr(buf, '\t'),
	      "control characters from events never reach the terminal (%s)",
	      buf);
	char before[3][256], after[256];
	for (int r = 0; r < 3; r++)
		canvas_row(c, r, before[r], sizeof(before[r]));
	canvas_text(c, 5, 0, "x", ST_NORMAL, -1);
	canvas_text(c, -1, -3, "xyz", ST_NORMAL, -1);
	canvas_fill(c, 3, 0, 10, "#", ST_NORMAL);
	int same = 1;
	for (int r = 0; r < 3; r++)
		same &= !strcmp(before[r], canvas_row(c, r, after, sizeof(after)));
	CHECK(same, "writes outside the grid change nothing");
	canvas_free(c);
}

/* Bench's sweep runs after the steps end: the header says so. */
static void sweep_progress(void)
{
	struct ui_state s;
	ui_state_init(&s);
	apply(&s, BEGIN);
	apply(&s, "{\"event\":\"step_end\",\"step\":\"v1\",\"verdict\":\"pass\"}");
	apply(&s, "{\"event\":\"step_end\",\"step\":\"v2\",\"verdict\":\"pass\"}");
	apply(&s, "{\"event\":\"progress\",\"step\":\"v2\",\"phase\":\"sweep\","
		  "\"done\":2,\"total\":16}");
	apply(&s, "{\"event\":\"sweep\",\"step\":\"v2\",\"define\":\"PDIST\","
		  "\"value\":4,\"ok\":true,\"speedup_vs_baseline\":2.5}");
	struct canvas *c = canvas_new(24, 100);
	struct render_opts o = {1};
	render(&s, c, &o);
	int row;
	CHECK(find(c, "sweep 3/16 · v2", &row) && row == 0,
	      "the header shows the sweep's progress while it runs");
	CHECK(s.steps[1].phase == PH_DONE && !s.steps[1].progress[0] &&
		      json_array_size(s.steps[1].sweep) == 1,
	      "the step stays done; its sweep point is kept for the details");
	apply(&s, "{\"event\":\"run_end\",\"verdict\":\"pass\",\"passed\":2,"
		  "\"failed\":0,\"not_graded\":0,\"total\":2,\"seconds\":1}");
	render(&s, c, &o);
	CHECK(!find(c, "sweep 3/16", &row), "the run's end clears it");
	canvas_free(c);
	ui_state_release(&s);
}

int main(void)
{
	sweep_progress();
	transitions();
	keys();
	rendering();
	canvas_basics();
	return check_done();
}
