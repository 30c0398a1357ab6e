#!/usr/bin/env bash
# On the GPU machine: records the performance models that simulated runs read (sim/README.md, docs/simulation.md),
# then times a few real runs of the same configurations, to compare with their simulation.
#   source tools/device-env.sh CARRY_DIR; bash CARRY_DIR/calibrate.sh      (starpu_chol of a CUDA build on PATH)
# Writes under $OUT: models/ (codelets/45/*.$SIM_HOST and StarPU's bus calibration bus/$SIM_HOST.*), models.tgz,
# calibrate.log, validate.csv (real runs), gpu.txt.
# Knobs: SIM_HOST (default h100: the models' host name), SIM_NBS (tile orders, default "512 1024 2048 4096"),
# SIM_PRECS (default "d s"), SIM_TILES (tiles per side of the calibration runs, default 8).
set -uo pipefail
out=${OUT:?source tools/device-env.sh first (it sets OUT)}
host=${SIM_HOST:-h100}
models=$out/models
mkdir -p "$models"
export STARPU_HOSTNAME=$host  # StarPU names the model and bus files after it
unset STARPU_HOME             # --perfmodel-dir then decides where they go
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,driver_version --format=csv > "$out/gpu.txt" 2>&1
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
