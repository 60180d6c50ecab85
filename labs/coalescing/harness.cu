// The coalescing lab's harness: one set of cases per step (the grader names
// the step with --step), inputs generated on the GPU from a hash of the
// element's index (so a 4 GB strided input needs no host copy), references
// on the CPU, and the given kernels of steps 3 and 4 timed in the same
// process as baselines. Memory, timing and events: common/harness.h.
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
	HX_CHECK(cudaDeviceSynchronize());
}

static void missing(const char *launcher)
{
	hx_die("launcher", "this step's file does not define %s() with the "
			   "interface in labs/coalescing/coalescing.h",
	       launcher);
}

// Check a float array against want(i); report the first mismatches.
typedef float (*want_fn)(const void *ctx, size_t i);

static int check_floats(const char *name, size_t n, const float *got,
			want_fn want, const void *ctx, float tol,
			const char *hint)
{
	struct hx_mismatches m;
	hx_mismatches_init(&m);
	size_t unwritten = 0;
	for (size_t i = 0; i < n; i++) {
		m.checked++;
		float w = want(ctx, i);
		if (fabsf(got[i] - w) <= tol * fabsf(w))
			continue;
		int poison = isnan(got[i]);
		unwritten += poison;
		if (!hx_mismatch_wanted(&m)) {
			hx_mismatch(&m, i, NULL, NULL, NULL);
			continue;
		}
		char e[32], g[32];
		snprintf(e, sizeof(e), "%.9g", w);
		snprintf(g, sizeof(g), "%.9g", got[i]);
		hx_mismatch(&m, i, e, g,
			    poison ? "not written (still the poison NaN)" : NULL);
	}
	char msg[320] = "";
	if (m.count && unwritten == m.count)
		snprintf(msg, sizeof(msg), "%zu of %zu elements were never "
			 "written: does the grid cover all of them, the last "
			 "partial block included?", unwritten, n);
	else if (m.count)
		snprintf(msg, sizeof(msg), "%zu of %zu elements are wrong (%zu "
			 "never written): %s", m.count, n, unwritten, hint);
	return hx_case_end(name, n, &m, msg);
}

static void progress(int done, int total)
{
	hx_emit(json_pack("{s:s, s:s, s:i, s:i}", "event", "progress", "phase",
			  "correctness", "done", done, "total", total));
}

// ---- step 1: copy --------------------------------------------------------

struct copy_call {
	const float *in;
	float *out;
	int n;
};

static void call_copy(void *ctx)
{
	struct copy_call *c = (struct copy_call *)ctx;
	copy_floats(c->in, c->out, c->n);
}

static void call_memcpy(void *ctx)
{
	struct copy_call *c = (struct copy_call *)ctx;
	HX_CHECK(cudaMemcpyAsync(c->out, c->in, (size_t)c->n * sizeof(float),
				 cudaMemcpyDeviceToDevice, 0));
}

struct at_key {
	uint64_t key;
	size_t stride, offset;
};

static float want_gather(const void *ctx, size_t i)
{
	const struct at_key *k = (const struct at_key *)ctx;
	return cl_value(k->key, i * k->stride + k->offset);
}

struct gather_call {
	const float *in;
	float *out;
	int n, stride, offset;
};

static void call_gather(void *ctx)
{
	struct gather_call *c = (struct gather_call *)ctx;
	gather_floats(c->in, c->out, c->n, c->stride, c->offset);
}

// One gather case (step 1 is stride 1, offset 0); keeps the buffers of
// the timed size for timing.
static int gather_case(const char *name, int n, int stride, int offset,
		       int step1, int record, struct hx_buffer *keep_in,
		       struct hx_buffer *keep_out)
{
	size_t span = (size_t)(n - 1) * stride + offset + 1;
	struct hx_buffer in = hx_buffer_new("in", span * sizeof(float), 0);
	struct hx_buffer out = hx_buffer_new("out", (size_t)n * sizeof(float), 0);
	struct at_key k = {case_key(name), (size_t)stride, (size_t)offset};
	fill(&in, span, k.key);
	hx_buffer_poison(&out);
	char what[96];
	if (step1) {
		struct copy_call c = {(const float *)in.data, (float *)out.data, n};
		snprintf(what, sizeof(what), "copy_floats(n=%d)", n);
		hx_call(call_copy, &c, what, record ? n : 0);
	} else {
		snprintf(what, sizeof(what), "gather_floats(n=%d, stride=%d, "
			 "offset=%d)", n, stride, offset);
		struct gather_call g = {(const float *)in.data, (float *)out.data,
					n, stride, offset};
		hx_call(call_gather, &g, what, record ? n : 0);
	}
	float *got = (float *)malloc((size_t)n * sizeof(float));
	if (!got)
		hx_die("harness", "out of host memory");
	hx_buffer_download(&out, got);
	int ok = check_floats(name, n, got, want_gather, &k, 0,
			      step1 ? "out[i] must be in[i]"
				    : "out[i] must be in[i * stride + offset]");
	free(got);
	ok &= hx_buffer_check_guards(&out, sizeof(float));
	ok &= hx_buffer_check_guards(&in, sizeof(float));
	if (keep_in) {
		*keep_in = in;
		*keep_out = out;
	} else {
		hx_buffer_free(&in);
		hx_buffer_free(&out);
	}
	return ok;
}

static int step_copy_or_gather(int step1)
{
	if (step1 && !copy_floats)
		missing("copy_floats");
	if (!step1 && !gather_floats)
		missing("gather_floats");
	static const int sizes[] = {1, 31, 32, 255, 256, 257, 1000, 65537,
				    (1 << 20) + 3};
	static const int strides[] = {1, 2, 3, 8, 32};
	static const int offsets[] = {0, 1, 5, 31};
	char names[64][80];
	int shape[64][3], ncases = 0;
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		int st = step1 ? 1 : strides[s % 5], of = step1 ? 0 : offsets[s % 4];
		shape[ncases][0] = sizes[s], shape[ncases][1] = st,
		shape[ncases][2] = of;
		snprintf(names[ncases++], 80, step1 ? "n=%d" : "n=%d stride=%d offset=%d",
			 sizes[s], st, of);
	}
	for (int i = 0; i < hx_opts()->n_extra_sizes && ncases < 60; i++) {
		shape[ncases][0] = hx_extra_size_1d(i, 1 << 26);
		shape[ncases][1] = step1 ? 1 : 7, shape[ncases][2] = step1 ? 0 : 3;
		snprintf(names[ncases], 80, "n=%d stride=%d offset=%d (extra)",
			 shape[ncases][0], shape[ncases][1], shape[ncases][2]);
		ncases++;
	}
	// the timed size: the input spans n * 32 + 32 floats at stride 32
	int n_timed = (int)hx_timed_elements(HX_TIMED_MIN,
						step1 ? 8 : 4 * 33 + 4,
						step1 ? 8 : 4 * 33 + 4);
	shape[ncases][0] = n_timed, shape[ncases][1] = 1, shape[ncases][2] = 0;
	snprintf(names[ncases++], 80, "n=%d (timed size)", n_timed);

	int ok = 1;
	struct hx_buffer tin = {}, tout = {};
	for (int i = 0; i < ncases; i++) {
		progress(i, ncases);
		if (!hx_case_selected(names[i]))
			continue;
		int timed = i == ncases - 1;
		ok &= gather_case(names[i], shape[i][0], shape[i][1], shape[i][2],
				  step1, timed, timed ? &tin : NULL,
				  timed ? &tout : NULL);
	}
	if (ok && hx_opts()->timing && tin.data) {
		double bytes = 2.0 * sizeof(float) * n_timed;
		if (step1) {
			struct copy_call c = {(const float *)tin.data,
					      (float *)tout.data, n_timed};
			struct hx_timing mine = hx_time_calls(call_copy, &c, "copy_floats");
			struct hx_timing mc = hx_time_calls(call_memcpy, &c, "cudaMemcpy");
			hx_timing_report("student", NULL, n_timed, bytes, &mine);
			hx_timing_report("vendor", "cudaMemcpy device to device",
					 n_timed, bytes, &mc);
		} else {
			// a bigger input for the strided variants, the same n
			hx_buffer_free(&tin);
			size_t span = (size_t)n_timed * 32 + 32;
			tin = hx_buffer_new("in", span * sizeof(float), 0);
			fill(&tin, span, 7);
			static const int vs[] = {1, 2, 4, 8, 16, 32};
			static const int vo[] = {1, 2, 4, 8, 16, 31};
			for (int k = 0; k < 12; k++) {
				int st = k < 6 ? vs[k] : 1, of = k < 6 ? 0 : vo[k - 6];
				struct gather_call c = {(const float *)tin.data,
							(float *)tout.data, n_timed,
							st, of};
				char variant[32], what[48];
				snprintf(variant, sizeof(variant), k < 6 ? "stride %d" : "offset %d",
					 k < 6 ? st : of);
				snprintf(what, sizeof(what), "gather_floats %s", variant);
				struct hx_timing t = hx_time_calls(call_gather, &c, what);
				hx_timing_report_variant("student", NULL, variant,
							 n_timed, bytes, &t);
			}
		}
	}
	if (tin.data) {
		hx_buffer_free(&tin);
		hx_buffer_free(&tout);
	}
	if (ok && hx_opts()->timing && hx_case_selected(names[ncases - 1])) {
		char again[80];
		snprintf(again, sizeof(again), "n=%d (after timing, fresh inputs)",
			 n_timed);
		ok &= gather_case(again, n_timed, 1, 0, step1, 0, NULL, NULL);
	}
	return ok;
}

// ---- step 3: a row bias, the given kernel with x and y swapped ----------

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

struct bias_call {
	const float *in, *bias;
	float *out;
	int rows, cols;
};

static void call_bias(void *ctx)
{
	struct bias_call *c = (struct bias_call *)ctx;
	add_row_bias(c->in, c->bias, c->out, c->rows, c->cols);
}

static void call_given_bias(void *ctx)
{
	struct bias_call *c = (struct bias_call *)ctx;
	dim3 block(CL_TILE_X, CL_TILE_Y);
	dim3 grid((c->rows + CL_TILE_X - 1) / CL_TILE_X,
		  (c->cols + CL_TILE_Y - 1) / CL_TILE_Y);
	cl_given_row_bias<<<grid, block>>>(c->in, c->bias, c->out, c->rows,
					   c->cols);
	HX_CHECK(cudaGetLastError());
}

struct bias_want {
	uint64_t key;
	int cols;
};

static float want_bias(const void *ctx, size_t i)
{
	const struct bias_want *w = (const struct bias_want *)ctx;
	// in is value i of the case's stream, bias value c of stream key + 1
	return cl_value(w->key, i) + cl_value(w->key + 1, i % (size_t)w->cols);
}

struct bias_bufs {
	struct hx_buffer in, bias, out;
};

static int bias_case(const char *name, int rows, int cols, int record,
		     struct bias_bufs *keep)
{
	size_t n = (size_t)rows * cols;
	struct hx_buffer in = hx_buffer_new("in", n * sizeof(float), 0);
	struct hx_buffer bias = hx_buffer_new("bias", cols * sizeof(float), 0);
	struct hx_buffer out = hx_buffer_new("out", n * sizeof(float), 0);
	struct bias_want w = {case_key(name), cols};
	fill(&in, n, w.key);
	fill(&bias, cols, w.key + 1);
	hx_buffer_poison(&out);
	struct bias_call c = {(const float *)in.data, (const float *)bias.data,
			      (float *)out.data, rows, cols};
	char what[96];
	snprintf(what, sizeof(what), "add_row_bias(rows=%d, cols=%d)", rows, cols);
	hx_call(call_bias, &c, what, record ? (double)n : 0);
	float *got = (float *)malloc(n * sizeof(float));
	if (!got)
		hx_die("harness", "out of host memory");
	hx_buffer_download(&out, got);
	int ok = check_floats(name, n, got, want_bias, &w, 0,
			      "out[r * cols + c] must be in[r * cols + c] + "
			      "bias[c]: are rows and columns swapped?");
	free(got);
	ok &= hx_buffer_check_guards(&out, sizeof(float));
	ok &= hx_buffer_check_guards(&in, sizeof(float));
	ok &= hx_buffer_check_guards(&bias, sizeof(float));
	if (keep) {
		*keep = (struct bias_bufs){in, bias, out};
		return ok;
	}
	hx_buffer_free(&in);
	hx_buffer_free(&bias);
	hx_buffer_free(&out);
	return ok;
}

static int step_row_bias(void)
{
	if (!add_row_bias)
		missing("add_row_bias");
	static const int shapes[][2] = {{1, 1}, {1, 1000}, {1000, 1}, {31, 33},
					{32, 32}, {33, 257}, {257, 31},
					{1000, 999}, {4096, 4097}};
	char names[40][80];
	int dims[40][2], ncases = 0;
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		dims[ncases][0] = shapes[s][0], dims[ncases][1] = shapes[s][1];
		snprintf(names[ncases++], 80, "%dx%d", shapes[s][0], shapes[s][1]);
	}
	for (int i = 0; i < hx_opts()->n_extra_sizes && ncases < 36; i++) {
		hx_extra_size_2d(i, 1 << 14, &dims[ncases][0], &dims[ncases][1]);
		snprintf(names[ncases], 80, "%dx%d (extra)", dims[ncases][0],
			 dims[ncases][1]);
		ncases++;
	}
	// square, power-of-two columns: the given kernel's warps then hit 32
	// rows whose addresses differ by a multiple of 32 KiB
	// (side * side is the rule's count or twice it: held counts 2x)
	size_t n_rule = hx_timed_elements(HX_TIMED_MIN, 8, 2 * 8);
	int side = 1;
	while ((size_t)side * side < n_rule)
		side *= 2;
	dims[ncases][0] = dims[ncases][1] = side;
	snprintf(names[ncases++], 80, "%dx%d (timed size)", side, side);

	int ok = 1;
	struct bias_bufs kept = {};
	for (int i = 0; i < ncases; i++) {
		progress(i, ncases);
		if (!hx_case_selected(names[i]))
			continue;
		int last = i == ncases - 1;
		ok &= bias_case(names[i], dims[i][0], dims[i][1], last,
				last ? &kept : NULL);
	}
	if (kept.in.data) {
		if (ok && hx_opts()->timing) {
			struct bias_call timed = {
				(const float *)kept.in.data,
				(const float *)kept.bias.data,
				(float *)kept.out.data, side, side};
			double n = (double)side * side;
			double bytes = 2.0 * sizeof(float) * n + sizeof(float) * side;
			struct hx_timing before = hx_time_calls(call_given_bias, &timed,
								"given kernel");
			struct hx_timing mine = hx_time_calls(call_bias, &timed,
							      "add_row_bias");
			struct hx_timing after = hx_time_calls(call_given_bias, &timed,
							       "given kernel");
			hx_timing_report("student", NULL, n, bytes, &mine);
			hx_timing_report("reference", "the given kernel (x walks rows)",
					 n, bytes,
					 before.us.median <= after.us.median ? &before
									     : &after);
		}
		hx_buffer_free(&kept.in);
		hx_buffer_free(&kept.bias);
		hx_buffer_free(&kept.out);
	}
	if (ok && hx_opts()->timing && hx_case_selected(names[ncases - 1])) {
		char again[80];
		snprintf(again, sizeof(again), "%dx%d (after timing, fresh inputs)",
			 side, side);
		ok &= bias_case(again, side, side, 0, NULL);
	}
	return ok;
}

// ---- step 4: array of structures -> structure of arrays ----------------

// The given kernel: one 32-byte record per particle, 8 bytes of it used.
__global__ void cl_given_advance_aos(struct cl_particle *p, int n, float dt)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		p[i].x += p[i].vx * dt;
}

struct soa_call {
	float *x;
	const float *vx;
	struct cl_particle *aos;
	int n;
	float dt;
};

static void call_soa(void *ctx)
{
	struct soa_call *c = (struct soa_call *)ctx;
	advance_soa(c->x, c->vx, c->n, c->dt);
}

static void call_given_aos(void *ctx)
{
	struct soa_call *c = (struct soa_call *)ctx;
	cl_given_advance_aos<<<(c->n + 255) / 256, 256>>>(c->aos, c->n, c->dt);
	HX_CHECK(cudaGetLastError());
}

struct soa_want {
	uint64_t key;
	float dt;
};

static float want_soa(const void *ctx, size_t i)
{
	const struct soa_want *w = (const struct soa_want *)ctx;
	return fmaf(cl_value(w->key + 1, i), w->dt, cl_value(w->key, i));
}

#define CL_DT 0.01f

static int soa_case(const char *name, int n, int timed_aos)
{
	struct hx_buffer x = hx_buffer_new("x", (size_t)n * sizeof(float), 0);
	struct hx_buffer vx = hx_buffer_new("vx", (size_t)n * sizeof(float), 0);
	struct soa_want w = {case_key(name), CL_DT};
	fill(&x, n, w.key);
	fill(&vx, n, w.key + 1);
	struct soa_call c = {(float *)x.data, (const float *)vx.data, NULL, n,
			     CL_DT};
	char what[64];
	snprintf(what, sizeof(what), "advance_soa(n=%d)", n);
	hx_call(call_soa, &c, what, timed_aos ? n : 0);
	float *got = (float *)malloc((size_t)n * sizeof(float));
	float *vgot = (float *)malloc((size_t)n * sizeof(float));
	if (!got || !vgot)
		hx_die("harness", "out of host memory");
	hx_buffer_download(&x, got);
	hx_buffer_download(&vx, vgot);
	// x + vx * dt, fused or not: within 2^-22 of x's magnitude
	int ok = check_floats(name, n, got, want_soa, &w, 3e-7f,
			      "x[i] must become x[i] + vx[i] * dt, once");
	size_t vchanged = 0;
	for (int i = 0; i < n; i++)
		vchanged += vgot[i] != cl_value(w.key + 1, i);
	if (vchanged) {
		struct hx_mismatches m;
		hx_mismatches_init(&m);
		hx_mismatch(&m, 0, "vx unchanged", "vx modified", NULL);
		char msg[96];
		snprintf(msg, sizeof(msg), "%zu element(s) of vx were changed, "
			 "but vx is read-only", vchanged);
		hx_case_end("vx unchanged", n, &m, msg);
		ok = 0;
	}
	free(got);
	free(vgot);
	ok &= hx_buffer_check_guards(&x, sizeof(float));
	ok &= hx_buffer_check_guards(&vx, sizeof(float));
	if (ok && timed_aos && hx_opts()->timing) {
		// the same particles as records for the given kernel
		struct hx_buffer aos = hx_buffer_new(
			"particles", (size_t)n * sizeof(struct cl_particle), 0);
		HX_CHECK(cudaMemset(aos.data, 0, aos.bytes));
		c.aos = (struct cl_particle *)aos.data;
		double bytes = 3.0 * sizeof(float) * n;
		struct hx_timing before = hx_time_calls(call_given_aos, &c, "given kernel");
		struct hx_timing mine = hx_time_calls(call_soa, &c, "advance_soa");
		struct hx_timing after = hx_time_calls(call_given_aos, &c, "given kernel");
		hx_timing_report("student", NULL, n, bytes, &mine);
		hx_timing_report("reference", "the given kernel on 32-byte records",
				 n, bytes,
				 before.us.median <= after.us.median ? &before : &after);
		hx_buffer_free(&aos);
	}
	hx_buffer_free(&x);
	hx_buffer_free(&vx);
	return ok;
}

static int step_soa(void)
{
	if (!advance_soa)
		missing("advance_soa");
	static const int sizes[] = {1, 31, 255, 256, 257, 1000, 65537,
				    (1 << 20) + 3};
	char names[40][80];
	int ns[40], ncases = 0;
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		ns[ncases] = sizes[s];
		snprintf(names[ncases++], 80, "n=%d", sizes[s]);
	}
	for (int i = 0; i < hx_opts()->n_extra_sizes && ncases < 36; i++) {
		ns[ncases] = hx_extra_size_1d(i, 1 << 26);
		snprintf(names[ncases], 80, "n=%d (extra)", ns[ncases]);
		ncases++;
	}
	int n_timed = (int)hx_timed_elements(
		HX_TIMED_MIN, sizeof(struct cl_particle) * 2,
		sizeof(struct cl_particle) + 2 * sizeof(float)) /* AoS, x, vx */;
	ns[ncases] = n_timed;
	snprintf(names[ncases++], 80, "n=%d (timed size)", n_timed);
	int ok = 1;
	for (int i = 0; i < ncases; i++) {
		progress(i, ncases);
		if (hx_case_selected(names[i]))
			ok &= soa_case(names[i], ns[i], i == ncases - 1);
	}
	if (ok && hx_opts()->timing && hx_case_selected(names[ncases - 1])) {
		char again[80];
		snprintf(again, sizeof(again), "n=%d (after timing, fresh inputs)",
			 n_timed);
		ok &= soa_case(again, n_timed, 0);
	}
	return ok;
}

int main(int argc, char **argv)
{
	hx_init(argc, argv);
	const char *step = hx_opts()->step;
	// run by hand with no --step: the step whose launcher the file defines
	if (!step)
		step = copy_floats ? "v1" : gather_floats ? "v2"
			 : add_row_bias ? "v3" : "v4";
	int ok;
	if (!strcmp(step, "v1"))
		ok = step_copy_or_gather(1);
	else if (!strcmp(step, "v2"))
		ok = step_copy_or_gather(0);
	else if (!strcmp(step, "v3"))
		ok = step_row_bias();
	else if (!strcmp(step, "v4"))
		ok = step_soa();
	else
		hx_die("usage", "no step \"%s\" in the coalescing lab (v1..v4)", step);
	return hx_finish(ok);
}
