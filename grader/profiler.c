#include "profiler.h"
#include "runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define METRIC "smsp__inst_executed.sum"
#define CONFLICTS "l1tex__data_bank_conflicts_pipe_lsu_mem_shared"
#define METRICS METRIC "," CONFLICTS "_op_ld.sum," CONFLICTS "_op_st.sum"

/* Split one CSV line of ncu's (every field quoted) into at most max fields,
 * in place. Returns the number of fields. */
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

int profile_parse_csv(const char *csv, struct profile_result *out)
{
	char *copy = strdup(csv);
	int name_col = -1, value_col = -1, rows = 0;
	out->warp_instructions = 0;
	out->bank_conflicts = 0;
	out->kernels = 0;
	for (char *line = strtok(copy, "\n"); line; line = strtok(NULL, "\n")) {
		if (line[0] != '"')
			continue; /* ==PROF== lines and the program's output */
		char *f[64];
		int n = csv_fields(line, f, 64);
		if (name_col < 0) {
			for (int i = 0; i < n; i++) {
				if (!strcmp(f[i], "Metric Name"))
					name_col = i;
				if (!strcmp(f[i], "Metric Value"))
					value_col = i;
			}
			continue;
		}
		if (value_col < 0 || n <= value_col)
			continue;
		int inst = !strcmp(f[name_col], METRIC);
		int conflicts = !strncmp(f[name_col], CONFLICTS, strlen(CONFLICTS));
		if (!inst && !conflicts)
			continue;
		char digits[64];
		size_t k = 0;
		for (const char *c = f[value_col]; *c && k + 1 < sizeof(digits); c++)
			if (*c != ',')
				digits[k++] = *c;
		digits[k] = '\0';
		if (inst) {
			out->warp_instructions += strtod(digits, NULL);
			out->kernels++;
			rows++;
		} else {
			out->bank_conflicts += strtod(digits, NULL);
		}
	}
	free(copy);
	return rows;
}

void profile_step(const char *exe, double time_limit_s,
		  struct profile_result *out)
{
	memset(out, 0, sizeof(*out));
	const char *argv[] = {"ncu", "--clock-control", "none", "--csv",
			      "--metrics", METRICS, "--kernel-name-base",
			      "function", "--kernel-name", "regex:^(?!hx_)",
			      exe, "--profile", "--result-fd", "3", NULL};
	struct child c = CHILD_INIT;
	c.argv = argv;
	c.result_fd = 3;
	c.out_limit = 4 << 20;
	c.wall_limit_s = time_limit_s;
	char how[160];
	if (child_run(&c) < 0) {
		snprintf(out->reason, sizeof(out->reason),
			 "ncu not found on PATH (Nsight Compute)");
	} else if (strstr(strbuf_str(&c.out), "ERR_NVGPUCTRPERM")) {
		snprintf(out->reason, sizeof(out->reason),
			 "no permission to the GPU's performance counters "
			 "(ERR_NVGPUCTRPERM)");
	} else if (!c.exited || c.exit_code != 0) {
		snprintf(out->reason, sizeof(out->reason), "ncu %s",
			 child_describe_end(&c, how, sizeof(how)));
	} else if (profile_parse_csv(strbuf_str(&c.out), out) == 0) {
		snprintf(out->reason, sizeof(out->reason),
			 "ncu profiled no kernel of the step");
	} else {
		out->measured = 1;
	}
	child_release(&c);
}
