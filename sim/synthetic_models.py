#!/usr/bin/env python3
"""Writes synthetic performance models of the tile Cholesky's, the tile LU's and the tile QR's CUDA kernels for StarPU's
SimGrid mode.

A synthetic model gives each task flops / rate + launch seconds on a GPU, from assumed rates: it exercises the
simulation (tools/simulate.sh, the CI test) without a GPU, and predicts nothing. Predictions need the models a real
GPU recorded (sim/README.md: the calibration command).

StarPU looks a task's time up by its footprint, a CRC of its buffers' shapes (StarPU 1.3: datawizard/footprint.c,
crc32c of each matrix's nx, ny and interface id, chained over the buffers in order), so the files list every tile
shape the factorizations of the given orders and tile sizes submit. Each file is a StarPU history-based model
(format version 45) with one architecture, CUDA device 0 (STARPU_PERF_MODEL_HOMOGENEOUS_CUDA=1 shares it among all
simulated GPUs). The LU (--op getrf) adds its panel (getrf_panel: the whole tile column, cuSOLVER getrf at an assumed
rate), its row interchanges (laswp: the bytes of the swapped rows at an assumed bandwidth) and its trsm and gemm
shapes to the files of the same symbols. The QR (--op geqrf: the panel tree, n x n and each --m x n; --op cholqr: the
Cholesky QR of each --m x n with n <= nb, float also widened to double as on GPUs) writes its own symbols (qr_panel,
geqrt, unmqr, qr_finite, cholqr_*; widen and narrow), the panel at an assumed rate, the rest at the gemm's.
--merge keeps the entries of the files already there that the tasks written do not replace (the committed
synthetic folder: one call per factorization).

  sim/synthetic_models.py --out DIR/codelets/45 --host NAME --n 4096 --nb 512 [--n ... --nb ...] [--prec d]
                          [--op potrf] [--op getrf] [--op geqrf] [--op cholqr --m M] [--merge]
"""
import argparse
import os
import sys

# Assumed sustained rates on one GPU (flop/s) and the cost of a launch (s): synthetic figures of the order of an
# H100's, not measurements.
RATES = {
    "d": {"potrf": 8e12, "trsm": 35e12, "syrk": 40e12, "gemm": 52e12, "getrf_panel": 5e12, "qr_panel": 5e12,
          "geqrt": 5e12},
    "s": {"potrf": 12e12, "trsm": 35e12, "syrk": 40e12, "gemm": 50e12, "getrf_panel": 6e12, "qr_panel": 6e12,
          "geqrt": 6e12},
}
# The QR's other kernels (its updates, cholqr_*, and unmqr) at the gemm's rate; R's check (qr_finite) a launch.
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
    if ":" in kernel:  # a kernel of another precision than the run's (cholqr_tasks, widened)
        prec, kernel = kernel.split(":")
    moves = kernel in ("laswp", "widen", "narrow")  # bytes
    return work / (LASWP_BYTES_PER_S if moves else RATES[prec].get(kernel, RATES[prec]["gemm"])) + LAUNCH


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


def reduce_groups(count, fan_in=8):
    """The nodes of the Cholesky QR's reduction tree over count products (algorithms/cholqr.cpp, reduce): for each,
    the number of products it adds into its first one."""
    out, d = [], 1
    while d < count:
        for q in range(0, count - d, fan_in * d):
            out.append(len([r for r in range(1, fan_in) if q + r * d < count]))
        d *= fan_in
    return out


def qr_panel_tasks(m, n, nb, esize):
    """[(kernel, footprint, bytes, flops, work)] of every task of the tile QR's panel tree (algorithms/geqrf.cpp,
    submit_panel_qr_dag; the updates algorithms/cholqr.cpp, submit_cholqr_apply_dag) of an m x n matrix with tiles of
    order nb, then R's check (qr_finite), in submission order. Buffers in the codelets' order: the panel's tiles
    A[k..mt-1][k] and its T tile (nb x the panel's columns); ytc Y, C, W (a product: the panel's columns x C's); add
    W_q, then the W it adds; tmul T, W; update (update_unit for the first tile, with its scratch W) Y, W, C [, Z];
    geqrt A, T and unmqr V, T, C (the last tile row, m <= n); qr_finite info (an int), R's tiles of the column."""
    b, c = tile_orders(m, nb), tile_orders(n, nb)
    mt, nt = len(b), len(c)
    out = []
    for k in range(min(mt, nt)):
        ck = c[k]
        tk = matrix(nb, ck)
        if k < mt - 1:
            rows = sum(b[k:])
            fl = 2.0 * rows * ck * ck - 2.0 * ck ** 3 / 3 + rows * ck * ck
            out.append(("qr_panel", task(*[matrix(b[i], ck) for i in range(k, mt)], tk),
                        (rows * ck + nb * ck) * esize, fl, fl))
            for j in range(k + 1, nt):
                cj = c[j]
                w = matrix(ck, cj)
                for i in range(k, mt):
                    fl = 2.0 * b[i] * ck * cj
                    out.append(("cholqr_ytc", task(matrix(b[i], ck), matrix(b[i], cj), w),
                                (b[i] * ck + b[i] * cj + ck * cj) * esize, fl, fl))
                for inputs in reduce_groups(mt - k):
                    fl = float(ck * cj * inputs)
                    out.append(("cholqr_add", task(*[w] * (inputs + 1)), (inputs + 1) * ck * cj * esize, fl, fl))
                fl = float(ck * cj * ck)
                out.append(("cholqr_tmul", task(tk, w), (nb * ck + ck * cj) * esize, fl, fl))
                for i in range(k, mt):
                    fl = 2.0 * b[i] * ck * cj
                    size = (b[i] * ck + ck * cj + b[i] * cj) * esize
                    if i == k:
                        out.append(("cholqr_update_unit", task(matrix(b[i], ck), w, matrix(b[i], cj), w),
                                    size + ck * cj * esize, fl, fl))
                    else:
                        out.append(("cholqr_update", task(matrix(b[i], ck), w, matrix(b[i], cj)), size, fl, fl))
            continue
        bk = b[k]
        kk = min(bk, ck)
        fl = 2.0 * bk * ck * kk - (bk + ck) * kk * kk + 2.0 * kk ** 3 / 3
        out.append(("geqrt", task(matrix(bk, ck), tk), (bk * ck + nb * ck) * esize, fl, fl))
        for j in range(k + 1, nt):
            fl = 4.0 * bk * c[j] * kk - 2.0 * c[j] * kk * kk
            out.append(("unmqr", task(matrix(bk, ck), tk, matrix(bk, c[j])),
                        (bk * ck + nb * ck + bk * c[j]) * esize, fl, fl))
    for j in range(nt):
        last = min(j, mt - 1)
        out.append(("qr_finite", task(variable(4), *[matrix(b[i], c[j]) for i in range(last + 1)]),
                    4 + sum(b[i] for i in range(last + 1)) * c[j] * esize, 0.0, 0.0))
    return out


def cholqr_tasks(m, n, nb, esize, widened=False):
    """[(kernel, footprint, bytes, flops, work)] of every task of the Cholesky QR (algorithms/cholqr.cpp,
    submit_cholqr_column: three passes, the Householder reconstruction, the solves; then R's check) of an m x n matrix
    (n <= nb) with tiles of nb rows, in double or in float without widening. Buffers in the codelets' order: gram X,
    W; solve_gram V, X, W; add W_q, the W it adds; potrf G, L, V, info; householder A0, L1, L2, L3, T, M, RY, X (n x
    n+1), info; solve M, X; store RY, A0. The third pass's tasks (_3) are modelled as the second's (three passes).
    widened: float on GPUs (algorithms/cholqr.cpp, widen_float_column): each tile widened to a double copy (widen F,
    X), the column factored in double with T an n x n double temporary, T and the tiles narrowed back (narrow X, F);
    the kernels of another precision than the run's are named with it ("d:cholqr_gram", "s:widen")."""
    b = tile_orders(m, nb)
    sq = matrix(n, n)
    out = []
    if widened:
        out += [("s:widen", task(matrix(bi, n), matrix(bi, n)), bi * n * 12, 0.0, bi * n * 12.0) for bi in b]
        inner = cholqr_tasks(m, n, nb, 8)
        house = next(i for i, t in enumerate(inner) if t[0] == "cholqr_householder")
        h = inner[house]
        inner[house] = (h[0], task(matrix(b[0], n), sq, sq, sq, sq, sq, sq, matrix(n, n + 1), variable(4)),
                        h[2] - (nb - n) * n * 8, h[3], h[4])
        out += [("d:" + t[0], *t[1:]) for t in inner if t[0] != "qr_finite"]
        out.append(("d:narrow", task(sq, matrix(nb, n)), n * n * 12, 0.0, n * n * 12.0))
        out += [("d:narrow", task(matrix(bi, n), matrix(bi, n)), bi * n * 12, 0.0, bi * n * 12.0) for bi in b]
        out.append(("qr_finite", task(variable(4), matrix(b[0], n)), 4 + b[0] * n * esize, 0.0, 0.0))
        return out
    for p in range(3):
        third = "_3" if p == 2 else ""
        for bi in b:
            if p == 0:
                fl = float(bi * n * n)
                out.append(("cholqr_gram", task(matrix(bi, n), sq), (bi * n + n * n) * esize, fl, fl))
            else:
                fl = 2.0 * bi * n * n
                out.append(("cholqr_solve_gram" + third, task(sq, matrix(bi, n), sq), (bi * n + 2 * n * n) * esize,
                            fl, fl))
        for inputs in reduce_groups(len(b)):
            fl = float(n * n * inputs)
            out.append(("cholqr_add" + third, task(*[sq] * (inputs + 1)), (inputs + 1) * n * n * esize, fl, fl))
        fl = 2.0 * n ** 3 / 3
        out.append(("cholqr_potrf" + third, task(sq, sq, sq, variable(4)), 3 * n * n * esize + 4, fl, fl))
    fl = 4.0 * n ** 3
    out.append(("cholqr_householder", task(matrix(b[0], n), sq, sq, sq, matrix(nb, n), sq, sq, matrix(n, n + 1),
                                           variable(4)), (b[0] * n + 5 * n * n + nb * n + n * (n + 1)) * esize + 4,
                fl, fl))
    for bi in b:
        fl = float(bi * n * n)
        out.append(("cholqr_solve", task(sq, matrix(bi, n)), (bi * n + n * n) * esize, fl, fl))
    out.append(("cholqr_store", task(sq, matrix(b[0], n)), (n * n + b[0] * n) * esize, 0.0, float(n * n)))
    out.append(("qr_finite", task(variable(4), matrix(b[0], n)), 4 + b[0] * n * esize, 0.0, 0.0))
    return out


def entries_of(path):
    """The entry lines of a model file that model_text wrote (one architecture), or [] when there is none."""
    if not os.path.exists(path):
        return []
    lines = open(path).read().split("\n")
    head = next(i for i, l in enumerate(lines) if l.startswith("# hash"))
    count = int(lines[lines.index("# number of entries") + 1])
    return lines[head + 1:head + 1 + count]


def model_text(entries, seconds_of, kept=None):
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
    rows = {}
    for fp, entry in sorted(entries.items()):
        size, flops = entry[0], entry[1]
        us = seconds_of(entry[-1]) * 1e6
        rows[fp] = "%08x\t%-15d\t%e\t%e\t%e\t%e\t%e\t%d" % (fp, size, flops, us, 0.0, us * samples,
                                                                 us * us * samples, samples)
    for line in kept or []:  # --merge: the entries of the file already there that these tasks do not replace
        rows.setdefault(int(line.split()[0], 16), line)
    lines[lines.index("# number of entries") + 1] = str(len(rows))
    lines += [rows[fp] for fp in sorted(rows)]
    return "\n".join(lines) + "\n\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="the codelets/45 directory to write into")
    ap.add_argument("--host", required=True, help="the model files' host suffix (STARPU_HOSTNAME)")
    ap.add_argument("--n", type=int, action="append", required=True, help="matrix order (repeatable)")
    ap.add_argument("--nb", type=int, action="append", required=True, help="tile order (repeatable)")
    ap.add_argument("--prec", choices=["s", "d"], action="append", help="precision (repeatable; default d)")
    ap.add_argument("--op", choices=["potrf", "getrf", "geqrf", "cholqr"], action="append",
                    help="factorization whose tasks to model (repeatable; default potrf; geqrf: the QR's panel tree, "
                         "cholqr: the Cholesky QR)")
    ap.add_argument("--m", type=int, action="append",
                    help="rows of the QR's matrices (repeatable): geqrf models n x n and each m x n, cholqr each m x n "
                         "with n <= nb (nb: the rows of its tiles)")
    ap.add_argument("--merge", action="store_true",
                    help="keep the entries of the files already in --out that these tasks do not replace")
    a = ap.parse_args()
    if any(v < 1 for v in a.n + a.nb + (a.m or [])):
        sys.exit("synthetic_models.py: --m, --n and --nb must be >= 1")
    os.makedirs(a.out, exist_ok=True)
    merged = {}  # "p:kernel": the tasks of the kernel in precision p
    add = lambda p, kernel, fp, entry: merged.setdefault(  # noqa: E731
        kernel if ":" in kernel else p + ":" + kernel, {}).__setitem__(fp, entry)
    for prec in a.prec or ["d"]:
        esize = 8 if prec == "d" else 4
        for n in a.n:
            for nb in a.nb:
                if "potrf" in (a.op or ["potrf"]):
                    for kernel, entries in cholesky_tasks(n, nb, esize).items():
                        merged.setdefault(prec + ":" + kernel, {}).update(entries)
                if "getrf" in (a.op or []):
                    for kernel, fp, size, flops, work in lu_tasks(n, nb, esize):
                        add(prec, kernel, fp, (size, flops, work))
                for m in sorted({n} | set(a.m or [])) if "geqrf" in (a.op or []) else []:
                    for kernel, fp, size, flops, work in qr_panel_tasks(m, n, nb, esize):
                        add(prec, kernel, fp, (size, flops, work))
                for m in a.m or [] if "cholqr" in (a.op or []) and n <= nb else []:
                    # float: as it runs on GPUs (widened) and as it runs unwidened (STARFACT_QR_WIDEN=off)
                    for widened in [False, True] if prec == "s" else [False]:
                        for kernel, fp, size, flops, work in cholqr_tasks(m, n, nb, esize, widened):
                            add(prec, kernel, fp, (size, flops, work))
    for key, entries in sorted(merged.items()):
        prec, kernel = key.split(":")
        # potrf: the same figures for each diagonal kernel (starpu_chol --diag cusolver, fused, recursive)
        for suffix in (["", "_fused", "_recursive"] if kernel == "potrf" else [""]):
            path = os.path.join(a.out, "starfact_%s%s%s.%s" % (prec, kernel, suffix, a.host))
            kept = entries_of(path) if a.merge else None
            with open(path, "w") as f:
                f.write(model_text(entries, lambda work, p=prec, k=kernel: seconds(p, k, work), kept))

if __name__ == "__main__":
    main()
