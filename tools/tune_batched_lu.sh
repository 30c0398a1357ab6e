#!/usr/bin/env bash
# Tuning sweep of the batched LU kernels (nFTB, shared-memory staging, pivot search, look-ahead,
# register cap; n = 8, 16, 32, float and double) feeding the table in
# kernels/batched_lu/tuning.hpp and docs/batched_lu.md.
#   Here (no GPU):  tools/tune_batched_lu.sh prepare
#       builds bench_batched_lu with -DSTARFACT_BATCHED_LU_SWEEP=ON into build-batched_lu-sweep/ and
#       copies the binaries and StarPU libraries into .carry-batched_lu (tools/device.sh prepare).
#   There (GPU):    bash tools/tune_batched_lu.sh run [BATCH]
#       prints one line per variant: getrf and inverse times and % of the copy bandwidth.
#   There (GPU):    bash tools/tune_batched_lu.sh device
#       one device round as recorded in docs/batched_lu.md: GPU tests, memcheck and racecheck on the
#       [sanitize] cases, the sweep, the 10^6 bench (CSV) and the 10^5 bench; logs into $OUT.
#   Here:           tools/tune_batched_lu.sh plot BENCH_CSV [PNG]
#       draws docs/batched_lu_gflops.png from a `bench_batched_lu --csv` file (Debian's
#       python3-matplotlib, /usr/bin/python3).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
case ${1:-} in
prepare)
    build=${BUILD_DIR:-$root/build-batched_lu-sweep}
    # The option is cached in the build dir, so device.sh's plain configure keeps it.
    cmake -S "$root" -B "$build" -DSTARFACT_BATCHED_LU_SWEEP=ON >/dev/null
    CARRY_DIR=${CARRY_DIR:-.carry-batched_lu} BUILD_DIR=$build \
        TARGETS="${TARGETS:-bench_batched_lu test_batched_lu_gpu}" "$root/tools/device.sh" prepare ;;
run)
    source "$root/tools/device-env.sh" "${CARRY_DIR:-.carry-batched_lu}"
    bench_batched_lu --sweep --batch "${2:-1000000}" --warmup 2 --repeat 5 ;;
device)
    source "$root/tools/device-env.sh" "${CARRY_DIR:-.carry-batched_lu}"
    set +e
    test_batched_lu_gpu > "$OUT/tests.log" 2>&1; echo "tests rc=$?"; tail -2 "$OUT/tests.log"
    { compute-sanitizer --tool memcheck --error-exitcode 9 test_batched_lu_gpu "[sanitize]"; echo "memcheck rc=$?"
      compute-sanitizer --tool racecheck --error-exitcode 9 test_batched_lu_gpu "[sanitize]"; echo "racecheck rc=$?"
    } > "$OUT/sanitize.log" 2>&1
    grep -E "rc=|ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/sanitize.log"
    bench_batched_lu --sweep --batch 1000000 > "$OUT/sweep.log" 2>&1; echo "sweep rc=$?"
    bench_batched_lu --n 2-32 --batch 1000000 --csv "$OUT/bench_1e6.csv" > "$OUT/bench_1e6.log" 2>&1; echo "bench rc=$?"
    bench_batched_lu --n 8,16,32 --batch 100000 --cpu-batch 0 > "$OUT/bench_1e5.log" 2>&1; echo "bench 1e5 rc=$?" ;;
plot)
    /usr/bin/python3 - "${2:?bench CSV}" "${3:-$root/docs/batched_lu_gflops.png}" <<'PY'
import csv, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
src, png = sys.argv[1], sys.argv[2]
with open(src) as f:
    r = csv.reader(f)
    head = next(r)
    rows = [dict(zip(head, x[:len(head)])) for x in r if x]
fig, axes = plt.subplots(2, 2, figsize=(13, 9), sharex=True)
series = {
    "getrf": [("getrf_GFs", "starfact batched::device::getrf", "-o"), ("cublas_getrf_GFs", "cuBLAS getrfBatched", "--s"),
              ("cpu_getrf_GFs", "LAPACKE loop (CPU, all cores)", ":^")],
    "inverse": [("inv_GFs", "starfact batched::device::inverse (fused)", "-o"),
                ("cublas_getri_GFs", "cuBLAS getrfBatched + getriBatched", "--s"),
                ("cublas_matinv_GFs", "cuBLAS matinvBatched", "-.d"), ("cpu_inv_GFs", "LAPACKE getrf+getri loop (CPU)", ":^")],
}
for col, prec in enumerate(["s", "d"]):
    sel = [x for x in rows if x["prec"] == prec]
    if not sel:
        continue
    batch = sel[0]["batch"]
    n = [int(x["n"]) for x in sel]
    for row, (op, lines) in enumerate(series.items()):
        ax = axes[row][col]
        for key, label, style in lines:
            ax.plot(n, [float(x[key]) for x in sel], style, ms=3, label=label)
        ax.set_yscale("log")
        ax.set_title(f"{op}, {'float' if prec == 's' else 'double'}, batch {int(batch):,}, H100")
        ax.set_ylabel("GFLOP/s (LAWN 41)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
for ax in axes[1]:
    ax.set_xlabel("n")
fig.tight_layout()
fig.savefig(png, dpi=110)
print("wrote", png)
PY
    ;;
*)
    echo "usage: tools/tune_batched_lu.sh prepare | run [BATCH] | device | plot BENCH_CSV [PNG]" >&2
    exit 1 ;;
esac
