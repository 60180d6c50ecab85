/*
 * roofline — where kernels sit against a memory ceiling and compute
 * ceilings, on log-log axes: x is arithmetic intensity (floating-point
 * operations per DRAM byte), y is achieved operations per second.
 *
 * A ceiling at intensity x is min(bandwidth * x, peak). explain.c fills the
 * bandwidth with the measured copy bandwidth (devprobe) and the peaks with
 * the device's FMA rates times the SM clock ncu saw, and one point per step
 * from ncu's counted operations, DRAM bytes and kernel duration. Points
 * without floating-point work have no place on these axes; the caller says
 * so in words instead.
 *
 * roofline_text() draws a character plot (width x height cells of plot
 * area, axes and a legend around it); roofline_svg() writes a standalone
 * SVG file. Both only read r.
 */
#ifndef CUDALAB_ROOFLINE_H
#define CUDALAB_ROOFLINE_H

#include <stddef.h>
#include <stdio.h>

#define ROOFLINE_MAX_PEAKS 3
#define ROOFLINE_MAX_POINTS 16

struct roofline_point {
	char label[32];        /* e.g. the step id */
	double flops_per_byte; /* > 0 */
	double flops_per_s;    /* > 0 */
	int peak;              /* the ceiling that applies: index in peak[] */
};

struct roofline {
	char title[128];
	double bandwidth;            /* bytes/s */
	char bandwidth_label[64];
	double peak[ROOFLINE_MAX_PEAKS]; /* operations/s */
	char peak_label[ROOFLINE_MAX_PEAKS][48];
	int npeaks;
	struct roofline_point point[ROOFLINE_MAX_POINTS];
	int npoints;
};

/* The roof at intensity x: min(bandwidth * x, peak[i]) for peak i, or the
 * highest of those over all peaks when i < 0 (the drawn outline). */
double roofline_bound(const struct roofline *r, double x, int i);

void roofline_text(const struct roofline *r, FILE *out, int width, int height);

/* 0, or -1 with err when the file cannot be written. */
int roofline_svg(const struct roofline *r, const char *path, char *err,
		 size_t errlen);

#endif
