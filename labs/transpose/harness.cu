// The transpose lab's harness: shapes that are and are not multiples of
// 32, a poisoned and guarded output, an exact comparison, and timing on a
// square matrix several times the L2; declared for the runtime's lab driver
// (common/harness.h), which owns the order, the student's process, guards,
// timing and events.
//
// Inputs: in[k] = hx_key_float(key, k) with key from (seed, case name),
// made on the GPU by the judge; every timed call gets a new key and 64
// random elements of its output are checked after it.
#include "harness.h"
#include "transpose.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BUF_IN, BUF_OUT };

static void call_transpose(const struct hx_args *a)
{
	transpose((const float *)a->buf[0], (float *)a->buf[1], (int)a->i[0],
		  (int)a->i[1]);
}

static const hx_student_fn calls[] = {call_transpose};

static unsigned long long case_key(const char *name)
{
	struct hx_rng r = hx_rng_for(name);
	return hx_rng_next(&r);
}

static void cases(struct hx_plan *p)
{
	static const int shapes[][2] = {
		{1, 1},	   {1, 1000}, {1000, 1},  {31, 33},  {33, 31},
		{32, 32},  {1000, 17}, {17, 1000}, {64, 96},  {96, 64},
		{257, 129}, {2048, 2048},
	};
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		struct hx_case *c = hx_add_case(p, "%dx%d", shapes[i][0],
						shapes[i][1]);
		c->p[0] = shapes[i][0];
		c->p[1] = shapes[i][1];
		c->n = c->p[0] * c->p[1];
	}
	for (int i = 0; i < hx_opts()->n_extra_sizes; i++) {
		int rows, cols;
		hx_extra_size_2d(i, 16384, &rows, &cols);
		struct hx_case *c = hx_add_case(p, "%dx%d (extra)", rows, cols);
		c->p[0] = rows;
		c->p[1] = cols;
		c->n = c->p[0] * c->p[1];
	}
	/* the timed size: a square matrix whose read + write exceed 8x L2 */
	int side = hx_timed_side(2 * sizeof(float), 2 * sizeof(float));
	struct hx_case *c = hx_add_timed_case(p, "%dx%d", side, side);
	c->p[0] = c->p[1] = side;
	c->n = c->p[0] * c->p[1];
}

static void setup(struct hx_run *r, const struct hx_case *c)
{
	size_t n = (size_t)c->n, bytes = n * sizeof(float);
	int in = hx_buf(r, "in", bytes, 0, sizeof(float), HX_IN);
	int out = hx_buf(r, "out", bytes, 0, sizeof(float), HX_OUT);
	hx_buf_fill_floats(r, in, 0, n, case_key(c->name), -20, 20);
	static char what[96];
	snprintf(what, sizeof(what), "transpose(rows=%lld, cols=%lld)", c->p[0],
		 c->p[1]);
	struct hx_request *q = hx_run_request(r);
	q->call = 0;
	q->nbuf = 2;
	q->buf[0] = in;
	q->buf[1] = out;
	q->i[0] = c->p[0];
	q->i[1] = c->p[1];
	q->what = what;
}

/* Element o of out (out[c][r], o = c * rows + r) against in[r][c]; counts
 * it in m. Returns 1 when it was never written (still the poison). */
static int check_one(struct hx_mismatches *m, size_t o, long long rows,
		     long long cols, unsigned long long key, float got)
{
	long long c = (long long)(o / (size_t)rows), r = (long long)(o % (size_t)rows);
	float want = hx_key_float(key, (unsigned long long)(r * cols + c), -20, 20);
	m->checked++;
	if (memcmp(&want, &got, sizeof(float)) == 0)
		return 0;
	uint32_t bits;
	memcpy(&bits, &got, sizeof(bits));
	int poison = bits == 0xFFFFFFFFu;
	if (!hx_mismatch_wanted(m)) {
		hx_mismatch(m, o, NULL, NULL, NULL);
		return poison;
	}
	char e[48], gs[48], note[160];
	snprintf(e, sizeof(e), "%.9g", want);
	snprintf(gs, sizeof(gs), "%.9g", got);
	snprintf(note, sizeof(note), "out[%lld][%lld] = in[%lld][%lld]%s", c, r,
		 r, c, poison ? ": never written" : "");
	hx_mismatch(m, o, e, gs, note);
	return poison;
}

static void check(struct hx_run *r, const struct hx_case *c,
		  struct hx_mismatches *m, char *msg, size_t msglen)
{
	size_t n = (size_t)c->n;
	float *got = (float *)malloc(n * sizeof(float));
	if (!got)
		hx_die("harness", "out of host memory for %s", c->name);
	hx_buffer_download(hx_buf_get(r, BUF_OUT), got);
	unsigned long long key = case_key(c->name);
	size_t unwritten = 0;
	for (size_t o = 0; o < n; o++)
		unwritten += check_one(m, o, c->p[0], c->p[1], key, got[o]);
	free(got);
	if (m->count)
		snprintf(msg, msglen,
			 "%zu of %zu elements of out are wrong (%zu never "
			 "written) for a %lldx%lld input", m->count, n, unwritten,
			 c->p[0], c->p[1]);
}

static double bytes(const struct hx_case *c)
{
	return 2.0 * sizeof(float) * (double)c->n;
}

static void perturb(struct hx_run *r, const struct hx_request *q,
		    unsigned long long key)
{
	hx_buf_fill_floats(r, q->buf[0], q->buf_offset[0],
			   (size_t)(q->i[0] * q->i[1]), key, -20, 20);
}

static void spot(struct hx_run *r, const struct hx_request *q,
		 unsigned long long key, struct hx_mismatches *m)
{
	size_t n = (size_t)(q->i[0] * q->i[1]), idx[HX_SPOT_SAMPLES];
	float got[HX_SPOT_SAMPLES];
	hx_spot_indices(n, idx, HX_SPOT_SAMPLES);
	hx_buf_sample(r, q->buf[1], q->buf_offset[1], sizeof(float), idx,
		      HX_SPOT_SAMPLES, got);
	for (int j = 0; j < HX_SPOT_SAMPLES; j++)
		check_one(m, idx[j], q->i[0], q->i[1], key, got[j]);
}

static const struct hx_lab lab = {
	calls, 1, NULL, cases, setup, check, bytes, perturb, spot, NULL, NULL,
};

int main(int argc, char **argv)
{
	return hx_lab_main(argc, argv, &lab);
}
