#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int stats_summarize(const double *values, size_t n, struct sample_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (n == 0)
		return -1;

	double *sorted = malloc(n * sizeof(*sorted));
	if (!sorted)
		return -1;
	memcpy(sorted, values, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), compare_double);

	out->n = n;
	out->min = sorted[0];
	out->max = sorted[n - 1];
	out->median = n % 2 ? sorted[n / 2]
			    : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;

	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += sorted[i];
	out->mean = sum / (double)n;

	if (n > 1 && out->mean != 0) {
		double ss = 0;
		for (size_t i = 0; i < n; i++) {
			double d = sorted[i] - out->mean;
			ss += d * d;
		}
		out->cv = sqrt(ss / (double)(n - 1)) / fabs(out->mean);
	}
	free(sorted);
	return 0;
}

double stats_median(const double *values, size_t n)
{
	struct sample_stats s;
	if (stats_summarize(values, n, &s) != 0)
		return 0;
	return s.median;
}
