#!/usr/bin/env bash
# Multi-GPU scaling of the device-resident tile Cholesky, measured in one call on the device machine
# (docs/multigpu.md).
#
# Here (no GPU):   tools/device.sh prepare
# There (GPUs):    bash tools/multigpu.sh          (device tool: carry .carry, a kind with 4 or 8 GPUs)
#
# For K = 1, 2, 4 (and 8) GPUs, as many as nvidia-smi lists, and n = 65536, 32768 (98304 first with 8 GPUs), double,
# device-resident: starpu_chol --gpu-only --device-resident --ncuda K --n N --no-check --warmup 1 --repeat 3,
# once per placement for K > 1. Each point records the median seconds, TFLOP/s, the speed-up over K = 1 at the same n
# from this same call, each GPU's busy % (two bounds) and the bytes moved between GPUs. The cuSOLVER baseline runs
# with K = 1 where its copies fit one GPU (n <= VENDOR_MAX_N). A point that fails or times out is recorded as such
# and the script goes on; points that would start past the time budget are skipped.
# Writes $OUT/multigpu.csv, $OUT/multigpu.md and the logs of every point packed in $OUT/multigpu_logs.tgz (only a
# few files come back from the device machine).
#
# env: CARRY_DIR (.carry), OUT, NS ("32768 65536"[ 98304]), KS ("1 2 4"[ 8]), PLACEMENTS ("2d cyclic"),
#      PREC (d), WARMUP (1), REPEAT (3), NB (the tile size; default: the tuned plan, 4096 at these orders),
#      POINT_TIMEOUT (s per point, 180), BUDGET (s for the whole script, 540: the device call's limit is 600),
#      VENDOR_MAX_N (32768), STARPU_PERF_MODEL_HOMOGENEOUS_CUDA (1: the GPUs share their performance models)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/tools/device-env.sh" "${CARRY_DIR:-.carry}"
out=$OUT
chol=$(command -v starpu_chol) || { echo "[multigpu] starpu_chol not found: run tools/device.sh prepare here first" >&2; exit 1; }
# Identical GPUs: one performance model per kernel for all of them (StarPU keeps one per device by default, each
# needing its own calibration); the K = 1 runs then calibrate what the K > 1 runs use.
export STARPU_PERF_MODEL_HOMOGENEOUS_CUDA=${STARPU_PERF_MODEL_HOMOGENEOUS_CUDA:-1}
export STARPU_HOME=${STARPU_HOME:-/tmp/starfact-starpu-home}
start=$SECONDS
budget=${BUDGET:-540}
point_timeout=${POINT_TIMEOUT:-180}
prec=${PREC:-d}
warmup=${WARMUP:-1}
repeat=${REPEAT:-3}
vendor_max_n=${VENDOR_MAX_N:-32768}
nb_flags=(); [ -n "${NB:-}" ] && nb_flags=(--nb "$NB")
trap 'cd "$out" && ls multigpu_*.log >/dev/null 2>&1 && tar czf multigpu_logs.tgz multigpu_*.log && rm -f multigpu_*.log' EXIT

ngpu=$(nvidia-smi --list-gpus 2>/dev/null | grep -c '^GPU ')
echo "[multigpu] $ngpu GPU(s):"
nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader 2>/dev/null
nvidia-smi topo -m 2>/dev/null | head -n $((ngpu + 2))
[ "$ngpu" -ge 1 ] || { echo "[multigpu] no GPU" >&2; exit 1; }
# Largest order first: the points the goals name run before the time budget can run out.
default_ks="1 2 4"; default_ns="65536 32768"
[ "$ngpu" -ge 8 ] && { default_ks="1 2 4 8"; default_ns="98304 65536 32768"; }
ks=(); for k in ${KS:-$default_ks}; do [ "$k" -le "$ngpu" ] && ks+=("$k"); done
ns=(${NS:-$default_ns})
cal_n=$(printf '%s\n' "${ns[@]}" | sort -n | head -n 1)  # the smallest: its host and device copies fit one GPU
placements=(${PLACEMENTS:-2d cyclic})

csv=$out/multigpu.csv
echo "n,K,placement,device_grid,status,median_s,TFLOPs,speedup,efficiency,gpu_busy_low,gpu_busy_high,gpu_to_gpu_GB,host_to_gpu_GB,vendor_s,vendor_TFLOPs,log" > "$csv"
declare -A base  # n -> K = 1 median seconds

# One run: label, timeout, starpu_chol flags...; sets rc and log.
run_point() {
    local label=$1 limit=$2; shift 2
    log=$out/multigpu_$label.log
    echo "=== [multigpu] $label: starpu_chol $*"
    local t0=$SECONDS
    timeout --kill-after=10 "$limit" "$chol" "$@" > "$log" 2>&1
    rc=$?
    echo "=== [multigpu] $label: rc=$rc in $((SECONDS - t0)) s"
    grep -E "^(# )?(summary|GPU busy|placement)" "$log" | sed 's/^/    /'
    [ $rc -eq 0 ] || tail -n 5 "$log" | sed 's/^/    ! /'
}

# A value from a point's log: field <name> of the summary / busy lines.
summary_of() { grep -E "^(# )?summary:" "$log" | tail -n 1; }
median_of() { summary_of | sed -nE 's/.*starfact median ([0-9.]+) s.*/\1/p'; }
gflops_of() { summary_of | sed -nE 's/.*starfact median [0-9.]+ s, ([0-9.]+) GFLOP\/s.*/\1/p'; }
moved_of() { summary_of | sed -nE "s/.*$1 ([0-9.]+) GB.*/\1/p"; }
vendor_of() { summary_of | sed -nE 's/.*cusolver median ([0-9.]+) s, ([0-9.]+) GFLOP\/s.*/\1 \2/p'; }
# "dev0 81.2-97.0 dev1 ..." -> "81.2/..." lists of the low and high bounds
busy_of() {
    local line; line=$(grep -E "GPU busy %" "$log" | tail -n 1 | sed -E 's/.*per device://; s/ \(last timed run\)//')
    local lo="" hi="" cell
    for cell in $line; do
        case $cell in dev*) ;; *) lo+="${lo:+/}${cell%-*}"; hi+="${hi:+/}${cell#*-}" ;; esac
    done
    echo "${lo:--} ${hi:--}"
}

# Calibration first (not timed): the kernels' models at this tile size and, on a fresh STARPU_HOME, StarPU's bus
# calibration between the host and every GPU pair (tens of seconds with 8 GPUs).
run_point calibrate 240 --gpu-only --device-resident --ncuda 1 --prec "$prec" --n "$cal_n" --no-check --no-vendor \
    --calibrate --warmup 3 "${nb_flags[@]}"

for n in "${ns[@]}"; do
    for k in "${ks[@]}"; do
        pls=("${placements[@]}"); [ "$k" -eq 1 ] && pls=(2d)  # one GPU: every placement is the same
        for pl in "${pls[@]}"; do
            label=${prec}_n${n}_k${k}_$pl
            if [ $((SECONDS - start + point_timeout)) -gt "$budget" ]; then
                echo "=== [multigpu] $label: skipped (time budget of $budget s)"
                echo "$n,$k,$pl,-,skipped,,,,,,,,,,," >> "$csv"
                continue
            fi
            flags=(--gpu-only --device-resident --ncuda "$k" --prec "$prec" --n "$n" --no-check --warmup "$warmup"
                   --repeat "$repeat" --placement "$pl" "${nb_flags[@]}")
            [ "$k" -gt 1 ] || [ "$n" -gt "$vendor_max_n" ] && flags+=(--no-vendor)
            run_point "$label" "$point_timeout" "${flags[@]}"
            status=ok; [ $rc -eq 124 ] || [ $rc -eq 137 ] && status=timeout; [ $rc -ne 0 ] && [ $status = ok ] && status="rc$rc"
            t=$(median_of); gf=$(gflops_of)
            [ -z "$t" ] && [ $status = ok ] && status=no-summary
            grid=$(grep -oE "device-grid=[0-9]+x[0-9]+" "$log" | head -n 1 | cut -d= -f2); [ -n "$grid" ] || grid=-
            read -r lo hi <<< "$(busy_of)"
            g2g=$(moved_of "GPU->GPU"); h2g=$(moved_of "host->GPU")
            [ -n "$g2g" ] || g2g=$([ "$k" -gt 1 ] && [ -n "$h2g" ] && echo 0 || echo -)  # printed only when non-zero
            read -r vt vg <<< "$(vendor_of)"
            tf=""; [ -n "$gf" ] && tf=$(awk -v g="$gf" 'BEGIN{printf "%.2f", g/1000}')
            vtf=""; [ -n "${vg:-}" ] && vtf=$(awk -v g="$vg" 'BEGIN{printf "%.2f", g/1000}')
            [ "$k" -eq 1 ] && [ -n "$t" ] && base[$n]=$t
            sp=""; eff=""
            if [ -n "$t" ] && [ -n "${base[$n]:-}" ]; then
                sp=$(awk -v b="${base[$n]}" -v t="$t" 'BEGIN{printf "%.2f", b/t}')
                eff=$(awk -v s="$sp" -v k="$k" 'BEGIN{printf "%.0f", 100*s/k}')
            fi
            echo "$n,$k,$pl,$grid,$status,$t,$tf,$sp,$eff,$lo,$hi,$g2g,${h2g:--},${vt:-},$vtf,$(basename "$log")" >> "$csv"
        done
    done
done

# Batched posv of 10^6 matrices of order 32: bench_batched_chol drives one GPU (its kernels on one stream, no device
# flag); the StarPU form (starfact::batched::posv on host arrays, one task per chunk) spreads over every CUDA worker
# but has no driver yet (docs/multigpu.md says what it needs). The one-GPU number is recorded for reference.
batched=""
if command -v bench_batched_chol >/dev/null && [ $((SECONDS - start + 120)) -le "$budget" ]; then
    log=$out/multigpu_batched_n32_k1.log
    echo "=== [multigpu] batched: bench_batched_chol --sizes 32 --batches 1000000 --prec $prec (1 GPU)"
    timeout --kill-after=10 120 bench_batched_chol --sizes 32 --batches 1000000 --prec "$prec" --no-cpu --quick \
        --warmup 2 --repeat 5 > "$log" 2>&1
    echo "=== [multigpu] batched posv n=32 x 10^6 on 1 GPU: rc=$?"
    batched=$(grep -oE "posv +[0-9.]+ us \(fused +[0-9.]+, two-pass +[0-9.]+\)" "$log" | tail -n 1)
    [ -n "$batched" ] || batched="no posv line (see $(basename "$log"))"
    echo "$batched" | sed 's/^/    /'
fi

md=$out/multigpu.md
{
    echo "# Multi-GPU tile Cholesky ($prec, device-resident, $ngpu GPU(s) present)"
    echo
    nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sort | uniq -c | sed 's/^ */GPUs: /'
    echo
    echo "starpu_chol --gpu-only --device-resident --ncuda K --n N --no-check --warmup $warmup --repeat $repeat" \
         "--placement P (--no-vendor for K > 1 and n > $vendor_max_n); median of the timed runs; speed-up over K = 1" \
         "at the same n in this call; GPU busy %: per GPU, busiest stream - summed streams, last timed run;" \
         "STARPU_PERF_MODEL_HOMOGENEOUS_CUDA=$STARPU_PERF_MODEL_HOMOGENEOUS_CUDA."
    echo
    echo "| n | K | placement | device grid | status | median s | TFLOP/s | speed-up | efficiency % | GPU busy % (low) | GPU busy % (high) | GPU->GPU GB | cuSOLVER s | cuSOLVER TFLOP/s |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    tail -n +2 "$csv" | while IFS=, read -r n k pl grid st t tf sp eff lo hi g2g h2g vt vtf lg; do
        echo "| $n | $k | $pl | $grid | $st | ${t:--} | ${tf:--} | ${sp:--} | ${eff:--} | ${lo:--} | ${hi:--} | ${g2g:--} | ${vt:--} | ${vtf:--} |"
    done
    echo
    echo "Goals: speed-up >= 1.8 on 2 GPUs and >= 3.4 on 4 at n = 65536, >= 6.5 on 8 at n = 98304."
    if [ -n "$batched" ]; then
        echo
        echo "Batched posv, 10^6 matrices of n = 32, one GPU (bench_batched_chol; no multi-GPU batched driver yet):"
        echo
        echo '```'
        echo "$batched"
        echo '```'
    fi
} > "$md"
echo
cat "$md"
echo "[multigpu] $csv, $md and the logs in $out ($((SECONDS - start)) s)"
