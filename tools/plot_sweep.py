#!/usr/bin/env python3
"""Plot of `starpu_chol --sweep`'s CSV: TFLOP/s against n for starfact and the vendor, per precision and
mapping, with the cuBLAS gemm rate of each precision as the ceiling.

    python3 tools/plot_sweep.py starpu_chol_sweep.csv -o docs/img/cholesky_sweep.png

Needs matplotlib (Debian: python3-matplotlib).
"""
import argparse
import csv
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("-o", "--output", default="starpu_chol_sweep.png")
    ap.add_argument("--title", default="tile Cholesky on one GPU: starfact vs the vendor")
    args = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot_sweep: needs matplotlib (apt-get install python3-matplotlib)")
    rows = list(csv.DictReader(open(args.csv)))
    if not rows:
        sys.exit(f"plot_sweep: {args.csv} holds no row")
    ceilings = {r["prec"]: float(r["TFLOPs"]) for r in rows if r["mapping"] == "gemm"}
    points = [r for r in rows if r["mapping"] != "gemm"]
    precs = sorted({r["prec"] for r in points}, reverse=True)  # d first
    fig, axes = plt.subplots(1, len(precs), figsize=(6.5 * len(precs), 4.6), squeeze=False)
    styles = {"gpu-only": "-", "hybrid": "--", "cpu-only": ":"}
    for ax, p in zip(axes[0], precs):
        ours = [r for r in points if r["prec"] == p]
        for mapping in sorted({r["mapping"] for r in ours}):
            rs = sorted((r for r in ours if r["mapping"] == mapping), key=lambda r: int(r["n"]))
            ax.plot([int(r["n"]) for r in rs], [float(r["TFLOPs"]) for r in rs], styles.get(mapping, "-"),
                    marker="o", label=f"starfact {mapping}")
        vendor = {}
        for r in ours:
            if r["vendor"] != "-" and float(r["vendor_TFLOPs"]) > 0:
                vendor[int(r["n"])] = (r["vendor"], float(r["vendor_TFLOPs"]))
        if vendor:
            ns = sorted(vendor)
            ax.plot(ns, [vendor[n][1] for n in ns], "-", color="black", marker="s", label=vendor[ns[0]][0])
        if p in ceilings:
            ax.axhline(ceilings[p], color="grey", linestyle=":", label=f"cuBLAS {p}gemm ({ceilings[p]:.1f})")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("n")
        ax.set_ylabel("TFLOP/s (n^3/3 flops)")
        ax.set_title(f"{'double' if p == 'd' else 'float'}")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(args.title)
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)
    print(f"plot_sweep: wrote {args.output}")


if __name__ == "__main__":
    main()
