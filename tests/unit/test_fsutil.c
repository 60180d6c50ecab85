/* fsutil: mkdirs and path_under (grader/fsutil.h). */
#include "check.h"
#include "fsutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int main(void)
{
	CHECK(path_under("/usr/include/stdio.h", "/usr/include"),
	      "a file in a folder is under it");
	CHECK(path_under("/usr/include/stdio.h", "/usr/include/"),
	      "a trailing slash on the folder changes nothing");
	CHECK(!path_under("/usr/include", "/usr/include"),
	      "the folder itself is not under it");
	CHECK(!path_under("/usr/include2/x.h", "/usr/include"),
	      "a folder whose name begins with the other's is not under it");
	CHECK(!path_under("/usr/include/x.h", "") &&
		      !path_under("/usr/include/x.h", NULL),
	      "nothing is under an empty or missing folder");
	CHECK(header_name("saxpy.h") && header_name("/l/x.cuh") &&
		      header_name("a/b.hpp"),
	      "a .h, .cuh or .hpp file is a header");
	CHECK(!header_name("lab.json") && !header_name("harness.cu") &&
		      !header_name("/a.h/b") && !header_name("h"),
	      "lab.json, a .cu file, a folder named *.h, no extension are not");

	char dir[] = "/tmp/cudalab-fsutil-XXXXXX", deep[128];
	CHECK(mkdtemp(dir) != NULL, "a scratch folder");
	snprintf(deep, sizeof(deep), "%s/a/b/c", dir);
	struct stat st;
	CHECK(mkdirs(deep) == 0 && stat(deep, &st) == 0 && S_ISDIR(st.st_mode),
	      "mkdirs makes the missing parents");
	CHECK(mkdirs(deep) == 0, "and an existing folder is no error");
	char cmd[160];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0, "clean up");
	return check_done();
}
