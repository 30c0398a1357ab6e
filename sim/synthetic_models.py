#!/usr/bin/env python3
"""Writes synthetic performance models of the tile Cholesky's CUDA kernels for StarPU's SimGrid mode.

A synthetic model gives each task flops / rate + launch seconds on a GPU, from assumed rates: it exercises the
simulation (tools/simulate.sh, the CI test) without a GPU, and predicts nothing. Predictions need the models a real
GPU recorded (sim/README.md: the calibration command).

StarPU looks a task's time up by its footprint, a CRC of its buffers' shapes (StarPU 1.3: datawizard/footprint.c,
crc32c of each matrix's nx, ny and interface id, chained over the buffers in order), so the files list every tile
shape the factorizations of the given orders and tile sizes submit. Each file is a StarPU history-based model
(format version 45) with one architecture, CUDA device 0 (STARPU_PERF_MODEL_HOMOGENEOUS_CUDA=1 shares it among all
simulated GPUs).

  sim/synthetic_models.py --out DIR/codelets/45 --host NAME --n 4096 --nb 512 [--n ... --nb ...] [--prec d]
"""
import argparse
import os
import sys

# Assumed sustained rates on one GPU (flop/s) and the cost of a launch (s): synthetic figures of the order of an
# H100's, not measurements.
RATES = {
    "d": {"potrf": 8e12, "trsm": 35e12, "syrk": 40e12, "gemm": 52e12},
    "s": {"potrf": 12e12, "trsm": 35e12, "syrk": 40e12, "gemm": 50e12},
}
LAUNCH = 8e-6


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
    for fp, (size, flops) in sorted(entries.items()):
        us = seconds_of(flops) * 1e6
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
    a = ap.parse_args()
    if any(v < 1 for v in a.n + a.nb):
        sys.exit("synthetic_models.py: --n and --nb must be >= 1")
    os.makedirs(a.out, exist_ok=True)
    for prec in a.prec or ["d"]:
        esize = 8 if prec == "d" else 4
        merged = {}
        for n in a.n:
            for nb in a.nb:
                for kernel, entries in cholesky_tasks(n, nb, esize).items():
                    merged.setdefault(kernel, {}).update(entries)
        for kernel, entries in merged.items():
            rate = RATES[prec][kernel]
            # potrf: the same figures for each diagonal kernel (starpu_chol --diag cusolver, fused, recursive)
            for suffix in (["", "_fused", "_recursive"] if kernel == "potrf" else [""]):
                symbol = "starfact_%s%s%s" % (prec, kernel, suffix)
                with open(os.path.join(a.out, "%s.%s" % (symbol, a.host)), "w") as f:
                    f.write(model_text(entries, lambda flops, r=rate: flops / r + LAUNCH))


if __name__ == "__main__":
    main()
