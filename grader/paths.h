/*
 * paths — where the grader writes: the one owner of the state folder.
 *
 * A cudalab tree may be shared and read-only (/opt/cudalab, a lab machine's
 * image): nothing may assume that ROOT is writable. Three places:
 *
 *   bin    the folder of the running grader (its devprobe sits beside it):
 *          ROOT/build in a checkout, wherever run.py built it otherwise.
 *   build  where steps are compiled (obj/, steps/: a content-hash cache):
 *          --build DIR, else $CUDALAB_BUILD, else ROOT/build. run.py passes
 *          a per-user folder when the tree is not writable (README: "a
 *          shared or read-only install"); the grader exports the answer as
 *          CUDALAB_BUILD so that the graders it starts (class grading)
 *          compile into the same cache.
 *   state  progress, run logs, history, the device ceiling cache:
 *          $CUDALAB_STATE, else ROOT/.cudalab when it is (or can be made)
 *          writable, else BUILD/state.
 *
 * paths_resolve() fills a caller's struct; it creates nothing. 0, or -1
 * with err when a path does not fit.
 */
#ifndef CUDALAB_PATHS_H
#define CUDALAB_PATHS_H

#include <limits.h>
#include <stddef.h>

struct paths {
	char bin[PATH_MAX];
	char build[PATH_MAX];
	char state[PATH_MAX];
};

int paths_resolve(struct paths *p, const char *root, const char *build_flag,
		  char *err, size_t errlen);

#endif
