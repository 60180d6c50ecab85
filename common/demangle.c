#include "demangle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libstdc++'s (and libc++abi's) demangler: extern "C" in the C++ ABI. */
char *__cxa_demangle(const char *mangled, char *out, size_t *len,
		     int *status);

const char *demangle(const char *sym, char *buf, size_t len)
{
	if (!len)
		return buf;
	int status = -1;
	char *d = sym && !strncmp(sym, "_Z", 2)
			  ? __cxa_demangle(sym, NULL, NULL, &status)
			  : NULL;
	snprintf(buf, len, "%s", status == 0 && d ? d : sym ? sym : "");
	free(d);
	return buf;
}

const char *demangle_short(const char *sym, char *buf, size_t len)
{
	demangle(sym, buf, len);
	/* cut at the parameter list or template arguments, outside of
	 * "operator()" and friends, which a kernel never is */
	char *cut = strpbrk(buf, "(<");
	if (cut && cut != buf)
		*cut = '\0';
	return buf;
}
