// The SAXPY lab's harness: cases, CPU reference, bytes moved.
// Memory, inputs, timing and events come from common/harness.h.
#include "harness.h"
#include "saxpy.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct saxpy_case {
	char name[64];
	int n;
	float alpha;
};

struct saxpy_call {
	int n;
	float alpha;
	const float *x;
	float *y;
};

static void call_student(void *ctx)
{
	struct saxpy_call *c = (struct saxpy_call *)ctx;
	saxpy(c->n, c->alpha, c->x, c->y);
}

// Inputs are regenerated from (seed, case, index) rather than stored, so a
// 2^26-element case streams through small host buffers: x[i] is element 2i
// of the case's random stream and y[i] element 2i+1, with mixed signs and
// magnitudes from 2^-20 to 2^20.
#define CHUNK ((size_t)1 << 22)

struct gen_job {
	const struct hx_rng *rng;
	size_t first;
	float *x, *y;
};

static void gen_range(void *ctx, size_t b, size_t e)
{
	struct gen_job *g = (struct gen_job *)ctx;
	for (size_t i = b; i < e; i++) {
		g->x[i] = hx_rng_float_at(g->rng, 2 * (g->first + i), -20, 20);
		g->y[i] = hx_rng_float_at(g->rng, 2 * (g->first + i) + 1, -20, 20);
	}
}

// |got - exact| may be up to one rounding of alpha*x and one of the sum,
// whether or not the student's code fuses the multiply-add.
static int close_enough(double exact, float got, double ax, double y)
{
	if (isnan(got))
		return 0;
	double tol = 2.0 * FLT_EPSILON * (fabs(ax) + fabs(y)) + FLT_TRUE_MIN;
	return fabs((double)got - exact) <= tol;
}

struct host_chunks {
	float *x, *y, *got;
};

static struct host_chunks chunks(void)
{
	static struct host_chunks c;
	if (!c.x) {
		c.x = (float *)malloc(CHUNK * sizeof(float));
		c.y = (float *)malloc(CHUNK * sizeof(float));
		c.got = (float *)malloc(CHUNK * sizeof(float));
		if (!c.x || !c.y || !c.got)
			hx_die("harness", "out of host memory");
	}
	return c;
}

/*
 * Run one case: fresh inputs, call the launcher once, check every element of
 * y, check that x is unchanged, check the guard zones. When record is set
 * the launches of this call are reported (the timed size). Returns 1 when
 * the case passed.
 */
static int run_case(const struct saxpy_case *c, int record,
		    struct hx_buffer *keep_x, struct hx_buffer *keep_y)
{
	size_t n = (size_t)c->n, bytes = n * sizeof(float);
	struct hx_rng rng = hx_rng_for(c->name);
	struct host_chunks h = chunks();
	struct hx_buffer dx = hx_buffer_new("x", bytes, 0);
	struct hx_buffer dy = hx_buffer_new("y", bytes, 0);
	for (size_t off = 0; off < n; off += CHUNK) {
		size_t len = n - off < CHUNK ? n - off : CHUNK;
		struct gen_job g = {&rng, off, h.x, h.y};
		hx_parallel_for(len, gen_range, &g);
		HX_CHECK(cudaMemcpy((float *)dx.data + off, h.x,
				    len * sizeof(float), cudaMemcpyHostToDevice));
		HX_CHECK(cudaMemcpy((float *)dy.data + off, h.y,
				    len * sizeof(float), cudaMemcpyHostToDevice));
	}

	char what[96];
	snprintf(what, sizeof(what), "saxpy(n=%d, alpha=%g)", c->n, c->alpha);
	struct saxpy_call call = {c->n, c->alpha, (const float *)dx.data,
				  (float *)dy.data};
	hx_call(call_student, &call, what, record ? (double)c->n : 0);

	struct hx_mismatches m;
	hx_mismatches_init(&m);
	size_t unwritten = 0, x_changed = 0;
	for (size_t off = 0; off < n; off += CHUNK) {
		size_t len = n - off < CHUNK ? n - off : CHUNK;
		struct gen_job g = {&rng, off, h.x, h.y};
		hx_parallel_for(len, gen_range, &g);
		HX_CHECK(cudaMemcpy(h.got, (float *)dy.data + off,
				    len * sizeof(float), cudaMemcpyDeviceToHost));
		for (size_t j = 0; j < len; j++) {
			double ax = (double)c->alpha * h.x[j];
			double exact = ax + h.y[j];
			m.checked++;
			if (close_enough(exact, h.got[j], ax, h.y[j]))
				continue;
			int same = memcmp(&h.got[j], &h.y[j], sizeof(float)) == 0;
			unwritten += same;
			if (!hx_mismatch_wanted(&m)) {
				hx_mismatch(&m, off + j, NULL, NULL, NULL);
				continue;
			}
			char e[32], gs[32];
			snprintf(e, sizeof(e), "%.9g", exact);
			snprintf(gs, sizeof(gs), "%.9g", h.got[j]);
			hx_mismatch(&m, off + j, e, gs,
				    same ? "not written: still the input y[i]"
					 : NULL);
		}
		HX_CHECK(cudaMemcpy(h.got, (float *)dx.data + off,
				    len * sizeof(float), cudaMemcpyDeviceToHost));
		for (size_t j = 0; j < len; j++)
			x_changed += memcmp(&h.got[j], &h.x[j], sizeof(float)) != 0;
	}

	char msg[256] = "";
	if (m.count && unwritten == m.count)
		snprintf(msg, sizeof(msg),
			 "%zu of %d elements were never written (is every "
			 "index covered, including the last ones?)", unwritten,
			 c->n);
	else if (m.count)
		snprintf(msg, sizeof(msg),
			 "%zu of %d elements are wrong (%zu never written)",
			 m.count, c->n, unwritten);
	if (x_changed) {
		size_t len = strlen(msg);
		snprintf(msg + len, sizeof(msg) - len, "%s%zu element(s) of x "
			 "were changed, but x is read-only", len ? "; " : "",
			 x_changed);
		if (!m.count)
			hx_mismatch(&m, 0, "x unchanged", "x modified", NULL);
	}
	int ok = hx_case_end(c->name, n, &m, msg);
	ok &= hx_buffer_check_guards(&dy, sizeof(float));
	ok &= hx_buffer_check_guards(&dx, sizeof(float));

	if (keep_x) {
		*keep_x = dx;
		*keep_y = dy;
	} else {
		hx_buffer_free(&dx);
		hx_buffer_free(&dy);
	}
	return ok;
}

int main(int argc, char **argv)
{
	hx_init(argc, argv);

	static const int sizes[] = {1, 2, 3, 31, 32, 33, 1000};
	static const float alphas[] = {0.0f, 1.0f, -2.5f, 1e-30f, 3e18f};
	struct saxpy_case cases[64];
	int ncases = 0;
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		for (size_t a = 0; a < sizeof(alphas) / sizeof(alphas[0]); a++) {
			struct saxpy_case *c = &cases[ncases++];
			c->n = sizes[s];
			c->alpha = alphas[a];
			snprintf(c->name, sizeof(c->name), "n=%d alpha=%g",
				 c->n, c->alpha);
		}
	for (int i = 0; i < hx_opts()->n_extra_sizes; i++) {
		struct saxpy_case *c = &cases[ncases++];
		c->n = hx_extra_size_1d(i, 1 << 28);
		c->alpha = 0.5f;
		snprintf(c->name, sizeof(c->name), "n=%d alpha=0.5 (extra)",
			 c->n);
	}
	cases[ncases] = (struct saxpy_case){"", (1 << 20) + 1, -0.75f};
	snprintf(cases[ncases].name, 64, "n=%d alpha=-0.75", (1 << 20) + 1);
	ncases++;
	int n_timed = (int)hx_timed_elements(HX_TIMED_MIN, 3 * sizeof(float),
						2 * sizeof(float));
	cases[ncases] = (struct saxpy_case){"", n_timed, 1.7f};
	snprintf(cases[ncases].name, 64, "n=%d alpha=1.7 (timed size)",
		 n_timed);
	ncases++;

	int all_ok = 1;
	struct hx_buffer tx = {}, ty = {};
	for (int i = 0; i < ncases; i++) {
		hx_emit(json_pack("{s:s, s:s, s:i, s:i}", "event", "progress",
				  "phase", "correctness", "done", i, "total",
				  ncases));
		if (!hx_case_selected(cases[i].name))
			continue;
		int timed = i == ncases - 1;
		all_ok &= run_case(&cases[i], timed, timed ? &tx : NULL,
				   timed ? &ty : NULL);
	}

	// Time only a correct kernel: a wrong one's speed means nothing.
	if (all_ok && hx_opts()->timing && tx.data) {
		struct saxpy_call call = {n_timed, 1.7f, (const float *)tx.data,
					  (float *)ty.data};
		struct hx_timing t = hx_time_calls(call_student, &call, "saxpy");
		hx_timing_report("student", NULL, n_timed,
				 3.0 * sizeof(float) * n_timed, &t);
	}
	if (tx.data) {
		hx_buffer_free(&tx);
		hx_buffer_free(&ty);
	}
	// Fresh inputs in the buffers the timed calls used: a launcher that
	// skipped work it thought it had done shows stale output here.
	if (all_ok && hx_opts()->timing && hx_case_selected(cases[ncases - 1].name)) {
		struct saxpy_case again = {"", n_timed, 1.7f};
		snprintf(again.name, sizeof(again.name),
			 "n=%d alpha=1.7 (after timing, fresh inputs)", n_timed);
		all_ok &= run_case(&again, 0, NULL, NULL);
	}
	return hx_finish(all_ok);
}
