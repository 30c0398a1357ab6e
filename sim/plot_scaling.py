#!/usr/bin/env python3
"""SVG plot of simulated scaling (docs/simulation.md, "Predictions"): TFLOP/s against the number of nodes, one line
per series, log-2 node axis, with the ideal line of each series (its first point times the node ratio). Python's
standard library only (no matplotlib needed).

Input: a CSV with columns series,nodes,tflops (one row per simulated run), e.g. the summaries of tools/simulate.sh
runs gathered by hand:

    series,nodes,tflops
    "n = 131072, NDR 400 Gb/s",1,150.2

    python3 sim/plot_scaling.py points.csv -o docs/img/simulated_scaling_h200.svg --title "..."
"""
import argparse
import csv
import math
import sys
from xml.sax.saxutils import escape

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]


def nice_max(v):
    """The smallest 1, 2 or 5 times a power of ten at or above v."""
    if v <= 0:
        return 1.0
    e = 10 ** math.floor(math.log10(v))
    for m in (1, 2, 5, 10):
        if m * e >= v:
            return m * e
    return 10 * e


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--title", default="simulated tile Cholesky on GPU nodes")
    ap.add_argument("--ylabel", default="TFLOP/s (double)")
    ap.add_argument("--xlabel", default="nodes (4 GPUs each, one rank per node)",
                    help="the axis of the CSV's 'nodes' column (e.g. GPUs of one node)")
    a = ap.parse_args()
    series = {}
    for r in csv.DictReader(open(a.csv)):
        try:
            series.setdefault(r["series"], []).append((int(r["nodes"]), float(r["tflops"])))
        except (KeyError, ValueError) as e:
            sys.exit("plot_scaling.py: %s: a row needs series, nodes (integer) and tflops (number): %s" % (a.csv, e))
    if not series:
        sys.exit("plot_scaling.py: %s holds no row" % a.csv)
    for pts in series.values():
        pts.sort()
    nodes = sorted({n for pts in series.values() for n, _ in pts})
    ymax = nice_max(max(t for pts in series.values() for _, t in pts) * 1.05)
    W, H, L, R, T, B = 760, 440, 70, 250, 40, 50  # size and margins (the legend on the right)
    pw, ph = W - L - R, H - T - B
    lo, hi = math.log2(nodes[0]), math.log2(nodes[-1]) if nodes[-1] > nodes[0] else math.log2(nodes[0]) + 1
    x = lambda n: L + (math.log2(n) - lo) / (hi - lo) * pw  # noqa: E731
    y = lambda t: T + ph - min(t, ymax) / ymax * ph  # noqa: E731
    o = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">'
         % (W, H), '<rect width="100%" height="100%" fill="white"/>',
         '<text x="%d" y="22" font-size="14">%s</text>' % (L, escape(a.title))]
    for i in range(6):  # horizontal grid and the TFLOP/s axis
        t = ymax * i / 5
        o.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>' % (L, y(t), L + pw, y(t)))
        o.append('<text x="%d" y="%.1f" text-anchor="end">%g</text>' % (L - 6, y(t) + 4, t))
    for n in nodes:
        o.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#eee"/>' % (x(n), T, x(n), T + ph))
        o.append('<text x="%.1f" y="%d" text-anchor="middle">%d</text>' % (x(n), T + ph + 16, n))
    o.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="black"/>' % (L, T, pw, ph))
    o.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>' % (L + pw / 2, H - 10, escape(a.xlabel)))
    o.append('<text transform="translate(16,%.1f) rotate(-90)" text-anchor="middle">%s</text>'
             % (T + ph / 2, escape(a.ylabel)))
    for k, (name, pts) in enumerate(series.items()):
        c = COLORS[k % len(COLORS)]
        n0, t0 = pts[0]
        ideal = [(n, t0 * n / n0) for n, _ in pts]
        o.append('<polyline fill="none" stroke="%s" stroke-dasharray="4,4" stroke-opacity="0.5" points="%s"/>'
                 % (c, " ".join("%.1f,%.1f" % (x(n), y(t)) for n, t in ideal)))
        o.append('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>'
                 % (c, " ".join("%.1f,%.1f" % (x(n), y(t)) for n, t in pts)))
        for n, t in pts:
            o.append('<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s"/>' % (x(n), y(t), c))
        ly = T + 10 + 36 * k
        o.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/>'
                 % (L + pw + 12, ly, L + pw + 36, ly, c))
        o.append('<text x="%d" y="%d">%s</text>' % (L + pw + 42, ly + 4, escape(name)))
        o.append('<text x="%d" y="%d" fill="#666">dashed: ideal from %d node%s</text>'
                 % (L + pw + 42, ly + 18, n0, "" if n0 == 1 else "s"))
    o.append("</svg>\n")
    with open(a.output, "w") as f:
        f.write("\n".join(o))


if __name__ == "__main__":
    main()
