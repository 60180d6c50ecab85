/* profiler: reading ncu's CSV. */
#include "check.h"
#include "profiler.h"

int main(void)
{
	const char *csv =
		"==PROF== Connected to process 4242 (step)\n"
		"{\"event\":\"progress\"}\n"
		"\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\","
		"\"Context\",\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\","
		"\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
		"\"0\",\"4242\",\"step\",\"127.0.0.1\",\"saxpy_naive\",\"1\",\"7\","
		"\"(256, 1, 1)\",\"(262144, 1, 1)\",\"0\",\"9.0\",\"Command line profiler "
		"metrics\",\"smsp__inst_executed.sum\",\"inst\",\"39,845,888\"\n"
		"\"1\",\"4242\",\"step\",\"127.0.0.1\",\"tail\",\"1\",\"7\","
		"\"(32, 1, 1)\",\"(1, 1, 1)\",\"0\",\"9.0\",\"Command line profiler "
		"metrics\",\"smsp__inst_executed.sum\",\"inst\",\"12\"\n"
		"\"0\",\"4242\",\"step\",\"127.0.0.1\",\"saxpy_naive\",\"1\",\"7\","
		"\"(256, 1, 1)\",\"(262144, 1, 1)\",\"0\",\"9.0\",\"Command line profiler "
		"metrics\",\"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum\","
		"\"\",\"4,194,304\"\n"
		"\"0\",\"4242\",\"step\",\"127.0.0.1\",\"saxpy_naive\",\"1\",\"7\","
		"\"(256, 1, 1)\",\"(262144, 1, 1)\",\"0\",\"9.0\",\"Command line profiler "
		"metrics\",\"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum\","
		"\"\",\"96\"\n";
	struct profile_result r = {0};
	CHECK(profile_parse_csv(csv, &r) == 2, "two kernel rows");
	CHECK(r.warp_instructions == 39845888.0 + 12 && r.kernels == 2,
	      "values are summed, thousands separators and all (%.0f)",
	      r.warp_instructions);
	CHECK(r.bank_conflicts == 4194304.0 + 96,
	      "bank conflicts: loads and stores summed (%.0f)", r.bank_conflicts);
	CHECK(profile_parse_csv("==PROF== Disconnected\n", &r) == 0 &&
		      r.kernels == 0,
	      "no table: nothing measured");
	return check_done();
}
