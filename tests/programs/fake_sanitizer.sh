#!/bin/sh
# A stand-in for compute-sanitizer: takes its options (each with a value)
# up to the program, runs the program (which may print anything), then
# writes its own report, 3 errors, to the --log-file it was given, as the
# real tool does. The grader must count 3 whatever the program printed.
log=/dev/stdout
while [ $# -gt 0 ]; do
	case "$1" in
	--log-file) log=$2; shift 2 ;;
	--*) shift 2 ;;
	*) break ;;
	esac
done
"$@"
status=$?
printf '========= Race reported between Write access at 0x10 in k\n' >>"$log"
printf '========= RACECHECK SUMMARY: 3 hazards displayed (3 errors, 0 warnings)\n' >>"$log"
printf '========= ERROR SUMMARY: 3 errors\n' >>"$log"
exit $status
