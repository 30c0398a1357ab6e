#!/usr/bin/env python3
"""The time of the tile Cholesky (lower), of the tile LU with partial pivoting (--op getrf), or of the tile QR (--op
geqrf: the panel tree, m x n; --op cholqr: the Cholesky QR, m x n with n <= nb) of order n with tiles of order nb on
one GPU under the synthetic models of sim/synthetic_models.py: every task after the other, no transfer
(device-resident tiles on one GPU). A simulated one-GPU run must take this long, up to the scheduler's and the
submission's costs; tools/test-simulation.sh checks it.

  sim/expected_time.py --n 16384 --nb 1024 [--prec d] [--op potrf|getrf|geqrf|cholqr] [--m M]     prints seconds
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from synthetic_models import LAUNCH, RATES, cholqr_tasks, lu_tasks, qr_panel_tasks, seconds  # noqa: E402


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


def qr_serial_seconds(tasks, m, n, nb, prec):
    return sum(seconds(prec, kernel, work) for kernel, _, _, _, work in tasks(m, n, nb, 8 if prec == "d" else 4))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, required=True)
    ap.add_argument("--nb", type=int, required=True)
    ap.add_argument("--prec", choices=["s", "d"], default="d")
    ap.add_argument("--op", choices=["potrf", "getrf", "geqrf", "cholqr"], default="potrf")
    ap.add_argument("--m", type=int, help="rows of the QR's matrix (default n)")
    a = ap.parse_args()
    if a.op in ("geqrf", "cholqr"):
        if a.op == "cholqr" and a.n > a.nb:
            sys.exit("expected_time.py: the Cholesky QR factors one tile column: --n <= --nb")
        if a.op == "geqrf":
            tasks = qr_panel_tasks
        else:  # float as on GPUs: the column widened to double (algorithms/cholqr.cpp)
            tasks = lambda m, n, nb, esize: cholqr_tasks(m, n, nb, esize, widened=a.prec == "s")  # noqa: E731
        print("%.6f" % qr_serial_seconds(tasks, a.m or a.n, a.n, a.nb, a.prec))
        return
    print("%.6f" % (lu_serial_seconds if a.op == "getrf" else serial_seconds)(a.n, a.nb, a.prec))


if __name__ == "__main__":
    main()
