/* ptx: facts read from PTX text (widths, non-coherent loads, cp.async). */
#include "check.h"
#include "ptx.h"

#include <string.h>

int main(void)
{
	struct ptx_facts f;
	const char *scalar =
		"\tld.global.f32 \t%f2, [%rd6];\n"
		"\tld.global.f32 \t%f3, [%rd7];\n"
		"\tfma.rn.f32 \t%f4, %f2, %f1, %f3;\n"
		"\tst.global.f32 \t[%rd7], %f4;\n";
	ptx_read_facts(scalar, &f);
	CHECK(f.global_loads == 2 && f.global_stores == 1,
	      "counts global loads and stores");
	CHECK(f.max_load_bytes == 4 && f.max_store_bytes == 4 && !f.nc_loads,
	      "4-byte scalar accesses, coherent");

	const char *vec =
		"\tld.global.nc.v4.f32 \t{%f1, %f2, %f3, %f4}, [%rd1];\n"
		"\t@%p1 ld.global.v2.u64 \t{%rd3, %rd4}, [%rd2];\n"
		"\tst.global.v4.f32 \t[%rd5], {%f5, %f6, %f7, %f8};\n"
		"\tld.shared.v4.f32 \t{%f1, %f2, %f3, %f4}, [%r1];\n"
		"\tcp.async.ca.shared.global [%r2], [%rd6], 16;\n"
		"\tcp.async.commit_group;\n"
		"\tcp.async.wait_group 3;\n"
		"// ld.global.v8.f32 in a comment is not an instruction\n";
	ptx_read_facts(vec, &f);
	CHECK(f.max_load_bytes == 16 && f.max_store_bytes == 16,
	      "v4.f32 and v2.u64 are 16 bytes");
	CHECK(f.nc_loads == 1, "ld.global.nc is a non-coherent load");
	CHECK(f.global_loads == 2, "predicated loads count; shared loads and "
				   "comments do not");
	CHECK(f.async_copies == 1, "a cp.async copy is counted, its commit and "
				   "wait are not (got %d)", f.async_copies);

	CHECK(ptx_dynamic_shared(
		      ".extern .shared .align 16 .b8 smem[];\n"
		      ".visible .entry k(\n) {\n"
		      "\tmov.u64 \t%rd1, smem;\n}\n") == 1,
	      "an extern __shared__ array is a dynamic shared declaration");
	CHECK(ptx_dynamic_shared(
		      ".shared .align 8 .b8 buf[16384];\n"
		      ".extern .func (.param .b32 r) vprintf(.param .b64 a);\n"
		      "// .extern .shared .b8 x[];\n"
		      ".global .align 1 .b8 $str[20] = {46, 101, 120, 116};\n") == 0,
	      "a static array, an extern function and a comment are none");
	CHECK(ptx_dynamic_shared(NULL) == 0, "no text, none");

	const char *bf16 = "\tld.global.nc.L1::no_allocate.v4.b32 \t{%r1,%r2,%r3,%r4}, [%rd1];\n"
			   "\tld.global.u16 \t%rs1, [%rd2];\n";
	ptx_read_facts(bf16, &f);
	CHECK(f.max_load_bytes == 16 && f.nc_loads == 1,
	      "cache-hint qualifiers do not hide the width");
	const char *red = "\trem.u32 \t%r5, %r4, %r3;\n"
			  "\tbar.sync \t0;\n"
			  "\tbarrier.sync \t0;\n"
			  "\tshfl.sync.down.b32 \t%r9|%p2, %r8, 16, 31, -1;\n";
	ptx_read_facts(red, &f);
	CHECK(f.rem_ops == 1 && f.barriers == 2 && f.shuffles == 1,
	      "remainders, barriers and shuffles are counted");
	/* inline assembly as CUB's WarpReduce writes it: a whole block of
	 * statements on one line (the shuffle was not counted, 2026-11-24) */
	const char *inline_block =
		"\t{  .reg .f32 r0;  .reg .pred p;  shfl.sync.down.b32 r0|p, "
		"%f53, %r18, %r31, %r32;  @p add.f32 r0, r0, %f53;  "
		"mov.f32 %f21, r0;}\n"
		"\t{ ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1]; }\n"
		"\t.pragma \"a; shfl.sync.bfly.b32 x\";\n";
	ptx_read_facts(inline_block, &f);
	CHECK(f.shuffles == 1 && f.nc_loads == 1 && f.max_load_bytes == 16,
	      "statements inside an inline-assembly block on one line count; "
	      "a string's text does not (shuffles %d, nc %d)", f.shuffles,
	      f.nc_loads);
	CHECK(ptx_read_facts(NULL, &f) == -1 && f.global_loads == 0,
	      "no PTX: -1 and zero facts");

	/* each global access with its source line (.file comes last) */
	const char *lined =
		"\t.loc\t1 37 5\n"
		"\tld.global.nc.v4.f32 \t{%f22, %f23, %f24, %f25}, [%rd4];\n"
		"\t.loc\t1 38 5\n"
		"\t@%p1 ld.global.f32 \t%f30, [%rd5];\n"
		"\t.loc\t1 41 3\n"
		"\tst.global.v2.f64 \t[%rd6], {%fd1, %fd2};\n"
		"\t.loc\t1 26 4\n"
		"\t.loc\t3 90 9, function_name $L__info_string1, inlined_at 1 26 4\n"
		"\t.loc\t4 190 23, function_name $L__info_string4, inlined_at 3 90 9\n"
		"\tcp.async.ca.shared.global [%r1], [%rd7], 8;\n"
		"\tcp.async.commit_group;\n"
		"\tcp.async.wait_group 7;\n"
		"\t.file\t1 \"/work/labs/saxpy/saxpy_v5.cu\"\n";
	json_t *ops = ptx_memory_ops(lined);
	json_t *o0 = json_array_get(ops, 0), *o1 = json_array_get(ops, 1),
	       *o2 = json_array_get(ops, 2), *o3 = json_array_get(ops, 3);
	CHECK(json_array_size(ops) == 4,
	      "four memory instructions (commit and wait are not copies; "
	      "got %zu)", json_array_size(ops));
	CHECK(!strcmp(json_string_value(json_object_get(o0, "kind")), "load") &&
		      json_integer_value(json_object_get(o0, "bytes")) == 16 &&
		      json_is_true(json_object_get(o0, "nc")) &&
		      json_integer_value(json_object_get(o0, "line")) == 37 &&
		      !strcmp(json_string_value(json_object_get(o0, "file")),
			      "/work/labs/saxpy/saxpy_v5.cu"),
	      "a 16-byte non-coherent load at line 37 of its file");
	CHECK(json_integer_value(json_object_get(o1, "bytes")) == 4 &&
		      !json_is_true(json_object_get(o1, "nc")) &&
		      json_integer_value(json_object_get(o1, "line")) == 38,
	      "a predicated 4-byte load at line 38");
	CHECK(!strcmp(json_string_value(json_object_get(o2, "kind")), "store") &&
		      json_integer_value(json_object_get(o2, "bytes")) == 16 &&
		      json_integer_value(json_object_get(o2, "line")) == 41,
	      "a 16-byte store at line 41");
	CHECK(!strcmp(json_string_value(json_object_get(o3, "kind")), "async") &&
		      json_integer_value(json_object_get(o3, "bytes")) == 8 &&
		      json_integer_value(json_object_get(o3, "line")) == 26 &&
		      !strcmp(json_string_value(json_object_get(o3, "file")),
			      "/work/labs/saxpy/saxpy_v5.cu"),
	      "an 8-byte asynchronous copy inlined from two headers is "
	      "attributed to the student's line 26 (got %lld)",
	      (long long)json_integer_value(json_object_get(o3, "line")));
	json_decref(ops);
	ops = ptx_memory_ops("\tld.global.f32 %f1, [%rd1];\n");
	CHECK(json_array_size(ops) == 1 &&
		      !json_object_get(json_array_get(ops, 0), "line"),
	      "without line information: no file or line");
	json_decref(ops);

	/* facts per kernel, and only of the launched ones (issue 16): a
	 * float4 decoy compiled but never launched lends nothing */
	const char *two =
		".func  (.param .b32 func_retval0) _Z6helperPKf(\n"
		"\t.param .b64 _Z6helperPKf_param_0\n)\n{\n"
		"\tld.global.nc.f32 \t%f1, [%rd1];\n\tret;\n}\n"
		".visible .entry _Z5decoyiPK6float4PS_(\n"
		"\t.param .u32 _Z5decoyiPK6float4PS__param_0\n)\n{\n"
		"\tld.global.nc.v4.f32 \t{%f1, %f2, %f3, %f4}, [%rd1];\n"
		"\tst.global.v4.f32 \t[%rd2], {%f1, %f2, %f3, %f4};\n"
		"\tret;\n}\n"
		".visible .entry _Z6scalariPKfPf(\n"
		"\t.param .u32 _Z6scalariPKfPf_param_0\n)\n{\n"
		"\tld.global.f32 \t%f2, [%rd6];\n"
		"\tcall.uni (retval0), _Z6helperPKf, (param0);\n"
		"\tst.global.f32 \t[%rd7], %f4;\n\tret;\n}\n";
	json_t *kf = ptx_kernel_facts(two);
	json_t *dk = json_object_get(kf, "_Z5decoyiPK6float4PS_");
	json_t *sk = json_object_get(kf, "_Z6scalariPKfPf");
	CHECK(json_object_size(kf) == 2 && dk && sk,
	      "one entry per kernel, none for the .func (got %zu)",
	      json_object_size(kf));
	CHECK(json_integer_value(json_object_get(dk, "max_load_bytes")) == 16 &&
		      json_integer_value(json_object_get(sk, "max_load_bytes")) == 4,
	      "each kernel has its own widths");
	CHECK(json_integer_value(json_object_get(sk, "global_loads")) == 2 &&
		      json_integer_value(json_object_get(sk, "nc_loads")) == 1,
	      "a kernel counts the loads of the function it calls");
	json_t *launched = json_pack("[s]", "_Z6scalariPKfPf");
	json_t *lf = ptx_facts_launched(kf, launched);
	CHECK(json_integer_value(json_object_get(lf, "max_load_bytes")) == 4 &&
		      json_integer_value(json_object_get(lf, "max_store_bytes")) == 4,
	      "the decoy's 16-byte loads are not the launched kernel's");
	json_decref(lf);
	json_decref(launched);
	launched = json_pack("[s, s]", "_Z6scalariPKfPf", "_Z5decoyiPK6float4PS_");
	lf = ptx_facts_launched(kf, launched);
	CHECK(json_integer_value(json_object_get(lf, "max_load_bytes")) == 16 &&
		      json_integer_value(json_object_get(lf, "global_loads")) == 3,
	      "launched together, widths take the largest and counts add");
	json_decref(lf);
	json_decref(launched);
	launched = json_array();
	lf = ptx_facts_launched(kf, launched);
	CHECK(json_integer_value(json_object_get(lf, "max_load_bytes")) == 0,
	      "nothing launched: no facts");
	json_decref(lf);
	json_decref(launched);
	json_decref(kf);
	{
		struct ptx_facts cf;
		const char *forged =
			"\tld.global.f32 %f1, [%rd1];\n"
			"\t/*\n\tld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, "
			"[%rd1];\n\tst.global.v4.f32 [%rd2], {%f1, %f2, %f3, "
			"%f4};\n*/\n"
			"\t// ld.global.v2.f32 {%f1, %f2}, [%rd1];\n"
			"\tst.global.f32 [%rd2], %f1;\n";
		ptx_read_facts(forged, &cf);
		CHECK(cf.global_loads == 1 && cf.max_load_bytes == 4 &&
			      cf.nc_loads == 0 && cf.global_stores == 1 &&
			      cf.max_store_bytes == 4,
		      "instructions inside PTX comments are not counted "
		      "(loads %d, widest %d B, nc %d)", cf.global_loads,
		      cf.max_load_bytes, cf.nc_loads);
	}
	{
		/* red team, 2026-11-24: a decoy kernel's name longer than the
		 * reader's buffer hid its start, and its 16-byte loads counted
		 * for the kernel before it */
		char name[400], text[2048];
		memset(name, 'a', sizeof(name) - 1);
		name[0] = '_', name[1] = 'Z', name[sizeof(name) - 1] = 0;
		snprintf(text, sizeof(text),
			 ".visible .entry _Z6scalarPf(\n)\n{\n"
			 "\tld.global.f32 \t%%f2, [%%rd6];\n\tret;\n}\n"
			 ".visible .entry %s(\n)\n{\n"
			 "\tld.global.nc.v4.f32 \t{%%f1, %%f2, %%f3, %%f4}, [%%rd1];\n"
			 "\tret;\n}\n", name);
		json_t *k = ptx_kernel_facts(text);
		json_t *sc = json_object_get(k, "_Z6scalarPf");
		CHECK(json_integer_value(json_object_get(sc, "max_load_bytes")) == 4 &&
			      json_integer_value(json_object_get(
				      json_object_get(k, name), "max_load_bytes")) == 16,
		      "a kernel with a 398-character name is a kernel of its own "
		      "(scalar: %lld B)",
		      (long long)json_integer_value(json_object_get(sc, "max_load_bytes")));
		json_decref(k);
	}
	{
		/* only a call instruction reaches a function: not a .pragma
		 * string, a label or a register of its name, nor "param" as a
		 * word of ld.param; a call over three lines (nvcc's form) and a
		 * call through a register (any .func) do */
		const char *text =
			".func _Z4widev(\n)\n{\n"
			"\tld.global.v4.f32 \t{%f1, %f2, %f3, %f4}, [%rd1];\n"
			"\tret;\n}\n"
			".func param(\n)\n{\n\tld.global.v2.f32 \t{%f1, %f2}, [%rd1];\n"
			"\tret;\n}\n"
			".visible .entry _Z5namesPf(\n\t.param .u64 _Z5namesPf_param_0\n)\n{\n"
			"\t.pragma \"call.uni _Z4widev; rem.u32 %r1, %r2, %r3;\";\n"
			"\t{ .reg .b32 _Z4widev; mov.b32 _Z4widev, 0; }\n"
			"_Z4widev:\n"
			"\tld.param.u64 \t%rd1, [_Z5namesPf_param_0];\n"
			"\tld.global.f32 \t%f2, [%rd1];\n\tret;\n}\n"
			".visible .entry _Z5callsPf(\n)\n{\n"
			"\tcall.uni (retval0), \n\t_Z4widev, \n\t(\n\tparam0\n\t);\n"
			"\tret;\n}\n"
			".visible .entry _Z8indirectPf(\n)\n{\n"
			"\tcall (retval0), %rd4, (param0), prototype_0;\n"
			"\tret;\n}\n"
			".visible .entry _Z3remPf(\n)\n{\n"
			"\t{ .reg .u32 t; rem.u32 %r1, %r2, %r3; }\n"
			"\tmov.u32 %r1, 0; $L1: rem.s32 %r4, %r2, %r3;\n"
			"\tret;\n}\n";
		json_t *k = ptx_kernel_facts(text);
		json_t *names = json_object_get(k, "_Z5namesPf");
		json_t *calls = json_object_get(k, "_Z5callsPf");
		json_t *ind = json_object_get(k, "_Z8indirectPf");
		json_t *rem = json_object_get(k, "_Z3remPf");
		CHECK(json_integer_value(json_object_get(names, "max_load_bytes")) == 4 &&
			      json_integer_value(json_object_get(names, "rem_ops")) == 0 &&
			      json_integer_value(json_object_get(names, "global_loads")) == 1,
		      "a function's name in a .pragma string, a label, a register "
		      "or ld.param is no call (widest %lld B, rem %lld)",
		      (long long)json_integer_value(json_object_get(names, "max_load_bytes")),
		      (long long)json_integer_value(json_object_get(names, "rem_ops")));
		CHECK(json_integer_value(json_object_get(calls, "max_load_bytes")) == 16 &&
			      json_integer_value(json_object_get(calls, "global_loads")) == 1,
		      "a call whose callee is on the next line reaches it");
		CHECK(json_integer_value(json_object_get(ind, "max_load_bytes")) == 16 &&
			      json_integer_value(json_object_get(ind, "global_loads")) == 2,
		      "a call through a register may reach any .func");
		CHECK(json_integer_value(json_object_get(rem, "rem_ops")) == 2,
		      "a rem after '{' or a label on the line is counted "
		      "(got %lld)",
		      (long long)json_integer_value(json_object_get(rem, "rem_ops")));
		json_decref(k);
	}
	return check_done();
}
