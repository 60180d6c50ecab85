#include "advice.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STALL(r, what) {"stall_" r "_pct", 0, "% of stalled warp-cycles: " what}

static const struct advice_fact facts[] = {
	/* from the build, no GPU needed */
	{"registers", 0, "registers per thread (ptxas, the step's largest kernel)"},
	{"spill_bytes", 0, "bytes spilled to local memory (stores + loads, ptxas)"},
	{"shared_bytes", 0, "static shared memory per block, bytes (ptxas)"},
	{"stack_bytes", 0, "stack frame per thread, bytes (ptxas)"},
	{"load_bytes", 0, "widest global load in the PTX, bytes"},
	{"store_bytes", 0, "widest global store in the PTX, bytes"},
	{"nc_loads", 0, "global loads on the read-only (non-coherent) path, PTX"},
	{"async_copies", 0, "cp.async copies global -> shared in the PTX"},
	{"rem_ops", 0, "remainder (%) instructions in the PTX"},
	{"shuffles", 0, "warp shuffles (shfl.sync) in the PTX"},
	/* Nsight Compute, on the timed-size case */
	{"dram_pct", 0, "DRAM throughput, % of its peak"},
	{"dram_bytes_per_element", 0, "DRAM bytes read + written per element"},
	{"dram_pct_of_copy", 0, "DRAM bytes / kernel duration (under ncu), % of "
				"the measured copy bandwidth"},
	{"occupancy_pct", 0, "achieved occupancy, % of the SM's warp slots"},
	{"theoretical_occupancy_pct", 0, "occupancy the launch allows, %"},
	{"occupancy_limiter", 1, "what caps the warps per SM: grid (fewer blocks "
				 "than the GPU holds), registers, shared_memory, "
				 "block_size, blocks_per_sm, or none"},
	{"waves", 0, "blocks launched / blocks the GPU holds at once"},
	{"load_sectors_per_request", 0, "32-byte sectors per warp load request"},
	{"store_sectors_per_request", 0, "32-byte sectors per warp store request"},
	{"inst_per_element", 0, "warp instructions x 32 / elements"},
	{"bank_conflicts_per_element", 0, "shared-memory bank conflicts per element"},
	{"l1_hit_pct", 0, "L1 sector hit rate, %"},
	{"l2_hit_pct", 0, "L2 sector hit rate, %"},
	{"flops_per_byte", 0, "floating-point operations per DRAM byte"},
	{"top_stall", 1, "the stall reason with most warp-cycles (e.g. long_scoreboard)"},
	STALL("barrier", "waiting at __syncthreads"),
	STALL("branch_resolving", "branch target not yet known"),
	STALL("dispatch_stall", "dispatcher could not issue"),
	STALL("drain", "stores draining at exit"),
	STALL("gmma", "warpgroup MMA"),
	STALL("imc_miss", "constant cache miss"),
	STALL("lg_throttle", "local/global queue full"),
	STALL("long_scoreboard", "waiting for a global/local load"),
	STALL("math_pipe_throttle", "math pipe busy"),
	STALL("membar", "memory barrier"),
	STALL("mio_throttle", "shared memory / special-function queue full"),
	STALL("misc", "other"),
	STALL("no_instruction", "instruction cache miss"),
	STALL("not_selected", "ready, another warp issued"),
	STALL("short_scoreboard", "waiting for shared memory / special function"),
	STALL("sleeping", "nanosleep or yield"),
	STALL("tex_throttle", "texture queue full"),
	STALL("wait", "fixed-latency dependency"),
	{NULL, 0, NULL},
};

const struct advice_fact *advice_facts(void)
{
	return facts;
}

const struct advice_fact *advice_fact_find(const char *name)
{
	for (const struct advice_fact *f = facts; f->name; f++)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}

enum op { LT, LE, GT, GE, EQ, NE };

struct cond {
	char fact[64];
	enum op op;
	char value[64];
	double number;
	int is_number;
};

static const char *skip_space(const char *p)
{
	while (isspace((unsigned char)*p))
		p++;
	return p;
}

/* One word of [A-Za-z0-9_.+-] into buf; returns the end or NULL. */
static const char *word(const char *p, char *buf, size_t len)
{
	size_t n = 0;
	p = skip_space(p);
	while (*p && (isalnum((unsigned char)*p) || strchr("_.+-", *p))) {
		if (n + 1 >= len)
			return NULL;
		buf[n++] = *p++;
	}
	buf[n] = '\0';
	return n ? p : NULL;
}

/* Parse the condition at p into c; returns the end or NULL with err. */
static const char *parse_cond(const char *p, struct cond *c, char *err,
			      size_t errlen)
{
	static const struct {
		const char *text;
		enum op op;
	} ops[] = {{"<=", LE}, {">=", GE}, {"==", EQ}, {"!=", NE},
		   {"<", LT}, {">", GT}};
	p = word(p, c->fact, sizeof(c->fact));
	if (!p) {
		snprintf(err, errlen, "expected a fact name");
		return NULL;
	}
	const struct advice_fact *f = advice_fact_find(c->fact);
	if (!f) {
		snprintf(err, errlen, "unknown fact \"%s\"", c->fact);
		return NULL;
	}
	p = skip_space(p);
	size_t i;
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strncmp(p, ops[i].text, strlen(ops[i].text)))
			break;
	if (i == sizeof(ops) / sizeof(ops[0])) {
		snprintf(err, errlen, "%s: expected < <= > >= == or !=", c->fact);
		return NULL;
	}
	c->op = ops[i].op;
	p = word(p + strlen(ops[i].text), c->value, sizeof(c->value));
	if (!p) {
		snprintf(err, errlen, "%s: expected a value", c->fact);
		return NULL;
	}
	char *end;
	c->number = strtod(c->value, &end);
	c->is_number = *end == '\0';
	if (f->is_word && (c->is_number || (c->op != EQ && c->op != NE))) {
		snprintf(err, errlen, "%s is a word: compare it with == or != "
				      "to a word", c->fact);
		return NULL;
	}
	if (!f->is_word && !c->is_number) {
		snprintf(err, errlen, "%s is a number: \"%s\" is not", c->fact,
			 c->value);
		return NULL;
	}
	return p;
}

/* Calls fn for each condition; stops at the first error. */
static int each_cond(const char *when, int (*fn)(const struct cond *, void *),
		     void *arg, char *err, size_t errlen)
{
	const char *p = when;
	for (;;) {
		struct cond c;
		p = parse_cond(p, &c, err, errlen);
		if (!p)
			return -1;
		if (fn && fn(&c, arg))
			return 0;
		p = skip_space(p);
		if (!*p)
			return 0;
		if (strncmp(p, "and", 3) || !isspace((unsigned char)p[3])) {
			snprintf(err, errlen, "expected \"and\" before \"%s\"", p);
			return -1;
		}
		p += 3;
	}
}

int advice_check(const char *when, char *err, size_t errlen)
{
	if (!when || !*skip_space(when)) {
		snprintf(err, errlen, "empty condition");
		return -1;
	}
	return each_cond(when, NULL, NULL, err, errlen);
}

struct eval {
	json_t *facts;
	enum advice_match result;
	char *missing;
	size_t missing_len;
};

static int holds(enum op op, double d)
{
	switch (op) {
	case LT: return d < 0;
	case LE: return d <= 0;
	case GT: return d > 0;
	case GE: return d >= 0;
	case EQ: return d == 0;
	case NE: return d != 0;
	}
	return 0;
}

/* Returns 1 (stop) when a condition is false. */
static int eval_cond(const struct cond *c, void *arg)
{
	struct eval *e = arg;
	json_t *v = json_object_get(e->facts, c->fact);
	if (!v) {
		if (e->result == ADVICE_TRUE) {
			e->result = ADVICE_UNKNOWN;
			snprintf(e->missing, e->missing_len, "%s", c->fact);
		}
		return 0;
	}
	int ok;
	if (json_is_string(v)) {
		int same = !strcmp(json_string_value(v), c->value);
		ok = c->op == EQ ? same : c->op == NE ? !same : 0;
	} else {
		double d = json_number_value(v) - c->number;
		ok = json_is_number(v) && holds(c->op, d);
	}
	if (!ok) {
		e->result = ADVICE_FALSE;
		return 1;
	}
	return 0;
}

enum advice_match advice_eval(const char *when, json_t *facts, char *missing,
			      size_t missing_len)
{
	char err[160];
	struct eval e = {facts, ADVICE_TRUE, missing, missing_len};
	if (missing_len)
		missing[0] = '\0';
	if (each_cond(when, eval_cond, &e, err, sizeof(err)) < 0)
		return ADVICE_FALSE;
	return e.result;
}
