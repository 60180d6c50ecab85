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
	size_t l = stats_median_ci_rank(n);
	out->ci_exact = l > 0;
	out->ci_low = l ? sorted[l - 1] : sorted[0];
	out->ci_high = l ? sorted[n - l] : sorted[n - 1];

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

size_t stats_median_ci_rank(size_t n)
{
	if (n < 6)
		return 0;
	/* P(X <= k) for X ~ Binomial(n, 1/2), summed in log space */
	double lnorm = lgamma((double)n + 1) - (double)n * log(2.0);
	double cdf = 0;
	size_t l = 0;
	for (size_t k = 0; k <= n / 2; k++) {
		cdf += exp(lnorm - lgamma((double)k + 1) -
			   lgamma((double)(n - k) + 1));
		if (cdf > 0.025)
			break;
		l = k + 1; /* P(X <= l - 1) <= 2.5 % */
	}
	return l;
}

const char *stats_should_stop(const struct stop_rule *rule,
			      const struct sample_stats *s,
			      double measured_seconds)
{
	if (s->n >= rule->min_n && s->ci_exact && s->median > 0 &&
	    (s->ci_high - s->ci_low) / (2 * s->median) <= rule->target)
		return "converged";
	if (s->n >= rule->max_n)
		return "count_cap";
	if (rule->max_seconds > 0 && measured_seconds >= rule->max_seconds &&
	    (s->n >= rule->min_n ||
	     measured_seconds >= 4 * rule->max_seconds))
		return "time_cap";
	return NULL;
}

enum clock_verdict stats_clock_verdict(double gap_min, double zero_first,
				       double zero_now, double bound_us)
{
	if (isfinite(zero_first) && gap_min - zero_first <= bound_us)
		return CLOCK_OK;
	if (isfinite(zero_now) && gap_min - zero_now <= bound_us)
		return CLOCK_UNBOUNDED;
	return CLOCK_CAUGHT;
}

double stats_claim_over_call(double claimed_us, double host_us,
			     double grain_us)
{
	if (!(claimed_us > host_us + grain_us + 1e-3 * host_us))
		return 0;
	return claimed_us - host_us;
}

double stats_median_gap(const double *claimed, const double *host, size_t n)
{
	if (n == 0)
		return 0;
	double *gap = malloc(n * sizeof(*gap));
	if (!gap)
		return INFINITY; /* unbounded: never a pass by accident */
	for (size_t i = 0; i < n; i++)
		gap[i] = host[i] - claimed[i];
	struct sample_stats st;
	int bad = stats_summarize(gap, n, &st);
	free(gap);
	return bad ? INFINITY : st.median;
}
