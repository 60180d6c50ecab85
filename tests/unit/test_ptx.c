/* ptx: facts read from PTX text (widths, non-coherent loads, cp.async). */
#include "check.h"
#include "ptx.h"

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
		"// ld.global.v8.f32 in a comment is not an instruction\n";
	ptx_read_facts(vec, &f);
	CHECK(f.max_load_bytes == 16 && f.max_store_bytes == 16,
	      "v4.f32 and v2.u64 are 16 bytes");
	CHECK(f.nc_loads == 1, "ld.global.nc is a non-coherent load");
	CHECK(f.global_loads == 2, "predicated loads count; shared loads and "
				   "comments do not");
	CHECK(f.async_copies == 1, "cp.async is counted");

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
	CHECK(ptx_read_facts(NULL, &f) == -1 && f.global_loads == 0,
	      "no PTX: -1 and zero facts");
	return check_done();
}
