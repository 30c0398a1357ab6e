#!/usr/bin/env python3
"""Heat map of starpu_qr's ratio cuSOLVER time / starfact time over a grid of shapes (m, n), as SVG (no plotting
library needed): one row per n, one column per m / n, each cell coloured by the ratio (red below 1, white at 1,
green from 2) and labelled with it; the shapes of the grid only (m = 2^20, or m / n = 1, 2, 4, 8, 16 or 64).

    python3 tools/plot_qr_grid.py docs/data/qr_grid_h200.csv -o docs/img/qr_grid_h200.svg

The CSV's columns: op, m, n, prec, residency, starfact_s, cholqr_passes, cusolver_s, ratio (rows of other ops,
precisions or residencies than --op, --prec and --residency are left out).
"""
import argparse
import csv
import sys


def colour(r):
    """Red (0.5 and below) to white (1) to green (2 and above)."""
    if r < 1:
        t = max(0.0, (r - 0.5) / 0.5)
        return "#%02x%02x%02x" % (230, int(90 + 165 * t), int(90 + 165 * t))
    t = min(1.0, (r - 1) / 1.0)
    return "#%02x%02x%02x" % (int(255 - 155 * t), int(255 - 55 * t), int(255 - 155 * t))


def aspect_label(m, n):
    a = m / n
    if m == 1 << 20:
        return "2^20 rows"
    return "%g n" % a if abs(a - round(a)) > 1e-9 else "%d n" % round(a)


def on_grid(m, n):
    """The grid's shapes: m = 2^20, or m / n one of 1, 2, 4, 8, 16, 64 (other rows stay in the CSV's table)."""
    return m == 1 << 20 or (m % n == 0 and m // n in (1, 2, 4, 8, 16, 64))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("-o", "--output", default="qr_grid.svg")
    ap.add_argument("--op", default="geqrf")
    ap.add_argument("--prec", default="d")
    ap.add_argument("--residency", default="device")
    ap.add_argument("--title", default="geqrf on one H200: cuSOLVER time / starfact time (> 1: starfact faster)")
    args = ap.parse_args()
    rows = [r for r in csv.DictReader(open(args.csv))
            if r["op"] == args.op and r["prec"] == args.prec and r["residency"] == args.residency
            and on_grid(int(r["m"]), int(r["n"]))]
    if not rows:
        sys.exit(f"plot_qr_grid: {args.csv} holds no {args.op} row in precision {args.prec}, {args.residency}")
    ns = sorted({int(r["n"]) for r in rows})
    cols = []
    for r in sorted(rows, key=lambda r: (int(r["m"]) == 1 << 20, int(r["m"]) / int(r["n"]))):
        label = aspect_label(int(r["m"]), int(r["n"]))
        if label not in cols:
            cols.append(label)
    cell_w, cell_h, left, top = 96, 40, 90, 70
    width, height = left + cell_w * len(cols) + 20, top + cell_h * len(ns) + 50
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{width / 2}" y="24" text-anchor="middle" font-size="14">{args.title}</text>',
           f'<text x="{left + cell_w * len(cols) / 2}" y="{top - 28}" text-anchor="middle" font-size="12">m</text>']
    for j, c in enumerate(cols):
        out.append(f'<text x="{left + cell_w * j + cell_w / 2}" y="{top - 8}" text-anchor="middle" font-size="12">{c}</text>')
    for i, n in enumerate(ns):
        y = top + cell_h * i
        out.append(f'<text x="{left - 8}" y="{y + cell_h / 2 + 4}" text-anchor="end" font-size="12">n = {n}</text>')
        for j, c in enumerate(cols):
            x = left + cell_w * j
            hit = [r for r in rows if int(r["n"]) == n and aspect_label(int(r["m"]), n) == c]
            if not hit:
                out.append(f'<rect x="{x}" y="{y}" width="{cell_w}" height="{cell_h}" fill="#eeeeee" stroke="white"/>')
                continue
            r = hit[0]
            ratio = float(r["ratio"])
            tree = "cholqr" if r["cholqr_passes"] else ("panel" if n > 2048 else "tree")
            out.append(f'<rect x="{x}" y="{y}" width="{cell_w}" height="{cell_h}" fill="{colour(ratio)}" stroke="white"/>')
            out.append(f'<text x="{x + cell_w / 2}" y="{y + 18}" text-anchor="middle" font-size="13">{ratio:.2f}x</text>')
            out.append(f'<text x="{x + cell_w / 2}" y="{y + 32}" text-anchor="middle" font-size="10" fill="#444">'
                       f'{r["m"]} {tree}</text>')
    out.append(f'<text x="{left}" y="{height - 18}" font-size="11" fill="#444">grey: not measured (m n &lt; 2^26, or '
               f'beyond the GPU memory); below each ratio: m and the algorithm the plan chose</text>')
    out.append("</svg>")
    open(args.output, "w").write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
