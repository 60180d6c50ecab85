#!/bin/sh
# A stand-in for Nsight Compute: takes its options up to the program
# (--csv alone, the others with a value), runs the program (which may print
# anything), then writes its CSV to the --log-file it was given, as the real
# ncu does: rows recorded on the H100 (tests/fixtures/ncu, saxpy v1) with
# 32768 bank conflicts on loads and on stores (65536 in all).
log=/dev/stdout
while [ $# -gt 0 ]; do
	case "$1" in
	--log-file) log=$2; shift 2 ;;
	--csv) shift ;;
	--*) shift 2 ;;
	*) break ;;
	esac
done
"$@"
status=$?
cat >>"$log" <<'CSV'
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"
"0","1857","step","127.0.0.1","saxpy_naive(int, float, const float *, float *)","1","7","(256, 1, 1)","(262144, 1, 1)","0","9.0","Command line profiler metrics","l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum","","32768"
"0","1857","step","127.0.0.1","saxpy_naive(int, float, const float *, float *)","1","7","(256, 1, 1)","(262144, 1, 1)","0","9.0","Command line profiler metrics","l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum","","32768"
"0","1857","step","127.0.0.1","saxpy_naive(int, float, const float *, float *)","1","7","(256, 1, 1)","(262144, 1, 1)","0","9.0","Command line profiler metrics","smsp__inst_executed.sum","inst","39,845,888"
CSV
exit $status
