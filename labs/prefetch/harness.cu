// The prefetch lab's harness: cases, CPU reference, the lab's own baseline
// kernel (timed by the judge beside the student's calls, for
// speedup_vs_baseline), bytes moved; declared for the runtime's lab driver
// (common/harness.h), which owns the order, the student's process, guards,
// timing and events. Every timed call of the student's gets a new input
// (made on the GPU by the judge) and 64 of its elements are checked after.
#include "harness.h"
#include "prefetch.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Agreement with the CPU's sin(pi x) * exp(-x) (in long double): the GPU's
// double sinpi and exp are within 2 ulp of exact, so 1e-13 relative plus
// 1e-15 absolute (near the zeros of sin) is loose for a right element and
// tight for a wrong one (values differ by O(0.1)).
#define REL_TOL 1e-13
#define ABS_TOL 1e-15

// The baseline every step's speedup is measured against: step 1's kernel,
// compiled into the harness so that a slow step 1 of the student's cannot
// inflate the later steps' speedups.
__global__ void __launch_bounds__(PF_BLOCK)
pf_reference_baseline(const double *__restrict__ in, double *__restrict__ out,
		      int n)
{
	int begin, end;
	pf_block_range(n, &begin, &end);
#pragma unroll 1
	for (int i = begin + threadIdx.x; i < end; i += PF_BLOCK)
		out[i] = pf_work(in[i]);
}

enum { BUF_IN, BUF_OUT };

static int sm_count(void)
{
	return hx_device()->multiProcessorCount;
}

static void call_transform(const struct hx_args *a)
{
	prefetch_transform((const double *)a->buf[0], (double *)a->buf[1],
			   (int)a->i[0], (int)a->i[1]);
}

static const hx_student_fn calls[] = {call_transform};

/* the baseline, run by the judge on its own pointers */
struct pf_call {
	int n, blocks;
	const double *in;
	double *out;
};

static void call_reference(void *ctx)
{
	struct pf_call *c = (struct pf_call *)ctx;
	pf_reference_baseline<<<c->blocks, PF_BLOCK>>>(c->in, c->out, c->n);
	HX_CHECK(cudaGetLastError());
}

static double reference(double x)
{
	// long double: pi * x rounded to double would be off by far more than
	// the GPU near the zeros of sin
	long double xl = x;
	return (double)(sinl(3.14159265358979323846264338327950288L * xl) *
			expl(-xl));
}

// Inputs: x in [0, 4), from the case's random stream (two periods of
// sin(pi x), and exp(-x) from 1 down to 0.018).
struct gen_job {
	const struct hx_rng *rng;
	double *x, *want;
};

static void gen_range(void *ctx, size_t b, size_t e)
{
	struct gen_job *g = (struct gen_job *)ctx;
	for (size_t i = b; i < e; i++) {
		struct hx_rng r = *g->rng;
		r.state += 0x9E3779B97F4A7C15ull * (i + 1);
		g->x[i] = 4.0 * hx_rng_uniform(&r);
		if (g->want)
			g->want[i] = reference(g->x[i]);
	}
}

static int close_enough(double want, double got)
{
	return fabs(got - want) <= REL_TOL * fabs(want) + ABS_TOL;
}

/* case parameters: p[0] 1 for the sanitizer's case, whose `in` ends where
 * its allocation ends */
static void add_case(struct hx_plan *p, int n, const char *why)
{
	struct hx_case *c = hx_add_case(p, "n=%d%s", n, why);
	c->n = n;
}

static void cases(struct hx_plan *p)
{
	int sms = sm_count();
	// One batch of every block: sms * PF_BLOCK * PDIST elements. Sizes on
	// and off that multiple (and off PF_BLOCK) end the loops in every
	// possible place: a full last batch, a partial one, a partial warp.
	int batch = sms * PF_BLOCK * PDIST;
	static const int small[] = {1, 2, 31, 255, 256, 257, 1000};
	for (size_t i = 0; i < sizeof(small) / sizeof(small[0]); i++)
		add_case(p, small[i], "");
	add_case(p, sms * PF_BLOCK, " (one row per block)");
	add_case(p, batch, " (whole batches)");
	add_case(p, batch + 1, " (whole batches + 1)");
	add_case(p, batch - 1, " (whole batches - 1)");
	add_case(p, 3 * batch + sms * 100, " (partial batches)");
	add_case(p, (1 << 20) + 3, "");
	// the sanitizer's case (lab.json "sanitize"): in ends where its
	// allocation ends
	struct hx_case *c = hx_add_case(p, "n=1000 (exact allocation)");
	c->n = 1000;
	c->p[0] = 1;
	for (int i = 0; i < hx_opts()->n_extra_sizes; i++)
		add_case(p, hx_extra_size_1d(i, 1 << 27), " (extra)");
	int n_timed = (int)hx_timed_elements(HX_TIMED_MIN, 2 * sizeof(double),
					     2 * sizeof(double));
	c = hx_add_timed_case(p, "n=%d", n_timed);
	c->n = n_timed;
}

/* The reference of the case being run (setup makes it, check reads it). */
static double *current_x, *current_want;

static void setup(struct hx_run *r, const struct hx_case *c)
{
	size_t n = (size_t)c->n, bytes = n * sizeof(double);
	free(current_x);
	free(current_want);
	current_x = (double *)malloc(bytes);
	current_want = (double *)malloc(bytes);
	if (!current_x || !current_want)
		hx_die("harness", "out of host memory for n=%zu", n);
	struct hx_rng rng = hx_rng_for(c->name);
	struct gen_job g = {&rng, current_x, current_want};
	hx_parallel_for(n, gen_range, &g);
	int in = hx_buf(r, "in", bytes, 0, sizeof(double),
			c->p[0] ? HX_IN_EXACT : HX_IN);
	int out = hx_buf(r, "out", bytes, 0, sizeof(double), HX_OUT);
	hx_buffer_upload(hx_buf_get(r, in), current_x);
	static char what[96];
	snprintf(what, sizeof(what), "prefetch_transform(n=%lld, blocks=%d)",
		 c->n, sm_count());
	struct hx_request *q = hx_run_request(r);
	q->call = 0;
	q->nbuf = 2;
	q->buf[0] = in;
	q->buf[1] = out;
	q->i[0] = c->n;
	q->i[1] = sm_count();
	q->what = what;
}

static void check(struct hx_run *r, const struct hx_case *c,
		  struct hx_mismatches *m, char *msg, size_t msglen)
{
	size_t n = (size_t)c->n, unwritten = 0;
	double *got = (double *)malloc(n * sizeof(double));
	if (!got)
		hx_die("harness", "out of host memory for n=%zu", n);
	hx_buffer_download(hx_buf_get(r, BUF_OUT), got);
	for (size_t i = 0; i < n; i++) {
		m->checked++;
		if (close_enough(current_want[i], got[i]))
			continue;
		int poison = isnan(got[i]);
		unwritten += poison;
		if (!hx_mismatch_wanted(m)) {
			hx_mismatch(m, i, NULL, NULL, NULL);
			continue;
		}
		char e[40], gs[40], note[96];
		snprintf(e, sizeof(e), "%.17g", current_want[i]);
		snprintf(gs, sizeof(gs), "%.17g", got[i]);
		snprintf(note, sizeof(note), "in[%zu] = %.17g", i, current_x[i]);
		hx_mismatch(m, i, e, gs,
			    poison ? "not written (still the poison NaN)" : note);
	}
	free(got);
	if (m->count && unwritten == m->count)
		snprintf(msg, msglen,
			 "%zu of %lld elements were never written (does every "
			 "block cover its whole range, the last partial batch "
			 "included?)", unwritten, c->n);
	else if (m->count)
		snprintf(msg, msglen,
			 "%zu of %lld elements are wrong (%zu never written): a "
			 "value used for the wrong element, or used before its "
			 "prefetch arrived?", m->count, c->n, unwritten);
}

static double bytes(const struct hx_case *c)
{
	return 2.0 * sizeof(double) * (double)c->n;
}

/* ---- timed calls: a new input on the GPU, a sample checked ------------- */

static __host__ __device__ double key_x(unsigned long long key,
					unsigned long long i)
{
	return 4.0 * (double)(hx_key_bits(key, i) >> 11) *
	       (1.0 / 9007199254740992.0);
}

__global__ void hx_pf_fill(double *v, size_t n, unsigned long long key)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += stride)
		v[i] = key_x(key, i);
}

static void perturb(struct hx_run *r, const struct hx_request *q,
		    unsigned long long key)
{
	hx_pf_fill<<<4 * sm_count(), 256>>>(
		(double *)hx_buf_get(r, q->buf[0])->data, (size_t)q->i[0], key);
	HX_CHECK(cudaGetLastError());
}

static void spot(struct hx_run *r, const struct hx_request *q,
		 unsigned long long key, struct hx_mismatches *m)
{
	size_t idx[HX_SPOT_SAMPLES];
	double got[HX_SPOT_SAMPLES];
	hx_spot_indices((size_t)q->i[0], idx, HX_SPOT_SAMPLES);
	hx_buf_sample(r, q->buf[1], 0, sizeof(double), idx, HX_SPOT_SAMPLES,
		      got);
	for (int j = 0; j < HX_SPOT_SAMPLES; j++) {
		double want = reference(key_x(key, idx[j]));
		m->checked++;
		if (close_enough(want, got[j]))
			continue;
		char e[40], g[40];
		snprintf(e, sizeof(e), "%.17g", want);
		snprintf(g, sizeof(g), "%.17g", got[j]);
		hx_mismatch(m, idx[j], e, g, NULL);
	}
}

/* Time only a correct kernel (the driver's rule). The lab's baseline is
 * timed before and after the student's calls, and the faster of its two
 * medians is the one reported: drift between the two cannot inflate a
 * speedup. */
static int timing(struct hx_run *r, const struct hx_case *c)
{
	struct pf_call base = {(int)c->n, sm_count(),
			       (const double *)hx_buf_get(r, BUF_IN)->data,
			       (double *)hx_buf_get(r, BUF_OUT)->data};
	double moved = bytes(c);
	hx_gpu_exclusive_begin();
	struct hx_timing before = hx_time_calls(call_reference, &base, "baseline");
	struct hx_timing mine =
		hx_time_student(r, hx_run_request(r), "prefetch_transform");
	struct hx_timing after = hx_time_calls(call_reference, &base, "baseline");
	hx_gpu_exclusive_end();
	hx_timing_report("student", NULL, (double)c->n, moved, &mine);
	hx_timing_report("reference", "the lab's baseline (step 1)",
			 (double)c->n, moved,
			 before.us.median <= after.us.median ? &before : &after);
	return 1;
}

static const struct hx_lab lab = {
	calls, 1, NULL, cases, setup, check, bytes, perturb, spot, timing, NULL,
};

int main(int argc, char **argv)
{
	return hx_lab_main(argc, argv, &lab);
}
