// The coalescing lab's harness: one set of cases per step (the grader names
// the step with --step), inputs generated on the GPU from a hash of the
// element's index (so a 4 GB strided input needs no host copy), references
// on the CPU, and the given kernels of steps 3 and 4 timed by the judge
// beside the student's calls as baselines; declared for the runtime's lab
// driver (common/harness.h), which owns the order, the student's process,
// guards, timing and events. Every timed call of the student's gets new
// inputs (made on the GPU by the judge) and 64 of its outputs are checked.
#include "coalescing.h"
#include "harness.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ---- inputs: value j of a case is a pure function of (seed, case, j) ----

static __host__ __device__ float cl_value(uint64_t key, uint64_t j)
{
	uint64_t z = key + 0x9E3779B97F4A7C15ull * (j + 1);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	z ^= z >> 31;
	// [-2, 2) in steps of 2^-20: exact in float, sums stay exact enough
	return (float)((int64_t)(z >> 42) - (1 << 21)) / (float)(1 << 20);
}

__global__ void hx_cl_fill(float *p, size_t n, uint64_t key)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	for (size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x; j < n;
	     j += stride)
		p[j] = cl_value(key, j);
}

static uint64_t case_key(const char *name)
{
	struct hx_rng r = hx_rng_for(name);
	return hx_rng_next(&r);
}

static void fill(struct hx_buffer *b, size_t n, uint64_t key)
{
	hx_cl_fill<<<4 * hx_device()->multiProcessorCount, 256>>>(
		(float *)b->data, n, key);
	HX_CHECK(cudaGetLastError());
}

static void missing(const char *launcher)
{
	hx_die("launcher", "this step's file does not define %s() with the "
			   "interface in labs/coalescing/coalescing.h",
	       launcher);
}

// ---- the student's calls, by step ---------------------------------------

enum kind { K_COPY, K_GATHER, K_BIAS, K_SOA };

static void call_copy(const struct hx_args *a)
{
	copy_floats((const float *)a->buf[0], (float *)a->buf[1], (int)a->i[0]);
}

static void call_gather(const struct hx_args *a)
{
	gather_floats((const float *)a->buf[0], (float *)a->buf[1],
		      (int)a->i[0], (int)a->i[1], (int)a->i[2]);
}

static void call_bias(const struct hx_args *a)
{
	add_row_bias((const float *)a->buf[0], (const float *)a->buf[1],
		     (float *)a->buf[2], (int)a->i[0], (int)a->i[1]);
}

static void call_soa(const struct hx_args *a)
{
	advance_soa((float *)a->buf[0], (const float *)a->buf[1], (int)a->i[0],
		    (float)a->f[0]);
}

static const hx_student_fn calls[] = {call_copy, call_gather, call_bias,
				      call_soa};

#define CL_DT 0.01f

// ---- the given kernels and the vendor copy (run by the judge) ------------

#define CL_TILE_X 32
#define CL_TILE_Y 8

// The given kernel: threadIdx.x walks down the rows, so the 32 threads of
// a warp touch 32 different rows of one column (32 sectors per request).
__global__ void cl_given_row_bias(const float *in, const float *bias,
				  float *out, int rows, int cols)
{
	int r = blockIdx.x * CL_TILE_X + threadIdx.x;
	int c = blockIdx.y * CL_TILE_Y + threadIdx.y;
	if (r < rows && c < cols)
		out[(size_t)r * cols + c] = in[(size_t)r * cols + c] + bias[c];
}

// The given kernel: one 32-byte record per particle, 8 bytes of it used.
__global__ void cl_given_advance_aos(struct cl_particle *p, int n, float dt)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		p[i].x += p[i].vx * dt;
}

struct judge_call {
	const float *in, *bias;
	float *out;
	struct cl_particle *aos;
	int n, rows, cols;
};

static void call_memcpy(void *ctx)
{
	struct judge_call *c = (struct judge_call *)ctx;
	HX_CHECK(cudaMemcpyAsync(c->out, c->in, (size_t)c->n * sizeof(float),
				 cudaMemcpyDeviceToDevice, 0));
}

static void call_given_bias(void *ctx)
{
	struct judge_call *c = (struct judge_call *)ctx;
	dim3 block(CL_TILE_X, CL_TILE_Y);
	dim3 grid((c->rows + CL_TILE_X - 1) / CL_TILE_X,
		  (c->cols + CL_TILE_Y - 1) / CL_TILE_Y);
	cl_given_row_bias<<<grid, block>>>(c->in, c->bias, c->out, c->rows,
					   c->cols);
	HX_CHECK(cudaGetLastError());
}

static void call_given_aos(void *ctx)
{
	struct judge_call *c = (struct judge_call *)ctx;
	cl_given_advance_aos<<<(c->n + 255) / 256, 256>>>(c->aos, c->n, CL_DT);
	HX_CHECK(cudaGetLastError());
}

// ---- cases ------------------------------------------------------------------

static int step_kind(void)
{
	const char *step = hx_opts()->step;
	// run by hand with no --step: the step whose launcher the file defines
	if (!step)
		return copy_floats ? K_COPY : gather_floats ? K_GATHER
			 : add_row_bias ? K_BIAS : K_SOA;
	if (!strcmp(step, "v1"))
		return K_COPY;
	if (!strcmp(step, "v2"))
		return K_GATHER;
	if (!strcmp(step, "v3"))
		return K_BIAS;
	if (!strcmp(step, "v4"))
		return K_SOA;
	hx_die("usage", "no step \"%s\" in the coalescing lab (v1..v4)", step);
}

/* parameters: p[0] kind; gather: p[1] n p[2] stride p[3] offset; bias:
 * p[1] rows p[2] cols; soa: p[1] n */
static struct hx_case *gather_case(struct hx_plan *p, int timed, int kind,
				   int n, int stride, int offset,
				   const char *extra)
{
	struct hx_case *c;
	if (kind == K_COPY)
		c = timed ? hx_add_timed_case(p, "n=%d", n)
			  : hx_add_case(p, "n=%d%s", n, extra);
	else
		c = timed ? hx_add_timed_case(p, "n=%d", n)
			  : hx_add_case(p, "n=%d stride=%d offset=%d%s", n,
					stride, offset, extra);
	c->n = n;
	c->p[0] = kind;
	c->p[1] = n;
	c->p[2] = stride;
	c->p[3] = offset;
	return c;
}

static void cases_gather(struct hx_plan *p, int kind)
{
	int step1 = kind == K_COPY;
	if (step1 && !copy_floats)
		missing("copy_floats");
	if (!step1 && !gather_floats)
		missing("gather_floats");
	static const int sizes[] = {1, 31, 32, 255, 256, 257, 1000, 65537,
				    (1 << 20) + 3};
	static const int strides[] = {1, 2, 3, 8, 32};
	static const int offsets[] = {0, 1, 5, 31};
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		gather_case(p, 0, kind, sizes[s], step1 ? 1 : strides[s % 5],
			    step1 ? 0 : offsets[s % 4], "");
	for (int i = 0; i < hx_opts()->n_extra_sizes && i < 40; i++) {
		int n = hx_extra_size_1d(i, 1 << 26);
		struct hx_case *c = hx_add_case(
			p, "n=%d stride=%d offset=%d (extra)", n,
			step1 ? 1 : 7, step1 ? 0 : 3);
		c->n = n, c->p[0] = kind, c->p[1] = n;
		c->p[2] = step1 ? 1 : 7, c->p[3] = step1 ? 0 : 3;
	}
	// the timed size: the input spans n * 32 + 32 floats at stride 32
	int n_timed = (int)hx_timed_elements(HX_TIMED_MIN,
					     step1 ? 8 : 4 * 33 + 4,
					     step1 ? 8 : 4 * 33 + 4);
	gather_case(p, 1, kind, n_timed, 1, 0, "");
}

static void cases_bias(struct hx_plan *p)
{
	if (!add_row_bias)
		missing("add_row_bias");
	static const int shapes[][2] = {{1, 1}, {1, 1000}, {1000, 1}, {31, 33},
					{32, 32}, {33, 257}, {257, 31},
					{1000, 999}, {4096, 4097}};
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		struct hx_case *c = hx_add_case(p, "%dx%d", shapes[s][0],
						shapes[s][1]);
		c->p[0] = K_BIAS, c->p[1] = shapes[s][0], c->p[2] = shapes[s][1];
		c->n = c->p[1] * c->p[2];
	}
	for (int i = 0; i < hx_opts()->n_extra_sizes && i < 40; i++) {
		int rows, cols;
		hx_extra_size_2d(i, 1 << 14, &rows, &cols);
		struct hx_case *c = hx_add_case(p, "%dx%d (extra)", rows, cols);
		c->p[0] = K_BIAS, c->p[1] = rows, c->p[2] = cols;
		c->n = c->p[1] * c->p[2];
	}
	// square, power-of-two columns: the given kernel's warps then hit 32
	// rows whose addresses differ by a multiple of 32 KiB
	// (side * side is the rule's count or twice it: held counts 2x)
	size_t n_rule = hx_timed_elements(HX_TIMED_MIN, 8, 2 * 8);
	int side = 1;
	while ((size_t)side * side < n_rule)
		side *= 2;
	struct hx_case *c = hx_add_timed_case(p, "%dx%d", side, side);
	c->p[0] = K_BIAS, c->p[1] = side, c->p[2] = side;
	c->n = c->p[1] * c->p[2];
}

static void cases_soa(struct hx_plan *p)
{
	if (!advance_soa)
		missing("advance_soa");
	static const int sizes[] = {1, 31, 255, 256, 257, 1000, 65537,
				    (1 << 20) + 3};
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		struct hx_case *c = hx_add_case(p, "n=%d", sizes[s]);
		c->n = sizes[s], c->p[0] = K_SOA, c->p[1] = sizes[s];
	}
	for (int i = 0; i < hx_opts()->n_extra_sizes && i < 40; i++) {
		int n = hx_extra_size_1d(i, 1 << 26);
		struct hx_case *c = hx_add_case(p, "n=%d (extra)", n);
		c->n = n, c->p[0] = K_SOA, c->p[1] = n;
	}
	int n_timed = (int)hx_timed_elements(
		HX_TIMED_MIN, sizeof(struct cl_particle) * 2,
		sizeof(struct cl_particle) + 2 * sizeof(float)) /* AoS, x, vx */;
	struct hx_case *c = hx_add_timed_case(p, "n=%d", n_timed);
	c->n = n_timed, c->p[0] = K_SOA, c->p[1] = n_timed;
}

static void cases(struct hx_plan *p)
{
	int kind = step_kind();
	if (kind == K_COPY || kind == K_GATHER)
		cases_gather(p, kind);
	else if (kind == K_BIAS)
		cases_bias(p);
	else
		cases_soa(p);
}

// ---- setup and check ---------------------------------------------------------

static void setup(struct hx_run *r, const struct hx_case *c)
{
	static char what[128];
	struct hx_request *q = hx_run_request(r);
	uint64_t key = case_key(c->name);
	switch ((int)c->p[0]) {
	case K_COPY:
	case K_GATHER: {
		int n = (int)c->p[1], stride = (int)c->p[2], offset = (int)c->p[3];
		size_t span = (size_t)(n - 1) * stride + offset + 1;
		int in = hx_buf(r, "in", span * sizeof(float), 0, sizeof(float),
				HX_IN);
		int out = hx_buf(r, "out", (size_t)n * sizeof(float), 0,
				 sizeof(float), HX_OUT);
		fill(hx_buf_get(r, in), span, key);
		if (c->p[0] == K_COPY) {
			snprintf(what, sizeof(what), "copy_floats(n=%d)", n);
			q->call = K_COPY;
		} else {
			snprintf(what, sizeof(what), "gather_floats(n=%d, "
				 "stride=%d, offset=%d)", n, stride, offset);
			q->call = K_GATHER;
		}
		q->nbuf = 2, q->buf[0] = in, q->buf[1] = out;
		q->i[0] = n, q->i[1] = stride, q->i[2] = offset;
		break;
	}
	case K_BIAS: {
		int rows = (int)c->p[1], cols = (int)c->p[2];
		size_t n = (size_t)rows * cols;
		int in = hx_buf(r, "in", n * sizeof(float), 0, sizeof(float),
				HX_IN);
		int bias = hx_buf(r, "bias", cols * sizeof(float), 0,
				  sizeof(float), HX_IN);
		int out = hx_buf(r, "out", n * sizeof(float), 0, sizeof(float),
				 HX_OUT);
		fill(hx_buf_get(r, in), n, key);
		fill(hx_buf_get(r, bias), cols, key + 1);
		snprintf(what, sizeof(what), "add_row_bias(rows=%d, cols=%d)",
			 rows, cols);
		q->call = K_BIAS;
		q->nbuf = 3, q->buf[0] = in, q->buf[1] = bias, q->buf[2] = out;
		q->i[0] = rows, q->i[1] = cols;
		break;
	}
	default: {
		int n = (int)c->p[1];
		int x = hx_buf(r, "x", (size_t)n * sizeof(float), 0,
			       sizeof(float), HX_INOUT);
		int vx = hx_buf(r, "vx", (size_t)n * sizeof(float), 0,
				sizeof(float), HX_IN);
		fill(hx_buf_get(r, x), n, key);
		fill(hx_buf_get(r, vx), n, key + 1);
		snprintf(what, sizeof(what), "advance_soa(n=%d)", n);
		q->call = K_SOA;
		q->nbuf = 2, q->buf[0] = x, q->buf[1] = vx;
		q->i[0] = n, q->f[0] = CL_DT;
		break;
	}
	}
	q->what = what;
}

/* The reference of element i of a call's output: keys as setup/perturb
 * made the inputs (key for in/x, key + 1 for bias/vx). */
static float want_at(int kind, const long long *i, uint64_t key, size_t k)
{
	switch (kind) {
	case K_COPY:
	case K_GATHER:
		return cl_value(key, k * (size_t)i[1] + (size_t)i[2]);
	case K_BIAS:
		return cl_value(key, k) + cl_value(key + 1, k % (size_t)i[1]);
	default:
		return fmaf(cl_value(key + 1, k), CL_DT, cl_value(key, k));
	}
}

static float tolerance(int kind)
{
	// x + vx * dt, fused or not: within 2^-22 of x's magnitude
	return kind == K_SOA ? 3e-7f : 0;
}

static const char *hint(int kind)
{
	switch (kind) {
	case K_COPY:
		return "out[i] must be in[i]";
	case K_GATHER:
		return "out[i] must be in[i * stride + offset]";
	case K_BIAS:
		return "out[r * cols + c] must be in[r * cols + c] + bias[c]: "
		       "are rows and columns swapped?";
	default:
		return "x[i] must become x[i] + vx[i] * dt, once";
	}
}

/* One element against the reference; counts it in m. Returns 1 when it is
 * still the poison (never written). */
static int check_one(struct hx_mismatches *m, size_t i, float w, float got,
		     float tol)
{
	m->checked++;
	if (fabsf(got - w) <= tol * fabsf(w))
		return 0;
	int poison = isnan(got);
	if (!hx_mismatch_wanted(m)) {
		hx_mismatch(m, i, NULL, NULL, NULL);
		return poison;
	}
	char e[32], g[32];
	snprintf(e, sizeof(e), "%.9g", w);
	snprintf(g, sizeof(g), "%.9g", got);
	hx_mismatch(m, i, e, g,
		    poison ? "not written (still the poison NaN)" : NULL);
	return poison;
}

static void check(struct hx_run *r, const struct hx_case *c,
		  struct hx_mismatches *m, char *msg, size_t msglen)
{
	int kind = (int)c->p[0];
	const struct hx_request *q = hx_run_request(r);
	/* the output: out (gather, bias) or x (soa) */
	int ob = kind == K_SOA ? q->buf[0] : q->buf[q->nbuf - 1];
	size_t n = (size_t)c->n;
	float *got = (float *)malloc(n * sizeof(float));
	if (!got)
		hx_die("harness", "out of host memory");
	hx_buffer_download(hx_buf_get(r, ob), got);
	long long args[3] = {0, 0, 0};
	if (kind == K_COPY || kind == K_GATHER)
		args[1] = c->p[2], args[2] = c->p[3];
	else if (kind == K_BIAS)
		args[1] = c->p[2];
	uint64_t key = case_key(c->name);
	size_t unwritten = 0;
	for (size_t i = 0; i < n; i++)
		unwritten += check_one(m, i, want_at(kind, args, key, i), got[i],
				       tolerance(kind));
	free(got);
	if (m->count && unwritten == m->count)
		snprintf(msg, msglen, "%zu of %zu elements were never "
			 "written: does the grid cover all of them, the last "
			 "partial block included?", unwritten, n);
	else if (m->count)
		snprintf(msg, msglen, "%zu of %zu elements are wrong (%zu "
			 "never written): %s", m->count, n, unwritten,
			 hint(kind));
}

static double bytes(const struct hx_case *c)
{
	double n = (double)c->n;
	switch ((int)c->p[0]) {
	case K_COPY:
	case K_GATHER:
		return 2.0 * sizeof(float) * n;
	case K_BIAS:
		return 2.0 * sizeof(float) * n + sizeof(float) * (double)c->p[2];
	default:
		return 3.0 * sizeof(float) * n;
	}
}

// ---- timed calls: new inputs on the GPU, a sample checked ----------------

static int request_kind(const struct hx_request *q)
{
	return q->call;
}

static void perturb(struct hx_run *r, const struct hx_request *q,
		    unsigned long long key)
{
	int kind = request_kind(q);
	uint64_t k = hx_key_bits(key, 1);
	if (kind == K_COPY || kind == K_GATHER) {
		size_t span = (size_t)(q->i[0] - 1) * (size_t)q->i[1] +
			      (size_t)q->i[2] + 1;
		fill(hx_buf_get(r, q->buf[0]), span, k);
	} else if (kind == K_BIAS) {
		fill(hx_buf_get(r, q->buf[0]), (size_t)(q->i[0] * q->i[1]), k);
		fill(hx_buf_get(r, q->buf[1]), (size_t)q->i[1], k + 1);
	} else {
		fill(hx_buf_get(r, q->buf[0]), (size_t)q->i[0], k);
		fill(hx_buf_get(r, q->buf[1]), (size_t)q->i[0], k + 1);
	}
}

static void spot(struct hx_run *r, const struct hx_request *q,
		 unsigned long long key, struct hx_mismatches *m)
{
	int kind = request_kind(q);
	uint64_t k = hx_key_bits(key, 1);
	size_t n = kind == K_BIAS ? (size_t)(q->i[0] * q->i[1]) : (size_t)q->i[0];
	int ob = kind == K_SOA ? q->buf[0] : q->buf[q->nbuf - 1];
	size_t idx[HX_SPOT_SAMPLES];
	float got[HX_SPOT_SAMPLES];
	hx_spot_indices(n, idx, HX_SPOT_SAMPLES);
	hx_buf_sample(r, ob, 0, sizeof(float), idx, HX_SPOT_SAMPLES, got);
	long long args[3] = {0, 0, 0};
	if (kind == K_COPY || kind == K_GATHER)
		args[1] = q->i[1], args[2] = q->i[2];
	else if (kind == K_BIAS)
		args[1] = q->i[1];
	for (int j = 0; j < HX_SPOT_SAMPLES; j++)
		check_one(m, idx[j], want_at(kind, args, k, idx[j]), got[j],
			  tolerance(kind));
}

// ---- the timing plans ------------------------------------------------------

static int timing(struct hx_run *r, const struct hx_case *c)
{
	int kind = (int)c->p[0];
	struct hx_request *q = hx_run_request(r);
	double moved = bytes(c);
	double n = (double)c->n;
	if (kind == K_COPY) {
		struct judge_call jc = {
			(const float *)hx_buf_get(r, q->buf[0])->data, NULL,
			(float *)hx_buf_get(r, q->buf[1])->data, NULL, (int)c->n,
			0, 0};
		struct hx_timing mine = hx_time_student(r, q, "copy_floats");
		struct hx_timing mc = hx_time_calls(call_memcpy, &jc, "cudaMemcpy");
		hx_timing_report("student", NULL, n, moved, &mine);
		hx_timing_report("vendor", "cudaMemcpy device to device", n,
				 moved, &mc);
		return 1;
	}
	if (kind == K_GATHER) {
		// a bigger input for the strided variants, the same n
		size_t span = (size_t)c->n * 32 + 32;
		int big = hx_buf(r, "in", span * sizeof(float), 0, sizeof(float),
				 HX_IN);
		fill(hx_buf_get(r, big), span, 7);
		static const int vs[] = {1, 2, 4, 8, 16, 32};
		static const int vo[] = {1, 2, 4, 8, 16, 31};
		for (int k = 0; k < 12; k++) {
			int st = k < 6 ? vs[k] : 1, of = k < 6 ? 0 : vo[k - 6];
			struct hx_request v = *q;
			v.buf[0] = big;
			v.i[1] = st, v.i[2] = of;
			char variant[32], what[48];
			snprintf(variant, sizeof(variant),
				 k < 6 ? "stride %d" : "offset %d", k < 6 ? st : of);
			snprintf(what, sizeof(what), "gather_floats %s", variant);
			v.what = what;
			struct hx_timing t = hx_time_student(r, &v, what);
			hx_timing_report_variant("student", NULL, variant, n, moved,
						 &t);
		}
		return 1;
	}
	if (kind == K_BIAS) {
		struct judge_call jc = {
			(const float *)hx_buf_get(r, q->buf[0])->data,
			(const float *)hx_buf_get(r, q->buf[1])->data,
			(float *)hx_buf_get(r, q->buf[2])->data, NULL, 0,
			(int)c->p[1], (int)c->p[2]};
		hx_gpu_exclusive_begin();
		struct hx_timing before = hx_time_calls(call_given_bias, &jc,
							"given kernel");
		struct hx_timing mine = hx_time_student(r, q, "add_row_bias");
		struct hx_timing after = hx_time_calls(call_given_bias, &jc,
						       "given kernel");
		hx_gpu_exclusive_end();
		hx_timing_report("student", NULL, n, moved, &mine);
		hx_timing_report("reference", "the given kernel (x walks rows)",
				 n, moved,
				 before.us.median <= after.us.median ? &before
								     : &after);
		return 1;
	}
	// the same particles as records for the given kernel
	int aos = hx_buf(r, "particles", (size_t)c->n * sizeof(struct cl_particle),
			 0, sizeof(struct cl_particle), HX_INOUT);
	HX_CHECK(cudaMemset(hx_buf_get(r, aos)->data, 0,
			    hx_buf_get(r, aos)->bytes));
	struct judge_call jc = {
		NULL, NULL, NULL,
		(struct cl_particle *)hx_buf_get(r, aos)->data, (int)c->n, 0, 0};
	hx_gpu_exclusive_begin();
	struct hx_timing before = hx_time_calls(call_given_aos, &jc, "given kernel");
	struct hx_timing mine = hx_time_student(r, q, "advance_soa");
	struct hx_timing after = hx_time_calls(call_given_aos, &jc, "given kernel");
	hx_gpu_exclusive_end();
	hx_timing_report("student", NULL, n, moved, &mine);
	hx_timing_report("reference", "the given kernel on 32-byte records", n,
			 moved, before.us.median <= after.us.median ? &before : &after);
	return 1;
}

static const struct hx_lab lab = {
	calls, 4, NULL, cases, setup, check, bytes, perturb, spot, timing, NULL,
};

int main(int argc, char **argv)
{
	return hx_lab_main(argc, argv, &lab);
}
