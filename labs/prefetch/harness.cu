// The prefetch lab's harness: cases, CPU reference, the lab's own baseline
// kernel (timed in the same process, for speedup_vs_baseline), bytes moved.
// Memory, inputs, timing and events come from common/harness.h.
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

struct pf_case {
	char name[80];
	int n;
	int exact_alloc; // in is a plain cudaMalloc of n doubles (sanitizer)
};

struct pf_call {
	int n, blocks;
	const double *in;
	double *out;
};

static void call_student(void *ctx)
{
	struct pf_call *c = (struct pf_call *)ctx;
	prefetch_transform(c->in, c->out, c->n, c->blocks);
}

static void call_reference(void *ctx)
{
	struct pf_call *c = (struct pf_call *)ctx;
	pf_reference_baseline<<<c->blocks, PF_BLOCK>>>(c->in, c->out, c->n);
	HX_CHECK(cudaGetLastError());
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
		if (g->want) {
			// long double: pi * x rounded to double would be off by
			// far more than the GPU near the zeros of sin
			long double xl = g->x[i];
			g->want[i] = (double)(sinl(3.14159265358979323846264338327950288L * xl) *
					      expl(-xl));
		}
	}
}

static int sm_count(void)
{
	return hx_device()->multiProcessorCount;
}

/*
 * One case: fresh inputs, one call, every element of out checked against
 * the CPU, in checked unchanged, guards checked. When keep is set the
 * buffers are handed back (the timed size) instead of freed.
 */
static int run_case(const struct pf_case *c, int record,
		    struct hx_buffer *keep_in, struct hx_buffer *keep_out)
{
	size_t n = (size_t)c->n, bytes = n * sizeof(double);
	struct hx_rng rng = hx_rng_for(c->name);
	double *x = (double *)malloc(bytes), *want = (double *)malloc(bytes),
	       *got = (double *)malloc(bytes);
	if (!x || !want || !got)
		hx_die("harness", "out of host memory for n=%d", c->n);
	struct gen_job g = {&rng, x, want};
	hx_parallel_for(n, gen_range, &g);

	struct hx_buffer din = {}, dout = hx_buffer_new("out", bytes, 0);
	double *in_ptr;
	if (c->exact_alloc) {
		// no guard zone after `in`: a read past its end is outside the
		// allocation, where compute-sanitizer's memcheck sees it
		HX_CHECK(cudaMalloc((void **)&in_ptr, bytes));
		HX_CHECK(cudaMemcpy(in_ptr, x, bytes, cudaMemcpyHostToDevice));
	} else {
		din = hx_buffer_new("in", bytes, 0);
		hx_buffer_upload(&din, x);
		in_ptr = (double *)din.data;
	}
	hx_buffer_poison(&dout);

	char what[96];
	snprintf(what, sizeof(what), "prefetch_transform(n=%d, blocks=%d)",
		 c->n, sm_count());
	struct pf_call call = {c->n, sm_count(), in_ptr, (double *)dout.data};
	hx_call(call_student, &call, what, record ? (double)c->n : 0);

	hx_buffer_download(&dout, got);
	struct hx_mismatches m;
	hx_mismatches_init(&m);
	size_t unwritten = 0;
	for (size_t i = 0; i < n; i++) {
		m.checked++;
		double tol = REL_TOL * fabs(want[i]) + ABS_TOL;
		if (fabs(got[i] - want[i]) <= tol)
			continue;
		int poison = isnan(got[i]);
		unwritten += poison;
		if (!hx_mismatch_wanted(&m)) {
			hx_mismatch(&m, i, NULL, NULL, NULL);
			continue;
		}
		char e[40], gs[40], note[96];
		snprintf(e, sizeof(e), "%.17g", want[i]);
		snprintf(gs, sizeof(gs), "%.17g", got[i]);
		snprintf(note, sizeof(note), "in[%zu] = %.17g", i, x[i]);
		hx_mismatch(&m, i, e, gs,
			    poison ? "not written (still the poison NaN)" : note);
	}
	// in must be unchanged
	size_t in_changed = 0;
	HX_CHECK(cudaMemcpy(got, in_ptr, bytes, cudaMemcpyDeviceToHost));
	for (size_t i = 0; i < n; i++)
		in_changed += memcmp(&got[i], &x[i], sizeof(double)) != 0;

	char msg[320] = "";
	if (m.count && unwritten == m.count)
		snprintf(msg, sizeof(msg),
			 "%zu of %d elements were never written (does every "
			 "block cover its whole range, the last partial batch "
			 "included?)", unwritten, c->n);
	else if (m.count)
		snprintf(msg, sizeof(msg),
			 "%zu of %d elements are wrong (%zu never written): a "
			 "value used for the wrong element, or used before its "
			 "prefetch arrived?", m.count, c->n, unwritten);
	if (in_changed) {
		size_t len = strlen(msg);
		snprintf(msg + len, sizeof(msg) - len,
			 "%s%zu element(s) of in were changed, but in is "
			 "read-only", len ? "; " : "", in_changed);
		if (!m.count)
			hx_mismatch(&m, 0, "in unchanged", "in modified", NULL);
	}
	int ok = hx_case_end(c->name, n, &m, msg);
	ok &= hx_buffer_check_guards(&dout, sizeof(double));
	if (c->exact_alloc)
		HX_CHECK(cudaFree(in_ptr));
	else
		ok &= hx_buffer_check_guards(&din, sizeof(double));
	free(x);
	free(want);
	free(got);
	if (keep_in) {
		*keep_in = din;
		*keep_out = dout;
	} else {
		if (!c->exact_alloc)
			hx_buffer_free(&din);
		hx_buffer_free(&dout);
	}
	return ok;
}

static void add_case(struct pf_case *cases, int *ncases, int n,
		     const char *why)
{
	struct pf_case *c = &cases[(*ncases)++];
	c->n = n;
	c->exact_alloc = 0;
	snprintf(c->name, sizeof(c->name), "n=%d%s", n, why);
}

int main(int argc, char **argv)
{
	hx_init(argc, argv);
	int sms = sm_count();
	// One batch of every block: sms * PF_BLOCK * PDIST elements. Sizes on
	// and off that multiple (and off PF_BLOCK) end the loops in every
	// possible place: a full last batch, a partial one, a partial warp.
	int batch = sms * PF_BLOCK * PDIST;
	struct pf_case cases[48];
	int ncases = 0;
	static const int small[] = {1, 2, 31, 255, 256, 257, 1000};
	for (size_t i = 0; i < sizeof(small) / sizeof(small[0]); i++)
		add_case(cases, &ncases, small[i], "");
	add_case(cases, &ncases, sms * PF_BLOCK, " (one row per block)");
	add_case(cases, &ncases, batch, " (whole batches)");
	add_case(cases, &ncases, batch + 1, " (whole batches + 1)");
	add_case(cases, &ncases, batch - 1, " (whole batches - 1)");
	add_case(cases, &ncases, 3 * batch + sms * 100, " (partial batches)");
	add_case(cases, &ncases, (1 << 20) + 3, "");
	// the sanitizer's case (lab.json "sanitize"): in ends where its
	// allocation ends
	cases[ncases] = (struct pf_case){"", 1000, 1};
	snprintf(cases[ncases].name, sizeof(cases[ncases].name),
		 "n=1000 (exact allocation)");
	ncases++;
	for (int i = 0; i < hx_opts()->n_extra_sizes; i++)
		add_case(cases, &ncases, hx_extra_size_1d(i, 1 << 27),
			 " (extra)");
	int n_timed = (int)hx_timed_elements(HX_TIMED_MIN, 2 * sizeof(double),
						2 * sizeof(double));
	add_case(cases, &ncases, n_timed, " (timed size)");

	int all_ok = 1;
	struct hx_buffer tin = {}, tout = {};
	for (int i = 0; i < ncases; i++) {
		hx_emit(json_pack("{s:s, s:s, s:i, s:i}", "event", "progress",
				  "phase", "correctness", "done", i, "total",
				  ncases));
		if (!hx_case_selected(cases[i].name))
			continue;
		int timed = i == ncases - 1;
		all_ok &= run_case(&cases[i], timed, timed ? &tin : NULL,
				   timed ? &tout : NULL);
	}

	// Time only a correct kernel. The lab's baseline is timed before and
	// after the student's call, and the faster of its two medians is the
	// one reported: drift between the two cannot inflate a speedup.
	if (all_ok && hx_opts()->timing && tin.data) {
		struct pf_call call = {n_timed, sms, (const double *)tin.data,
				       (double *)tout.data};
		double bytes = 2.0 * sizeof(double) * n_timed;
		struct hx_timing before =
			hx_time_calls(call_reference, &call, "baseline");
		struct hx_timing mine =
			hx_time_calls(call_student, &call, "prefetch_transform");
		struct hx_timing after =
			hx_time_calls(call_reference, &call, "baseline");
		hx_timing_report("student", NULL, n_timed, bytes, &mine);
		hx_timing_report("reference", "the lab's baseline (step 1)",
				 n_timed, bytes,
				 before.us.median <= after.us.median ? &before
								     : &after);
	}
	if (tin.data) {
		hx_buffer_free(&tin);
		hx_buffer_free(&tout);
	}
	// Fresh inputs in the buffers the timed calls used.
	if (all_ok && hx_opts()->timing &&
	    hx_case_selected(cases[ncases - 1].name)) {
		struct pf_case again = {"", n_timed, 0};
		snprintf(again.name, sizeof(again.name),
			 "n=%d (after timing, fresh inputs)", n_timed);
		all_ok &= run_case(&again, 0, NULL, NULL);
	}
	return hx_finish(all_ok);
}
