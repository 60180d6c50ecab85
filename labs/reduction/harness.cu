// The reduction lab's harness.
//
// Floating-point sums depend on the order of the additions, so the check
// depends on the data:
// - integer-valued data (all ones; small integers in [-8, 8]) has an exact
//   sum in any order as long as every partial sum stays below 2^24 in
//   magnitude: the result must be exact, so even one missing element fails;
// - real-valued data (mixed signs; magnitudes 2^-20..2^20) is compared with
//   a long double sum within (ceil(log2 n) + 1024) * eps_f32 * sum|x|, the
//   error bound of any tree over per-thread chains of up to 1024 elements.
// *out and scratch are poisoned (NaN) before every call: a result left by a
// previous call can never pass.
#include "harness.h"
#include "reduce.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum data_kind { ONES, SMALL_INTS, MIXED, WIDE };
static const char *const kind_names[] = {"ones", "small integers",
					 "mixed signs", "large range"};

struct reduce_call {
	const float *in;
	float *scratch, *out;
	int n;
};

static void call_student(void *ctx)
{
	struct reduce_call *c = (struct reduce_call *)ctx;
	reduce(c->in, c->scratch, c->out, c->n);
}

static float value(const struct hx_rng *r, enum data_kind kind, size_t i)
{
	struct hx_rng at = {r->state + i * 0x9E3779B97F4A7C15ull};
	uint64_t b;
	switch (kind) {
	case ONES:
		return 1.0f;
	case SMALL_INTS:
		b = hx_rng_next(&at);
		return (float)((int)(b % 17) - 8);
	case MIXED:
		return (float)(2 * hx_rng_uniform(&at) - 1);
	default:
		return hx_rng_float_at(r, i, -20, 20);
	}
}

struct gen_job {
	const struct hx_rng *rng;
	enum data_kind kind;
	float *v;
};

static void gen_range(void *ctx, size_t b, size_t e)
{
	struct gen_job *g = (struct gen_job *)ctx;
	for (size_t i = b; i < e; i++)
		g->v[i] = value(g->rng, g->kind, i);
}

static int run_case(const char *name, int n, enum data_kind kind, int record,
		    struct hx_buffer *keep_in, struct hx_buffer *keep_scratch,
		    struct hx_buffer *keep_out)
{
	size_t bytes = (size_t)n * sizeof(float);
	float *h = (float *)malloc(bytes);
	if (!h)
		hx_die("harness", "out of host memory for n=%d", n);
	struct hx_rng rng = hx_rng_for(name);
	struct gen_job g = {&rng, kind, h};
	hx_parallel_for((size_t)n, gen_range, &g);
	long double exact = 0, magnitude = 0;
	for (int i = 0; i < n; i++) {
		exact += h[i];
		magnitude += fabsl((long double)h[i]);
	}
	struct hx_buffer din = hx_buffer_new("in", bytes, 0);
	struct hx_buffer dscratch = hx_buffer_new("scratch", bytes, 0);
	struct hx_buffer dout = hx_buffer_new("out", sizeof(float), 0);
	hx_buffer_upload(&din, h);
	hx_buffer_poison(&dscratch);
	hx_buffer_poison(&dout);

	char what[96];
	snprintf(what, sizeof(what), "reduce(n=%d)", n);
	struct reduce_call call = {(const float *)din.data,
				   (float *)dscratch.data, (float *)dout.data,
				   n};
	hx_call(call_student, &call, what, record ? (double)n : 0);

	float got;
	hx_buffer_download(&dout, &got);
	int exact_data = kind == ONES || kind == SMALL_INTS;
	double tol = exact_data ? 0
				: (ceil(log2((double)n)) + 1024) * FLT_EPSILON *
					  (double)magnitude;
	struct hx_mismatches m;
	hx_mismatches_init(&m);
	m.checked = 1;
	uint32_t bits;
	memcpy(&bits, &got, sizeof(bits));
	if (isnan(got) || fabs((double)got - (double)exact) > tol) {
		char e[48], gs[48], note[160];
		snprintf(e, sizeof(e), "%.9Lg", exact);
		snprintf(gs, sizeof(gs), "%.9g", got);
		snprintf(note, sizeof(note), "%s; tolerance %.3g%s",
			 kind_names[kind], tol,
			 bits == 0xFFFFFFFFu ? "; *out was never written" : "");
		hx_mismatch(&m, 0, e, gs, note);
	}
	hx_buffer_download(&din, h);
	int changed = 0;
	for (int i = 0; i < n && !changed; i++)
		changed = h[i] != value(&rng, kind, (size_t)i);
	char msg[256] = "";
	if (m.count)
		snprintf(msg, sizeof(msg), "the sum of %d %s is wrong%s", n,
			 kind_names[kind],
			 bits == 0xFFFFFFFFu ? ": *out was never written" : "");
	if (changed) {
		size_t len = strlen(msg);
		snprintf(msg + len, sizeof(msg) - len,
			 "%sthe input was changed, but it is read-only",
			 len ? "; " : "");
		if (!m.count)
			hx_mismatch(&m, 0, "in unchanged", "in modified", NULL);
	}
	int ok = hx_case_end(name, (size_t)n, &m, msg);
	ok &= hx_buffer_check_guards(&dout, sizeof(float));
	ok &= hx_buffer_check_guards(&dscratch, sizeof(float));
	ok &= hx_buffer_check_guards(&din, sizeof(float));
	free(h);
	if (keep_in) {
		*keep_in = din;
		*keep_scratch = dscratch;
		*keep_out = dout;
	} else {
		hx_buffer_free(&din);
		hx_buffer_free(&dscratch);
		hx_buffer_free(&dout);
	}
	return ok;
}

int main(int argc, char **argv)
{
	hx_init(argc, argv);
	static const int sizes[] = {1, 2, 31, 32, 33, 1023, 1024, 1025, 999983};
	int ns = (int)(sizeof(sizes) / sizeof(sizes[0]));
	int n_timed = (int)hx_timed_elements(HX_TIMED_MIN, sizeof(float),
						2 * sizeof(float)) /* in, scratch */;
	int nx = hx_opts()->n_extra_sizes;
	int total = ns * 4 + nx + 1, done = 0, all_ok = 1;
	struct hx_buffer tin = {}, tscratch = {}, tout = {};
	for (int s = 0; s < ns; s++)
		for (int k = 0; k < 4; k++) {
			char name[64];
			snprintf(name, sizeof(name), "n=%d %s", sizes[s],
				 kind_names[k]);
			hx_emit(json_pack("{s:s, s:s, s:i, s:i}", "event",
					  "progress", "phase", "correctness",
					  "done", done++, "total", total));
			if (hx_case_selected(name))
				all_ok &= run_case(name, sizes[s],
						   (enum data_kind)k, 0, NULL,
						   NULL, NULL);
		}
	for (int i = 0; i < nx; i++) {
		char name[64];
		int n = hx_extra_size_1d(i, 1 << 28);
		snprintf(name, sizeof(name), "n=%d mixed signs (extra)", n);
		hx_emit(json_pack("{s:s, s:s, s:i, s:i}", "event", "progress",
				  "phase", "correctness", "done", done++,
				  "total", total));
		if (hx_case_selected(name))
			all_ok &= run_case(name, n, MIXED, 0, NULL, NULL, NULL);
	}
	char name[64];
	snprintf(name, sizeof(name), "n=%d small integers (timed size)",
		 n_timed);
	if (hx_case_selected(name))
		all_ok &= run_case(name, n_timed, SMALL_INTS, 1, &tin, &tscratch,
				   &tout);
	if (all_ok && hx_opts()->timing && tin.data) {
		struct reduce_call call = {(const float *)tin.data,
					   (float *)tscratch.data,
					   (float *)tout.data, n_timed};
		struct hx_timing t = hx_time_calls(call_student, &call, "reduce");
		hx_timing_report("student", NULL, n_timed,
				 (double)sizeof(float) * n_timed, &t);
	}
	if (tin.data) {
		hx_buffer_free(&tin);
		hx_buffer_free(&tscratch);
		hx_buffer_free(&tout);
		// Fresh inputs in the buffers the timed calls used: a launcher
		// that skipped work it thought it had done shows stale output.
		if (all_ok && hx_opts()->timing) {
			snprintf(name, sizeof(name),
				 "n=%d small integers (after timing)", n_timed);
			all_ok &= run_case(name, n_timed, SMALL_INTS, 0, NULL,
					   NULL, NULL);
		}
	}
	return hx_finish(all_ok);
}
