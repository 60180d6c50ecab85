#!/bin/sh
# A grader that dies mid-run: prints the first events of a recorded run,
# says something on stderr, and kills itself. The dashboard must report it
# and keep the terminal sane. FAKE_EVENTS names the recording.
head -n 12 "$FAKE_EVENTS"
echo "fake grader: segmentation fault (simulated)" >&2
kill -SEGV $$
