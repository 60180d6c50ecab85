"""plots — the SVG charts cudalab draws from a bench run's events (no
plotting library): the sweep (speedup against a -D value, one line per step)
and bandwidth against each step's variants (stride, offset, ...).

Every number drawn is a field of an event (common/event.h); nothing is
derived again here (pct_of_copy is the grader's, verdict.c). The drawing
primitives are in one place (Svg) for both charts.

(The roofline of `explain --plot` is still drawn by the grader,
grader/roofline.c: it draws from data that is not yet an event.)
"""
import math

SWEEP_COLORS = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e",
                "#e6ab02", "#a6761d", "#666666"]


class Svg:
    """An SVG document built line by line: a white page, then lines,
    text, series (a polyline with a dot at each point)."""

    def __init__(self, width, height):
        self.out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" '
                    'height="%d" font-family="sans-serif" font-size="12">'
                    % (width, height),
                    '<rect width="100%" height="100%" fill="white"/>']

    def line(self, x1, x2, y1, y2, stroke, extra=""):
        self.out.append('<line x1="%s" x2="%s" y1="%s" y2="%s" stroke="%s"%s/>'
                        % (x1, x2, y1, y2, stroke, extra))

    def text(self, x, y, words, anchor=None, extra=""):
        self.out.append('<text x="%s" y="%s"%s%s>%s</text>'
                        % (x, y, extra, ' text-anchor="%s"' % anchor
                           if anchor else "", words))

    def series(self, points, color):
        self.out.append('<polyline fill="none" stroke="%s" stroke-width="2" '
                        'points="%s"/>' % (color, " ".join(
                            "%.1f,%.1f" % p for p in points)))
        for x, y in points:
            self.out.append('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>'
                            % (x, y, color))

    def text_of(self):
        return "\n".join(self.out + ["</svg>"]) + "\n"


def sweep_points(events):
    """{step: {value: speedup or None}}, the define and the values, from
    the "sweep" events of a bench log."""
    sweeps = [e for e in events if e["event"] == "sweep"]
    steps, values = {}, []
    for e in sweeps:
        v = e["value"]
        if v not in values:
            values.append(v)
        steps.setdefault(e["step"], {})[v] = (
            e.get("speedup_vs_baseline") if e.get("ok") else None)
    define = sweeps[0]["define"] if sweeps else None
    return define, sorted(values), steps


def sweep_svg(events):
    """A line chart of the sweep (speedup against the swept value, one line
    per step), as SVG text."""
    define, values, steps = sweep_points(events)
    w, h, left, right, top, bottom = 640, 360, 56, 150, 20, 44
    ys = [x for pts in steps.values() for x in pts.values() if x]
    ymax = max([1.0] + ys) * 1.1
    xmin, xmax = min(values), max(values)

    def px(v):
        return left + (w - left - right) * (v - xmin) / float(xmax - xmin or 1)

    def py(y):
        return top + (h - top - bottom) * (1 - y / ymax)
    svg = Svg(w, h)
    tick = 0.5 if ymax <= 4 else 1.0
    y = 0.0
    while y <= ymax:
        svg.line(left, w - right, "%.1f" % py(y), "%.1f" % py(y), "#ddd")
        svg.text(left - 6, "%.1f" % (py(y) + 4), "%.1f×" % y, "end")
        y += tick
    svg.line(left, w - right, "%.1f" % py(1), "%.1f" % py(1), "#999",
             ' stroke-dasharray="4 3"')
    for v in values:
        svg.text("%.1f" % px(v), h - bottom + 16, "%d" % v, "middle")
    svg.text("%.1f" % ((left + w - right) / 2.0), h - 8, define, "middle")
    mid = (top + h - bottom) / 2.0
    svg.text(14, "%.1f" % mid, "speedup over the baseline", "middle",
             ' transform="rotate(-90 14 %.1f)"' % mid)
    for i, (step, pts) in enumerate(steps.items()):
        color = SWEEP_COLORS[i % len(SWEEP_COLORS)]
        svg.series([(px(v), py(pts[v])) for v in values if pts.get(v)], color)
        ly = top + 16 * i + 8
        svg.line(w - right + 12, w - right + 32, ly, ly, color,
                 ' stroke-width="2"')
        svg.text(w - right + 38, ly + 4, step)
    return svg.text_of()


def variant_series(events):
    """{step: {family: [(value, % of copy)]}} for the steps that time
    several variants named "<family> <number>" (e.g. "stride 4"); the % of
    copy is each timing event's own (the grader's)."""
    out = {}
    for e in events:
        if e["event"] != "timing" or e.get("who") in ("vendor", "reference"):
            continue
        parts = (e.get("variant") or "").rsplit(" ", 1)
        pct = e.get("pct_of_copy")
        if len(parts) != 2 or not parts[1].isdigit() \
                or not isinstance(pct, (int, float)):
            continue
        out.setdefault(e["step"], {}).setdefault(parts[0], []).append(
            (int(parts[1]), pct))
    return {s: f for s, f in out.items() if sum(map(len, f.values())) > 1}


def variants_svg(events):
    """Bandwidth (% of copy) against each variant family of each step (one
    panel per family: stride, offset, ...), as SVG text."""
    series = variant_series(events)
    panels = [(step, fam, sorted(pts)) for step, fams in series.items()
              for fam, pts in fams.items()]
    device = next((e for e in events if e["event"] == "device"), {})
    pw, ph, left, top, bottom = 330, 260, 56, 36, 44
    svg = Svg(left + len(panels) * (pw + 20), ph + top + bottom)
    for k, (step, fam, pts) in enumerate(panels):
        x0 = left + k * (pw + 20)
        xs = [v for v, _ in pts]
        logx = fam == "stride" and min(xs) >= 1
        tx = math.log2 if logx else float
        lo, hi = tx(min(xs)), tx(max(xs))

        def px(v, x0=x0, lo=lo, hi=hi, tx=tx):
            return x0 + pw * (tx(v) - lo) / float(hi - lo or 1)

        def py(p):
            return top + ph * (1 - min(p, 110) / 110.0)
        for p in (0, 25, 50, 75, 100):
            svg.line(x0, x0 + pw, "%.1f" % py(p), "%.1f" % py(p), "#ddd")
            svg.text(x0 - 4, "%.1f" % (py(p) + 4), "%d%%" % p, "end")
        for v, _ in pts:
            svg.text("%.1f" % px(v), top + ph + 16, "%d" % v, "middle")
        svg.text("%.1f" % (x0 + pw / 2.0), top + ph + 34,
                 "%s %s (elements)" % (step, fam), "middle")
        svg.series([(px(v), py(p)) for v, p in pts], "#1b9e77")
    svg.text(left, 20, "%% of the copy bandwidth (%s, %.0f GB/s), useful "
             "bytes only" % (device.get("name", "?"),
                             device.get("copy_gbps") or 0))
    return svg.text_of()
