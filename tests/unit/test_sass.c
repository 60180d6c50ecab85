/* sass: counting the memory instructions of cuobjdump -sass output, on
 * listings recorded on the H100 with CUDA 13.0 (tests/fixtures/sass). */
#include "check.h"
#include "sass.h"
#include "strbuf.h"

#include <stdlib.h>
#include <string.h>

static const char *fixture(const char *name)
{
	return check_fixture("sass", name);
}

int main(void)
{
	struct sass_counts c;
	CHECK(sass_parse(fixture("h100-cuda13.0-saxpy_v5.sass"), &c) > 0 &&
		      c.functions == 1, "saxpy v5: one function");
	CHECK(c.loads[4] == 6 && c.nc_loads[4] == 3,
	      "saxpy v5: six 16-byte loads, three of x on the read-only path "
	      "(%d, %d)", c.loads[4], c.nc_loads[4]);
	CHECK(c.loads[2] == 2 && c.nc_loads[2] == 1 && c.stores[4] == 3 &&
		      c.stores[2] == 1,
	      "saxpy v5: the tail's 4-byte loads and store, the float4 stores");
	CHECK(c.local_loads == 0 && c.local_stores == 0, "no local memory");

	sass_parse(fixture("h100-cuda13.0-memtune_v1.sass"), &c);
	CHECK(c.loads[3] == 18 && c.loads[4] == 0 && c.stores[3] == 1,
	      "memtuning v1: 8-byte loads only (LDG.E.64 x%d)", c.loads[3]);

	sass_parse(fixture("h100-cuda13.0-prefetch_v7.sass"), &c);
	CHECK(c.async[3] == 9, "prefetch v7: nine 8-byte LDGSTS (%d)", c.async[3]);

	const char *mine =
		"\t\tFunction : k\n"
		"        /*0010*/               @!P0 LDG.E.U16 R2, desc[UR4][R2.64] ;\n"
		"        /*0020*/                   STL.64 [R1], R4 ;\n"
		"        /*0030*/                   LDL R6, [R1+0x8] ;\n"
		"        /*0040*/                   LDS R7, [R3] ;\n"
		"        /*0050*/                   STG.E.U8 desc[UR4][R2.64], R7 ;\n";
	CHECK(sass_parse(mine, &c) == 5 && c.loads[1] == 1 && c.stores[0] == 1 &&
		      c.local_loads == 1 && c.local_stores == 1,
	      "a predicated 2-byte load, a byte store, spills; shared memory "
	      "is not global");
	CHECK(sass_parse("no listing here\n", &c) == 0, "no SASS: nothing counted");
	return check_done();
}
