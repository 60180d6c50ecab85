/* strvec: an argv built piece by piece, NULL-terminated, owning copies. */
#include "check.h"
#include "strvec.h"

#include <string.h>

int main(void)
{
	struct strvec sv = STRVEC_INIT;
	CHECK(strvec_argv(&sv) && strvec_argv(&sv)[0] == NULL,
	      "an empty vector is an empty argv, not NULL");
	char word[16] = "--step";
	strvec_push(&sv, word);
	strcpy(word, "changed");
	strvec_pushl(&sv, "v1", "--json", NULL);
	strvec_pushf(&sv, "--jobs=%d", 4);
	const char *more[] = {"a", "b", NULL};
	strvec_pushv(&sv, more);
	for (int i = 0; i < 40; i++) /* past the first allocation */
		strvec_push(&sv, "x");
	const char *const *argv = strvec_argv(&sv);
	CHECK(sv.nr == 46 && !strcmp(argv[0], "--step") &&
		      !strcmp(argv[1], "v1") && !strcmp(argv[2], "--json") &&
		      !strcmp(argv[3], "--jobs=4") && !strcmp(argv[5], "b") &&
		      argv[46] == NULL,
	      "pushes keep their order, copy their strings, and the array "
	      "ends with NULL (%zu strings)", sv.nr);
	strvec_clear(&sv);
	CHECK(sv.nr == 0 && sv.v == NULL && strvec_argv(&sv)[0] == NULL,
	      "clear returns it to empty");
	return check_done();
}
