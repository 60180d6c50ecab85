#include "profiler.h"
#include "gpulock.h"
#include "jsonl.h"
#include "strvec.h"
#include "device.h"
#include "sandbox.h"
#include "runner.h"
#include "hash.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define STALL(r) "smsp__average_warps_issue_stalled_" r "_per_issue_active.ratio"
#define CONFLICTS "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_"
#define GLOBAL "l1tex__t_%s_pipe_lsu_mem_global_op_"
#define SASS "smsp__sass_thread_inst_executed_op_"
#define OP "smsp__inst_executed_op_"

static const struct pm_info table[PM_COUNT] = {
	[PM_DURATION] = {"gpu__time_duration.sum", PM_SUM},
	[PM_DRAM_PCT] = {"dram__throughput.avg.pct_of_peak_sustained_elapsed",
			 PM_TIME_WEIGHTED},
	[PM_DRAM_READ] = {"dram__bytes_read.sum", PM_SUM},
	[PM_DRAM_WRITE] = {"dram__bytes_write.sum", PM_SUM},
	[PM_OCC_ACHIEVED] = {"sm__warps_active.avg.pct_of_peak_sustained_active",
			     PM_TIME_WEIGHTED},
	[PM_OCC_THEORETICAL] = {"sm__maximum_warps_per_active_cycle_pct",
				PM_LONGEST},
	[PM_LIMIT_REGISTERS] = {"launch__occupancy_limit_registers", PM_LONGEST},
	[PM_LIMIT_SHARED] = {"launch__occupancy_limit_shared_mem", PM_LONGEST},
	[PM_LIMIT_BLOCKS] = {"launch__occupancy_limit_blocks", PM_LONGEST},
	[PM_LIMIT_WARPS] = {"launch__occupancy_limit_warps", PM_LONGEST},
	[PM_REGISTERS] = {"launch__registers_per_thread", PM_LONGEST},
	[PM_BLOCK_SIZE] = {"launch__block_size", PM_LONGEST},
	[PM_GRID_SIZE] = {"launch__grid_size", PM_LONGEST},
	[PM_WAVES] = {"launch__waves_per_multiprocessor", PM_LONGEST},
	[PM_WARP_INST] = {"smsp__inst_executed.sum", PM_SUM},
	[PM_THREAD_INST] = {"smsp__thread_inst_executed.sum", PM_SUM},
	[PM_LD_SECTORS] = {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", PM_SUM},
	[PM_LD_REQUESTS] = {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", PM_SUM},
	[PM_ST_SECTORS] = {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", PM_SUM},
	[PM_ST_REQUESTS] = {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", PM_SUM},
	[PM_OP_GLOBAL_LD] = {OP "global_ld.sum", PM_SUM},
	[PM_OP_GENERIC_LD] = {OP "generic_ld.sum", PM_SUM},
	[PM_OP_LDGSTS] = {OP "ldgsts.sum", PM_SUM},
	[PM_OP_TEXTURE] = {OP "texture.sum", PM_SUM},
	[PM_OP_SURFACE_LD] = {OP "surface_ld.sum", PM_SUM},
	[PM_OP_ATOM] = {OP "generic_atom.sum", PM_SUM},
	[PM_OP_GLOBAL_ST] = {OP "global_st.sum", PM_SUM},
	[PM_OP_GENERIC_ST] = {OP "generic_st.sum", PM_SUM},
	[PM_OP_GLOBAL_RED] = {OP "global_red.sum", PM_SUM},
	[PM_OP_SURFACE_ST] = {OP "surface_st.sum", PM_SUM},
	[PM_OP_SHARED_LD] = {OP "shared_ld.sum", PM_SUM},
	[PM_OP_SHARED_ST] = {OP "shared_st.sum", PM_SUM},
	[PM_OP_SHARED_ATOM] = {OP "shared_atom.sum", PM_SUM},
	[PM_CONFLICTS_LD] = {CONFLICTS "ld.sum", PM_SUM},
	[PM_CONFLICTS_ST] = {CONFLICTS "st.sum", PM_SUM},
	[PM_L1_HIT] = {"l1tex__t_sector_hit_rate.pct", PM_TIME_WEIGHTED},
	[PM_L2_HIT] = {"lts__t_sector_hit_rate.pct", PM_TIME_WEIGHTED},
	[PM_FFMA] = {SASS "ffma_pred_on.sum", PM_SUM},
	[PM_FADD] = {SASS "fadd_pred_on.sum", PM_SUM},
	[PM_FMUL] = {SASS "fmul_pred_on.sum", PM_SUM},
	[PM_DFMA] = {SASS "dfma_pred_on.sum", PM_SUM},
	[PM_DADD] = {SASS "dadd_pred_on.sum", PM_SUM},
	[PM_DMUL] = {SASS "dmul_pred_on.sum", PM_SUM},
	[PM_HFMA] = {SASS "hfma_pred_on.sum", PM_SUM},
	[PM_HADD] = {SASS "hadd_pred_on.sum", PM_SUM},
	[PM_HMUL] = {SASS "hmul_pred_on.sum", PM_SUM},
	[PM_PEAK_FFMA] = {"sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained",
			  PM_LONGEST},
	[PM_PEAK_DFMA] = {"sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained",
			  PM_LONGEST},
	[PM_SM_HZ] = {"sm__cycles_elapsed.avg.per_second", PM_TIME_WEIGHTED},
	[PM_DRAM_PEAK_BPC] = {"dram__bytes.sum.peak_sustained", PM_LONGEST},
	[PM_DRAM_HZ] = {"dram__cycles_elapsed.avg.per_second", PM_TIME_WEIGHTED},
	/* the reasons ncu's warp-state section lists, in its order */
	[PM_STALL_FIRST + 0] = {STALL("barrier"), PM_TIME_WEIGHTED},
	[PM_STALL_FIRST + 1] = {STALL("branch_resolving"), PM_TIME_WEIGHTED},
	[PM_STALL_FIRST + 2] = {STALL("dispatch_stall"), PM_TIME_WEIGHTED},
	[PM_STALL_FIRST + 3] = {STALL("drain"), PM_TIME_WEIGHTED},
	[PM_STALL_FIRST + 4] = {STALL("gmma"), PM_TIME_WEIGHTED},
	[PM_STALL_FIRST + 5] = {STALL("imc_miss"), PM_TIME_WEIGHTED},
	[PM_STALL_FIRST + 6] = {STALL("lg_throttle"), PM_TIME_WEIGHTED},
	[PM_STALL_FIRST + 7] = {STALL("long_scoreboard"), PM_TIME_WEIGHTED},
	[PM_STALL_FIRST + 8] = {STALL("math_pipe_throttle"), PM_TIME_WEIGHTED},
	[PM_STALL_FIRST + 9] = {STALL("membar"), PM_TIME_WEIGHTED},
	[PM_STALL_FIRST + 10] = {STALL("mio_throttle"), PM_TIME_WEIGHTED},
	[PM_STALL_FIRST + 11] = {STALL("misc"), PM_TIME_WEIGHTED},
	[PM_STALL_FIRST + 12] = {STALL("no_instruction"), PM_TIME_WEIGHTED},
	[PM_STALL_FIRST + 13] = {STALL("not_selected"), PM_TIME_WEIGHTED},
	[PM_STALL_FIRST + 14] = {STALL("selected"), PM_TIME_WEIGHTED},
	[PM_STALL_FIRST + 15] = {STALL("short_scoreboard"), PM_TIME_WEIGHTED},
	[PM_STALL_FIRST + 16] = {STALL("sleeping"), PM_TIME_WEIGHTED},
	[PM_STALL_FIRST + 17] = {STALL("tex_throttle"), PM_TIME_WEIGHTED},
	[PM_STALL_FIRST + 18] = {STALL("wait"), PM_TIME_WEIGHTED},
};

static const char *const stall_names[PM_NSTALLS] = {
	"barrier", "branch_resolving", "dispatch_stall", "drain", "gmma",
	"imc_miss", "lg_throttle", "long_scoreboard", "math_pipe_throttle",
	"membar", "mio_throttle", "misc", "no_instruction", "not_selected",
	"selected", "short_scoreboard", "sleeping", "tex_throttle", "wait"};

const struct pm_info *pm_info(enum pm_metric m)
{
	return m < PM_COUNT ? &table[m] : NULL;
}

const char *pm_stall_reason(int i)
{
	return i >= 0 && i < PM_NSTALLS ? stall_names[i] : NULL;
}

static const enum pm_metric checks_set[] = {
	PM_WARP_INST,     PM_CONFLICTS_LD,  PM_CONFLICTS_ST, PM_OP_GLOBAL_LD,
	PM_OP_GENERIC_LD, PM_OP_LDGSTS,     PM_OP_TEXTURE,   PM_OP_SURFACE_LD,
	PM_OP_ATOM,       PM_OP_GLOBAL_ST,  PM_OP_GENERIC_ST, PM_OP_GLOBAL_RED,
	PM_OP_SURFACE_ST, PM_OP_SHARED_LD,  PM_OP_SHARED_ST, PM_OP_SHARED_ATOM,
	PM_GRID_SIZE,     PM_DURATION};

static enum pm_metric find_metric(const char *name)
{
	for (int m = 0; m < PM_COUNT; m++)
		if (!strcmp(table[m].ncu_name, name))
			return (enum pm_metric)m;
	return PM_COUNT;
}

/* --- units ----------------------------------------------------------- */

/* Scale of one side of a unit ("Mbyte", "usecond", "Ghz", "ns"). */
static double unit_word_scale(const char *w, size_t len)
{
	static const struct {
		const char *base;
		double scale;
	} bases[] = {{"second", 1}, {"s", 1}, {"hz", 1}, {"byte", 1},
		     {"B", 1}, {"inst", 1}, {"sector", 1}, {"request", 1},
		     {"cycle", 1}, {"warp", 1}, {"block", 1}, {"thread", 1}};
	static const struct {
		char c;
		double scale;
	} prefixes[] = {{'K', 1e3}, {'k', 1e3}, {'M', 1e6}, {'G', 1e9},
			{'T', 1e12}, {'m', 1e-3}, {'u', 1e-6}, {'n', 1e-9}};
	for (size_t b = 0; b < sizeof(bases) / sizeof(bases[0]); b++) {
		size_t bl = strlen(bases[b].base);
		if (len < bl || strncasecmp(w + len - bl, bases[b].base, bl))
			continue;
		if (len == bl)
			return bases[b].scale;
		if (len != bl + 1)
			continue;
		for (size_t p = 0; p < sizeof(prefixes) / sizeof(prefixes[0]); p++)
			if (w[0] == prefixes[p].c)
				return prefixes[p].scale * bases[b].scale;
	}
	return 1;
}

double profile_unit_scale(const char *unit)
{
	if (!unit || !*unit)
		return 1;
	const char *slash = strchr(unit, '/');
	size_t nlen = slash ? (size_t)(slash - unit) : strlen(unit);
	double s = unit_word_scale(unit, nlen);
	if (slash)
		s /= unit_word_scale(slash + 1, strlen(slash + 1));
	return s;
}

/* --- CSV ------------------------------------------------------------- */

/* Split one CSV line of ncu's (every field quoted, "" inside a field is
 * not used by ncu) into at most max fields, in place. */
static int csv_fields(char *line, char **field, int max)
{
	int n = 0;
	char *p = line;
	while (*p && n < max) {
		if (*p == '"') {
			char *start = ++p;
			while (*p && *p != '"')
				p++;
			if (*p)
				*p++ = '\0';
			field[n++] = start;
		} else {
			field[n++] = p;
			while (*p && *p != ',')
				p++;
		}
		if (*p == ',')
			*p++ = '\0';
		else
			break;
	}
	return n;
}

/* "1,234.5" -> 1234.5; "n/a", "" or text -> 0 with *ok = 0. An
 * instanced metric under --print-metric-instances details reads "TOTAL
 * (INSTANCE: N; ...)" (launch__grid_size: "65,536 (0: 65,536)"): its
 * total. */
static double parse_value(const char *text, int *ok)
{
	char digits[64];
	size_t k = 0, len = strcspn(text, " (");
	for (const char *c = text; c < text + len && k + 1 < sizeof(digits); c++)
		if (*c != ',')
			digits[k++] = *c;
	digits[k] = '\0';
	char *end;
	double v = strtod(digits, &end);
	*ok = end != digits && *end == '\0';
	return v;
}

struct launch {
	char id[32];   /* ncu's launch ID ("" in a layout without one) */
	char name[256];
	double value[PM_COUNT];
	unsigned char have[PM_COUNT];
	double sass[SASS_KINDS];
	unsigned char have_sass;
};

/* The base name of a SASS opcode ("LDG" of "LDG.E.128"), compared. */
static int opcode_is(const char *opcode, size_t base_len, const char *name)
{
	return strlen(name) == base_len && !strncmp(opcode, name, base_len);
}

/* Whether mod is one of an opcode's modifiers, whole ("CONSTANT" of
 * "LDG.E.CONSTANT", not of "LDG.E.CONSTANTX"). */
static int has_modifier(const char *opcode, const char *mod)
{
	size_t want = strlen(mod);
	for (const char *m = opcode + strcspn(opcode, "."); *m == '.';) {
		size_t len = strcspn(m + 1, ".");
		if (len == want && !strncmp(m + 1, mod, len))
			return 1;
		m += 1 + len;
	}
	return 0;
}

/* The bytes one thread's access asks for, from the size among an
 * opcode's modifiers (sass_kind's list); 4 when none is named. */
static double access_bytes(const char *opcode)
{
	static const struct {
		const char *mod;
		double bytes;
	} sizes[] = {{"U8", 1},  {"S8", 1},   {"U16", 2},  {"S16", 2},
		     {"64", 8},  {"U64", 8},  {"S64", 8},  {"F64", 8},
		     {"128", 16}, {"256", 32}};
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (has_modifier(opcode, sizes[i].mod))
			return sizes[i].bytes;
	return 4;
}

void sass_count_opcode(const char *opcode, double count, double *counts)
{
	/* plain: a read of global memory into the SM whose width its name
	 * gives, counted in SASS_PLAIN_BYTES (an LDG only without CONSTANT) */
	static const struct {
		const char *name;
		enum sass_kind kind, also;
		int plain;
	} kinds[] = {
		{"LDG", SASS_LOADS, SASS_KINDS, 1},
		{"LD", SASS_LOADS, SASS_KINDS, 1},
		{"TEX", SASS_LOADS, SASS_KINDS, 0},
		{"TLD", SASS_LOADS, SASS_KINDS, 0},
		{"TLD4", SASS_LOADS, SASS_KINDS, 0},
		{"TXD", SASS_LOADS, SASS_KINDS, 0},
		{"SULD", SASS_LOADS, SASS_KINDS, 0},
		{"ATOMG", SASS_LOADS, SASS_STORES, 1},
		{"ATOM", SASS_LOADS, SASS_STORES, 1},
		{"SUATOM", SASS_LOADS, SASS_STORES, 0},
		{"LDGSTS", SASS_ASYNC, SASS_KINDS, 1},
		{"UBLKCP", SASS_BULK, SASS_KINDS, 0},
		{"UTMALDG", SASS_BULK, SASS_KINDS, 0},
		{"UTMASTG", SASS_BULK_ST, SASS_KINDS, 0},
		{"UTMARED", SASS_BULK_ST, SASS_KINDS, 0},
		{"UBLKRED", SASS_BULK_ST, SASS_KINDS, 0},
		{"STG", SASS_STORES, SASS_KINDS, 0},
		{"ST", SASS_STORES, SASS_KINDS, 0},
		{"RED", SASS_STORES, SASS_KINDS, 1},
		/* sm_90+: an atomic whose result is unused */
		{"REDG", SASS_STORES, SASS_KINDS, 1},
		{"SUST", SASS_STORES, SASS_KINDS, 0},
		{"SURED", SASS_STORES, SASS_KINDS, 0},
		{"LDS", SASS_SHARED, SASS_KINDS, 0},
		{"STS", SASS_SHARED, SASS_KINDS, 0},
		{"ATOMS", SASS_SHARED, SASS_KINDS, 0},
		{"LDSM", SASS_SHARED, SASS_KINDS, 0},
		{"STSM", SASS_SHARED, SASS_KINDS, 0},
		{"SHFL", SASS_SHUFFLES, SASS_KINDS, 0},
	};
	size_t base = strcspn(opcode, ".");
	/* a bulk copy's direction is its first modifier, the destination:
	 * UBLKCP.S.G reads global memory, UBLKCP.G.S writes it */
	if (opcode_is(opcode, base, "UBLKCP") && !strncmp(opcode + base, ".G.", 3)) {
		counts[SASS_BULK_ST] += count;
		return;
	}
	/* the read-only path: a CONSTANT among an LDG's modifiers */
	int nc = opcode_is(opcode, base, "LDG") && has_modifier(opcode, "CONSTANT");
	if (nc) {
		counts[SASS_NC_LOADS] += count;
		counts[SASS_NC_BYTES] += count * access_bytes(opcode);
	}
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (!opcode_is(opcode, base, kinds[i].name))
			continue;
		counts[kinds[i].kind] += count;
		if (kinds[i].also < SASS_KINDS)
			counts[kinds[i].also] += count;
		if (kinds[i].plain && !nc)
			counts[SASS_PLAIN_BYTES] += count * access_bytes(opcode);
	}
}

/* One cell of PROFILE_PER_OPCODE: "TOTAL (OP.MOD: N; OP: N; ...)", the
 * numbers with thousands separators. 0 when it held the list (an empty
 * one too: no instance is a kernel that ran nothing), -1 for "n/a" or
 * anything else. */
static int parse_per_opcode(const char *cell, double *counts)
{
	int ok;
	char total[64];
	size_t tl = strcspn(cell, " (");
	if (tl == 0 || tl >= sizeof(total))
		return -1;
	memcpy(total, cell, tl);
	total[tl] = '\0';
	parse_value(total, &ok);
	if (!ok)
		return -1;
	const char *p = strchr(cell, '(');
	if (!p)
		return 0;
	for (p++; *p && *p != ')';) {
		p += strspn(p, " ;");
		size_t nl = strcspn(p, ":;)");
		if (p[nl] != ':')
			return -1;
		char opcode[64], number[64];
		const char *v = p + nl + 1;
		v += strspn(v, " ");
		size_t vl = strcspn(v, ";)");
		if (nl >= sizeof(opcode) || vl >= sizeof(number))
			return -1;
		memcpy(opcode, p, nl);
		opcode[nl] = '\0';
		memcpy(number, v, vl);
		number[vl] = '\0';
		double count = parse_value(number, &ok);
		if (!ok)
			return -1;
		sass_count_opcode(opcode, count, counts);
		p = v + vl;
	}
	return 0;
}

static void launch_set_per_opcode(struct launch *k, const char *cell)
{
	double counts[SASS_KINDS] = {0};
	if (parse_per_opcode(cell, counts) < 0)
		return;
	memcpy(k->sass, counts, sizeof(counts));
	k->have_sass = 1;
}

struct launches {
	struct launch *at;
	int n, cap;
};

static struct launch *launch_new(struct launches *l, const char *name)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 8;
		l->at = realloc(l->at, (size_t)l->cap * sizeof(*l->at));
	}
	struct launch *k = &l->at[l->n++];
	memset(k, 0, sizeof(*k));
	snprintf(k->name, sizeof(k->name), "%s", name ? name : "");
	return k;
}

static void launch_set(struct launch *k, enum pm_metric m, const char *value,
		       const char *unit)
{
	int ok;
	double v = parse_value(value, &ok);
	if (m >= PM_COUNT || !ok)
		return;
	k->value[m] = v * profile_unit_scale(unit);
	k->have[m] = 1;
}

static int column(char **f, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(f[i], name))
			return i;
	return -1;
}

#define MAX_FIELDS 4096

/* Details page: one row per (launch, metric). Rows of one launch share its
 * ID (with no ID column, a new launch starts when a metric repeats). */
static void parse_details(char **lines, int nlines, char **f, int hn,
			  struct launches *out)
{
	int id_col = column(f, hn, "ID"), name_col = column(f, hn, "Metric Name"),
	    unit_col = column(f, hn, "Metric Unit"),
	    value_col = column(f, hn, "Metric Value"),
	    kernel_col = column(f, hn, "Kernel Name");
	struct launch *k = NULL;
	char **g = malloc(MAX_FIELDS * sizeof(*g));
	for (int i = 0; i < nlines; i++) {
		int n = csv_fields(lines[i], g, MAX_FIELDS);
		if (n <= value_col || n <= name_col)
			continue;
		enum pm_metric m = find_metric(g[name_col]);
		int per_opcode = !strcmp(g[name_col], PROFILE_PER_OPCODE);
		if (id_col >= 0) {
			k = NULL;
			for (int j = 0; j < out->n && !k; j++)
				if (!strcmp(out->at[j].id, g[id_col]))
					k = &out->at[j];
		} else if (k && ((m < PM_COUNT && k->have[m]) ||
				 (per_opcode && k->have_sass))) {
			k = NULL;
		}
		if (!k) {
			k = launch_new(out, kernel_col >= 0 ? g[kernel_col] : "");
			snprintf(k->id, sizeof(k->id), "%s",
				 id_col >= 0 ? g[id_col] : "");
		}
		if (per_opcode)
			launch_set_per_opcode(k, g[value_col]);
		else
			launch_set(k, m, g[value_col],
				   unit_col >= 0 ? g[unit_col] : "");
	}
	free(g);
}

/* Raw page: a header of metric names, a row of units, a row per launch. */
static void parse_raw(char **lines, int nlines, char **f, int hn,
		      struct launches *out)
{
	int kernel_col = column(f, hn, "Kernel Name"),
	    per_opcode_col = column(f, hn, PROFILE_PER_OPCODE);
	enum pm_metric *col = malloc((size_t)(hn > 0 ? hn : 1) * sizeof(*col));
	char **units = calloc((size_t)(hn > 0 ? hn : 1), sizeof(*units));
	for (int c = 0; c < hn; c++)
		col[c] = find_metric(f[c]);
	char **g = malloc(MAX_FIELDS * sizeof(*g));
	int first = 0;
	if (nlines > 0) {
		/* the units row has no kernel name; keep its fields */
		int n = csv_fields(lines[0], g, MAX_FIELDS);
		if (kernel_col < 0 || kernel_col >= n || !*g[kernel_col]) {
			for (int c = 0; c < n && c < hn; c++)
				units[c] = g[c];
			first = 1;
		}
	}
	char **v = malloc(MAX_FIELDS * sizeof(*v));
	for (int i = first; i < nlines; i++) {
		int n = csv_fields(lines[i], v, MAX_FIELDS);
		if (n < 2)
			continue;
		struct launch *k = launch_new(
			out, kernel_col >= 0 && kernel_col < n ? v[kernel_col] : "");
		for (int c = 0; c < n && c < hn; c++)
			if (col[c] < PM_COUNT)
				launch_set(k, col[c], v[c], units[c] ? units[c] : "");
		if (per_opcode_col >= 0 && per_opcode_col < n)
			launch_set_per_opcode(k, v[per_opcode_col]);
	}
	free(v);
	free(g);
	free(units);
	free(col);
}

static void combine(const struct launches *l, struct profile_result *out)
{
	double weight[PM_COUNT] = {0};
	int longest = 0;
	for (int i = 1; i < l->n; i++)
		if (l->at[i].value[PM_DURATION] > l->at[longest].value[PM_DURATION])
			longest = i;
	snprintf(out->longest, sizeof(out->longest), "%s", l->at[longest].name);
	for (int i = 0; i < l->n; i++) {
		const struct launch *k = &l->at[i];
		out->blocks += k->have[PM_GRID_SIZE] ? k->value[PM_GRID_SIZE] : 0;
		for (int s = 0; s < SASS_KINDS; s++)
			out->sass[s] += k->sass[s];
	}
	/* the counts are of every launch or of none: a launch whose cell
	 * did not read would take its instructions out of a `max` bar */
	out->have_sass = l->n > 0;
	for (int i = 0; i < l->n; i++)
		out->have_sass &= l->at[i].have_sass;
	if (!out->have_sass)
		memset(out->sass, 0, sizeof(out->sass));
	for (int i = 0; i < l->n; i++) {
		const struct launch *k = &l->at[i];
		double w = k->have[PM_DURATION] && k->value[PM_DURATION] > 0
				   ? k->value[PM_DURATION]
				   : 1;
		for (int m = 0; m < PM_COUNT; m++) {
			if (!k->have[m])
				continue;
			switch (table[m].combine) {
			case PM_SUM:
				out->value[m] += k->value[m];
				out->have[m] = 1;
				break;
			case PM_TIME_WEIGHTED:
				out->value[m] += w * k->value[m];
				weight[m] += w;
				out->have[m] = 1;
				break;
			case PM_LONGEST:
				if (i == longest) {
					out->value[m] = k->value[m];
					out->have[m] = 1;
				}
				break;
			}
		}
	}
	for (int m = 0; m < PM_COUNT; m++)
		if (table[m].combine == PM_TIME_WEIGHTED && weight[m] > 0)
			out->value[m] /= weight[m];
}

int profile_parse_csv(const char *csv, struct profile_result *out)
{
	memset(out->value, 0, sizeof(out->value));
	memset(out->have, 0, sizeof(out->have));
	out->kernels = 0;
	out->longest[0] = '\0';
	out->blocks = 0;
	out->have_sass = 0;
	memset(out->sass, 0, sizeof(out->sass));
	out->warp_instructions = out->bank_conflicts = 0;

	/* the quoted lines only: ==PROF== lines and the program's own
	 * output are not CSV */
	char *copy = strdup(csv);
	int nlines = 0, cap = 64;
	char **lines = malloc((size_t)cap * sizeof(*lines));
	for (char *save, *line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		line[strcspn(line, "\r")] = '\0';
		if (line[0] != '"')
			continue;
		if (nlines == cap)
			lines = realloc(lines, (size_t)(cap *= 2) * sizeof(*lines));
		lines[nlines++] = line;
	}
	struct launches l = {0};
	if (nlines > 0) {
		char **f = malloc(MAX_FIELDS * sizeof(*f));
		int hn = csv_fields(lines[0], f, MAX_FIELDS);
		if (column(f, hn, "Metric Name") >= 0 &&
		    column(f, hn, "Metric Value") >= 0)
			parse_details(lines + 1, nlines - 1, f, hn, &l);
		else
			parse_raw(lines + 1, nlines - 1, f, hn, &l);
		free(f);
	}
	/* a launch with no known metric (a stray quoted line) is not one */
	int kept = 0;
	for (int i = 0; i < l.n; i++) {
		int any = l.at[i].have_sass;
		for (int m = 0; m < PM_COUNT && !any; m++)
			any = l.at[i].have[m];
		if (any)
			l.at[kept++] = l.at[i];
	}
	l.n = kept;
	if (l.n > 0)
		combine(&l, out);
	out->kernels = l.n;
	out->warp_instructions = out->value[PM_WARP_INST];
	out->bank_conflicts = out->value[PM_CONFLICTS_LD] + out->value[PM_CONFLICTS_ST];
	free(l.at);
	free(lines);
	free(copy);
	return out->kernels;
}

static void case_n(void *arg, json_t *ev)
{
	struct profiled_case *pc = arg;
	/* the judge writes "ok" on every case event */
	const char *kind = json_string_value(json_object_get(ev, "event"));
	if (kind && !strcmp(kind, "case")) {
		pc->n = json_number_value(json_object_get(ev, "n"));
		pc->failed |= !json_is_true(json_object_get(ev, "ok"));
	}
}

struct profiled_case profiled_case(const char *events)
{
	struct profiled_case pc = {0, 0};
	struct jsonl_reader r = JSONL_READER_INIT;
	r.on_value = case_n;
	r.arg = &pc;
	if (events) {
		jsonl_feed(&r, events, strlen(events));
		jsonl_finish(&r);
	}
	jsonl_release(&r);
	return pc;
}

/* The number after `key` in text (e.g. "ERROR SUMMARY: 3 errors"), or -1. */
static long count_after(const char *text, const char *key)
{
	const char *p = strstr(text, key);
	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

long sanitizer_count(const char *report)
{
	long errors = count_after(report, "ERROR SUMMARY: ");
	long hazards = count_after(report, "SUMMARY: ");
	if (strstr(report, "RACECHECK SUMMARY: ") && hazards > errors)
		errors = hazards;
	return errors;
}

/* The environment of a tool run: what CUDA and the loader need. */
static const char *const *tool_env(char store[][PATH_MAX], const char **env)
{
	static const char *const keep[] = {
		"PATH", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES",
		"NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES",
		"CUDA_DEVICE_ORDER", NULL};
	int k = 0;
	for (const char *const *v = keep; *v; v++)
		if (getenv(*v))
			snprintf(store[k], PATH_MAX, "%s=%s", *v, getenv(*v)),
				env[k] = store[k], k++;
	env[k++] = "HOME=/tmp";
	env[k++] = "TMPDIR=/tmp";
	env[k] = NULL;
	return env;
}

/* Where tool (a path, or a name on PATH) is: 0 and its real path, or -1. */
static int resolve_tool(const char *tool, char *real, size_t len)
{
	char found[PATH_MAX];
	found[0] = 0;
	if (strchr(tool, '/')) {
		snprintf(found, sizeof(found), "%s", tool);
	} else {
		const char *path = getenv("PATH");
		while (path && *path) {
			size_t n = strcspn(path, ":");
			snprintf(found, sizeof(found), "%.*s/%s", (int)n, path,
				 tool);
			if (n && access(found, X_OK) == 0)
				break;
			found[0] = 0;
			path += n + (path[n] == ':');
		}
	}
	char buf[PATH_MAX];
	if (!found[0] || access(found, X_OK) < 0 || !realpath(found, buf))
		return -1;
	snprintf(real, len, "%s", buf);
	return 0;
}

/* The folder holding the tool, when it is outside the system folders the
 * box always shows (a test's stand-in, an ncu installed under /home). */
static void tool_folder(const char *tool, char *out, size_t len)
{
	char real[PATH_MAX];
	out[0] = 0;
	if (resolve_tool(tool, real, sizeof(real)) < 0)
		return;
	static const char *const system[] = {"/usr/", "/opt/", "/bin/",
					     "/sbin/", "/lib", NULL};
	for (const char *const *s = system; *s; s++)
		if (!strncmp(real, *s, strlen(*s)))
			return;
	char *slash = strrchr(real, '/');
	if (slash && slash != real) {
		*slash = 0;
		snprintf(out, len, "%s", real);
	}
}

/*
 * Run tool_argv (ending with its report option, whose value is
 * "REPORT/name" as the caller wrote it into report_arg) on step_argv, in
 * the box when sb is on. The report's text (at most limit bytes) goes to
 * report; c is the finished child (the caller releases it). -1 when the
 * folders could not be made (why says so).
 */
static int run_tool_locked(struct sandbox *sb, const char *box_parent,
			   const char **tool_argv, int report_idx,
			   const char *name, const char *const *step_argv,
			   int locked, double limit_s, struct child *c,
			   struct strbuf *report, size_t limit, char *why,
			   size_t whylen);

/*
 * The GPU lock around a tool run (common/gpulock.h). compute-sanitizer:
 * the step's GPU work holds its GPU's lock shared, passed at fd 4 (the box
 * has no path to it). ncu (exclusive): the grader holds the lock exclusive
 * for the whole run and passes nothing — the hardware counters serve one
 * profiling process per GPU, and ncu's own lock file lives in /tmp, which
 * is private to each box: two students' ncu runs at once lose their
 * counters (measured: 8 students testing transpose at once, 4 steps came
 * back unmeasured). The step then runs unlocked, with the GPU to itself.
 */
static int run_tool_on_step(struct sandbox *sb, const char *box_parent,
			    const char **tool_argv, int report_idx,
			    const char *name, const char *const *step_argv_in,
			    const char *gpu_uuid, int exclusive,
			    double limit_s, struct child *c,
			    struct strbuf *report, size_t limit, char *why,
			    size_t whylen)
{
	struct strvec step_argv = STRVEC_INIT;
	strvec_pushv(&step_argv, step_argv_in);
	int lock_fd = -1, passed = 0;
	if (exclusive && gpu_uuid) {
		char err[256];
		lock_fd = gpulock_open(gpu_uuid, err, sizeof(err));
		if (lock_fd >= 0 && gpulock_acquire(lock_fd, GPULOCK_EXCLUSIVE,
						    NULL, NULL, NULL) < 0) {
			close(lock_fd);
			lock_fd = -1;
		}
	} else {
		lock_fd = device_lock_pass(c, gpu_uuid);
		passed = lock_fd >= 0;
	}
	if (passed)
		strvec_pushl(&step_argv, "--gpu-lock-fd", DEVICE_LOCK_FD_ARG,
			     NULL);
	int rc = run_tool_locked(sb, box_parent, tool_argv, report_idx, name,
				 strvec_argv(&step_argv), passed, limit_s, c,
				 report, limit, why, whylen);
	if (lock_fd >= 0)
		close(lock_fd); /* releases whatever it held */
	strvec_clear(&step_argv);
	return rc;
}

static int run_tool_locked(struct sandbox *sb, const char *box_parent,
			   const char **tool_argv, int report_idx,
			   const char *name, const char *const *step_argv,
			   int locked, double limit_s, struct child *c,
			   struct strbuf *report, size_t limit, char *why,
			   size_t whylen)
{
	char scratch[PATH_MAX + 32] = "", reports[PATH_MAX + 32] = "",
	     file[PATH_MAX * 2], tooldir[PATH_MAX];
	int boxed = sb && sb->on;
	char real[PATH_MAX];
	if (resolve_tool(tool_argv[0], real, sizeof(real)) < 0) {
		/* said here: in the box, a missing tool is only an exit code */
		snprintf(c->error, sizeof(c->error), "cannot run %s: not found",
			 tool_argv[0]);
		snprintf(why, whylen, "%s", c->error);
		return -1;
	}
	if (boxed && !sb->landlock) {
		snprintf(why, whylen, "not run: this kernel has no Landlock "
			 "(Linux 5.13+), so the program could write the tool's "
			 "report");
		return -1;
	}
	struct box b;
	box_for_run(&b);
	if (sandbox_folder(boxed ? sb : NULL, b.uid, box_parent, 1, reports,
			   sizeof(reports)) < 0 ||
	    (boxed && sandbox_folder(sb, b.uid, box_parent, 0, scratch,
				     sizeof(scratch)) < 0)) {
		snprintf(why, whylen, "cannot create a folder under %s: %s",
			 box_parent, strerror(errno));
		if (reports[0])
			sandbox_remove(reports);
		return -1;
	}
	char inside[PATH_MAX];
	snprintf(file, sizeof(file), "%s/%s", reports, name);
	snprintf(inside, sizeof(inside), "%s/%s", SANDBOX_REPORT, name);
	tool_argv[report_idx] = boxed ? inside : file;
	char store[8][PATH_MAX];
	const char *env[12];
	const char *all[96];
	c->env = tool_env(store, env);
	if (boxed) {
		box_ro(&b, step_argv[0]);
		tool_folder(tool_argv[0], tooldir, sizeof(tooldir));
		if (tooldir[0])
			box_ro(&b, tooldir);
		b.rw = scratch;
		b.report = reports;
		b.keep_fd = c->result_fd;
		b.lock_fd = locked ? 4 : -1;
		c->argv = sandbox_argv(sb, &b, tool_argv, step_argv);
	} else {
		int k = 0;
		for (int i = 0; tool_argv[i] && k < 60; i++)
			all[k++] = tool_argv[i];
		for (int i = 0; step_argv[i] && k < 94; i++)
			all[k++] = step_argv[i];
		all[k] = NULL;
		c->argv = all;
	}
	c->wall_limit_s = limit_s;
	int rc = child_run(c);
	int fd = open(file, O_RDONLY | O_NOFOLLOW);
	if (fd >= 0) {
		char chunk[65536];
		ssize_t n;
		while ((n = read(fd, chunk, sizeof(chunk))) > 0 &&
		       report->len < limit)
			strbuf_add(report, chunk,
				   (size_t)n < limit - report->len
					   ? (size_t)n
					   : limit - report->len);
		close(fd);
	}
	sandbox_remove(reports);
	if (scratch[0])
		sandbox_remove(scratch);
	if (rc < 0)
		snprintf(why, whylen, "%s", c->error);
	return rc;
}

/* "--in-process" when the grader's CUDALAB_JUDGE asks for the old single
 * process (grade.c, run_executable, says why), else NULL: the end of the
 * step's argv either way. */
static const char *judge_flag(void)
{
	const char *j = getenv("CUDALAB_JUDGE");
	return j && !strcmp(j, "in-process") ? "--in-process" : NULL;
}

void sanitizer_run(struct sandbox *sb, const char *box_parent,
		   const char *tool, const char *exe, const char *case_name,
		   const char *gpu_uuid, double time_limit_s,
		   struct sanitizer_result *out)
{
	memset(out, 0, sizeof(*out));
	out->errors = -1;
	const char *cs = getenv("CUDALAB_SANITIZER");
	if (!cs || !*cs)
		cs = "compute-sanitizer";
	const char *targv[] = {cs, "--tool", tool, "--print-limit", "20",
			       "--target-processes", "all", "--log-file",
			       NULL /* the report */, NULL};
	const char *sargv[] = {exe, "--case", case_name, "--no-timing",
			       "--result-fd", "3", judge_flag(), NULL};
	struct child c = CHILD_INIT;
	c.result_fd = 3;
	c.out_limit = 64 * 1024;
	struct strbuf report = STRBUF_INIT;
	char why[256] = "";
	if (run_tool_on_step(sb, box_parent, targv, 8, "sanitizer.log",
			     sargv, gpu_uuid, 0, time_limit_s, &c, &report,
			     4 << 20, why, sizeof(why)) < 0) {
		snprintf(out->reason, sizeof(out->reason), "%s",
			 c.error[0] ? "compute-sanitizer not found on PATH"
				    : why);
	} else {
		const char *text = strbuf_str(&report);
		out->errors = sanitizer_count(text);
		char how[160];
		if (out->errors < 0) {
			const char *o = strbuf_str(&c.out);
			const char *box = strstr(o, "box: ");
			if (!box)
				box = strstr(o, "bwrap: ");
			snprintf(out->reason, sizeof(out->reason),
				 "compute-sanitizer wrote no summary to its "
				 "report (%s)%s%.*s",
				 child_describe_end(&c, how, sizeof(how)),
				 box ? ": " : "",
				 box ? (int)strcspn(box, "\n") : 0,
				 box ? box : "");
		}
		size_t len = report.len;
		snprintf(out->report, sizeof(out->report), "%s",
			 text + (len > 4000 ? len - 4000 : 0));
	}
	strbuf_release(&report);
	child_release(&c);
}

/* The ncu metrics of a set, comma-separated (ncu's --metrics). */
static void metric_list(enum profile_set set, struct strbuf *out)
{
	if (set == PROFILE_CHECKS) {
		for (size_t i = 0; i < sizeof(checks_set) / sizeof(checks_set[0]); i++)
			strbuf_addf(out, "%s%s", i ? "," : "",
				    table[checks_set[i]].ncu_name);
	} else {
		for (int m = 0; m < PM_COUNT; m++)
			strbuf_addf(out, "%s%s", m ? "," : "",
				    table[m].ncu_name);
	}
	strbuf_addf(out, ",%s", PROFILE_PER_OPCODE);
}

void profile_step(struct sandbox *sb, const char *box_parent,
		  const char *exe, double time_limit_s, enum profile_set set,
		  const char *gpu_uuid, struct profile_result *out)
{
	memset(out, 0, sizeof(*out));
	struct strbuf metrics = STRBUF_INIT;
	metric_list(set, &metrics);
	const char *ncu = getenv("CUDALAB_NCU");
	if (!ncu || !*ncu)
		ncu = "ncu";
	/* the step is two processes (the judge and the student's process,
	 * common/harness.h): every process is profiled (ncu's default, said
	 * here so that no configuration changes it), and the judge's own
	 * kernels, all named hx_*, are left out by name */
	const char *targv[] = {ncu, "--clock-control", "none", "--csv",
			       "--target-processes", "all",
			       "--metrics", strbuf_str(&metrics),
			       "--print-metric-instances", "details",
			       "--kernel-name-base", "function", "--kernel-name",
			       "regex:^(?!hx_)", "--log-file",
			       NULL /* the report */, NULL};
	const char *sargv[] = {exe, "--profile", "--result-fd", "3",
			       judge_flag(), NULL};
	struct child c = CHILD_INIT;
	c.result_fd = 3;
	c.out_limit = 64 * 1024;
	struct strbuf report = STRBUF_INIT;
	char how[160], why[256] = "";
	const char *text = "";
	if (run_tool_on_step(sb, box_parent, targv, 15, "ncu.csv", sargv,
			     gpu_uuid, 1, time_limit_s, &c, &report, 8 << 20,
			     why, sizeof(why)) < 0) {
		if (!c.error[0])
			snprintf(out->reason, sizeof(out->reason), "%s", why);
		else if (strchr(ncu, '/'))
			snprintf(out->reason, sizeof(out->reason),
				 "Nsight Compute not found at %s (CUDALAB_NCU)", ncu);
		else
			snprintf(out->reason, sizeof(out->reason),
				 "%s not found on PATH (Nsight Compute)", ncu);
	} else if (strstr((text = strbuf_str(&report)), "ERR_NVGPUCTRPERM")) {
		snprintf(out->reason, sizeof(out->reason),
			 "no permission to the GPU's performance counters "
			 "(ERR_NVGPUCTRPERM)");
	} else if (!c.exited || c.exit_code != 0) {
		const char *e = strstr(text, "==ERROR==");
		snprintf(out->reason, sizeof(out->reason), "ncu %s%s%.*s",
			 child_describe_end(&c, how, sizeof(how)),
			 e ? ": " : "", e ? (int)strcspn(e, "\n") : 0, e ? e : "");
	} else if (profile_parse_csv(text, out) == 0) {
		const char *e = strstr(text, "==ERROR==");
		snprintf(out->reason, sizeof(out->reason),
			 "ncu profiled no kernel of the step%s%.*s",
			 e ? ": " : "", e ? (int)strcspn(e, "\n") : 0, e ? e : "");
	} else {
		struct profiled_case pc = profiled_case(strbuf_str(&c.result));
		if (pc.failed) {
			snprintf(out->reason, sizeof(out->reason),
				 "the run ncu profiled gave a wrong result, so "
				 "its counts are of no correct kernel");
		} else {
			out->measured = 1;
			out->elements = pc.n;
		}
	}
	strbuf_release(&report);
	child_release(&c);
	strbuf_release(&metrics);
}

/* --- the counter facts (common/facts.h) -------------------------------- */

#define HAVE(m) (pr->have[m])
#define V(m) (pr->value[m])

const char *profile_occupancy_limiter(const struct profile_result *pr)
{
	if (HAVE(PM_WAVES) && V(PM_WAVES) < 1)
		return "grid"; /* fewer blocks than the GPU holds at once */
	if (!HAVE(PM_OCC_THEORETICAL) || V(PM_OCC_THEORETICAL) >= 99.9)
		return "none";
	static const struct {
		enum pm_metric m;
		const char *name;
	} limits[] = {{PM_LIMIT_REGISTERS, "registers"},
		      {PM_LIMIT_SHARED, "shared_memory"},
		      {PM_LIMIT_WARPS, "block_size"},
		      {PM_LIMIT_BLOCKS, "blocks_per_sm"}};
	const char *name = "none";
	double least = INFINITY;
	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++)
		if (HAVE(limits[i].m) && V(limits[i].m) < least)
			least = V(limits[i].m), name = limits[i].name;
	return name;
}

double profile_flops(const struct profile_result *pr, int fp64)
{
	if (fp64)
		return 2 * V(PM_DFMA) + V(PM_DADD) + V(PM_DMUL);
	return 2 * (V(PM_FFMA) + V(PM_HFMA)) + V(PM_FADD) + V(PM_FMUL) +
	       V(PM_HADD) + V(PM_HMUL);
}

static void set(json_t *facts, const char *name, double v)
{
	json_object_set_new(facts, name, json_real(v));
}

/* DRAM, occupancy, sectors per request, caches: explain's set. */
static void memory_facts(const struct profile_result *pr, double n,
			 double copy_gbps, json_t *facts)
{
	double dram = V(PM_DRAM_READ) + V(PM_DRAM_WRITE);
	double secs = V(PM_DURATION);
	if (HAVE(PM_DRAM_PCT)) {
		set(facts, "dram_pct", V(PM_DRAM_PCT));
		if (HAVE(PM_DRAM_READ) && HAVE(PM_DRAM_WRITE) && n > 0)
			set(facts, "dram_bytes_per_element", dram / n);
		if (HAVE(PM_DURATION) && secs > 0 && copy_gbps > 0)
			set(facts, "dram_pct_of_copy",
			    100 * dram / secs / 1e9 / copy_gbps);
	}
	if (HAVE(PM_OCC_ACHIEVED)) {
		set(facts, "achieved_occupancy_pct", V(PM_OCC_ACHIEVED));
		json_object_set_new(facts, "occupancy_limiter",
				    json_string(profile_occupancy_limiter(pr)));
		if (HAVE(PM_OCC_THEORETICAL))
			set(facts, "occupancy_pct", V(PM_OCC_THEORETICAL));
		if (HAVE(PM_WAVES))
			set(facts, "waves", V(PM_WAVES));
	}
	if (HAVE(PM_LD_SECTORS) && HAVE(PM_LD_REQUESTS) && V(PM_LD_REQUESTS) > 0)
		set(facts, "load_sectors_per_request",
		    V(PM_LD_SECTORS) / V(PM_LD_REQUESTS));
	if (HAVE(PM_ST_SECTORS) && HAVE(PM_ST_REQUESTS) && V(PM_ST_REQUESTS) > 0)
		set(facts, "store_sectors_per_request",
		    V(PM_ST_SECTORS) / V(PM_ST_REQUESTS));
	if (HAVE(PM_L1_HIT) && HAVE(PM_L2_HIT)) {
		set(facts, "l1_hit_pct", V(PM_L1_HIT));
		set(facts, "l2_hit_pct", V(PM_L2_HIT));
	}
	double f32 = profile_flops(pr, 0), f64 = profile_flops(pr, 1);
	double work = f64 > f32 ? f64 : f32;
	if (HAVE(PM_FFMA) && HAVE(PM_DFMA) && work > 0 && dram > 0)
		set(facts, "flops_per_byte", work / dram);
}

/* Stall reasons as shares of the stalled warp-cycles ("selected" is the
 * cycle a warp issues: not a stall), and the largest. */
static void stall_facts(const struct profile_result *pr, json_t *facts)
{
	double total = 0, top = -1;
	int top_i = -1;
	for (int i = 0; i < PM_NSTALLS; i++)
		if (HAVE(PM_STALL_FIRST + i) &&
		    strcmp(pm_stall_reason(i), "selected"))
			total += V(PM_STALL_FIRST + i);
	if (total <= 0)
		return;
	for (int i = 0; i < PM_NSTALLS; i++) {
		if (!HAVE(PM_STALL_FIRST + i) ||
		    !strcmp(pm_stall_reason(i), "selected"))
			continue;
		char name[64];
		snprintf(name, sizeof(name), "stall_%s_pct", pm_stall_reason(i));
		set(facts, name, 100 * V(PM_STALL_FIRST + i) / total);
		if (V(PM_STALL_FIRST + i) > top)
			top = V(PM_STALL_FIRST + i), top_i = i;
	}
	json_object_set_new(facts, "top_stall",
			    json_string(pm_stall_reason(top_i)));
}

/* The warp-level counters as the per-opcode kinds (x 32: thread
 * instructions if every lane ran), for an ncu without PROFILE_PER_OPCODE:
 * the plain and generic loads and stores must be there, a kind this GPU or
 * ncu does not count adds 0; have[k] says which kinds it could count (no
 * read-only loads, no shuffles). 0 when it cannot stand in at all. */
static int warp_counts_as_kinds(const struct profile_result *pr,
				double *c, int *have)
{
	if (!HAVE(PM_OP_GLOBAL_LD) || !HAVE(PM_OP_GENERIC_LD) ||
	    !HAVE(PM_OP_GLOBAL_ST) || !HAVE(PM_OP_GENERIC_ST))
		return 0;
#define OPT(m) (HAVE(m) ? 32 * V(m) : 0.0)
	c[SASS_LOADS] = OPT(PM_OP_GLOBAL_LD) + OPT(PM_OP_GENERIC_LD) +
			OPT(PM_OP_TEXTURE) + OPT(PM_OP_SURFACE_LD) +
			OPT(PM_OP_ATOM);
	c[SASS_ASYNC] = OPT(PM_OP_LDGSTS);
	c[SASS_STORES] = OPT(PM_OP_GLOBAL_ST) + OPT(PM_OP_GENERIC_ST) +
			 OPT(PM_OP_GLOBAL_RED) + OPT(PM_OP_SURFACE_ST) +
			 OPT(PM_OP_ATOM);
	c[SASS_SHARED] = OPT(PM_OP_SHARED_LD) + OPT(PM_OP_SHARED_ST) +
			 OPT(PM_OP_SHARED_ATOM);
#undef OPT
	have[SASS_LOADS] = have[SASS_BULK] = have[SASS_BULK_ST] =
		have[SASS_STORES] = 1;
	have[SASS_ASYNC] = HAVE(PM_OP_LDGSTS);
	have[SASS_SHARED] = HAVE(PM_OP_SHARED_LD) && HAVE(PM_OP_SHARED_ST);
	return 1;
}

/*
 * The memory instructions the launched kernels executed, per element: counts
 * of what ran, so an instruction in a branch that never runs adds nothing (a
 * float4 load under `if (n < 0)` made step 5's PTX checks pass, red team
 * 2026-11-24), and an extra instruction only adds. Every path that reads
 * global memory counts as a load (loads into registers, generic loads,
 * cp.async, bulk and tensor copies, texture and surface fetches, atomics),
 * so work moved to another path is still counted; sync_loads are the same
 * without the copies (the loads a thread waits for in a register), and
 * async_copies the cp.async alone.
 *
 * Where ncu counts per opcode (pr->have_sass), these are thread
 * instructions with their predicate on, / n, and three more facts come
 * with them: shuffles per block launched (warp shuffles: thread shuffles /
 * 32), the read-only (.nc) loads per element and the plain (coherent)
 * loads beside them, and nothing padded by an
 * instruction whose predicate is never on. Else (an ncu without the
 * instrumented metric) they are ncu's warp-level counters x 32 / n, which
 * also count a predicated-off instruction: an upper bound, so the `max`
 * bars hold and the one `min` bar (async copies) can be padded. The plain
 * and generic loads and stores must be reported there; a kind this GPU or
 * ncu does not count (cp.async before Ampere) adds 0.
 */
static void memory_instruction_facts(const struct profile_result *pr,
				     double n, json_t *facts)
{
	double c[SASS_KINDS] = {0};
	int have[SASS_KINDS] = {0};
	if (n <= 0)
		return;
	if (pr->have_sass) {
		memcpy(c, pr->sass, sizeof(c));
		for (int k = 0; k < SASS_KINDS; k++)
			have[k] = 1;
	} else if (!warp_counts_as_kinds(pr, c, have)) {
		return;
	}
	set(facts, "load_insts_per_element",
	    (c[SASS_LOADS] + c[SASS_ASYNC] + c[SASS_BULK]) / n);
	set(facts, "sync_loads_per_element", c[SASS_LOADS] / n);
	if (have[SASS_ASYNC])
		set(facts, "async_copies_per_element", c[SASS_ASYNC] / n);
	set(facts, "store_insts_per_element",
	    (c[SASS_STORES] + c[SASS_BULK_ST]) / n);
	if (have[SASS_SHARED])
		set(facts, "shared_insts_per_element", c[SASS_SHARED] / n);
	if (have[SASS_NC_LOADS]) {
		set(facts, "nc_loads_per_element", c[SASS_NC_LOADS] / n);
		/* the other side of the read-only path, so that a `min` on
		 * .nc loads cannot be met by adding a useless __ldg beside
		 * the plain loads the step replaces */
		set(facts, "plain_loads_per_element",
		    (c[SASS_LOADS] - c[SASS_NC_LOADS]) / n);
		/* in bytes, so that a wider plain load of x cannot hide behind
		 * one narrow useless __ldg (float4: 0.25 of each a element);
		 * a bulk copy's size is not in its name: no byte count */
		set(facts, "nc_load_bytes_per_element", c[SASS_NC_BYTES] / n);
		if (c[SASS_BULK] == 0)
			set(facts, "plain_load_bytes_per_element",
			    c[SASS_PLAIN_BYTES] / n);
	}
	if (have[SASS_SHUFFLES] && pr->blocks > 0)
		set(facts, "shuffles_per_block",
		    c[SASS_SHUFFLES] / 32 / pr->blocks);
}

void profile_facts(const struct profile_result *pr, double n,
		   double copy_gbps, json_t *facts)
{
	if (!pr->measured)
		return;
	memory_instruction_facts(pr, n, facts);
	if (HAVE(PM_WARP_INST) && n > 0)
		set(facts, "inst_per_element", V(PM_WARP_INST) * 32 / n);
	if (HAVE(PM_CONFLICTS_LD) && HAVE(PM_CONFLICTS_ST) && n > 0)
		set(facts, "bank_conflicts_per_element",
		    (V(PM_CONFLICTS_LD) + V(PM_CONFLICTS_ST)) / n);
	memory_facts(pr, n, copy_gbps, facts);
	stall_facts(pr, facts);
}

/* ---- the cache of counter results (profiler.h) ------------------------- */

int profile_cache_key(const char *exe, const char *gpu_uuid,
		      enum profile_set set, char key[17])
{
	struct content_hash h;
	hash_init(&h);
	hash_str(&h, "profile-cache-3"); /* 3: the byte kinds */
	if (hash_file(&h, exe) < 0 || !gpu_uuid || !*gpu_uuid)
		return -1;
	hash_str(&h, gpu_uuid);
	/* the Nsight Compute that counts: its real path names its version
	 * (/opt/nvidia/nsight-compute/2025.3.1/ncu), and its content; read
	 * once a process (a class run keys hundreds of steps) */
	static char ncu_key[17];
	if (!ncu_key[0]) {
		const char *ncu = getenv("CUDALAB_NCU");
		char real[PATH_MAX];
		struct content_hash t;
		hash_init(&t);
		if (resolve_tool(ncu && *ncu ? ncu : "ncu", real,
				 sizeof(real)) == 0) {
			hash_str(&t, real);
			hash_file(&t, real);
		}
		hash_hex(&t, ncu_key);
	}
	hash_str(&h, ncu_key);
	struct strbuf metrics = STRBUF_INIT;
	metric_list(set, &metrics);
	hash_str(&h, strbuf_str(&metrics));
	strbuf_release(&metrics);
	hash_hex(&h, key);
	return 0;
}

static void cache_path(const char *dir, const char *key, char *path,
		       size_t len)
{
	snprintf(path, len, "%s/%s.json", dir, key);
}

int profile_cache_load(const char *cache_dir, const char *key,
		       struct profile_result *out)
{
	char path[PATH_MAX];
	cache_path(cache_dir, key, path, sizeof(path));
	json_t *j = json_load_file(path, 0, NULL);
	json_t *values = json_object_get(j, "values");
	if (!json_is_object(values)) {
		json_decref(j);
		return -1;
	}
	memset(out, 0, sizeof(*out));
	out->measured = 1;
	out->kernels = (int)json_integer_value(json_object_get(j, "kernels"));
	snprintf(out->longest, sizeof(out->longest), "%s",
		 json_string_value(json_object_get(j, "longest"))
			 ? json_string_value(json_object_get(j, "longest"))
			 : "");
	out->elements = json_number_value(json_object_get(j, "elements"));
	for (int m = 0; m < PM_COUNT; m++) {
		json_t *v = json_object_get(values, table[m].ncu_name);
		if (json_is_number(v)) {
			out->value[m] = json_number_value(v);
			out->have[m] = 1;
		}
	}
	out->blocks = json_number_value(json_object_get(j, "blocks"));
	json_t *sass = json_object_get(j, "sass");
	if (json_is_array(sass) && json_array_size(sass) == SASS_KINDS) {
		out->have_sass = 1;
		for (int s = 0; s < SASS_KINDS; s++)
			out->sass[s] = json_number_value(json_array_get(sass, s));
	}
	out->warp_instructions = out->value[PM_WARP_INST];
	out->bank_conflicts = out->value[PM_CONFLICTS_LD] +
			      out->value[PM_CONFLICTS_ST];
	json_decref(j);
	return 0;
}

void profile_cache_store(const char *cache_dir, const char *key,
			 const struct profile_result *pr)
{
	if (!pr->measured || (mkdir(cache_dir, 0755) < 0 && errno != EEXIST))
		return;
	json_t *values = json_object();
	for (int m = 0; m < PM_COUNT; m++)
		if (pr->have[m])
			json_object_set_new(values, table[m].ncu_name,
					    json_real(pr->value[m]));
	json_t *j = json_pack("{s:i, s:s, s:f, s:f, s:o}", "kernels",
			      pr->kernels, "longest", pr->longest, "elements",
			      pr->elements, "blocks", pr->blocks, "values",
			      values);
	if (j && pr->have_sass) {
		json_t *sass = json_array();
		for (int s = 0; s < SASS_KINDS; s++)
			json_array_append_new(sass, json_real(pr->sass[s]));
		json_object_set_new(j, "sass", sass);
	}
	char path[PATH_MAX], tmp[PATH_MAX + 32];
	cache_path(cache_dir, key, path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid());
	if (j && json_dump_file(j, tmp, JSON_COMPACT) == 0)
		rename(tmp, path);
	else
		unlink(tmp);
	json_decref(j);
}
