/* compiler_report: nvcc's output as diagnostics and per-kernel resources. */
#include "check.h"
#include "compiler_report.h"

#include <string.h>

static const char *S(json_t *d, const char *k)
{
	return json_string_value(json_object_get(d, k));
}

/* compiler_hide_files: only "/secret" is not shown. */
static int not_secret(const char *file, void *arg)
{
	(void)arg;
	return strncmp(file, "/secret", 7) != 0;
}

int main(void)
{
	const char *out =
		"labs/saxpy/saxpy_v2.cu(11): error: identifier \"yy\" is undefined\n"
		"        y[i] = a * x[i] + yy[i];\n"
		"labs/saxpy/saxpy_v2.cu(7): warning #177-D: variable \"k\" was declared but never referenced\n"
		"In file included from x.cu:1:\n"
		"saxpy_v3.cu:20:5: error: expected ';' before '}' token\n"
		"x.cu:3:1: note: something\n"
		"ptxas error   : Entry function '_Z1kv' uses too much shared data\n"
		"/usr/bin/ld: step.o: in function `main':\n"
		"harness.cu:(.text+0x1a): undefined reference to `saxpy'\n"
		"2 errors detected in the compilation of \"x.cu\".\n";
	json_t *d = compiler_diagnostics(out, "saxpy");
	CHECK(json_array_size(d) == 5, "five diagnostics (got %zu)",
	      json_array_size(d));
	json_t *d0 = json_array_get(d, 0);
	CHECK(!strcmp(S(d0, "file"), "labs/saxpy/saxpy_v2.cu") &&
		      json_integer_value(json_object_get(d0, "line")) == 11 &&
		      !strcmp(S(d0, "severity"), "error") &&
		      !strcmp(S(d0, "message"), "identifier \"yy\" is undefined"),
	      "front-end error: file, line, message");
	json_t *d1 = json_array_get(d, 1);
	CHECK(!strcmp(S(d1, "severity"), "warning") &&
		      strstr(S(d1, "message"), "never referenced"),
	      "front-end warning with its #number dropped");
	json_t *d2 = json_array_get(d, 2);
	CHECK(json_integer_value(json_object_get(d2, "column")) == 5 &&
		      !strcmp(S(d2, "file"), "saxpy_v3.cu"),
	      "host-compiler error with column");
	CHECK(!strcmp(S(json_array_get(d, 3), "file"), "ptxas"),
	      "ptxas error");
	CHECK(strstr(S(json_array_get(d, 4), "message"),
		     "does not define the launcher saxpy()") != NULL,
	      "a missing launcher is explained in the lab's terms");
	CHECK(compiler_count(d, "error") == 4 && compiler_count(d, "warning") == 1,
	      "counts by severity");
	json_decref(d);

	d = compiler_diagnostics("a.o: in function `main':\n"
				 "h.cu:(.text+0x1): undefined reference to `saxpy'\n"
				 "h.cu:(.text+0x9): undefined reference to `saxpy'\n"
				 "h.cu:(.text+0xf): undefined reference to `saxpy'\n",
				 "saxpy");
	CHECK(json_array_size(d) == 1,
	      "a symbol missing at three call sites is one diagnostic");
	json_decref(d);

	d = compiler_diagnostics("h.cu:(.text): undefined reference to `saxpy_v2'\n",
				 "saxpy");
	CHECK(strstr(S(json_array_get(d, 0), "message"), "link error") != NULL,
	      "another missing symbol is a plain link error, not the launcher");
	json_decref(d);

	const char *ptxas =
		"ptxas info    : 0 bytes gmem\n"
		"ptxas info    : Compiling entry function '_Z5naiveifPKfPf' for 'sm_90'\n"
		"ptxas info    : Function properties for _Z5naiveifPKfPf\n"
		"    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
		"ptxas info    : Used 10 registers, used 0 barriers, 380 bytes cmem[0]\n"
		"ptxas info    : Compiling entry function '_Z4tilev' for 'sm_90'\n"
		"ptxas info    : Function properties for _Z4tilev\n"
		"    16 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n"
		"ptxas info    : Used 255 registers, used 1 barriers, 4224 bytes smem, 380 bytes cmem[0]\n";
	json_t *r = compiler_resources(ptxas);
	CHECK(json_array_size(r) == 2, "one entry per kernel");
	json_t *k1 = json_array_get(r, 1);
	CHECK(!strcmp(S(json_array_get(r, 0), "name"), "_Z5naiveifPKfPf") &&
		      json_integer_value(json_object_get(json_array_get(r, 0),
							 "registers")) == 10,
	      "first kernel: name and registers");
	CHECK(json_integer_value(json_object_get(k1, "registers")) == 255 &&
		      json_integer_value(json_object_get(k1, "shared_bytes")) == 4224 &&
		      json_integer_value(json_object_get(k1, "spill_store_bytes")) == 8 &&
		      json_integer_value(json_object_get(k1, "spill_load_bytes")) == 12 &&
		      json_integer_value(json_object_get(k1, "stack_bytes")) == 16,
	      "second kernel: registers, shared memory, spills, stack");
	json_decref(r);

	/* a device function's properties follow the kernel's: not the kernel's */
	const char *callee =
		"ptxas info    : Compiling entry function '_Z4rollPKdPdi' for 'sm_90'\n"
		"ptxas info    : Function properties for _Z4rollPKdPdi\n"
		"    40 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n"
		"ptxas info    : Used 54 registers, used 0 barriers, 40 bytes cumulative stack size\n"
		"ptxas info    : Compile time = 44.064 ms\n"
		"ptxas info    : Function properties for __internal_trig_reduction_slowpathd\n"
		"    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n";
	r = compiler_resources(callee);
	k1 = json_array_get(r, 0);
	CHECK(json_array_size(r) == 1 &&
		      json_integer_value(json_object_get(k1, "stack_bytes")) == 40 &&
		      json_integer_value(json_object_get(k1, "spill_store_bytes")) == 4,
	      "a called function's stack and spills do not overwrite the "
	      "kernel's (got stack %lld)",
	      (long long)json_integer_value(json_object_get(k1, "stack_bytes")));
	json_decref(r);
	{
		const char *log =
			"/secret/passwd(1): error: this declaration has no "
			"storage class\n"
			"  root:x:0:0:root:/root:/bin/bash\n"
			"  ^\n"
			"\n"
			"In file included from /home/s/saxpy_v1.cu:3:\n"
			"/secret/key.txt:2:12: error: unterminated argument "
			"list invoking macro \"S\"\n"
			"    2 | BEGIN PRIVATE KEY\n"
			"      |            ^\n"
			"/home/s/saxpy_v1.cu(7): error: identifier \"q\" is "
			"undefined\n"
			"    q = 1;\n"
			"    ^\n"
			"ptxas info    : Used 10 registers\n"
			"2 errors detected in the compilation of "
			"\"/home/s/saxpy_v1.cu\".\n";
		char *kept = compiler_hide_files(log, not_secret, NULL);
		CHECK(kept && !strstr(kept, "root:x") &&
			      !strstr(kept, "PRIVATE") &&
			      !strstr(kept, "storage class") &&
			      strstr(kept, "/secret/passwd(1): error:") &&
			      strstr(kept, "/secret/key.txt(2): error:") &&
			      strstr(kept, "not shown") &&
			      strstr(kept, "identifier \"q\" is undefined\n"
					   "    q = 1;\n") &&
			      strstr(kept, "ptxas info") &&
			      strstr(kept, "2 errors detected"),
		      "a diagnostic about a file not shown keeps only its "
		      "location; the student's own and other lines stay");
		if (!kept || strstr(kept, "root:x"))
			printf("# %s\n", kept ? "root:x quoted" : "NULL");
		free(kept);
	}
	return check_done();
}
