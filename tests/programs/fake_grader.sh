#!/bin/sh
# A stand-in grader for the dashboard's tests. It appends its arguments to
# $FAKE_LOG (when set), then replays the recording $FAKE_EVENTS:
#   FAKE_MODE=complete   the whole recording, then exit 0 (with --step in
#                        the arguments: $FAKE_STEP_EVENTS, when set;
#                        FAKE_SLEEP: seconds to wait first, as a GPU run
#                        takes time; FAKE_EXIT: the exit status;
#                        FAKE_GPU_LOG: start and end lines with the time
#                        and CUDA_VISIBLE_DEVICES)
#   otherwise            the first events, a last word on stderr, and
#                        death by SIGSEGV: the dashboard must report it and
#                        keep the terminal sane
[ -n "$FAKE_LOG" ] && echo "$*" >> "$FAKE_LOG"
[ -n "$FAKE_GPU_LOG" ] && echo "start $(date +%s.%N) ${CUDA_VISIBLE_DEVICES:-unset} $*" >> "$FAKE_GPU_LOG"
if [ "$FAKE_MODE" = complete ]; then
	# a rerun of one step (--step) replays $FAKE_STEP_EVENTS when set
	case " $* " in
	*" --step "*) [ -n "$FAKE_STEP_EVENTS" ] && FAKE_EVENTS=$FAKE_STEP_EVENTS ;;
	esac
	[ -n "$FAKE_SLEEP" ] && sleep "$FAKE_SLEEP"
	cat "$FAKE_EVENTS"
	[ -n "$FAKE_GPU_LOG" ] && echo "end $(date +%s.%N) ${CUDA_VISIBLE_DEVICES:-unset} $*" >> "$FAKE_GPU_LOG"
	exit "${FAKE_EXIT:-0}"
fi
head -n 12 "$FAKE_EVENTS"
echo "fake grader: segmentation fault (simulated)" >&2
kill -SEGV $$
