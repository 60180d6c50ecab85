#!/bin/sh
# A stand-in for Nsight Compute on a machine where the GPU's performance
# counters are restricted to administrators: ncu starts the program, then
# reports ERR_NVGPUCTRPERM and profiles nothing (the message below is the
# shape ncu prints), into the --log-file it was given, as the real ncu does.
# explain must say "not measured" and why.
log=/dev/stdout
while [ $# -gt 0 ]; do
	case "$1" in
	--log-file) log=$2; shift 2 ;;
	--csv) shift ;;
	--*) shift 2 ;;
	*) break ;;
	esac
done
{
echo "==PROF== Connected to process $$"
echo "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters on the target device 0."
echo "==PROF== Disconnected from process $$"
} >>"$log"
exit 0
