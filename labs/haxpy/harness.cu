// The haxpy lab's harness: bf16 cases at every alignment, the CPU
// reference (fmaf in float, one rounding to bf16), bytes moved, and timing
// at every starting offset 0-7. Memory, inputs, timing and events come
// from common/harness.h.
#include "harness.h"
#include "haxpy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- bf16 on the CPU, by bits ----------------------------------------- */

static float bf16_to_float(uint16_t b)
{
	uint32_t u = (uint32_t)b << 16;
	float f;
	memcpy(&f, &u, sizeof(f));
	return f;
}

// Round a float to bf16, nearest-even; NaN stays a (quiet) NaN.
static uint16_t float_to_bf16(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof(u));
	if ((u & 0x7FFFFFFF) > 0x7F800000)
		return (uint16_t)((u >> 16) | 0x0040);
	u += 0x7FFF + ((u >> 16) & 1);
	return (uint16_t)(u >> 16);
}

static int bf16_is_nan(uint16_t b)
{
	return (b & 0x7FFF) > 0x7F80;
}

// Distance in representable bf16 values (ulps), for finite values.
static long ulps_apart(uint16_t a, uint16_t b)
{
	long oa = a & 0x8000 ? -(long)(a & 0x7FFF) : (long)a;
	long ob = b & 0x8000 ? -(long)(b & 0x7FFF) : (long)b;
	return labs(oa - ob);
}

/* ---- inputs -------------------------------------------------------------- */

// Element i of a case: mostly ordinary values, with about 1 in 10 a special
// one (±0, subnormal, huge, ±Inf, NaN) and about 1 in 10 of the y values
// chosen to nearly cancel alpha*x, where a second rounding shows.
static uint16_t gen_x(const struct hx_rng *r, uint64_t i)
{
	struct hx_rng at = {r->state + (4 * i) * 0x9E3779B97F4A7C15ull};
	uint64_t b = hx_rng_next(&at);
	switch (b % 40) {
	case 0: return 0x0000;                                  /* +0 */
	case 1: return 0x8000;                                  /* -0 */
	case 2: return (uint16_t)(((b >> 8) & 0x7E) + 1);       /* subnormal */
	case 3: return (uint16_t)(0x7E00 | ((b >> 8) & 0x7F));  /* huge */
	case 4: return (b >> 9) & 1 ? 0x7F80 : 0xFF80;         /* ±Inf */
	case 5: return 0x7FC1;                                  /* NaN */
	default:
		return float_to_bf16(hx_rng_float_at(r, 4 * i + 1, -10, 10));
	}
}

static uint16_t gen_y(const struct hx_rng *r, uint64_t i, float alpha,
		      uint16_t x)
{
	struct hx_rng at = {r->state + (4 * i + 2) * 0x9E3779B97F4A7C15ull};
	uint64_t b = hx_rng_next(&at);
	if (b % 10 == 0) { /* near-cancellation: y ~ -alpha*x, +-1 ulp */
		uint16_t c = float_to_bf16(-alpha * bf16_to_float(x));
		if (!bf16_is_nan(c) && (c & 0x7F80) != 0x7F80)
			c = (uint16_t)(c + (int)((b >> 8) % 3) - 1);
		return c;
	}
	if (b % 40 == 1)
		return 0x8000;
	if (b % 40 == 2)
		return (uint16_t)(((b >> 8) & 0x7E) + 1);
	if (b % 97 == 3)
		return 0x7FC1;
	return float_to_bf16(hx_rng_float_at(r, 4 * i + 3, -10, 10));
}

/* ---- one case ---------------------------------------------------------- */

struct haxpy_call {
	int n;
	float alpha;
	const nv_bfloat16 *x;
	nv_bfloat16 *y;
};

static void call_student(void *ctx)
{
	struct haxpy_call *c = (struct haxpy_call *)ctx;
	haxpy(c->n, c->alpha, c->x, c->y);
}

#define CHUNK ((size_t)1 << 22)

struct gen_job {
	const struct hx_rng *rng;
	size_t first;
	float alpha;
	uint16_t *x, *y;
};

static void gen_range(void *ctx, size_t b, size_t e)
{
	struct gen_job *g = (struct gen_job *)ctx;
	for (size_t i = b; i < e; i++) {
		g->x[i] = gen_x(g->rng, g->first + i);
		g->y[i] = gen_y(g->rng, g->first + i, g->alpha, g->x[i]);
	}
}

/*
 * n elements starting `offset` elements past a 256-byte boundary. Every
 * element is compared with the reference; the guards around y catch a
 * write one element (2 bytes) before or after. Returns 1 when it passed.
 */
static int run_case(const char *name, int n, int offset, float alpha)
{
	static uint16_t *hx, *hy, *got;
	if (!hx) {
		hx = (uint16_t *)malloc(CHUNK * 2);
		hy = (uint16_t *)malloc(CHUNK * 2);
		got = (uint16_t *)malloc(CHUNK * 2);
		if (!hx || !hy || !got)
			hx_die("harness", "out of host memory");
	}
	size_t bytes = (size_t)n * 2;
	struct hx_rng rng = hx_rng_for(name);
	struct hx_buffer dx = hx_buffer_new("x", bytes, (size_t)offset * 2);
	struct hx_buffer dy = hx_buffer_new("y", bytes, (size_t)offset * 2);
	for (size_t off = 0; off < (size_t)n; off += CHUNK) {
		size_t len = (size_t)n - off < CHUNK ? (size_t)n - off : CHUNK;
		struct gen_job g = {&rng, off, alpha, hx, hy};
		hx_parallel_for(len, gen_range, &g);
		HX_CHECK(cudaMemcpy((uint16_t *)dx.data + off, hx, len * 2,
				    cudaMemcpyHostToDevice));
		HX_CHECK(cudaMemcpy((uint16_t *)dy.data + off, hy, len * 2,
				    cudaMemcpyHostToDevice));
	}
	char what[96];
	snprintf(what, sizeof(what), "haxpy(n=%d, alpha=%g) at offset %d", n,
		 alpha, offset);
	struct haxpy_call call = {n, alpha, (const nv_bfloat16 *)dx.data,
				  (nv_bfloat16 *)dy.data};
	hx_call(call_student, &call, what, 0);

	struct hx_mismatches m;
	hx_mismatches_init(&m);
	size_t unwritten = 0, x_changed = 0;
	for (size_t off = 0; off < (size_t)n; off += CHUNK) {
		size_t len = (size_t)n - off < CHUNK ? (size_t)n - off : CHUNK;
		struct gen_job g = {&rng, off, alpha, hx, hy};
		hx_parallel_for(len, gen_range, &g);
		HX_CHECK(cudaMemcpy(got, (uint16_t *)dy.data + off, len * 2,
				    cudaMemcpyDeviceToHost));
		for (size_t j = 0; j < len; j++) {
			uint16_t want = float_to_bf16(fmaf(
				alpha, bf16_to_float(hx[j]), bf16_to_float(hy[j])));
			uint16_t have = got[j];
			m.checked++;
			int ok;
			if (bf16_is_nan(want))
				ok = bf16_is_nan(have);
			else if ((want & 0x7F80) == 0x7F80 || bf16_is_nan(have) ||
				 (have & 0x7F80) == 0x7F80)
				ok = want == have;
			else
				ok = ulps_apart(want, have) <= 1;
			if (ok)
				continue;
			int same = have == hy[j] && want != hy[j];
			unwritten += same;
			if (!hx_mismatch_wanted(&m)) {
				hx_mismatch(&m, off + j, NULL, NULL, NULL);
				continue;
			}
			char e[48], gs[48], note[96];
			snprintf(e, sizeof(e), "%.6g (0x%04x)",
				 bf16_to_float(want), want);
			snprintf(gs, sizeof(gs), "%.6g (0x%04x)",
				 bf16_to_float(have), have);
			snprintf(note, sizeof(note),
				 "x=0x%04x y=0x%04x%s", hx[j], hy[j],
				 same ? ", not written" : "");
			hx_mismatch(&m, off + j, e, gs, note);
		}
		HX_CHECK(cudaMemcpy(got, (uint16_t *)dx.data + off, len * 2,
				    cudaMemcpyDeviceToHost));
		for (size_t j = 0; j < len; j++)
			x_changed += got[j] != hx[j];
	}
	char msg[256] = "";
	if (m.count)
		snprintf(msg, sizeof(msg),
			 "%zu of %d elements differ from the reference by more "
			 "than one bf16 ulp (or in NaN/Inf)%s at offset %d",
			 m.count, n,
			 unwritten == m.count ? ", all never written" : "",
			 offset);
	if (x_changed) {
		size_t len = strlen(msg);
		snprintf(msg + len, sizeof(msg) - len,
			 "%s%zu element(s) of x were changed, but x is read-only",
			 len ? "; " : "", x_changed);
		if (!m.count)
			hx_mismatch(&m, 0, "x unchanged", "x modified", NULL);
	}
	int ok = hx_case_end(name, (size_t)n, &m, msg);
	ok &= hx_buffer_check_guards(&dy, 2);
	ok &= hx_buffer_check_guards(&dx, 2);
	hx_buffer_free(&dx);
	hx_buffer_free(&dy);
	return ok;
}

/* ---- cases -------------------------------------------------------------- */

struct haxpy_case {
	char name[80];
	int n, offset;
	float alpha;
};

static int add(struct haxpy_case *c, int k, int n, int offset, float alpha)
{
	c[k].n = n;
	c[k].offset = offset;
	c[k].alpha = alpha;
	snprintf(c[k].name, sizeof(c[k].name), "n=%d offset=%d alpha=%g", n,
		 offset, alpha);
	return k + 1;
}

int main(int argc, char **argv)
{
	hx_init(argc, argv);
	static const float alphas[] = {1.0f, -1.0f, 0.0f, 2.5f, 1e30f, 1e-30f};
	static struct haxpy_case cases[512];
	int k = 0;
	for (int n = 1; n <= 17; n++) /* every small n at every offset */
		for (int off = 0; off < 8; off++)
			k = add(cases, k, n, off, alphas[(n + off) % 6]);
	static const int around[] = {16, 32, 128, 1024, 256, 512};
	for (size_t a = 0; a < sizeof(around) / sizeof(around[0]); a++)
		for (int d = -1; d <= 1; d++)
			for (int off = 0; off < 8; off += 3)
				k = add(cases, k, around[a] + d, off,
					alphas[(a + off) % 6]);
	k = add(cases, k, 1000, 33, -1.0f);  /* odd offsets mod 256 bytes */
	k = add(cases, k, 1000, 127, 2.5f);
	k = add(cases, k, (1 << 20) + 3, 5, 0.75f);
	for (int i = 0; i < hx_opts()->n_extra_sizes; i++) {
		k = add(cases, k, hx_extra_size_1d(i, 1 << 28), i % 8, 0.5f);
		strncat(cases[k - 1].name, " (extra)",
			sizeof(cases[k - 1].name) - strlen(cases[k - 1].name) - 1);
	}
	int n_timed = (int)hx_timed_elements(HX_TIMED_MIN, 3 * 2, 2 * 2);
	k = add(cases, k, n_timed - 8, 1, -1.25f);
	k = add(cases, k, n_timed - 8, 0, 1.5f);
	snprintf(cases[k - 1].name, sizeof(cases[k - 1].name),
		 "n=%d offset=0 alpha=1.5 (timed size)", n_timed - 8);

	int all_ok = 1;
	for (int i = 0; i < k; i++) {
		if (i % 16 == 0 || i == k - 1)
			hx_emit(json_pack("{s:s, s:s, s:i, s:i}", "event",
					  "progress", "phase", "correctness",
					  "done", i, "total", k));
		if (hx_case_selected(cases[i].name))
			all_ok &= run_case(cases[i].name, cases[i].n,
					   cases[i].offset, cases[i].alpha);
	}
	if (!all_ok || !hx_opts()->timing)
		return hx_finish(all_ok);

	/*
	 * Time at every starting offset 0..7, on the same n. The buffers are
	 * laid out as run_case lays out an offset-7 case, so the check after
	 * timing reuses them (hx_buffer_new) and sees the offset-7 pointers.
	 */
	int n_t = n_timed - 8;
	struct hx_buffer bx = hx_buffer_new("x", (size_t)n_t * 2, 14);
	struct hx_buffer by = hx_buffer_new("y", (size_t)n_t * 2, 14);
	uint16_t *x = (uint16_t *)(bx.alloc + HX_GUARD_BYTES);
	uint16_t *y = (uint16_t *)(by.alloc + HX_GUARD_BYTES);
	HX_CHECK(cudaMemset(x, 0x3F, (size_t)n_t * 2 + 14)); /* about 0.75 */
	HX_CHECK(cudaMemset(y, 0x3F, (size_t)n_t * 2 + 14));
	for (int off = 0; off < 8; off++) {
		struct haxpy_call call = {n_t, 1.0f,
					  (const nv_bfloat16 *)(x + off),
					  (nv_bfloat16 *)(y + off)};
		if (off == 0)
			hx_call(call_student, &call, "haxpy at the timed size",
				n_t);
		char what[64], variant[32];
		snprintf(what, sizeof(what), "haxpy at offset %d", off);
		snprintf(variant, sizeof(variant), "offset %d", off);
		struct hx_timing t = hx_time_calls(call_student, &call, what);
		hx_timing_report_variant("student", NULL, variant, n_t,
					 3.0 * 2 * n_t, &t);
	}
	hx_buffer_free(&bx);
	hx_buffer_free(&by);
	// Fresh inputs in the buffers the offset-7 timed calls used: a
	// launcher that skipped work it thought it had done shows stale output.
	char again[80];
	snprintf(again, sizeof(again),
		 "n=%d offset=7 alpha=1.5 (after timing, fresh inputs)", n_t);
	all_ok &= run_case(again, n_t, 7, 1.5f);
	return hx_finish(all_ok);
}
