// The memory-access-tuning lab's harness: cases (odd sizes, misaligned
// pointers), the CPU reference, the lab's own baseline kernel (step 1's,
// timed by the judge beside the student's calls for speedup_vs_baseline),
// bytes moved; declared for the runtime's lab driver (common/harness.h),
// which owns the order, the student's process, guards, timing and events.
// Every timed call of the student's gets new inputs (made on the GPU by the
// judge) and 64 of its points are checked after it.
#include "harness.h"
#include "memtuning.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Step 1's kernel, compiled into the harness: the baseline every step's
// speedup is measured against, whatever the student's step 1 does. One
// block of MT_BLOCK threads per SM, a grid-stride loop over the points, the
// k-loop unrolled by 16 (the compiler keeps it at 31 registers).
__global__ void mt_reference_baseline(const double *big, const double *small,
				      double *out, int npts, int kmax)
{
	int stride = gridDim.x * MT_BLOCK;
	for (int pt = blockIdx.x * MT_BLOCK + threadIdx.x; pt < npts;
	     pt += stride) {
		double best = 0.0;
#pragma unroll 16
		for (int k = 0; k < kmax; k++) {
			double c = big[mt_index(pt, k, npts)] + small[k];
			best = fmax(c, best);
		}
		out[pt] = best;
	}
}

enum { BUF_BIG, BUF_SMALL, BUF_OUT };

static void call_memtune(const struct hx_args *a)
{
	memtune((const double *)a->buf[0], (const double *)a->buf[1],
		(double *)a->buf[2], (int)a->i[0], (int)a->i[1]);
}

static const hx_student_fn calls[] = {call_memtune};

/* the baseline, run by the judge on its own pointers */
struct mt_call {
	const double *big, *small;
	double *out;
	int npts, kmax;
};

static void call_reference(void *ctx)
{
	struct mt_call *c = (struct mt_call *)ctx;
	mt_reference_baseline<<<mt_grid(c->npts, MT_BLOCK, 1, 1), MT_BLOCK>>>(
		c->big, c->small, c->out, c->npts, c->kmax);
	HX_CHECK(cudaGetLastError());
}

struct gen_job {
	const struct hx_rng *rng;
	double *v;
	uint64_t salt;
};

// doubles in [-1, 1): the sums are exact enough that max() is exact, and
// the answer is compared bit for bit
static void gen_range(void *ctx, size_t b, size_t e)
{
	struct gen_job *g = (struct gen_job *)ctx;
	for (size_t i = b; i < e; i++) {
		struct hx_rng r = *g->rng;
		r.state += 0x9E3779B97F4A7C15ull * (i + 1) + g->salt;
		g->v[i] = 2.0 * hx_rng_uniform(&r) - 1.0;
	}
}

/*
 * Make every k matter, whatever the random values: for 6 of every 8 points
 * the maximum is planted at k = pt % kmax (a sum of 2.5 to 3, above any
 * random sum), so a kernel that drops a k (the last one of an odd kmax,
 * say) is wrong on 1/kmax of those points; every 8th point has only
 * negative sums, so its answer is the 0 floor; the rest stay random.
 */
static void plant(double *big, const double *small, int npts, int kmax,
		  const struct hx_rng *rng)
{
	for (int pt = 0; pt < npts; pt++) {
		struct hx_rng r = *rng;
		r.state += 0xD1B54A32D192ED03ull * (pt + 1);
		if (pt % 8 == 7) {
			for (int k = 0; k < kmax; k++)
				big[(size_t)k * npts + pt] = -2.5 + 0.5 * hx_rng_uniform(&r);
		} else if (pt % 8 != 6) {
			int k = pt % kmax;
			big[(size_t)k * npts + pt] =
				2.5 + 0.5 * hx_rng_uniform(&r) - small[k];
		}
	}
}

struct ref_job {
	const double *big, *small;
	double *want;
	int npts, kmax;
};

static void ref_range(void *ctx, size_t b, size_t e)
{
	struct ref_job *j = (struct ref_job *)ctx;
	for (size_t pt = b; pt < e; pt++) {
		double best = 0.0;
		for (int k = 0; k < j->kmax; k++) {
			double c = j->big[(size_t)k * j->npts + pt] + j->small[k];
			best = c > best ? c : best;
		}
		j->want[pt] = best;
	}
}

/* case parameters: p[0] npts, p[1] kmax, p[2] big's and p[3] small's
 * byte offset past a 256-byte boundary */
static void add_case(struct hx_plan *p, int timed, int npts, int kmax,
		     size_t big_off, size_t small_off, const char *why)
{
	const char *fmt = "npts=%d kmax=%d%s%s%s";
	const char *s8 = small_off % 16 ? " small+8" : "";
	const char *b8 = big_off % 16 ? " big+8" : "";
	struct hx_case *c = timed ? hx_add_timed_case(p, fmt, npts, kmax, s8,
						      b8, why)
				  : hx_add_case(p, fmt, npts, kmax, s8, b8, why);
	c->n = npts;
	c->p[0] = npts;
	c->p[1] = kmax;
	c->p[2] = (long long)big_off;
	c->p[3] = (long long)small_off;
}

#define MT_KMAX 32

static void cases(struct hx_plan *p)
{
	add_case(p, 0, 1, 1, 0, 0, "");
	add_case(p, 0, 2, 2, 0, 0, "");
	add_case(p, 0, 3, 3, 0, 0, "");
	add_case(p, 0, 1023, 32, 0, 0, "");
	add_case(p, 0, 1024, 32, 0, 0, "");
	add_case(p, 0, 1025, 31, 0, 0, "");
	add_case(p, 0, 2048, 7, 0, 0, "");
	add_case(p, 0, 4096, 32, 0, 8, "");
	add_case(p, 0, 4096, 33, 0, 8, "");
	add_case(p, 0, 4096, 32, 8, 0, "");
	add_case(p, 0, 4097, 17, 8, 8, "");
	add_case(p, 0, 100001, 32, 0, 0, "");
	for (int i = 0; i < hx_opts()->n_extra_sizes && i < 24; i++)
		add_case(p, 0, hx_extra_size_1d(i, 1 << 22), 31, 8, 8,
			 " (extra)");
	// the timed size: big (kmax rows) several times the L2, an even npts
	// (big moves 8 * kmax bytes per point: a power of two >= 2^18 of
	// points whose big array is at least 8x the L2; big and out are held)
	int npts = (int)hx_timed_elements((size_t)1 << 18,
					  MT_KMAX * sizeof(double),
					  (MT_KMAX + 1) * sizeof(double));
	add_case(p, 1, npts, MT_KMAX, 0, 0, "");
}

/* The reference of the case being run (setup makes it, check reads it). */
static double *current_want;

static void setup(struct hx_run *r, const struct hx_case *c)
{
	int npts = (int)c->p[0], kmax = (int)c->p[1];
	size_t nbig = (size_t)npts * kmax;
	struct hx_rng rng = hx_rng_for(c->name);
	double *big = (double *)malloc(nbig * sizeof(double));
	double *small = (double *)malloc(kmax * sizeof(double));
	free(current_want);
	current_want = (double *)malloc(npts * sizeof(double));
	if (!big || !small || !current_want)
		hx_die("harness", "out of host memory for %s", c->name);
	struct gen_job gb = {&rng, big, 1}, gs = {&rng, small, 2};
	hx_parallel_for(nbig, gen_range, &gb);
	gen_range(&gs, 0, kmax);
	plant(big, small, npts, kmax, &rng);
	struct ref_job rj = {big, small, current_want, npts, kmax};
	hx_parallel_for(npts, ref_range, &rj);

	int b = hx_buf(r, "big", nbig * sizeof(double), (size_t)c->p[2],
		       sizeof(double), HX_IN);
	int s = hx_buf(r, "small", kmax * sizeof(double), (size_t)c->p[3],
		       sizeof(double), HX_IN);
	int o = hx_buf(r, "out", npts * sizeof(double), 0, sizeof(double),
		       HX_OUT);
	hx_buffer_upload(hx_buf_get(r, b), big);
	hx_buffer_upload(hx_buf_get(r, s), small);
	free(big);
	free(small);
	static char what[128];
	snprintf(what, sizeof(what), "memtune(npts=%d, kmax=%d%s%s)", npts,
		 kmax, c->p[3] % 16 ? ", small 8 bytes off 16" : "",
		 c->p[2] % 16 ? ", big 8 bytes off 16" : "");
	struct hx_request *q = hx_run_request(r);
	q->call = 0;
	q->nbuf = 3;
	q->buf[0] = b;
	q->buf[1] = s;
	q->buf[2] = o;
	q->i[0] = npts;
	q->i[1] = kmax;
	q->what = what;
}

static void check(struct hx_run *r, const struct hx_case *c,
		  struct hx_mismatches *m, char *msg, size_t msglen)
{
	int npts = (int)c->p[0];
	double *got = (double *)malloc(npts * sizeof(double));
	if (!got)
		hx_die("harness", "out of host memory for %s", c->name);
	hx_buffer_download(hx_buf_get(r, BUF_OUT), got);
	size_t unwritten = 0;
	for (int pt = 0; pt < npts; pt++) {
		m->checked++;
		if (memcmp(&got[pt], &current_want[pt], sizeof(double)) == 0)
			continue;
		unwritten += got[pt] != got[pt];
		if (!hx_mismatch_wanted(m)) {
			hx_mismatch(m, pt, NULL, NULL, NULL);
			continue;
		}
		char e[40], g[40];
		snprintf(e, sizeof(e), "%.17g", current_want[pt]);
		snprintf(g, sizeof(g), "%.17g", got[pt]);
		hx_mismatch(m, pt, e, g, got[pt] != got[pt]
			    ? "not written (still the poison NaN)" : NULL);
	}
	free(got);
	if (m->count && unwritten == m->count)
		snprintf(msg, msglen, "%zu of %d points were never written "
			 "(with two points per thread, is the last odd point "
			 "handled?)", unwritten, npts);
	else if (m->count)
		snprintf(msg, msglen, "%zu of %d points are wrong (%zu never "
			 "written): with wide loads, is the last k of an odd "
			 "kmax, or the last point of an odd npts, handled?",
			 m->count, npts, unwritten);
}

static double bytes(const struct hx_case *c)
{
	return ((double)c->p[1] + 1) * sizeof(double) * (double)c->p[0];
}

/* ---- timed calls: new inputs on the GPU, a sample of points checked ---- */

static __host__ __device__ double key_double(unsigned long long key,
					     unsigned long long i)
{
	/* [-1, 1) in steps of 2^-52: sums stay exact enough for max() */
	return 2.0 * (double)(hx_key_bits(key, i) >> 11) *
		       (1.0 / 9007199254740992.0) - 1.0;
}

__global__ void hx_mt_fill(double *v, size_t n, unsigned long long key)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += stride)
		v[i] = key_double(key, i);
}

static void perturb(struct hx_run *r, const struct hx_request *q,
		    unsigned long long key)
{
	size_t npts = (size_t)q->i[0], kmax = (size_t)q->i[1];
	int grid = 4 * hx_device()->multiProcessorCount;
	hx_mt_fill<<<grid, 256>>>((double *)hx_buf_get(r, q->buf[0])->data,
				   npts * kmax, hx_key_bits(key, 1));
	HX_CHECK(cudaGetLastError());
	hx_mt_fill<<<grid, 256>>>((double *)hx_buf_get(r, q->buf[1])->data,
				   kmax, hx_key_bits(key, 2));
	HX_CHECK(cudaGetLastError());
}

static void spot(struct hx_run *r, const struct hx_request *q,
		 unsigned long long key, struct hx_mismatches *m)
{
	size_t npts = (size_t)q->i[0], kmax = (size_t)q->i[1];
	size_t idx[HX_SPOT_SAMPLES];
	double got[HX_SPOT_SAMPLES];
	hx_spot_indices(npts, idx, HX_SPOT_SAMPLES);
	hx_buf_sample(r, q->buf[2], 0, sizeof(double), idx, HX_SPOT_SAMPLES,
		      got);
	unsigned long long kb = hx_key_bits(key, 1), ks = hx_key_bits(key, 2);
	for (int j = 0; j < HX_SPOT_SAMPLES; j++) {
		double best = 0.0;
		for (size_t k = 0; k < kmax; k++) {
			double c = key_double(kb, k * npts + idx[j]) +
				   key_double(ks, k);
			best = c > best ? c : best;
		}
		m->checked++;
		if (memcmp(&best, &got[j], sizeof(double)) == 0)
			continue;
		char e[40], g[40];
		snprintf(e, sizeof(e), "%.17g", best);
		snprintf(g, sizeof(g), "%.17g", got[j]);
		hx_mismatch(m, idx[j], e, g, NULL);
	}
}

/* The baseline is timed before and after the student's calls, and the
 * faster of its two medians is the one reported: drift between the two
 * cannot inflate a speedup. */
static int timing(struct hx_run *r, const struct hx_case *c)
{
	struct mt_call base = {
		(const double *)hx_buf_get(r, BUF_BIG)->data,
		(const double *)hx_buf_get(r, BUF_SMALL)->data,
		(double *)hx_buf_get(r, BUF_OUT)->data, (int)c->p[0],
		(int)c->p[1]};
	double moved = bytes(c);
	hx_gpu_exclusive_begin();
	struct hx_timing before = hx_time_calls(call_reference, &base, "baseline");
	struct hx_timing mine = hx_time_student(r, hx_run_request(r), "memtune");
	struct hx_timing after = hx_time_calls(call_reference, &base, "baseline");
	hx_gpu_exclusive_end();
	hx_timing_report("student", NULL, (double)c->p[0], moved, &mine);
	hx_timing_report("reference", "the lab's baseline (step 1)",
			 (double)c->p[0], moved,
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
