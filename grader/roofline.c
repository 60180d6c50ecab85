#include "roofline.h"

#include <errno.h>
#include <math.h>
#include <string.h>

double roofline_bound(const struct roofline *r, double x, int only)
{
	if (only >= 0 && only < r->npeaks)
		return fmin(r->bandwidth * x, r->peak[only]);
	double best = 0;
	for (int i = 0; i < r->npeaks; i++) {
		double b = fmin(r->bandwidth * x, r->peak[i]);
		best = fmax(best, b);
	}
	return r->npeaks ? best : r->bandwidth * x;
}

/* The plotted range, in log2 units, wide enough for every point and ridge
 * (where a ceiling bends) with a margin of one power of two. */
struct range {
	double x0, x1, y0, y1; /* log2 */
};

static struct range plot_range(const struct roofline *r)
{
	double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
	for (int i = 0; i < r->npeaks; i++) {
		double ridge = r->peak[i] / r->bandwidth;
		xlo = fmin(xlo, log2(ridge));
		xhi = fmax(xhi, log2(ridge));
		yhi = fmax(yhi, log2(r->peak[i]));
	}
	for (int i = 0; i < r->npoints; i++) {
		double x = log2(r->point[i].flops_per_byte);
		double y = log2(r->point[i].flops_per_s);
		xlo = fmin(xlo, x), xhi = fmax(xhi, x);
		ylo = fmin(ylo, y), yhi = fmax(yhi, y);
	}
	if (!isfinite(xlo))
		xlo = -4, xhi = 4;
	struct range g = {floor(xlo) - 1, ceil(xhi) + 1, 0, 0};
	double bottom = log2(r->bandwidth) + g.x0; /* the memory ceiling's foot */
	if (!isfinite(ylo) || bottom < ylo)
		ylo = bottom;
	g.y0 = floor(ylo) - 1;
	g.y1 = ceil(fmax(yhi, ylo + 1)) + 1;
	return g;
}

static const char flat_mark[ROOFLINE_MAX_PEAKS] = {'-', '=', '~'};

/* "3.0 TFLOP/s" style, into buf. */
static const char *si(double v, const char *unit, char *buf, size_t len)
{
	static const char *const prefix[] = {"", "K", "M", "G", "T", "P"};
	int p = 0;
	while (fabs(v) >= 1000 && p < 5)
		v /= 1000, p++;
	snprintf(buf, len, "%.3g %s%s", v, prefix[p], unit);
	return buf;
}

void roofline_text(const struct roofline *r, FILE *out, int width, int height)
{
	struct range g = plot_range(r);
	char cell[64][128];
	if (width > 120)
		width = 120;
	if (height > 60)
		height = 60;
	for (int y = 0; y < height; y++) {
		memset(cell[y], ' ', (size_t)width);
		cell[y][width] = '\0';
	}
	/* ceilings: for each column and peak the row of its roof; '/' while
	 * memory bound, then the peak's own mark ('-', '=', '~') once flat */
	for (int c = 0; c < width; c++) {
		double x = exp2(g.x0 + (g.x1 - g.x0) * (c + 0.5) / width);
		for (int i = 0; i < (r->npeaks ? r->npeaks : 1); i++) {
			double b = r->npeaks ? roofline_bound(r, x, i) : r->bandwidth * x;
			int row = (int)lround((log2(b) - g.y0) / (g.y1 - g.y0) *
					      (height - 1));
			if (row < 0 || row >= height)
				continue;
			int flat = r->npeaks && b >= r->peak[i] * 0.999;
			char *at = &cell[height - 1 - row][c];
			if (flat || *at == ' ')
				*at = flat ? flat_mark[i] : '/';
		}
	}
	for (int i = 0; i < r->npoints; i++) {
		double x = log2(r->point[i].flops_per_byte);
		double y = log2(r->point[i].flops_per_s);
		int c = (int)((x - g.x0) / (g.x1 - g.x0) * width);
		int row = (int)lround((y - g.y0) / (g.y1 - g.y0) * (height - 1));
		if (c < 0 || c >= width || row < 0 || row >= height)
			continue;
		cell[height - 1 - row][c] =
			(char)(i < 9 ? '1' + i : 'a' + (i - 9));
	}
	char a[32], b[32];
	fprintf(out, "  %s\n", r->title);
	for (int y = 0; y < height; y++) {
		const char *label = "";
		if (y == 0)
			label = si(exp2(g.y1), "FLOP/s", a, sizeof(a));
		else if (y == height - 1)
			label = si(exp2(g.y0), "FLOP/s", a, sizeof(a));
		fprintf(out, "  %14s |%s\n", label, cell[y]);
	}
	fprintf(out, "  %14s +", "");
	for (int c = 0; c < width; c++)
		fputc('-', out);
	snprintf(a, sizeof(a), "%g", exp2(g.x0));
	snprintf(b, sizeof(b), "%g FLOP/byte", exp2(g.x1));
	fprintf(out, "\n  %14s  %-*s%s\n", "", width - (int)strlen(b), a, b);
	fprintf(out, "  %14s  '/' %s %s", "", r->bandwidth_label,
		si(r->bandwidth, "B/s", a, sizeof(a)));
	for (int i = 0; i < r->npeaks; i++)
		fprintf(out, "; '%c' %s %s", flat_mark[i], r->peak_label[i],
			si(r->peak[i], "FLOP/s", a, sizeof(a)));
	fputc('\n', out);
	for (int i = 0; i < r->npoints; i++) {
		const struct roofline_point *p = &r->point[i];
		double bound = roofline_bound(r, p->flops_per_byte, p->peak);
		fprintf(out, "  %14s  %c %s: %.3g FLOP/byte, %s = %.0f %% of "
			     "its roof, under the %s\n", "",
			(char)(i < 9 ? '1' + i : 'a' + (i - 9)), p->label,
			p->flops_per_byte,
			si(p->flops_per_s, "FLOP/s", a, sizeof(a)),
			100 * p->flops_per_s / bound,
			r->bandwidth * p->flops_per_byte < bound * 1.0001 &&
					p->peak < r->npeaks
				? "memory roof"
				: r->peak_label[p->peak]);
	}
}

/* SVG coordinates of a point in log2 space. */
struct frame {
	struct range g;
	double left, top, w, h;
};

static double sx(const struct frame *f, double lx)
{
	return f->left + (lx - f->g.x0) / (f->g.x1 - f->g.x0) * f->w;
}

static double sy(const struct frame *f, double ly)
{
	return f->top + f->h - (ly - f->g.y0) / (f->g.y1 - f->g.y0) * f->h;
}

static void svg_text(FILE *o, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", o);
		else if (*s == '>')
			fputs("&gt;", o);
		else if (*s == '&')
			fputs("&amp;", o);
		else
			fputc(*s, o);
	}
}

int roofline_svg(const struct roofline *r, const char *path, char *err,
		 size_t errlen)
{
	FILE *o = fopen(path, "w");
	if (!o) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	struct frame f = {plot_range(r), 90, 40, 560, 340};
	char a[32];
	fprintf(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"700\" "
		   "height=\"460\" font-family=\"sans-serif\" font-size=\"12\">\n"
		   "<rect width=\"700\" height=\"460\" fill=\"white\"/>\n"
		   "<text x=\"350\" y=\"22\" text-anchor=\"middle\" "
		   "font-size=\"14\">");
	svg_text(o, r->title);
	fprintf(o, "</text>\n");
	/* grid: one line per power of two on x, per power of ten-ish on y */
	for (int lx = (int)f.g.x0; lx <= (int)f.g.x1; lx++) {
		fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			   "stroke=\"#ddd\"/>\n<text x=\"%.1f\" y=\"%.1f\" "
			   "text-anchor=\"middle\">%g</text>\n",
			sx(&f, lx), f.top, sx(&f, lx), f.top + f.h, sx(&f, lx),
			f.top + f.h + 16, exp2(lx));
	}
	for (int ly = (int)f.g.y0; ly <= (int)f.g.y1; ly += 2) {
		fprintf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			   "stroke=\"#ddd\"/>\n<text x=\"%.1f\" y=\"%.1f\" "
			   "text-anchor=\"end\">%s</text>\n",
			f.left, sy(&f, ly), f.left + f.w, sy(&f, ly), f.left - 4,
			sy(&f, ly) + 4, si(exp2(ly), "", a, sizeof(a)));
	}
	fprintf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">"
		   "arithmetic intensity (FLOP per DRAM byte)</text>\n"
		   "<text transform=\"translate(18,%.1f) rotate(-90)\" "
		   "text-anchor=\"middle\">FLOP/s</text>\n",
		f.left + f.w / 2, f.top + f.h + 34, f.top + f.h / 2);
	/* each ceiling as a polyline over the x range */
	for (int i = 0; i < (r->npeaks ? r->npeaks : 1); i++) {
		fprintf(o, "<polyline fill=\"none\" stroke=\"%s\" "
			   "stroke-width=\"2\" points=\"",
			i == 0 ? "#1f77b4" : i == 1 ? "#ff7f0e" : "#2ca02c");
		for (int s = 0; s <= 200; s++) {
			double lx = f.g.x0 + (f.g.x1 - f.g.x0) * s / 200;
			double b = r->bandwidth * exp2(lx);
			if (r->npeaks)
				b = fmin(b, r->peak[i]);
			double ly = fmin(fmax(log2(b), f.g.y0), f.g.y1);
			fprintf(o, "%.1f,%.1f ", sx(&f, lx), sy(&f, ly));
		}
		fprintf(o, "\"/>\n");
		if (r->npeaks) {
			fprintf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">",
				f.left + f.w - 4, sy(&f, log2(r->peak[i])) - 5);
			svg_text(o, r->peak_label[i]);
			fprintf(o, " %s</text>\n",
				si(r->peak[i], "FLOP/s", a, sizeof(a)));
		}
	}
	fprintf(o, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">",
		f.left + 6, f.top + f.h - 8);
	svg_text(o, r->bandwidth_label);
	fprintf(o, " %s</text>\n", si(r->bandwidth, "B/s", a, sizeof(a)));
	for (int i = 0; i < r->npoints; i++) {
		double x = sx(&f, log2(r->point[i].flops_per_byte));
		double y = sy(&f, log2(r->point[i].flops_per_s));
		fprintf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" "
			   "fill=\"#d62728\"/>\n<text x=\"%.1f\" y=\"%.1f\">",
			x, y, x + 8 + 26 * (i % 3), y + 4);
		svg_text(o, r->point[i].label);
		fprintf(o, "</text>\n");
	}
	fprintf(o, "</svg>\n");
	if (fclose(o) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}
