#!/bin/sh
# A stand-in grader for the dashboard's tests. It appends its arguments to
# $FAKE_LOG (when set), then replays the recording $FAKE_EVENTS:
#   FAKE_MODE=complete   the whole recording, then exit 0 (with --step in
#                        the arguments: $FAKE_STEP_EVENTS, when set)
#   otherwise            the first events, a last word on stderr, and
#                        death by SIGSEGV: the dashboard must report it and
#                        keep the terminal sane
[ -n "$FAKE_LOG" ] && echo "$*" >> "$FAKE_LOG"
if [ "$FAKE_MODE" = complete ]; then
	# a rerun of one step (--step) replays $FAKE_STEP_EVENTS when set
	case " $* " in
	*" --step "*) [ -n "$FAKE_STEP_EVENTS" ] && FAKE_EVENTS=$FAKE_STEP_EVENTS ;;
	esac
	cat "$FAKE_EVENTS"
	exit 0
fi
head -n 12 "$FAKE_EVENTS"
echo "fake grader: segmentation fault (simulated)" >&2
kill -SEGV $$
