/*
 * fsutil — small file-system helpers the grader's modules share.
 *
 *   mkdirs(path)  create path and its missing parents (mode 0755), like
 *                 `mkdir -p`; 0, or -1 with errno set.
 *   path_under(path, dir)
 *                 whether path lies inside dir (dir's trailing slashes
 *                 ignored; dir itself is not inside it). Plain text: give
 *                 real paths for a decision about files.
 *   header_name(name)
 *                 whether a file name (or path) ends in .h, .cuh or .hpp:
 *                 what counts as a lab's header, in the compile box's view
 *                 of the lab and in the object check's rules alike.
 */
#ifndef CUDALAB_FSUTIL_H
#define CUDALAB_FSUTIL_H

int mkdirs(const char *path);
int path_under(const char *path, const char *dir);
int header_name(const char *name);

#endif
