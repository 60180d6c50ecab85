#include "capability.h"

#include <stdio.h>
#include <string.h>

/* What a lab may need beyond compute capability 7.5 (the oldest arch CUDA
 * 13 builds for). Add an entry here before a lab.json can name it. */
static const struct capability table[] = {
	{"cp.async", 80, "asynchronous copies from global to shared memory"},
	{"bf16", 80, "native bf16 arithmetic"},
	{"fp8", 89, "fp8 (e4m3, e5m2) conversions and arithmetic"},
	{"clusters", 90, "thread block clusters and distributed shared memory"},
	{"tma", 90, "the tensor memory accelerator (cp.async.bulk)"},
	{NULL, 0, NULL},
};

const struct capability *capability_table(void)
{
	return table;
}

const struct capability *capability_find(const char *name)
{
	for (const struct capability *c = table; name && c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

/* Digits only, 2 or 3 of them (75, 100, 120), the last one the minor. */
static int cc_digits(const char *s)
{
	size_t n = strspn(s, "0123456789");
	if ((n != 2 && n != 3) || s[n] || s[0] == '0')
		return -1;
	int v = 0;
	for (size_t i = 0; i < n; i++)
		v = v * 10 + (s[i] - '0');
	return v;
}

int cc_from_arch(const char *arch)
{
	if (!arch)
		return -1;
	if (!strncmp(arch, "sm_", 3))
		return cc_digits(arch + 3);
	if (!strncmp(arch, "compute_", 8))
		return cc_digits(arch + 8);
	return -1;
}

int cc_from_string(const char *cc)
{
	int major, minor, used = 0;
	if (!cc || sscanf(cc, "%d.%d%n", &major, &minor, &used) != 2 ||
	    cc[used] || major < 1 || major > 99 || minor < 0 || minor > 9)
		return -1;
	return major * 10 + minor;
}

void cc_format(int cc, char *buf, size_t len)
{
	snprintf(buf, len, "%d.%d", cc / 10, cc % 10);
}
