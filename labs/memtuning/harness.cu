// The memory-access-tuning lab's harness: cases (odd sizes, misaligned
// pointers), the CPU reference, the lab's own baseline kernel (step 1's,
// timed in the same process for speedup_vs_baseline), bytes moved. Memory,
// inputs, timing and events come from common/harness.h.
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

struct mt_case {
	char name[96];
	int npts, kmax;
	size_t big_offset, small_offset; // bytes past a 256-byte boundary
};

struct mt_call {
	const double *big, *small;
	double *out;
	int npts, kmax;
};

static void call_student(void *ctx)
{
	struct mt_call *c = (struct mt_call *)ctx;
	memtune(c->big, c->small, c->out, c->npts, c->kmax);
}

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

static int run_case(const struct mt_case *c, int record, struct mt_call *keep,
		    struct hx_buffer *keep_bufs)
{
	size_t nbig = (size_t)c->npts * c->kmax;
	struct hx_rng rng = hx_rng_for(c->name);
	double *big = (double *)malloc(nbig * sizeof(double));
	double *small = (double *)malloc(c->kmax * sizeof(double));
	double *want = (double *)malloc(c->npts * sizeof(double));
	double *got = (double *)malloc(c->npts * sizeof(double));
	if (!big || !small || !want || !got)
		hx_die("harness", "out of host memory for %s", c->name);
	struct gen_job gb = {&rng, big, 1}, gs = {&rng, small, 2};
	hx_parallel_for(nbig, gen_range, &gb);
	gen_range(&gs, 0, c->kmax);
	plant(big, small, c->npts, c->kmax, &rng);
	struct ref_job rj = {big, small, want, c->npts, c->kmax};
	hx_parallel_for(c->npts, ref_range, &rj);

	struct hx_buffer dbig = hx_buffer_new("big", nbig * sizeof(double), c->big_offset);
	struct hx_buffer dsmall = hx_buffer_new("small", c->kmax * sizeof(double),
						c->small_offset);
	struct hx_buffer dout = hx_buffer_new("out", c->npts * sizeof(double), 0);
	hx_buffer_upload(&dbig, big);
	hx_buffer_upload(&dsmall, small);
	hx_buffer_poison(&dout);
	struct mt_call call = {(const double *)dbig.data,
			       (const double *)dsmall.data, (double *)dout.data,
			       c->npts, c->kmax};
	char what[128];
	snprintf(what, sizeof(what), "memtune(npts=%d, kmax=%d%s%s)", c->npts,
		 c->kmax, c->small_offset % 16 ? ", small 8 bytes off 16" : "",
		 c->big_offset % 16 ? ", big 8 bytes off 16" : "");
	hx_call(call_student, &call, what, record ? c->npts : 0);
	hx_buffer_download(&dout, got);

	struct hx_mismatches m;
	hx_mismatches_init(&m);
	size_t unwritten = 0;
	for (int pt = 0; pt < c->npts; pt++) {
		m.checked++;
		if (memcmp(&got[pt], &want[pt], sizeof(double)) == 0)
			continue;
		unwritten += got[pt] != got[pt];
		if (!hx_mismatch_wanted(&m)) {
			hx_mismatch(&m, pt, NULL, NULL, NULL);
			continue;
		}
		char e[40], g[40];
		snprintf(e, sizeof(e), "%.17g", want[pt]);
		snprintf(g, sizeof(g), "%.17g", got[pt]);
		hx_mismatch(&m, pt, e, g, got[pt] != got[pt]
			    ? "not written (still the poison NaN)" : NULL);
	}
	char msg[320] = "";
	if (m.count && unwritten == m.count)
		snprintf(msg, sizeof(msg), "%zu of %d points were never written "
			 "(with two points per thread, is the last odd point "
			 "handled?)", unwritten, c->npts);
	else if (m.count)
		snprintf(msg, sizeof(msg), "%zu of %d points are wrong (%zu never "
			 "written): with wide loads, is the last k of an odd "
			 "kmax, or the last point of an odd npts, handled?",
			 m.count, c->npts, unwritten);
	int ok = hx_case_end(c->name, c->npts, &m, msg);
	ok &= hx_buffer_check_guards(&dout, sizeof(double));
	ok &= hx_buffer_check_guards(&dbig, sizeof(double));
	ok &= hx_buffer_check_guards(&dsmall, sizeof(double));
	free(big);
	free(small);
	free(want);
	free(got);
	if (keep) {
		*keep = call;
		keep_bufs[0] = dbig, keep_bufs[1] = dsmall, keep_bufs[2] = dout;
	} else {
		hx_buffer_free(&dbig);
		hx_buffer_free(&dsmall);
		hx_buffer_free(&dout);
	}
	return ok;
}

static void add_case(struct mt_case *cs, int *n, int npts, int kmax,
		     size_t big_off, size_t small_off, const char *why)
{
	struct mt_case *c = &cs[(*n)++];
	c->npts = npts, c->kmax = kmax;
	c->big_offset = big_off, c->small_offset = small_off;
	snprintf(c->name, sizeof(c->name), "npts=%d kmax=%d%s%s%s", npts, kmax,
		 small_off % 16 ? " small+8" : "", big_off % 16 ? " big+8" : "",
		 why);
}

#define MT_KMAX 32

int main(int argc, char **argv)
{
	hx_init(argc, argv);
	struct mt_case cases[40];
	int ncases = 0;
	add_case(cases, &ncases, 1, 1, 0, 0, "");
	add_case(cases, &ncases, 2, 2, 0, 0, "");
	add_case(cases, &ncases, 3, 3, 0, 0, "");
	add_case(cases, &ncases, 1023, 32, 0, 0, "");
	add_case(cases, &ncases, 1024, 32, 0, 0, "");
	add_case(cases, &ncases, 1025, 31, 0, 0, "");
	add_case(cases, &ncases, 2048, 7, 0, 0, "");
	add_case(cases, &ncases, 4096, 32, 0, 8, "");
	add_case(cases, &ncases, 4096, 33, 0, 8, "");
	add_case(cases, &ncases, 4096, 32, 8, 0, "");
	add_case(cases, &ncases, 4097, 17, 8, 8, "");
	add_case(cases, &ncases, 100001, 32, 0, 0, "");
	for (int i = 0; i < hx_opts()->n_extra_sizes && ncases < 36; i++)
		add_case(cases, &ncases, hx_extra_size_1d(i, 1 << 22), 31, 8, 8,
			 " (extra)");
	// the timed size: big (kmax rows) several times the L2, an even npts
	// (big moves 8 * kmax bytes per point: a power of two >= 2^18 of
	// points whose big array is at least 8x the L2; big and out are held)
	int npts = (int)hx_timed_elements((size_t)1 << 18,
					  MT_KMAX * sizeof(double),
					  (MT_KMAX + 1) * sizeof(double));
	add_case(cases, &ncases, npts, MT_KMAX, 0, 0, " (timed size)");

	int all_ok = 1;
	struct mt_call timed = {};
	struct hx_buffer bufs[3] = {};
	for (int i = 0; i < ncases; i++) {
		hx_emit(json_pack("{s:s, s:s, s:i, s:i}", "event", "progress",
				  "phase", "correctness", "done", i, "total",
				  ncases));
		if (!hx_case_selected(cases[i].name))
			continue;
		int last = i == ncases - 1;
		all_ok &= run_case(&cases[i], last, last ? &timed : NULL, bufs);
	}
	if (all_ok && hx_opts()->timing && timed.out) {
		double bytes = ((double)MT_KMAX + 1) * sizeof(double) * npts;
		struct hx_timing before =
			hx_time_calls(call_reference, &timed, "baseline");
		struct hx_timing mine = hx_time_calls(call_student, &timed, "memtune");
		struct hx_timing after =
			hx_time_calls(call_reference, &timed, "baseline");
		hx_timing_report("student", NULL, npts, bytes, &mine);
		hx_timing_report("reference", "the lab's baseline (step 1)", npts,
				 bytes,
				 before.us.median <= after.us.median ? &before : &after);
	}
	for (int b = 0; b < 3; b++)
		if (bufs[b].data)
			hx_buffer_free(&bufs[b]);
	if (all_ok && hx_opts()->timing && hx_case_selected(cases[ncases - 1].name)) {
		struct mt_case again = cases[ncases - 1];
		snprintf(again.name, sizeof(again.name),
			 "npts=%d kmax=%d (after timing, fresh inputs)", npts, MT_KMAX);
		all_ok &= run_case(&again, 0, NULL, NULL);
	}
	return hx_finish(all_ok);
}
