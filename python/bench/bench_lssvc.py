"""starfact.svm.LSSVC on Fashion-MNIST against the C++ application examples/lssvm (starfact_lssvm), in one call.

First the C++ program (when --driver names it, or starfact_lssvm is on PATH) on the same data with the same model
(RBF, gamma "scale", C, double, GPU-only with a GPU, --no-vendor), its CSV read back; then, in this process,
LSSVC(C=...).fit on the training images as arrays of --lib (torch or cupy: on the GPU; numpy: on the host), timed
from the call to its return (the device synchronized), median of --repeat after --warmup, and the test accuracy of
the last fit.

fit covers what the C++ program's "solve" column covers (assembly, factorization, solve, completion times from its
start) plus the tile allocation the C++ program reports apart as setup; both are printed, with the ratios.

    python3 python/bench/bench_lssvc.py [--data-dir /usr/share/datasets/fashion-mnist] [--lib torch] [--C 100]
                                        [--warmup 1] [--repeat 2] [--driver PATH] [--json FILE]
                                        [--factor tf32|tf32x3|auto|...]

--factor: the mixed-precision solve's factor precision (LSSVC(factor=...), starfact_lssvm --factor-prec), its report
printed after each fit.
"""
import argparse
import csv
import gzip
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy

import starfact
from starfact.svm import LSSVC


def read_idx(path):
    """An IDX file (gzip or plain) as a NumPy array."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        raw = f.read()
    ndim = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return numpy.frombuffer(raw, dtype=numpy.uint8, offset=4 + 4 * ndim).reshape(dims)


def fashion_mnist(data_dir, train_size=None):
    """(x_train, y_train, x_test, y_test): pixels / 255 as float64, labels as int64."""
    def load(stem):
        """The IDX file `stem`, gzip'd or plain."""
        for name in (stem + ".gz", stem):
            p = os.path.join(data_dir, name)
            if os.path.exists(p):
                return read_idx(p)
        raise FileNotFoundError(os.path.join(data_dir, stem + "[.gz]"))
    xtr = load("train-images-idx3-ubyte").reshape(60000, -1) / 255.0
    ytr = load("train-labels-idx1-ubyte").astype(numpy.int64)
    xte = load("t10k-images-idx3-ubyte").reshape(10000, -1) / 255.0
    yte = load("t10k-labels-idx1-ubyte").astype(numpy.int64)
    if train_size:
        xtr, ytr = xtr[:train_size], ytr[:train_size]
    return xtr, ytr, xte, yte


def run_driver(driver, args):
    """The C++ application's double Cholesky row: {column: value} of its CSV, or None."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "lssvm.csv")
        cmd = [driver, "--data-dir", args.data_dir, "--prec", "d", "--solver", "cholesky", "--C", str(args.C),
               "--gpu-only" if starfact.cuda_device_count() > 0 else "--cpu-only", "--no-vendor", "--no-check",
               "--warmup", str(args.warmup), "--repeat", str(args.repeat), "--csv", out]
        if args.train_size:
            cmd += ["--train-size", str(args.train_size)]
        if args.factor:
            cmd += ["--factor-prec", args.factor]
        print("# " + " ".join(cmd), flush=True)
        p = subprocess.run(cmd, capture_output=True, text=True, check=False)
        print("\n".join("#   " + line for line in p.stdout.strip().splitlines()[-6:]), flush=True)
        if p.returncode != 0 or not os.path.exists(out):
            print("# starfact_lssvm failed (%d): %s" % (p.returncode, p.stderr.strip()[-500:]))
            return None
        with open(out) as f:
            rows = [r for r in csv.DictReader(f) if r["solver"].startswith("cholesky") or "chol" in r["solver"]]
        return rows[-1] if rows else None


class Sync:
    """The array library's device arrays, synchronization and cache release (torch, cupy; numpy: none)."""
    def __init__(self, lib):
        self.lib = lib
        if lib == "torch":
            import torch  # pylint: disable=import-outside-toplevel
            self.mod = torch
        elif lib == "cupy":
            import cupy  # pylint: disable=import-outside-toplevel
            self.mod = cupy

    def array(self, x):
        """x as an array of the library (on its current device)."""
        if self.lib == "torch":
            return self.mod.as_tensor(x, device="cuda")
        if self.lib == "cupy":
            return self.mod.asarray(x)
        return x

    def __call__(self):
        if self.lib == "torch":
            self.mod.cuda.synchronize()
        elif self.lib == "cupy":
            self.mod.cuda.Device().synchronize()

    def free(self):
        """Releases the library's cached device memory."""
        if self.lib == "torch":
            self.mod.cuda.empty_cache()
        elif self.lib == "cupy":
            self.mod.get_default_memory_pool().free_all_blocks()


def main():
    """Runs the C++ application, then the fits; prints the times, accuracy and ratios."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data-dir", default="/usr/share/datasets/fashion-mnist")
    p.add_argument("--lib", default="torch", choices=["torch", "cupy", "numpy"])
    p.add_argument("--C", type=float, default=100.0)
    p.add_argument("--train-size", type=int, default=0)
    p.add_argument("--warmup", type=int, default=1)
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--driver", default=shutil.which("starfact_lssvm"))
    p.add_argument("--min-accuracy", type=float, default=0.0)
    p.add_argument("--json")
    p.add_argument("--factor", default=None, help="factor precision of the mixed-precision solve (default: none)")
    args = p.parse_args()

    xtr, ytr, xte, yte = fashion_mnist(args.data_dir, args.train_size)
    print("# Fashion-MNIST: %d training, %d test images, %d features" % (xtr.shape[0], xte.shape[0], xtr.shape[1]))
    cpp = run_driver(args.driver, args) if args.driver else None

    sync = Sync(args.lib)
    rt = starfact.Runtime()
    print("# " + rt.describe(), flush=True)
    x = sync.array(xtr)
    times = []
    clf = None
    for i in range(args.warmup + args.repeat):
        clf = None
        sync.free()
        sync()
        t0 = time.perf_counter()
        clf = LSSVC(C=args.C, factor=args.factor).fit(x, ytr)
        sync()
        if i >= args.warmup:
            times.append(time.perf_counter() - t0)
        if clf.solve_report_ is not None:
            r = clf.solve_report_
            print("#   fit %d: %.3f s; solve %s, factor %s, %d factorization(s), %d + %d GMRES iterations, "
                  "backward error %.2e%s" % (i, time.perf_counter() - t0, r.path, r.factor, r.factorizations,
                                             r.iterations, r.gmres_iterations, r.backward_error,
                                             ("; " + r.reason) if r.reason else ""), flush=True)
    fit_s = statistics.median(times)
    t0 = time.perf_counter()
    accuracy = float((clf.predict(sync.array(xte)) == yte).mean())
    predict_s = time.perf_counter() - t0
    row = {"lib": args.lib, "factor": args.factor, "n": int(xtr.shape[0]), "C": args.C, "gamma": clf.gamma_, "fit_s": fit_s,
           "fit_runs": times, "predict_s": predict_s, "test_accuracy": accuracy}
    print("LSSVC(C=%g, factor=%s).fit  %s  n=%d  gamma %.4f  fit %.3f s (runs %s)  predict %.3f s  test accuracy %.4f"
          % (args.C, args.factor, args.lib, row["n"], clf.gamma_, fit_s, ", ".join("%.3f" % t for t in times), predict_s,
             accuracy))
    if cpp:
        solve_s, setup_s = float(cpp["solve_s"]), float(cpp["setup_s"])
        row.update({"cpp_setup_s": setup_s, "cpp_assemble_s": float(cpp["assemble_s"]),
                    "cpp_factor_s": float(cpp["factor_s"]), "cpp_solve_s": solve_s,
                    "cpp_total_s": float(cpp["total_s"]), "cpp_test_accuracy": float(cpp["test_accuracy"] or "nan"),
                    "fit_over_cpp_solve": fit_s / solve_s, "fit_over_cpp_setup_solve": fit_s / (setup_s + solve_s)})
        print("starfact_lssvm  assembled+factored+solved at %.3f s (setup %.3f s apart)  test accuracy %s  ->  "
              "Python fit / C++ solve %.3f, / (setup + solve) %.3f"
              % (solve_s, setup_s, cpp["test_accuracy"], row["fit_over_cpp_solve"], row["fit_over_cpp_setup_solve"]))
    rt.close()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(row, f, indent=1)
    return 0 if accuracy >= args.min_accuracy else 3


if __name__ == "__main__":
    sys.exit(main())
