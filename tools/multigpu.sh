#!/usr/bin/env bash
# Multi-GPU and multi-rank scaling of the tile factorizations, measured in one call on the device machine
# (docs/multigpu.md).
#
# Here (no GPU):   tools/device.sh prepare
# There (GPUs):    bash tools/multigpu.sh          (device tool: carry .carry, any kind; K runs over the GPUs present)
#
# For K = 1, 2, 4, 8 GPUs (as many as nvidia-smi lists), double:
#   chol   starpu_chol --gpu-only --device-resident --ncuda K --n N --no-check, N in NS (65536 32768): tiles generated
#          on their GPUs; the cuSOLVER baseline (one cusolverDnXpotrf call on GPU 0, on its own copy of the same
#          matrix) runs in the same process at every K;
#   host   starpu_chol --gpu-only --ncuda K --n HOST_N --no-check: host-resident (pinned) tiles, against cuSOLVER plus
#          its copies from pinned host memory on GPU 0;
#   lu     starpu_lu --gpu-only --device-resident --ncuda K --n LU_N --no-check --no-vendor;
#   mpi    mpirun -np K starpu_chol --gpu-only --device-resident --n MPI_N --no-check --grid 1xK: one rank per GPU,
#          each Runtime taking the GPU of its node-local rank;
#   batched  bench_batched_gpus --n 32 --batch 1000000 --gpus K: starfact::batched::posv on pinned host arrays, the
#          chunks spread over the K GPUs.
# Speed-ups are over K = 1 of the same kind and n in this same call. A point that fails or times out is recorded as
# such and the script goes on; points that would start past the time budget are skipped.
# Writes $OUT/multigpu.csv, $OUT/multigpu.md and the logs of every point packed in $OUT/multigpu_logs.tgz.
#
# env: CARRY_DIR (.carry), OUT, KINDS ("chol host lu mpi batched"), NS ("65536 32768"), HOST_N (65536), LU_N (65536),
#      MPI_N (65536), KS (every K <= the GPU count of 1 2 4 8), PLACEMENTS ("2d"; "2d cyclic" adds the cyclic
#      placement), PREC (d), WARMUP (1), REPEAT (3), NB (tile size; default: the tuned plan), POINT_TIMEOUT (s per
#      point, 150), BUDGET (s for the whole script, 560: the device call's limit is 600),
#      STARPU_PERF_MODEL_HOMOGENEOUS_CUDA (1: the GPUs share their performance models)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/tools/device-env.sh" "${CARRY_DIR:-.carry}"
out=$OUT
chol=$(command -v starpu_chol) || { echo "[multigpu] starpu_chol not found: run tools/device.sh prepare here first" >&2; exit 1; }
lu=$(command -v starpu_lu || true)
# Identical GPUs: one performance model per kernel for all of them (StarPU keeps one per device by default, each
# needing its own calibration); the K = 1 runs then calibrate what the K > 1 runs use.
export STARPU_PERF_MODEL_HOMOGENEOUS_CUDA=${STARPU_PERF_MODEL_HOMOGENEOUS_CUDA:-1}
export STARPU_HOME=${STARPU_HOME:-/tmp/starfact-starpu-home}
start=$SECONDS
budget=${BUDGET:-560}
point_timeout=${POINT_TIMEOUT:-150}
prec=${PREC:-d}
warmup=${WARMUP:-1}
repeat=${REPEAT:-3}
nb_flags=(); [ -n "${NB:-}" ] && nb_flags=(--nb "$NB")
trap 'cd "$out" && ls multigpu_*.log >/dev/null 2>&1 && tar czf multigpu_logs.tgz multigpu_*.log && rm -f multigpu_*.log' EXIT

ngpu=$(nvidia-smi --list-gpus 2>/dev/null | grep -c '^GPU ')
echo "[multigpu] $ngpu GPU(s):"
nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader 2>/dev/null
nvidia-smi topo -m 2>/dev/null | head -n $((ngpu + 2))
[ "$ngpu" -ge 1 ] || { echo "[multigpu] no GPU" >&2; exit 1; }
ks=(); for k in ${KS:-1 2 4 8}; do [ "$k" -le "$ngpu" ] && ks+=("$k"); done
kinds=(${KINDS:-chol host lu mpi batched})
ns=(${NS:-65536 32768})
placements=(${PLACEMENTS:-2d})
# One rank per GPU on one node: Open MPI as root, shared memory only.
mpi_env=(env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1)

csv=$out/multigpu.csv
echo "kind,n,K,placement,status,median_s,TFLOPs,speedup,efficiency,vendor,vendor_s,vendor_TFLOPs,ratio,gpu_busy_high,gpu_to_gpu_GB,host_to_gpu_GB,log" > "$csv"
declare -A base  # kind/n -> K = 1 median seconds

# One run: label, timeout, command...; sets rc and log.
run_point() {
    local label=$1 limit=$2; shift 2
    log=$out/multigpu_$label.log
    echo "=== [multigpu] $label: $*"
    local t0=$SECONDS
    timeout --kill-after=10 "$limit" "$@" > "$log" 2>&1
    rc=$?
    echo "=== [multigpu] $label: rc=$rc in $((SECONDS - t0)) s"
    grep -E "^(# )?(summary|GPU busy|placement|vendor)" "$log" | sed 's/^/    /'
    [ $rc -eq 0 ] || tail -n 6 "$log" | sed 's/^/    ! /'
}

summary_of() { grep -E "^(# )?summary:" "$log" | tail -n 1; }
median_of() { summary_of | sed -nE 's/.*starfact( posv)? median ([0-9.]+) s.*/\2/p'; }
gflops_of() { summary_of | sed -nE 's/.*starfact( posv)? median [0-9.]+ s, ([0-9.]+) GFLOP\/s.*/\2/p'; }
moved_of() { summary_of | sed -nE "s/.*$1 ([0-9.]+) GB.*/\1/p"; }
# The vendor named `name` in the summary: "seconds GFLOP/s" (the GFLOP/s only where printed).
vendor_of() { summary_of | sed -nE "s/.*; $1 median ([0-9.]+) s(, ([0-9.]+) GFLOP\/s)?.*/\1 \3/p"; }
busy_high_of() {
    local line cell hi=""
    line=$(grep -E "GPU busy %" "$log" | tail -n 1 | sed -E 's/.*per device://; s/ \(last timed run\)//')
    for cell in $line; do case $cell in dev*) ;; *) hi+="${hi:+/}${cell#*-}" ;; esac; done
    echo "${hi:--}"
}

# Records the point just run: kind, n, K, placement, vendor name ("" for none).
record() {
    local kind=$1 n=$2 k=$3 pl=$4 vname=$5
    local status=ok
    { [ $rc -eq 124 ] || [ $rc -eq 137 ]; } && status=timeout
    [ $rc -ne 0 ] && [ $status = ok ] && status="rc$rc"
    local t gf; t=$(median_of); gf=$(gflops_of)
    [ -z "$t" ] && [ $status = ok ] && status=no-summary
    local tf=""; [ -n "$gf" ] && tf=$(awk -v g="$gf" 'BEGIN{printf "%.2f", g/1000}')
    [ "$k" -eq 1 ] && [ -n "$t" ] && base[$kind/$n]=$t
    local sp="" eff=""
    if [ -n "$t" ] && [ -n "${base[$kind/$n]:-}" ]; then
        sp=$(awk -v b="${base[$kind/$n]}" -v t="$t" 'BEGIN{printf "%.2f", b/t}')
        eff=$(awk -v s="$sp" -v k="$k" 'BEGIN{printf "%.0f", 100*s/k}')
    fi
    local vt="" vg="" vtf="" ratio=""
    if [ -n "$vname" ]; then
        read -r vt vg <<< "$(vendor_of "$vname")"
        [ -n "${vg:-}" ] && vtf=$(awk -v g="$vg" 'BEGIN{printf "%.2f", g/1000}')
        [ -n "$t" ] && [ -n "${vt:-}" ] && ratio=$(awk -v v="$vt" -v t="$t" 'BEGIN{printf "%.2f", v/t}')
    fi
    local g2g h2g; g2g=$(moved_of "GPU->GPU"); h2g=$(moved_of "host->GPU")
    echo "$kind,$n,$k,$pl,$status,$t,$tf,$sp,$eff,${vname//\\/},${vt:-},$vtf,$ratio,$(busy_high_of),${g2g:--},${h2g:--},$(basename "$log")" >> "$csv"
}

over_budget() {  # label: true (and a skipped row) when the point could not finish within the budget
    if [ $((SECONDS - start + point_timeout)) -gt "$budget" ]; then
        echo "=== [multigpu] $1: skipped (time budget of $budget s)"
        echo "$2,$3,$4,$5,skipped,,,,,,,,,,,," >> "$csv"
        return 0
    fi
    return 1
}

common=(--prec "$prec" --no-check --warmup "$warmup" --repeat "$repeat" "${nb_flags[@]}")
# Calibration first (not timed): the kernels' models at the plan's tile size and, on a fresh STARPU_HOME, StarPU's bus
# calibration between the host and every GPU pair.
cal_n=$(printf '%s\n' "${ns[@]}" | sort -n | head -n 1)
run_point calibrate 200 "$chol" --gpu-only --device-resident --ncuda 1 --prec "$prec" --n "$cal_n" --no-check \
    --no-vendor --calibrate --warmup 3 "${nb_flags[@]}"

for kind in "${kinds[@]}"; do
    case $kind in
    chol)
        for n in "${ns[@]}"; do for k in "${ks[@]}"; do
            pls=("${placements[@]}"); [ "$k" -eq 1 ] && pls=(2d)  # one GPU: every placement is the same
            for pl in "${pls[@]}"; do
                label=chol_${prec}_n${n}_k${k}_$pl
                over_budget "$label" chol "$n" "$k" "$pl" && continue
                run_point "$label" "$point_timeout" "$chol" --gpu-only --device-resident --ncuda "$k" --n "$n" \
                    --placement "$pl" "${common[@]}"
                record chol "$n" "$k" "$pl" cusolver
            done
        done; done ;;
    host)
        n=${HOST_N:-65536}
        for k in "${ks[@]}"; do
            label=host_${prec}_n${n}_k$k
            over_budget "$label" host "$n" "$k" - && continue
            run_point "$label" "$point_timeout" "$chol" --gpu-only --ncuda "$k" --n "$n" "${common[@]}"
            record host "$n" "$k" - "cusolver\+copies"
        done ;;
    lu)
        [ -n "$lu" ] || { echo "=== [multigpu] lu: starpu_lu not carried"; continue; }
        n=${LU_N:-65536}
        for k in "${ks[@]}"; do
            label=lu_${prec}_n${n}_k$k
            over_budget "$label" lu "$n" "$k" 2d && continue
            run_point "$label" "$point_timeout" "$lu" --gpu-only --device-resident --ncuda "$k" --n "$n" --no-vendor \
                "${common[@]}"
            record lu "$n" "$k" 2d ""
        done ;;
    mpi)
        command -v mpirun >/dev/null || { echo "=== [multigpu] mpi: no mpirun on this machine"; continue; }
        n=${MPI_N:-65536}
        for k in "${ks[@]}"; do
            label=mpi_${prec}_n${n}_r$k
            over_budget "$label" mpi "$n" "$k" "1x$k" && continue
            run_point "$label" "$point_timeout" "${mpi_env[@]}" mpirun -np "$k" "$chol" --gpu-only --device-resident \
                --n "$n" --grid "1x$k" "${common[@]}"
            record mpi "$n" "$k" "1x$k" ""
        done ;;
    batched)
        command -v bench_batched_gpus >/dev/null || { echo "=== [multigpu] batched: bench_batched_gpus not carried"; continue; }
        for k in "${ks[@]}"; do
            label=batched_${prec}_n32_k$k
            over_budget "$label" batched 32 "$k" - && continue
            run_point "$label" "$point_timeout" bench_batched_gpus --n 32 --batch 1000000 --prec "$prec" --gpus "$k" \
                --warmup "$warmup" --repeat "$repeat"
            # Its table row: GPUs, median s, matrices/s, speed-up, residual; kept as a starfact summary line.
            t=$(awk -v k="$k" '$1 == k && $2 ~ /^[0-9.]+$/ {print $2}' "$log" | tail -n 1)
            [ -n "$t" ] && echo "summary: starfact median $t s, 0 GFLOP/s (batched posv of 10^6 matrices)" >> "$log"
            record batched 32 "$k" - ""
        done ;;
    *) echo "[multigpu] unknown kind '$kind' (chol host lu mpi batched)" >&2 ;;
    esac
done

md=$out/multigpu.md
{
    echo "# Multi-GPU tile factorizations ($prec, $ngpu GPU(s) present)"
    echo
    nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sort | uniq -c | sed 's/^ */GPUs: /'
    echo
    echo "Median of $repeat timed runs after $warmup warm-up; speed-up over K = 1 of the same kind and n in this call;" \
         "ratio = vendor seconds / starfact seconds (> 1: starfact faster); vendor: one cuSOLVER call on GPU 0 on its own" \
         "copy of the same matrix (chol), plus its copies from pinned host memory (host); GPU busy %: busiest stream" \
         "per GPU, last timed run. Commands: tools/multigpu.sh's header."
    echo
    echo "| kind | n | K | placement | status | median s | TFLOP/s | speed-up | efficiency % | vendor | vendor s | ratio | GPU busy % | GPU->GPU GB | host->GPU GB |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    tail -n +2 "$csv" | while IFS=, read -r kind n k pl st t tf sp eff vn vt vtf ratio busy g2g h2g lg; do
        echo "| $kind | $n | $k | $pl | $st | ${t:--} | ${tf:--} | ${sp:--} | ${eff:--} | ${vn:--} | ${vt:--} | ${ratio:--} | ${busy:--} | ${g2g:--} | ${h2g:--} |"
    done
} > "$md"
echo
cat "$md"
echo "[multigpu] $csv, $md and the logs in $out ($((SECONDS - start)) s)"
