/*
 * stats — summary statistics of a sample of timings.
 *
 * Contract: stats_summarize() reads n values (the array is not modified), and
 * fills *out. It returns 0, or -1 when n == 0 (then *out is zeroed). The
 * median of an even-sized sample is the mean of the two middle values. The
 * coefficient of variation is the sample standard deviation (n - 1) divided by
 * the mean; it is 0 for a single value or a zero mean.
 *
 * The confidence interval of the median (ci_low, ci_high) is distribution-free:
 * order statistics x(l) and x(n+1-l) of the sorted sample, with l the largest
 * rank for which P(Binomial(n, 1/2) < l) <= 2.5 %, so the interval holds the
 * true median with probability >= 95 % whatever the distribution of the
 * timings (they need only be independent draws of one distribution; a GPU
 * whose clocks drift breaks that, which is what the NVML checks are for).
 * Below 6 values no such interval exists: then it is [min, max] and
 * ci_exact is 0.
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
	double ci_low, ci_high; /* 95 % confidence interval of the median */
	int ci_exact;           /* 1 when the interval has >= 95 % coverage */
};

int stats_summarize(const double *values, size_t n, struct sample_stats *out);

/* Median of n values; 0 when n == 0. Convenience over stats_summarize. */
double stats_median(const double *values, size_t n);

/*
 * The 1-based rank l of the lower end of the 95 % interval of the median of
 * n values (the upper end is n + 1 - l); 0 when n < 6.
 */
size_t stats_median_ci_rank(size_t n);

/*
 * The stopping rule of a measurement (as nvbench's "stopping criterion"):
 * take samples in batches and stop as soon as the median is known well
 * enough, instead of after a fixed count.
 *
 * stats_should_stop returns NULL to go on, else why it stopped:
 *   "converged"  at least min_n samples, and the interval's relative
 *                half-width (ci_high - ci_low) / (2 median) <= target
 *   "count_cap"  max_n samples taken without converging (a noisy GPU)
 *   "time_cap"   the samples took max_seconds of GPU time in all (a slow
 *                kernel: it stops with what it has; at least min_n unless
 *                even that many would take several times the cap)
 * Stopping as soon as the interval looks narrow lowers its coverage a little
 * (about 93 % in tests/unit/test_stats.c's simulation instead of 95 %).
 * A caller reports the reason: anything but "converged" means the figure's
 * interval is wider than the target, and a verdict should look at it.
 */
struct stop_rule {
	size_t min_n, max_n;
	double target;      /* relative half-width, 0.005 is 0.5 % */
	double max_seconds; /* total measured time */
};
const char *stats_should_stop(const struct stop_rule *rule,
			      const struct sample_stats *s,
			      double measured_seconds);

/*
 * The judge's clock (common/harness.h, HX_CLOCK_*): what a timing's calls
 * say once compared with the clock's zero. gap_min is the smallest overhead
 * (judge's clock minus the claimed time) over the timing's calls;
 * zero_first the zero measured before the student's code first ran in its
 * process (trusted); zero_now the same measured just before this timing
 * (the student's process can lengthen it); bound_us the allowed gap
 * (slack + a fraction of the median).
 *   CLOCK_OK         gap_min - zero_first <= bound_us
 *   CLOCK_UNBOUNDED  over it, but within it against zero_now: the switch
 *                    to the student's context got slower, or the student's
 *                    process answers empty calls slowly; no pass, and no
 *                    accusation either (the step is NOT GRADED)
 *   CLOCK_CAUGHT     over the bound against both: work the claimed times
 *                    did not count ("timing not trusted")
 * A zero that is not a finite number counts as not measured: only the
 * other one is compared, and then never with CLOCK_OK for zero_now alone.
 */
enum clock_verdict { CLOCK_OK, CLOCK_UNBOUNDED, CLOCK_CAUGHT };

/* How much one call's claimed time (its events) exceeds the judge's clock
 * around that whole call, beyond grain_us and 0.1 % of it: 0 when the
 * claim lies inside the call, as every honest one does (harness.h,
 * HX_CLOCK_GRAIN_US). */
double stats_claim_over_call(double claimed_us, double host_us,
			     double grain_us);
enum clock_verdict stats_clock_verdict(double gap_min, double zero_first,
				       double zero_now, double bound_us);

/* The median of host[i] - claimed[i] over n calls (the judge's clock's
 * central statistic, harness.h HX_CLOCK_MEDIAN_SLACK_US); 0 when n == 0.
 * The same verdict applies to it with the empty calls' medians as zeros;
 * the judge makes a median over the bound NOT GRADED, never a failure. */
double stats_median_gap(const double *claimed, const double *host, size_t n);

#ifdef __cplusplus
}
#endif
#endif
