#!/usr/bin/env bash
# Traces a small CPU-only factorization with FxT, renders it with ViTE (headless SVG export) and
# checks that the picture holds one state per task, in each kernel's colour, and that the
# self-contained Gantt SVG holds every task. Exit 77 (ctest: skipped) without ViTE.
#   tests/trace_vite.sh STARPU_CHOL_BINARY
set -euo pipefail
chol=$1
command -v vite >/dev/null || { echo "vite not installed: skipped"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# n = 1200, nb = 200: mt = 6 -> 6 potrf, 15 trsm, 15 syrk, 20 gemm.
"$chol" --cpu-only --n 1200 --nb 200 --warmup 1 --repeat 1 --no-vendor --trace "$dir/trace"
test -s "$dir/trace/paje.trace" && test -s "$dir/trace/dag.dot" && test -s "$dir/trace/tasks.rec"
# The picture spans the tasks (tasks.rec's first start to last end, 1% more on each side), not the whole trace,
# whose start-up and warm-up, long on a loaded machine, would leave the shortest states (potrf) under a pixel,
# where ViTE draws some of them not at all.
span=$(awk '/^StartTime:/ { if (t0 == "" || $2 < t0) t0 = $2 } /^EndTime:/ { if (t1 == "" || $2 > t1) t1 = $2 }
            END { if (t0 != "" && t1 != "") { m = (t1 - t0) / 100; printf "-t %f:%f", t0 - m, t1 + m } }' \
         "$dir/trace/tasks.rec")
# shellcheck disable=SC2086
QT_QPA_PLATFORM=offscreen vite -f "$dir/trace/paje.trace" $span -e "$dir/vite.svg" > "$dir/vite.log" 2>&1 || {
    cat "$dir/vite.log"; exit 1; }
fail=0
check() {  # kernel, expected count, rgb regex as ViTE writes it
    local got
    got=$(grep -cE "fill=\"rgb\\($3\\)\"" "$dir/vite.svg" || true)
    echo "ViTE states for $1: $got (expected $2)"
    [ "$got" = "$2" ] || fail=1
}
check potrf 6 "214,39,40"
check trsm 15 "31,119,180"
check syrk 15 "44,160,44"
check gemm 20 "25[56],127,14"
tasks=$(grep -c "<title>" "$dir/trace/gantt.svg")
echo "Gantt tasks: $tasks (expected 56)"
[ "$tasks" = 56 ] || fail=1
for k in potrf trsm syrk gemm; do grep -q ">$k</text>" "$dir/trace/gantt.svg" || { echo "no $k in the Gantt legend"; fail=1; }; done
[ $fail = 0 ] && echo "trace test passed" || { echo "trace test FAILED"; exit 1; }
