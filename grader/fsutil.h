/*
 * fsutil — small file-system helpers the grader's modules share.
 *
 *   mkdirs(path)  create path and its missing parents (mode 0755), like
 *                 `mkdir -p`; 0, or -1 with errno set.
 */
#ifndef CUDALAB_FSUTIL_H
#define CUDALAB_FSUTIL_H

int mkdirs(const char *path);

#endif
