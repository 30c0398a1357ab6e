#!/usr/bin/env python3
"""Writes synthetic performance models of the tile Cholesky's and the tile LU's CUDA kernels for StarPU's SimGrid mode.

A synthetic model gives each task flops / rate + launch seconds on a GPU, from assumed rates: it exercises the
simulation (tools/simulate.sh, the CI test) without a GPU, and predicts nothing. Predictions need the models a real
GPU recorded (sim/README.md: the calibration command).

StarPU looks a task's time up by its footprint, a CRC of its buffers' shapes (StarPU 1.3: datawizard/footprint.c,
crc32c of each matrix's nx, ny and interface id, chained over the buffers in order), so the files list every tile
shape the factorizations of the given orders and tile sizes submit. Each file is a StarPU history-based model
(format version 45) with one architecture, CUDA device 0 (STARPU_PERF_MODEL_HOMOGENEOUS_CUDA=1 shares it among all
simulated GPUs). The LU (--op getrf) adds its panel (getrf_panel: the whole tile column, cuSOLVER getrf at an assumed
rate), its row interchanges (laswp: the bytes of the swapped rows at an assumed bandwidth) and its trsm and gemm
shapes to the files of the same symbols.

  sim/synthetic_models.py --out DIR/codelets/45 --host NAME --n 4096 --nb 512 [--n ... --nb ...] [--prec d]
                          [--op potrf] [--op getrf]
"""
import argparse
import os
import sys

# Assumed sustained rates on one GPU (flop/s) and the cost of a launch (s): synthetic figures of the order of an
# H100's, not measurements.
RATES = {
    "d": {"potrf": 8e12, "trsm": 35e12, "syrk": 40e12, "gemm": 52e12, "getrf_panel": 5e12},
    "s": {"potrf": 12e12, "trsm": 35e12, "syrk": 40e12, "gemm": 50e12, "getrf_panel": 6e12},
}
LAUNCH = 8e-6
# The row interchanges move bytes, not flops: each swapped element is read and written twice.
LASWP_BYTES_PER_S = 2e12


def _crc8(byte, crc):
    crc = (crc ^ (byte << 24)) & 0xFFFFFFFF
    for _ in range(8):
        crc = ((crc << 1) & 0xFFFFFFFF) ^ (0x1EDC6F41 if crc & 0x80000000 else 0)
    return crc


def _crc_be(value, crc):  # starpu_hash_crc32c_be: the 4 bytes of a uint32 in memory order (little-endian here)
    for b in (value & 0xFFFFFFFF).to_bytes(4, "little"):
        crc = _crc8(b, crc)
    return crc


def matrix(rows, cols):
    """Footprint of a matrix handle (interface id 0): crc(nx, ny), then the interface id."""
    return _crc_be(_crc_be(rows, cols), 0)


def variable(elemsize):
    """Footprint of a variable handle (interface id 5)."""
    return _crc_be(_crc_be(elemsize, 0), 5)


def vector(nx):
    """Footprint of a vector handle (interface id 2): the pivots of an LU step."""
    return _crc_be(_crc_be(nx, 0), 2)


def task(*handles):
    fp = 0
    for h in handles:
        fp = _crc_be(h, fp)
    return fp


def cholesky_tasks(n, nb, esize):
    """{kernel: {footprint: (bytes, flops)}} for the tile Cholesky (lower) of order n with tiles of order nb."""
    sizes = sorted({min(nb, n - i) for i in range(0, n, nb)})
    out = {"potrf": {}, "trsm": {}, "syrk": {}, "gemm": {}}
    for bk in sizes:
        out["potrf"][task(matrix(bk, bk), variable(4))] = (bk * bk * esize + 4, bk ** 3 / 3.0)
        for bi in sizes:
            # trsm: A[k][k] (R), A[i][k] (RW); syrk: A[i][k] (R), A[i][i] (RW)
            out["trsm"][task(matrix(bk, bk), matrix(bi, bk))] = ((bk * bk + bi * bk) * esize, float(bi * bk * bk))
            out["syrk"][task(matrix(bi, bk), matrix(bi, bi))] = ((bi * bk + bi * bi) * esize, float(bk * bi * bi))
            for bj in sizes:
                # gemm: A[i][k] (R), A[j][k] (R), A[i][j] (RW)
                out["gemm"][task(matrix(bi, bk), matrix(bj, bk), matrix(bi, bj))] = (
                    (bi * bk + bj * bk + bi * bj) * esize, 2.0 * bi * bj * bk)
    return out


def tile_orders(n, nb):
    return [min(nb, n - i) for i in range(0, n, nb)]


def seconds(prec, kernel, work):
    """A task's synthetic time: its flops at the kernel's rate (laswp: its bytes at LASWP_BYTES_PER_S) + a launch."""
    return work / (LASWP_BYTES_PER_S if kernel == "laswp" else RATES[prec][kernel]) + LAUNCH


def lu_tasks(n, nb, esize):
    """[(kernel, footprint, bytes, flops, work)] of every task of the tile LU with partial pivoting (right-looking,
    algorithms/getrf.cpp) of order n with tiles of order nb, in submission order; work is what seconds() reads.
    Buffers in the codelets' order: the panel's tiles A[k..mt-1][k], info (int variable), the step's pivots (int
    vector); laswp's tiles A[k..mt-1][j], the pivots; trsm A[k][k] (R), A[k][j] (RW); gemm A[m][k], A[k][j], A[m][j]."""
    b = tile_orders(n, nb)
    mt = len(b)
    out = []
    for k in range(mt):
        bk = b[k]
        rows = sum(b[k:])
        fp = task(*[matrix(b[m], bk) for m in range(k, mt)], variable(4), vector(bk))
        flops = rows * bk * bk - bk ** 3 / 3.0
        out.append(("getrf_panel", fp, rows * bk * esize + 4 + bk * 4, flops, flops))
        for j in list(range(k + 1, mt)) + list(range(k)):
            fp = task(*[matrix(b[m], b[j]) for m in range(k, mt)], vector(bk))
            out.append(("laswp", fp, rows * b[j] * esize + bk * 4, 0.0, 4.0 * bk * b[j] * esize))
            if j < k:
                continue
            flops = float(bk * bk * b[j])
            out.append(("trsm", task(matrix(bk, bk), matrix(bk, b[j])), (bk * bk + bk * b[j]) * esize, flops, flops))
            for m in range(k + 1, mt):
                flops = 2.0 * b[m] * b[j] * bk
                out.append(("gemm", task(matrix(b[m], bk), matrix(bk, b[j]), matrix(b[m], b[j])),
                            (b[m] * bk + bk * b[j] + b[m] * b[j]) * esize, flops, flops))
    return out


def model_text(entries, seconds_of):
    lines = ["##################", "# Performance Model Version", "45", "",
             "####################", "# COMBs", "# number of combinations", "1",
             "####################", "# COMB_0", "# number of types devices", "1",
             "####################", "# DEV_0", "# device type (CPU - 0, CUDA - 1, OPENCL - 2, MIC - 3, MPI_MS - 5)",
             "1", "####################", "# DEV_0", "# device id ", "0",
             "####################", "# DEV_0", "# number of cores ", "1",
             "##########", "# number of implementations", "1",
             "#####", "# Model for cuda0_impl0 (Comb0)", "# number of entries", str(len(entries)),
             "# sumlnx\tsumlnx2\t\tsumlny\t\tsumlnxlny\talpha\t\tbeta\t\tn\tminx\t\tmaxx",
             "0.000000e+00\t0.000000e+00\t0.000000e+00\t0.000000e+00\tnan\tnan\t0\t0\t0",
             "# a\t\tb\t\tc", "nan\tnan\tnan", "# not multiple-regression-base", "0",
             "# hash\t\tsize\t\tflops\t\tmean (us)\tdev (us)\tsum\t\tsum2\t\tn"]
    samples = 10  # StarPU's STARPU_CALIBRATE_MINIMUM: calibrated
    for fp, entry in sorted(entries.items()):
        size, flops = entry[0], entry[1]
        us = seconds_of(entry[-1]) * 1e6
        lines.append("%08x\t%-15d\t%e\t%e\t%e\t%e\t%e\t%d" % (fp, size, flops, us, 0.0, us * samples,
                                                                 us * us * samples, samples))
    return "\n".join(lines) + "\n\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="the codelets/45 directory to write into")
    ap.add_argument("--host", required=True, help="the model files' host suffix (STARPU_HOSTNAME)")
    ap.add_argument("--n", type=int, action="append", required=True, help="matrix order (repeatable)")
    ap.add_argument("--nb", type=int, action="append", required=True, help="tile order (repeatable)")
    ap.add_argument("--prec", choices=["s", "d"], action="append", help="precision (repeatable; default d)")
    ap.add_argument("--op", choices=["potrf", "getrf"], action="append",
                    help="factorization whose tasks to model (repeatable; default potrf)")
    a = ap.parse_args()
    if any(v < 1 for v in a.n + a.nb):
        sys.exit("synthetic_models.py: --n and --nb must be >= 1")
    os.makedirs(a.out, exist_ok=True)
    for prec in a.prec or ["d"]:
        esize = 8 if prec == "d" else 4
        merged = {}
        for n in a.n:
            for nb in a.nb:
                if "potrf" in (a.op or ["potrf"]):
                    for kernel, entries in cholesky_tasks(n, nb, esize).items():
                        merged.setdefault(kernel, {}).update(entries)
                if "getrf" in (a.op or []):
                    for kernel, fp, size, flops, work in lu_tasks(n, nb, esize):
                        merged.setdefault(kernel, {})[fp] = (size, flops, work)
        for kernel, entries in merged.items():
            # potrf: the same figures for each diagonal kernel (starpu_chol --diag cusolver, fused, recursive)
            for suffix in (["", "_fused", "_recursive"] if kernel == "potrf" else [""]):
                symbol = "starfact_%s%s%s" % (prec, kernel, suffix)
                with open(os.path.join(a.out, "%s.%s" % (symbol, a.host)), "w") as f:
                    f.write(model_text(entries, lambda work, p=prec, k=kernel: seconds(p, k, work)))


if __name__ == "__main__":
    main()
