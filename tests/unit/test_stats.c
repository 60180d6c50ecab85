/* stats: median, extremes and coefficient of variation of timing samples. */
#include "check.h"
#include "stats.h"

#include <math.h>

int main(void)
{
	struct sample_stats s;
	double odd[] = {5, 1, 3};
	CHECK(stats_summarize(odd, 3, &s) == 0, "a sample of 3 summarizes");
	CHECK(s.median == 3 && s.min == 1 && s.max == 5,
	      "median, min, max of an unsorted odd sample");

	double even[] = {4, 1, 3, 2};
	stats_summarize(even, 4, &s);
	CHECK(s.median == 2.5, "even sample: median is the mean of the middle two");
	CHECK(even[0] == 4 && even[3] == 2, "the input array is left unsorted");

	double same[] = {7, 7, 7, 7};
	stats_summarize(same, 4, &s);
	CHECK(s.cv == 0, "identical values have zero variation");

	double v[] = {9, 11}; /* mean 10, sample sd sqrt(2) */
	stats_summarize(v, 2, &s);
	CHECK(fabs(s.cv - sqrt(2.0) / 10) < 1e-12,
	      "cv is the sample standard deviation over the mean");

	double one[] = {3};
	stats_summarize(one, 1, &s);
	CHECK(s.cv == 0 && s.median == 3, "a single value: cv 0");

	CHECK(stats_summarize(v, 0, &s) == -1 && s.n == 0,
	      "an empty sample is an error and zeroes the result");
	CHECK(stats_median(odd, 3) == 3 && stats_median(odd, 0) == 0,
	      "stats_median convenience");
	return check_done();
}
