#!/usr/bin/env python3
"""The time of the tile Cholesky (lower), or of the tile LU with partial pivoting (--op getrf), of order n with tiles
of order nb on one GPU under the synthetic models of sim/synthetic_models.py: every task after the other, no transfer
(device-resident tiles on one GPU). A simulated one-GPU run must take this long, up to the scheduler's and the
submission's costs; tools/test-simulation.sh checks it.

  sim/expected_time.py --n 16384 --nb 1024 [--prec d] [--op potrf|getrf]     prints seconds
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from synthetic_models import LAUNCH, RATES, lu_tasks, seconds  # noqa: E402


def serial_seconds(n, nb, prec):
    r = RATES[prec]
    t = lambda kernel, flops: flops / r[kernel] + LAUNCH  # noqa: E731
    b = [min(nb, n - i) for i in range(0, n, nb)]
    total = 0.0
    for k, bk in enumerate(b):
        total += t("potrf", bk ** 3 / 3.0)
        for i in range(k + 1, len(b)):
            total += t("trsm", b[i] * bk * bk) + t("syrk", bk * b[i] * b[i])
            for j in range(k + 1, i):
                total += t("gemm", 2.0 * b[i] * b[j] * bk)
    return total


def lu_serial_seconds(n, nb, prec):
    return sum(seconds(prec, kernel, work) for kernel, _, _, _, work in lu_tasks(n, nb, 8 if prec == "d" else 4))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, required=True)
    ap.add_argument("--nb", type=int, required=True)
    ap.add_argument("--prec", choices=["s", "d"], default="d")
    ap.add_argument("--op", choices=["potrf", "getrf"], default="potrf")
    a = ap.parse_args()
    print("%.6f" % (lu_serial_seconds if a.op == "getrf" else serial_seconds)(a.n, a.nb, a.prec))


if __name__ == "__main__":
    main()
