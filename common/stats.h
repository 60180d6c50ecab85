/*
 * stats — summary statistics of a sample of timings.
 *
 * Contract: stats_summarize() reads n values (the array is not modified), and
 * fills *out. It returns 0, or -1 when n == 0 (then *out is zeroed). The
 * median of an even-sized sample is the mean of the two middle values. The
 * coefficient of variation is the sample standard deviation (n - 1) divided by
 * the mean; it is 0 for a single value or a zero mean.
 *
 * C11, no allocation besides a temporary sorted copy (malloc; -1 if it fails).
 * Usable from CUDA C++ (the harnesses) as well as from C.
 */
#ifndef CUDALAB_STATS_H
#define CUDALAB_STATS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct sample_stats {
	size_t n;
	double median;
	double min;
	double max;
	double mean;
	double cv; /* stddev / mean, a fraction (0.01 is 1%) */
};

int stats_summarize(const double *values, size_t n, struct sample_stats *out);

/* Median of n values; 0 when n == 0. Convenience over stats_summarize. */
double stats_median(const double *values, size_t n);

#ifdef __cplusplus
}
#endif
#endif
