// The reduction lab's harness: cases, inputs, reference and bytes moved,
// declared for the runtime's lab driver (common/harness.h).
//
// Floating-point sums depend on the order of the additions, so the check
// depends on the data:
// - integer-valued data (all ones; small integers in [-8, 8]) has an exact
//   sum in any order as long as every partial sum stays below 2^24 in
//   magnitude: the result must be exact, so even one missing element fails;
// - real-valued data (mixed signs; magnitudes 2^-20..2^20) is compared with
//   a long double sum within (ceil(log2 n) + 1024) * eps_f32 * sum|x|, the
//   error bound of any tree over per-thread chains of up to 1024 elements.
// *out and scratch are poisoned (NaN) by the driver before every call: a
// result left by a previous call can never pass. Every timed call gets new
// small integers, made and summed exactly on the GPU by the judge, and its
// *out is compared with that sum.
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
enum { BUF_IN, BUF_SCRATCH, BUF_OUT };

static void call_reduce(const struct hx_args *a)
{
	reduce((const float *)a->buf[0], (float *)a->buf[1], (float *)a->buf[2],
	       (int)a->i[0]);
}

static const hx_student_fn calls[] = {call_reduce};

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

static void cases(struct hx_plan *p)
{
	static const int sizes[] = {1, 2, 31, 32, 33, 1023, 1024, 1025, 999983};
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		for (int k = 0; k < 4; k++) {
			struct hx_case *c = hx_add_case(p, "n=%d %s", sizes[s],
							kind_names[k]);
			c->n = sizes[s];
			c->p[0] = k;
		}
	for (int i = 0; i < hx_opts()->n_extra_sizes; i++) {
		int n = hx_extra_size_1d(i, 1 << 28);
		struct hx_case *c = hx_add_case(p, "n=%d mixed signs (extra)", n);
		c->n = n;
		c->p[0] = MIXED;
	}
	int n_timed = (int)hx_timed_elements(HX_TIMED_MIN, sizeof(float),
					     2 * sizeof(float)) /* in, scratch */;
	struct hx_case *c = hx_add_timed_case(p, "n=%d small integers", n_timed);
	c->n = n_timed;
	c->p[0] = SMALL_INTS;
}

/* The exact sum of the case being run (setup makes it, check reads it:
 * the driver runs them in turn for one case). */
static struct {
	long double exact, magnitude;
} current;

static void setup(struct hx_run *r, const struct hx_case *c)
{
	size_t n = (size_t)c->n, bytes = n * sizeof(float);
	float *h = (float *)malloc(bytes);
	if (!h)
		hx_die("harness", "out of host memory for n=%zu", n);
	struct hx_rng rng = hx_rng_for(c->name);
	struct gen_job g = {&rng, (enum data_kind)c->p[0], h};
	hx_parallel_for(n, gen_range, &g);
	current.exact = current.magnitude = 0;
	for (size_t i = 0; i < n; i++) {
		current.exact += h[i];
		current.magnitude += fabsl((long double)h[i]);
	}
	int in = hx_buf(r, "in", bytes, 0, sizeof(float), HX_IN);
	int scratch = hx_buf(r, "scratch", bytes, 0, sizeof(float), HX_SCRATCH);
	int out = hx_buf(r, "out", sizeof(float), 0, sizeof(float), HX_OUT);
	hx_buffer_upload(hx_buf_get(r, in), h);
	free(h);
	static char what[64];
	snprintf(what, sizeof(what), "reduce(n=%lld)", c->n);
	struct hx_request *q = hx_run_request(r);
	q->call = 0;
	q->nbuf = 3;
	q->buf[0] = in;
	q->buf[1] = scratch;
	q->buf[2] = out;
	q->i[0] = c->n;
	q->what = what;
}

static void check(struct hx_run *r, const struct hx_case *c,
		  struct hx_mismatches *m, char *msg, size_t msglen)
{
	enum data_kind kind = (enum data_kind)c->p[0];
	float got;
	hx_buffer_download(hx_buf_get(r, BUF_OUT), &got);
	int exact_data = kind == ONES || kind == SMALL_INTS;
	double tol = exact_data ? 0
				: (ceil(log2((double)c->n)) + 1024) * FLT_EPSILON *
					  (double)current.magnitude;
	m->checked = 1;
	uint32_t bits;
	memcpy(&bits, &got, sizeof(bits));
	if (!isnan(got) && fabs((double)got - (double)current.exact) <= tol)
		return;
	char e[48], gs[48], note[160];
	snprintf(e, sizeof(e), "%.9Lg", current.exact);
	snprintf(gs, sizeof(gs), "%.9g", got);
	snprintf(note, sizeof(note), "%s; tolerance %.3g%s", kind_names[kind],
		 tol, bits == 0xFFFFFFFFu ? "; *out was never written" : "");
	hx_mismatch(m, 0, e, gs, note);
	snprintf(msg, msglen, "the sum of %lld %s is wrong%s", c->n,
		 kind_names[kind],
		 bits == 0xFFFFFFFFu ? ": *out was never written" : "");
}

static double bytes(const struct hx_case *c)
{
	return (double)sizeof(float) * (double)c->n;
}

/* ---- timed calls: new small integers and their exact sum, on the GPU -- */

__global__ void hx_red_fill(float *v, size_t n, unsigned long long key,
			    long long *sum)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	long long mine = 0;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += stride) {
		int x = (int)(hx_key_bits(key, i) % 17) - 8;
		v[i] = (float)x;
		mine += x;
	}
	for (int d = 16; d > 0; d /= 2)
		mine += __shfl_down_sync(0xFFFFFFFFu, mine, d);
	if ((threadIdx.x & 31) == 0)
		atomicAdd((unsigned long long *)sum, (unsigned long long)mine);
}

static long long *d_sum;
static long long timed_sum;

static void perturb(struct hx_run *r, const struct hx_request *q,
		    unsigned long long key)
{
	if (!d_sum)
		HX_CHECK(cudaMalloc((void **)&d_sum, sizeof(*d_sum)));
	HX_CHECK(cudaMemset(d_sum, 0, sizeof(*d_sum)));
	struct hx_buffer *in = hx_buf_get(r, q->buf[0]);
	hx_red_fill<<<4 * hx_device()->multiProcessorCount, 256>>>(
		(float *)in->data, (size_t)q->i[0], key, d_sum);
	HX_CHECK(cudaGetLastError());
	HX_CHECK(cudaMemcpy(&timed_sum, d_sum, sizeof(timed_sum),
			    cudaMemcpyDeviceToHost));
	/* *out poisoned: a call that does not write it cannot pass */
	hx_buffer_poison(hx_buf_get(r, q->buf[2]));
}

static void spot(struct hx_run *r, const struct hx_request *q,
		 unsigned long long key, struct hx_mismatches *m)
{
	(void)key;
	float got;
	hx_buffer_download(hx_buf_get(r, q->buf[2]), &got);
	m->checked = 1;
	if (got == (float)timed_sum)
		return;
	char e[32], gs[32];
	snprintf(e, sizeof(e), "%lld", timed_sum);
	snprintf(gs, sizeof(gs), "%.9g", got);
	hx_mismatch(m, 0, e, gs, isnan(got) ? "*out was never written" : NULL);
}

static const struct hx_lab lab = {
	calls, 1, NULL, cases, setup, check, bytes, perturb, spot, NULL, NULL,
};

int main(int argc, char **argv)
{
	return hx_lab_main(argc, argv, &lab);
}
