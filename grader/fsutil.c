/* fsutil — see fsutil.h. */
#include "fsutil.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int path_under(const char *path, const char *dir)
{
	size_t n = dir ? strlen(dir) : 0;
	while (n > 1 && dir[n - 1] == '/')
		n--;
	return n > 0 && !strncmp(path, dir, n) && path[n] == '/';
}

int header_name(const char *name)
{
	const char *ext = strrchr(name, '.');
	return ext && ext != name && !strchr(ext, '/') &&
	       (!strcmp(ext, ".h") || !strcmp(ext, ".cuh") ||
		!strcmp(ext, ".hpp"));
}

int mkdirs(const char *path)
{
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(tmp, 0755) < 0 && errno != EEXIST ? -1 : 0;
}
