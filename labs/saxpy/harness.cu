// The SAXPY lab's harness: its cases, inputs, reference and bytes moved,
// declared for the runtime's lab driver (common/harness.h), which owns the
// order, the student's process, guards, timing and events.
//
// Inputs: x[i] = hx_key_float(kx, i), y[i] = hx_key_float(ky, i) with mixed
// signs and magnitudes 2^-20..2^20, made on the GPU by the judge; kx and ky
// come from (seed, case name), so a failure replays with --seed S --case N.
// Every timed call gets new x and y (keys from getrandom) and 64 random
// elements of its y are checked after it.
#include "harness.h"
#include "saxpy.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BUF_X, BUF_Y }; /* buffer indices, in the order setup makes them */

static void call_saxpy(const struct hx_args *a)
{
	saxpy((int)a->i[0], (float)a->f[0], (const float *)a->buf[0],
	      (float *)a->buf[1]);
}

static const hx_student_fn calls[] = {call_saxpy};

struct keys {
	unsigned long long x, y;
};

static struct keys case_keys(const char *name)
{
	struct hx_rng r = hx_rng_for(name);
	struct keys k;
	k.x = hx_rng_next(&r);
	k.y = hx_rng_next(&r);
	return k;
}

/* A timed call's keys, from the judge's fresh key for that call. */
static struct keys call_keys(unsigned long long key)
{
	struct keys k = {hx_key_bits(key, 1), hx_key_bits(key, 2)};
	return k;
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

/* One element against the reference; counts it in m. Returns 1 when it
 * was the unchanged input y (never written). */
static int check_one(struct hx_mismatches *m, size_t i, float alpha, float x,
		     float y, float got)
{
	double ax = (double)alpha * x, exact = ax + y;
	m->checked++;
	if (close_enough(exact, got, ax, y))
		return 0;
	int same = memcmp(&got, &y, sizeof(float)) == 0;
	if (!hx_mismatch_wanted(m)) {
		hx_mismatch(m, i, NULL, NULL, NULL);
		return same;
	}
	char e[32], gs[32];
	snprintf(e, sizeof(e), "%.9g", exact);
	snprintf(gs, sizeof(gs), "%.9g", got);
	hx_mismatch(m, i, e, gs, same ? "not written: still the input y[i]" : NULL);
	return same;
}

static void cases(struct hx_plan *p)
{
	static const int sizes[] = {1, 2, 3, 31, 32, 33, 1000};
	static const float alphas[] = {0.0f, 1.0f, -2.5f, 1e-30f, 3e18f};
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		for (size_t a = 0; a < sizeof(alphas) / sizeof(alphas[0]); a++) {
			struct hx_case *c = hx_add_case(p, "n=%d alpha=%g",
							sizes[s], alphas[a]);
			c->n = sizes[s];
			c->a[0] = alphas[a];
		}
	for (int i = 0; i < hx_opts()->n_extra_sizes; i++) {
		int n = hx_extra_size_1d(i, 1 << 28);
		struct hx_case *c = hx_add_case(p, "n=%d alpha=0.5 (extra)", n);
		c->n = n;
		c->a[0] = 0.5;
	}
	struct hx_case *c = hx_add_case(p, "n=%d alpha=-0.75", (1 << 20) + 1);
	c->n = (1 << 20) + 1;
	c->a[0] = -0.75;
	int n_timed = (int)hx_timed_elements(HX_TIMED_MIN, 3 * sizeof(float),
					     2 * sizeof(float));
	c = hx_add_timed_case(p, "n=%d alpha=1.7", n_timed);
	c->n = n_timed;
	c->a[0] = 1.7;
}

static void setup(struct hx_run *r, const struct hx_case *c)
{
	size_t n = (size_t)c->n, bytes = n * sizeof(float);
	int x = hx_buf(r, "x", bytes, 0, sizeof(float), HX_IN);
	int y = hx_buf(r, "y", bytes, 0, sizeof(float), HX_INOUT);
	struct keys k = case_keys(c->name);
	hx_buf_fill_floats(r, x, 0, n, k.x, -20, 20);
	hx_buf_fill_floats(r, y, 0, n, k.y, -20, 20);
	static char what[96];
	snprintf(what, sizeof(what), "saxpy(n=%lld, alpha=%g)", c->n,
		 (float)c->a[0]);
	struct hx_request *q = hx_run_request(r);
	q->call = 0;
	q->nbuf = 2;
	q->buf[0] = x;
	q->buf[1] = y;
	q->i[0] = c->n;
	q->f[0] = (float)c->a[0];
	q->what = what;
}

#define CHUNK ((size_t)1 << 22)

struct check_job {
	struct keys k;
	size_t first;
	float *x, *y;
};

static void gen_range(void *ctx, size_t b, size_t e)
{
	struct check_job *g = (struct check_job *)ctx;
	for (size_t i = b; i < e; i++) {
		g->x[i] = hx_key_float(g->k.x, g->first + i, -20, 20);
		g->y[i] = hx_key_float(g->k.y, g->first + i, -20, 20);
	}
}

static void check(struct hx_run *r, const struct hx_case *c,
		  struct hx_mismatches *m, char *msg, size_t msglen)
{
	static float *hx, *hy, *got;
	if (!hx) {
		hx = (float *)malloc(CHUNK * sizeof(float));
		hy = (float *)malloc(CHUNK * sizeof(float));
		got = (float *)malloc(CHUNK * sizeof(float));
		if (!hx || !hy || !got)
			hx_die("harness", "out of host memory");
	}
	size_t n = (size_t)c->n, unwritten = 0;
	float alpha = (float)c->a[0];
	struct check_job g = {case_keys(c->name), 0, hx, hy};
	const float *dy = (const float *)hx_buf_get(r, BUF_Y)->data;
	for (size_t off = 0; off < n; off += CHUNK) {
		size_t len = n - off < CHUNK ? n - off : CHUNK;
		g.first = off;
		hx_parallel_for(len, gen_range, &g);
		HX_CHECK(cudaMemcpy(got, dy + off, len * sizeof(float),
				    cudaMemcpyDeviceToHost));
		for (size_t j = 0; j < len; j++)
			unwritten += check_one(m, off + j, alpha, hx[j], hy[j],
					       got[j]);
	}
	if (m->count && unwritten == m->count)
		snprintf(msg, msglen,
			 "%zu of %lld elements were never written (is every "
			 "index covered, including the last ones?)", unwritten,
			 c->n);
	else if (m->count)
		snprintf(msg, msglen,
			 "%zu of %lld elements are wrong (%zu never written)",
			 m->count, c->n, unwritten);
}

static double bytes(const struct hx_case *c)
{
	return 3.0 * sizeof(float) * (double)c->n;
}

static void perturb(struct hx_run *r, const struct hx_request *q,
		    unsigned long long key)
{
	struct keys k = call_keys(key);
	size_t n = (size_t)q->i[0];
	hx_buf_fill_floats(r, q->buf[0], q->buf_offset[0], n, k.x, -20, 20);
	hx_buf_fill_floats(r, q->buf[1], q->buf_offset[1], n, k.y, -20, 20);
}

static void spot(struct hx_run *r, const struct hx_request *q,
		 unsigned long long key, struct hx_mismatches *m)
{
	struct keys k = call_keys(key);
	size_t n = (size_t)q->i[0], idx[HX_SPOT_SAMPLES];
	float got[HX_SPOT_SAMPLES];
	hx_spot_indices(n, idx, HX_SPOT_SAMPLES);
	hx_buf_sample(r, q->buf[1], q->buf_offset[1], sizeof(float), idx,
		      HX_SPOT_SAMPLES, got);
	for (int j = 0; j < HX_SPOT_SAMPLES; j++)
		check_one(m, idx[j], (float)q->f[0],
			  hx_key_float(k.x, idx[j], -20, 20),
			  hx_key_float(k.y, idx[j], -20, 20), got[j]);
}

static const struct hx_lab lab = {
	calls, 1, NULL, cases, setup, check, bytes, perturb, spot, NULL, NULL,
};

int main(int argc, char **argv)
{
	return hx_lab_main(argc, argv, &lab);
}
