#!/usr/bin/env bash
# On the GPU machine: records the performance models that simulated runs read (sim/README.md, docs/simulation.md),
# then times a few real runs of the same configurations, to compare with their simulation.
#   source tools/device-env.sh CARRY_DIR; bash CARRY_DIR/calibrate.sh      (starpu_chol, starpu_lu of a CUDA build
#                                                                            on PATH)
# Writes under $OUT: models/ (codelets/45/*.$SIM_HOST and StarPU's bus calibration bus/$SIM_HOST.*), models.tgz,
# calibrate.log, validate.csv (real runs), gpu.txt; for the LU (SIM_OPS with getrf) models-lu/, models-lu.tgz,
# calibrate-lu.log, validate-lu.csv; for the QR (SIM_OPS with geqrf) models-qr/, models-qr.tgz, calibrate-qr.log,
# validate-qr.csv.
# Knobs: SIM_HOST (default h100: the models' host name), SIM_OPS (default "potrf getrf": the Cholesky's models, the
# LU's; geqrf: the QR's), SIM_NBS (tile orders, default "512 1024 2048 4096"), SIM_PRECS (default "d s"), SIM_TILES (tiles per side of
# the Cholesky's calibration runs, default 8); SIM_LU_RUNS and SIM_LU_VALIDATE, SIM_QR_RUNS and SIM_QR_VALIDATE
# (below).
set -uo pipefail
out=${OUT:?source tools/device-env.sh first (it sets OUT)}
host=${SIM_HOST:-h100}
ops=" ${SIM_OPS:-potrf getrf} "
models=$out/models
mkdir -p "$models"
export STARPU_HOSTNAME=$host  # StarPU names the model and bus files after it
unset STARPU_HOME             # --perfmodel-dir then decides where they go
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,driver_version --format=csv > "$out/gpu.txt" 2>&1
if [[ $ops == *" potrf "* ]]; then
# One worker per GPU (--streams 1), as StarPU's SimGrid mode runs them; tiles generated and imported by the driver.
for prec in ${SIM_PRECS:-d s}; do
  for nb in ${SIM_NBS:-512 1024 2048 4096}; do
    n=$((nb * ${SIM_TILES:-8}))
    echo "== calibrate prec $prec nb $nb n $n"
    starpu_chol --gpu-only --device-resident --streams 1 --prec "$prec" --nb "$nb" --n "$n" --calibrate \
      --perfmodel-dir "$models" 2>&1 | tail -4
  done
done > "$out/calibrate.log" 2>&1
tar -C "$out" -czf "$out/models.tgz" models  # before the runs below add their samples
# Real runs to compare with tools/simulate.sh --models sim/models/$host --gpus 1 -- <the same flags>: one worker per
# GPU as simulated, then the default four streams (what the simulation does not model); on a copy of the models.
cp -r "$models" "$out/models-validate"
models=$out/models-validate
{
  for cfg in "d 1024 16384" "d 2048 32768" "s 2048 32768" "d 4096 32768"; do
    set -- $cfg
    for streams in 1 4; do
      starpu_chol --gpu-only --device-resident --streams $streams --prec "$1" --nb "$2" --n "$3" --no-check \
        --no-vendor --warmup 2 --repeat 5 --csv --perfmodel-dir "$models" 2>&1 | grep -E "^starfact,|summary" \
        | sed "s/^/streams=$streams,/"
    done
  done
} > "$out/validate.csv" 2>&1
ls "$models/codelets/45" | wc -l | sed 's/^/model files: /'
tail -3 "$out/calibrate.log"
fi

# The QR (starpu_qr), in a models folder of its own (its symbols are its own: qr_panel, qr_finite, cholqr_*, geqrt,
# widen and narrow for float's Cholesky QR), for sim/models/<host>/qr/ (tools/simulate.sh --driver qr). The panel
# tree's panel and R's check take a tile column: one entry per column height, one sample of each height per run
# (heights 2 .. 16 at 16 tiles per side; sim/qr_models.py fits the others). The Cholesky QR's tasks take the shape of
# its tall tiles: calibrated at the shapes to simulate. Its second pass decides from the data whether the third runs:
# on these random matrices it never does, so the third pass's tasks (their own models, _3) record the time of tasks
# that return at once, and a simulated run takes the branch the calibration runs took. Every run keeps calibrating
# (--calibrate); one worker per GPU, as simulated.
# SIM_QR_RUNS: "prec:tree:m:n:nb:runs ..."; SIM_QR_VALIDATE: "prec:tree:m:n:nb:repeat[:gpus[:streams]] ..." (real
# runs, 2 warm-ups as the simulated ones, on a copy of the models; default 1 GPU, 1 stream; a point asking more GPUs
# than the machine has, SIM_QR_GPUS or nvidia-smi's count, is skipped with a note); either set empty runs none. The
# logs are appended to. SIM_QR_MODELS=DIR starts from recorded models (DIR/codelets/45/*.$host, e.g.
# sim/models/$host/qr). SIM_QR_FLAGS (default "--gpu-only --device-resident") and SIM_DRY_RUN=1 (print the commands)
# test the script's logic without a GPU.
if [[ $ops == *" geqrf "* ]]; then
qr_models=$out/models-qr
mkdir -p "$qr_models/codelets/45"
[ -z "${SIM_QR_MODELS:-}" ] || cp "$SIM_QR_MODELS"/codelets/45/*."$host" "$qr_models/codelets/45/"
qr_gpus=${SIM_QR_GPUS:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)}
qr() {
  # shellcheck disable=SC2086
  if [ -n "${SIM_DRY_RUN:-}" ]; then echo "starpu_qr ${SIM_QR_FLAGS---gpu-only --device-resident} --no-check --no-vendor $*"
  else timeout "${SIM_QR_TIMEOUT:-180}" starpu_qr ${SIM_QR_FLAGS---gpu-only --device-resident} --no-check --no-vendor "$@"
  fi
}
for cfg in ${SIM_QR_RUNS-d:panel:32768:32768:2048:8 d:cholqr:1048576:256:65536:20}; do
  IFS=: read -r prec tree m n nb runs <<< "$cfg"
  echo "== calibrate geqrf prec $prec tree $tree m $m n $n nb $nb, $runs runs"
  qr --ncuda 1 --streams 1 --prec "$prec" --tree "$tree" --m "$m" --n "$n" --nb "$nb" --calibrate --warmup 0 \
    --repeat "$runs" --csv --perfmodel-dir "$qr_models" 2>&1 | grep -E "^starfact,|summary|rror|arning|^starpu_qr " \
    | tail -$((runs + 2))
done >> "$out/calibrate-qr.log" 2>&1
tar -C "$out" -czf "$out/models-qr.tgz" models-qr
rm -rf "$out/models-qr-validate" && cp -r "$qr_models" "$out/models-qr-validate"
for cfg in ${SIM_QR_VALIDATE-d:panel:16384:16384:2048:3 d:panel:32768:32768:2048:3 d:panel:32768:8192:2048:3 \
                              d:cholqr:1048576:256:65536:5 d:panel:32768:32768:2048:3:2 d:panel:32768:8192:2048:3:2 \
                              d:panel:65536:65536:2048:1:2 d:cholqr:1048576:256:65536:5:2}; do
  IFS=: read -r prec tree m n nb repeat gpus streams <<< "$cfg"
  if [ "${gpus:-1}" -gt "$qr_gpus" ]; then
    echo "skipped,gpus=${gpus:-1},$cfg: the machine has $qr_gpus GPU(s)"; continue
  fi
  qr --ncuda "${gpus:-1}" --streams "${streams:-1}" --prec "$prec" --tree "$tree" --m "$m" --n "$n" --nb "$nb" \
    --warmup 2 --repeat "$repeat" --csv --perfmodel-dir "$out/models-qr-validate" 2>&1 \
    | grep -E "^starfact,|summary|rror|^starpu_qr " | grep -v "Too big deviation" \
    | sed "s/^/gpus=${gpus:-1},streams=${streams:-1},/"
done >> "$out/validate-qr.csv" 2>&1
ls "$qr_models/codelets/45" | wc -l | sed 's/^/QR model files: /'
cat "$out/validate-qr.csv"
fi
[[ $ops == *" getrf "* ]] || exit 0

# The LU (starpu_lu), in a models folder of its own: its trsm and gemm (left unit-lower trsm, gemm without transpose)
# share the Cholesky's symbols, and go to sim/models/<host>/lu/ (tools/simulate.sh --driver lu reads them over the
# Cholesky's). Its panel and row interchanges take a whole tile column, one model entry per column height (tiles
# k .. mt-1), so each run records one sample of each height: the runs are of 16 tiles per side (heights 1 .. 16), as
# many as the time allows. Every run keeps calibrating (--calibrate); one worker per GPU, as simulated.
# SIM_LU_RUNS: "prec:nb:tiles:runs ..."; SIM_LU_VALIDATE: "prec:nb:n:repeat[:gpus[:streams]] ..." (real runs, 1 warm-up,
# on a copy of the models; default 1 GPU, 1 stream); either set empty runs none. The logs are appended to: a second
# call with other lists adds to the same models. SIM_LU_MODELS=DIR starts from recorded models (DIR/codelets/45/*.$host,
# e.g. sim/models/$host/lu) instead of none: validation runs without new calibration runs.
lu_models=$out/models-lu
mkdir -p "$lu_models/codelets/45"
[ -z "${SIM_LU_MODELS:-}" ] || cp "$SIM_LU_MODELS"/codelets/45/*."$host" "$lu_models/codelets/45/"
lu() { timeout "${SIM_LU_TIMEOUT:-120}" starpu_lu --gpu-only --device-resident --no-check --no-vendor "$@"; }
for cfg in ${SIM_LU_RUNS-d:4096:16:5 d:2048:16:10 d:1024:16:10 d:512:16:10 s:4096:8:10 s:2048:16:10 s:1024:16:10 \
                          s:512:16:10}; do
  IFS=: read -r prec nb tiles runs <<< "$cfg"
  echo "== calibrate getrf prec $prec nb $nb n $((nb * tiles)), $runs runs"
  lu --streams 1 --prec "$prec" --nb "$nb" --n $((nb * tiles)) --calibrate --warmup 0 --repeat "$runs" --csv \
    --perfmodel-dir "$lu_models" 2>&1 | grep -E "^starfact,|summary|rror|arning" | tail -$((runs + 2))
done >> "$out/calibrate-lu.log" 2>&1
tar -C "$out" -czf "$out/models-lu.tgz" models-lu
rm -rf "$out/models-lu-validate" && cp -r "$lu_models" "$out/models-lu-validate"
for cfg in ${SIM_LU_VALIDATE-d:4096:32768:3 d:2048:32768:3 d:4096:65536:2 d:2048:65536:2 s:4096:32768:3 \
                              d:1024:16384:3}; do
  IFS=: read -r prec nb n repeat gpus streams <<< "$cfg"
  lu --ncuda "${gpus:-1}" --streams "${streams:-1}" --prec "$prec" --nb "$nb" --n "$n" --warmup 1 --repeat "$repeat" \
    --csv --perfmodel-dir "$out/models-lu-validate" 2>&1 | grep -E "^starfact,|summary|rror" \
    | sed "s/^/gpus=${gpus:-1},streams=${streams:-1},/"
done >> "$out/validate-lu.csv" 2>&1
ls "$lu_models/codelets/45" | wc -l | sed 's/^/LU model files: /'
cat "$out/validate-lu.csv"
