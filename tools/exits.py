"""exits — the exit statuses of every cudalab command, named once in Python.

The grader defines them (grader/main.c: its header comment and `--help`);
run.py passes the grader's status through and uses the same numbers for its
own errors, so a script sees one meaning whichever program answered.
"""
PASS = 0          # every check that ran passed
FAIL = 1          # a check failed (also: set-up found something missing)
USAGE = 2         # the command line is wrong
NOT_GRADED = 3    # nothing could be graded here (no CUDA device)
GRADER_ERROR = 4  # set-up or the grader could not do its job

WORDS = {PASS: "PASS", FAIL: "FAIL", USAGE: "USAGE ERROR",
         NOT_GRADED: "NOT GRADED", GRADER_ERROR: "GRADER ERROR"}

EPILOG = ("exit status: 0 every check passed, 1 a check failed, 2 usage "
          "error, 3 not graded (no CUDA device), 4 set-up or grader error")

# which of two runs' statuses says more (several labs in one command)
_RANK = {PASS: 0, NOT_GRADED: 1, FAIL: 2, USAGE: 3, GRADER_ERROR: 4}


def worse(a, b):
    """The exit status that says more of two labs' runs: 4 (grader error) >
    2 (usage) > 1 (fail) > 3 (not graded) > 0 (pass); an unknown one wins."""
    return b if _RANK.get(b, 5) > _RANK.get(a, 5) else a
