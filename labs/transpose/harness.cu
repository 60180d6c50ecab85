// The transpose lab's harness: shapes that are and are not multiples of
// 32, a poisoned and guarded output, an exact comparison, and timing on a
// square matrix several times the L2.
#include "harness.h"
#include "transpose.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct transpose_call {
	const float *in;
	float *out;
	int rows, cols;
};

static void call_student(void *ctx)
{
	struct transpose_call *c = (struct transpose_call *)ctx;
	transpose(c->in, c->out, c->rows, c->cols);
}

struct gen_job {
	const struct hx_rng *rng;
	float *v;
};

static void gen_range(void *ctx, size_t b, size_t e)
{
	struct gen_job *g = (struct gen_job *)ctx;
	for (size_t i = b; i < e; i++)
		g->v[i] = hx_rng_float_at(g->rng, i, -20, 20);
}

/*
 * One shape: random input, poisoned output (NaN: unwritten elements show),
 * guard zones around both. Every element must be copied bit for bit.
 * record: report the launches (the timed size). keep: leave the buffers
 * for timing. Returns 1 when the case passed.
 */
static int run_case(const char *name, int rows, int cols, int record,
		    struct hx_buffer *keep_in, struct hx_buffer *keep_out)
{
	size_t n = (size_t)rows * cols, bytes = n * sizeof(float);
	float *h_in = (float *)malloc(bytes), *h_out = (float *)malloc(bytes);
	if (!h_in || !h_out)
		hx_die("harness", "out of host memory for %dx%d", rows, cols);
	struct hx_rng rng = hx_rng_for(name);
	struct gen_job g = {&rng, h_in};
	hx_parallel_for(n, gen_range, &g);
	struct hx_buffer din = hx_buffer_new("in", bytes, 0);
	struct hx_buffer dout = hx_buffer_new("out", bytes, 0);
	hx_buffer_upload(&din, h_in);
	hx_buffer_poison(&dout);

	char what[96];
	snprintf(what, sizeof(what), "transpose(rows=%d, cols=%d)", rows, cols);
	struct transpose_call call = {(const float *)din.data,
				      (float *)dout.data, rows, cols};
	hx_call(call_student, &call, what, record ? (double)n : 0);

	hx_buffer_download(&dout, h_out);
	struct hx_mismatches m;
	hx_mismatches_init(&m);
	size_t unwritten = 0;
	for (int c = 0; c < cols; c++)
		for (int r = 0; r < rows; r++) {
			size_t o = (size_t)c * rows + r;
			float want = h_in[(size_t)r * cols + c], got = h_out[o];
			m.checked++;
			if (memcmp(&want, &got, sizeof(float)) == 0)
				continue;
			uint32_t bits;
			memcpy(&bits, &got, sizeof(bits));
			int poison = bits == 0xFFFFFFFFu;
			unwritten += poison;
			if (!hx_mismatch_wanted(&m)) {
				hx_mismatch(&m, o, NULL, NULL, NULL);
				continue;
			}
			char e[48], gs[48], note[96];
			snprintf(e, sizeof(e), "%.9g", want);
			snprintf(gs, sizeof(gs), "%.9g", got);
			snprintf(note, sizeof(note), "out[%d][%d] = in[%d][%d]%s",
				 c, r, r, c, poison ? ": never written" : "");
			hx_mismatch(&m, o, e, gs, note);
		}
	hx_buffer_download(&din, h_out);
	int in_changed = memcmp(h_in, h_out, bytes) != 0;
	char msg[256] = "";
	if (m.count)
		snprintf(msg, sizeof(msg),
			 "%zu of %zu elements of out are wrong (%zu never "
			 "written) for a %dx%d input", m.count, n, unwritten,
			 rows, cols);
	if (in_changed) {
		size_t len = strlen(msg);
		snprintf(msg + len, sizeof(msg) - len,
			 "%sthe input was changed, but it is read-only",
			 len ? "; " : "");
		if (!m.count)
			hx_mismatch(&m, 0, "in unchanged", "in modified", NULL);
	}
	int ok = hx_case_end(name, n, &m, msg);
	ok &= hx_buffer_check_guards(&dout, sizeof(float));
	ok &= hx_buffer_check_guards(&din, sizeof(float));
	free(h_in);
	free(h_out);
	if (keep_in) {
		*keep_in = din;
		*keep_out = dout;
	} else {
		hx_buffer_free(&din);
		hx_buffer_free(&dout);
	}
	return ok;
}

int main(int argc, char **argv)
{
	hx_init(argc, argv);
	static const int shapes[][2] = {
		{1, 1},	   {1, 1000}, {1000, 1},  {31, 33},  {33, 31},
		{32, 32},  {1000, 17}, {17, 1000}, {64, 96},  {96, 64},
		{257, 129}, {2048, 2048},
	};
	int list[12 + 16][2];
	int nshapes = (int)(sizeof(shapes) / sizeof(shapes[0]));
	memcpy(list, shapes, sizeof(shapes));
	for (int i = 0; i < hx_opts()->n_extra_sizes; i++, nshapes++)
		hx_extra_size_2d(i, 16384, &list[nshapes][0], &list[nshapes][1]);
	/* the timed size: a square matrix whose read + write exceed 8x L2 */
	int side = hx_timed_side(2 * sizeof(float), 2 * sizeof(float));
	int all_ok = 1;
	struct hx_buffer tin = {}, tout = {};
	for (int i = 0; i <= nshapes; i++) {
		int timed = i == nshapes;
		int rows = timed ? side : list[i][0];
		int cols = timed ? side : list[i][1];
		char name[64];
		snprintf(name, sizeof(name), "%dx%d%s", rows, cols,
			 timed ? " (timed size)" : i >= 12 ? " (extra)" : "");
		hx_emit(json_pack("{s:s, s:s, s:i, s:i}", "event", "progress",
				  "phase", "correctness", "done", i, "total",
				  nshapes + 1));
		if (hx_case_selected(name))
			all_ok &= run_case(name, rows, cols, timed,
					   timed ? &tin : NULL,
					   timed ? &tout : NULL);
	}
	if (all_ok && hx_opts()->timing && tin.data) {
		struct transpose_call call = {(const float *)tin.data,
					      (float *)tout.data, side, side};
		struct hx_timing t = hx_time_calls(call_student, &call,
						   "transpose");
		double n = (double)side * side;
		hx_timing_report("student", NULL, n, 2.0 * sizeof(float) * n, &t);
	}
	if (tin.data) {
		hx_buffer_free(&tin);
		hx_buffer_free(&tout);
		// Fresh inputs in the buffers the timed calls used: a launcher
		// that skipped work it thought it had done shows stale output.
		if (all_ok && hx_opts()->timing) {
			char again[64];
			snprintf(again, sizeof(again),
				 "%dx%d (after timing, fresh inputs)", side, side);
			all_ok &= run_case(again, side, side, 0, NULL, NULL);
		}
	}
	return hx_finish(all_ok);
}
