/*
 * The judge's clock (stats_clock_verdict, common/stats.h) on figures
 * recorded on an H100 (2026-11-24, CUDALAB_CLOCK_TRACE): an empty kernel's
 * round trip costs about 152 us after the judge's own GPU work (the switch
 * to the student's context) and about 14 us right after the student's
 * process opened a shared buffer; saxpy's honest calls cost about 160 us
 * more on the judge's clock than their events claim. Bound: 20 us + 5 % of
 * a 267 us median.
 */
#include "check.h"
#include "stats.h"

#include <math.h>

int main(void)
{
	const double bound = 20.0 + 0.05 * 267.0;

	CHECK(stats_clock_verdict(160.0, 152.0, 152.0, bound) == CLOCK_OK,
	      "honest calls, both zeros in the expensive switch: ok");
	CHECK(stats_clock_verdict(163.0, 152.5, 14.4, bound) == CLOCK_OK,
	      "honest calls while the zero of now is in the cheap state "
	      "(haxpy's first timing): ok against the pristine zero");
	CHECK(stats_clock_verdict(157.0, 400.0, 152.0, bound) == CLOCK_OK,
	      "a zero lengthened by others' work on the GPU only loosens the "
	      "bound: ok");
	CHECK(stats_clock_verdict(460.0, 152.0, 152.0, bound) == CLOCK_CAUGHT,
	      "300 us per call hidden from the events: caught");
	CHECK(stats_clock_verdict(460.0, 152.0, 14.0, bound) == CLOCK_CAUGHT,
	      "hidden work while the zero of now is cheap: caught");
	CHECK(stats_clock_verdict(460.0, 152.0, 450.0, bound) ==
		      CLOCK_UNBOUNDED,
	      "hidden work behind empty calls answered slowly: not a pass, "
	      "not graded");
	CHECK(stats_clock_verdict(152.0 + bound, 152.0, 152.0, bound) ==
		      CLOCK_OK,
	      "exactly on the bound: ok");
	CHECK(stats_clock_verdict(152.0 + bound + 0.1, 152.0, 152.0, bound) ==
		      CLOCK_CAUGHT,
	      "just over the bound against both zeros: caught");
	CHECK(stats_clock_verdict(160.0, NAN, 152.0, bound) == CLOCK_UNBOUNDED,
	      "no pristine zero: never ok on the zero of now alone");
	CHECK(stats_clock_verdict(460.0, INFINITY, NAN, bound) == CLOCK_CAUGHT,
	      "no zero at all and a gap: caught");
	return check_done();
}
