/*
 * cudalab.h — the only cudalab header a student file sees (through its lab's
 * header, e.g. saxpy.h).
 *
 * CUDALAB_TODO() marks a starter stub that has not been written yet. The
 * harness turns the call into a "not implemented" verdict that names the file
 * and line, instead of a page of wrong results. Delete the call when you
 * write the step.
 */
#ifndef CUDALAB_STUDENT_H
#define CUDALAB_STUDENT_H

#ifdef __cplusplus
extern "C"
#endif
void cudalab_todo(const char *file, int line);

#define CUDALAB_TODO() cudalab_todo(__FILE__, __LINE__)

#endif
