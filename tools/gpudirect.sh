#!/usr/bin/env bash
# Tiles between MPI ranks from GPU to GPU (CUDA-aware Open MPI under StarPU 1.4) against host-staged transfers, on
# one node with at least two GPUs (docs/mpi.md, "GPU-direct transfers between ranks").
#
# Here (no GPU):   tools/gpudirect.sh prepare
#     packs into CARRY_DIR (default .carry-mpi) what a machine without registries needs: the CUDA-aware Open MPI
#     (deps/setup-cuda-mpi.sh --mpi-prefix; ompi.tar.xz, relocated there through OPAL_PREFIX), StarPU 1.4 and libfxt
#     (lib/), starpu_chol of BUILD_DIR (default build-cuda-mpi, built by deps/setup-cuda-mpi.sh; bin.tar.xz) and
#     this script. Carry dirs are git-ignored; name it in the device tool's `carry`.
# There (GPUs):    bash CARRY_DIR/gpudirect.sh run
#     NP ranks (2; 4 on a 4-GPU node) x GPR GPUs each (1), grid GRID (1x2; 2x2 for 4), double, device-resident, n = N
#     (32768), the driver DRIVER (starpu_chol, the Cholesky; starpu_lu, the LU with partial pivoting; starpu_qr, the
#     Householder QR of a square matrix):
#     StarPU-MPI with STARPU_MPI_GPUDIRECT=0
#     (tiles staged through host memory, as with a MPI that is not CUDA-aware) and =1 (device buffers handed to MPI:
#     CUDA IPC through Open MPI's smcuda transport), REPEAT timed runs each after WARMUP; a correctness run of each
#     mode with --check at CHECK_N (20000) first; one process driving both GPUs as the reference; host-staged over
#     Open MPI's vader transport alone as well. Prints the medians and their ratio; logs in $OUT (or ./device-out).
#                  bash CARRY_DIR/gpudirect.sh selftest
#     the carried mpirun and starpu_chol on CPU workers, 2 ranks (no GPU needed; `run` starts with it).
# env: CARRY_DIR, BUILD_DIR, OUT, DRIVER (starpu_chol), NP (2), GPR (1), GRID, N (32768), CHECK_N (20000), WARMUP (1), REPEAT (3), POINT_TIMEOUT (s, 150),
#      BUDGET (s for the whole run, 560: the device call's limit is 600), POINTS (the runs to make, by label: calibrate
#      check_gd0 check_gd1 ipc_verbose one_process time_gd0 time_gd1 time_gd0_vader; default all)
set -uo pipefail  # (pipelines into grep read all input, no grep -q: its early exit would fail them by SIGPIPE)
here=$(cd "$(dirname "$0")" && pwd)
if [ -f "$here/ompi.tar.xz" ]; then root=$here/..; else root=$(cd "$here/.." && pwd); fi
carry=${CARRY_DIR:-}
if [ -z "$carry" ]; then
  if [ -f "$here/ompi.tar.xz" ]; then carry=$here; else carry=$root/.carry-mpi; fi
fi
case $carry in /*) ;; *) carry=$PWD/$carry ;; esac

prepare() {
  set -e
  local build=${BUILD_DIR:-$root/build-cuda-mpi} mpi starpu chol lib
  mpi=$("$root/deps/setup-cuda-mpi.sh" --mpi-prefix)
  [ -f "$mpi/.complete" ] || { echo "[gpudirect] no CUDA-aware Open MPI in $mpi: run deps/setup-cuda-mpi.sh" >&2; exit 1; }
  chol=$build/examples/starpu_chol
  [ -x "$chol" ] || { echo "[gpudirect] $chol missing: run deps/setup-cuda-mpi.sh STARPU_SRC" >&2; exit 1; }
  ldd "$chol" | grep "libmpi.so.* => $mpi/lib" >/dev/null || { echo "[gpudirect] $chol does not link $mpi" >&2; exit 1; }
  ldd "$chol" | grep "libcudart" >/dev/null || { echo "[gpudirect] $chol is built without CUDA" >&2; exit 1; }
  starpu=$(sed -n 's/^STARPU_PREFIX:[A-Z]*=//p' "$build/CMakeCache.txt")
  rm -rf "$carry"; mkdir -p "$carry/bin" "$carry/lib" "$carry/stage"
  # Open MPI: what mpirun and the ranks open at run time (libraries, MCA components, help texts, default
  # parameters); not the headers, compiler wrappers, man pages or libtool files.
  cp -a "$mpi" "$carry/stage/ompi"
  (cd "$carry/stage/ompi" && rm -rf include share/man share/doc lib/pkgconfig .complete \
     && find . -name '*.la' -delete && rm -f bin/mpicc bin/mpicxx bin/mpic++ bin/mpiCC bin/oshcc bin/ortecc bin/opalcc \
     && find bin lib -type f \( -perm -u+x -o -name '*.so*' \) -exec strip --strip-unneeded {} + 2>/dev/null || true)
  # Beyond libc, libm and zlib its components need only libnl-3 (the netlink reachability component): carried too.
  find "$carry/stage/ompi" -name '*.so*' -type f -exec ldd {} + 2>/dev/null | awk '/libnl-/ {print $3}' | sort -u \
    | xargs -r cp -L -t "$carry/stage/ompi/lib/"
  tar -C "$carry/stage" -cJf "$carry/ompi.tar.xz" ompi
  # StarPU 1.4 (starpu, starpumpi) and libfxt, found through the binary; the CUDA libraries come from the machine.
  for lib in $(ldd "$chol" | awk '/libstarpu-|libstarpumpi-|libfxt/ {print $3}'); do cp -L "$lib" "$carry/lib/"; done
  ls "$carry/lib" | grep starpumpi >/dev/null || { echo "[gpudirect] $chol does not link StarPU-MPI" >&2; exit 1; }
  cp "$chol" "$carry/bin/"
  for f in starpu_lu starpu_qr; do [ -x "$build/examples/$f" ] && cp "$build/examples/$f" "$carry/bin/"; done
  [ -x "$starpu/bin/starpu_machine_display" ] && cp "$starpu/bin/starpu_machine_display" "$carry/bin/"
  strip --strip-unneeded "$carry"/bin/* "$carry"/lib/* 2>/dev/null || true
  tar -C "$carry" -cJf "$carry/bin.tar.xz" bin && rm -rf "$carry/bin" "$carry/stage"
  cp "$root/tools/gpudirect.sh" "$carry/"
  du -sh "$carry" >&2
  echo "carry: ${carry#"$root"/}   command: bash ${carry#"$root"/}/gpudirect.sh run" >&2
}

# The carried Open MPI, StarPU and binaries first on the paths (LD_LIBRARY_PATH wins over the binaries' run paths,
# which name this machine's prefixes); OPAL_PREFIX relocates Open MPI (and its embedded PMIx) to the carry.
setup_env() {
  [ -d "$carry/ompi" ] || tar -C "$carry" -xJf "$carry/ompi.tar.xz"
  [ -d "$carry/bin" ] || tar -C "$carry" -xJf "$carry/bin.tar.xz"
  export OPAL_PREFIX=$carry/ompi
  export PATH=$carry/ompi/bin:$carry/bin:$PATH
  export LD_LIBRARY_PATH=$carry/ompi/lib:$carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export STARPU_HOME=${STARPU_HOME:-/tmp/starfact-starpu-home} STARPU_SILENT=${STARPU_SILENT:-1}
  export OUT=${OUT:-$PWD/device-out}
  mkdir -p "$OUT" "$STARPU_HOME"
  # Root in a container; shared memory between the ranks: vader for host buffers, smcuda (chosen over vader when
  # CUDA support is on) for device buffers, with CUDA IPC.
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader,smcuda
}

# The carried mpirun, Open MPI and StarPU-MPI on CPU workers (2 ranks, the driver's residual check): needs no GPU.
selftest() {
  setup_env
  ompi_info --parsable --all 2>/dev/null | grep -E "mpi_built_with_cuda_support:value" | sed 's/^/    /'
  ompi_info 2>/dev/null | grep -E "^ +Prefix:" | sed 's/^/    /'
  OMPI_MCA_btl=self,vader timeout 120 mpirun -np 2 --oversubscribe "$(command -v starpu_chol)" --cpu-only \
    --n 600 --nb 96 --grid 1x2 2>&1 | grep -E "^ *starfact |summary:|rror"
}

remote() {
  setup_env
  local out=$OUT n=${N:-32768} check_n=${CHECK_N:-20000} warmup=${WARMUP:-1} repeat=${REPEAT:-3}
  local limit=${POINT_TIMEOUT:-150} driver=${DRIVER:-starpu_chol} chol
  chol=$(command -v "$driver") || { echo "[gpudirect] $driver is not in the carry" >&2; exit 1; }
  local np=${NP:-2} gpr=${GPR:-1} grid=${GRID:-}
  [ -n "$grid" ] || case $np in 4) grid=2x2 ;; *) grid=1x$np ;; esac
  trap 'cd "$OUT" && ls gpudirect_*.log >/dev/null 2>&1 && tar czf gpudirect_logs.tgz gpudirect_*.log && rm -f gpudirect_*.log' EXIT
  nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader
  local ngpu; ngpu=$(nvidia-smi --list-gpus 2>/dev/null | grep -c '^GPU ')
  [ "$ngpu" -ge $((np * gpr)) ] || { echo "[gpudirect] $ngpu GPU(s): $np ranks x $gpr GPU(s) need $((np * gpr))" >&2; exit 1; }
  nvidia-smi topo -m | head -n 4
  ldd "$chol" | grep -E "not found|libmpi\.|libstarpu" | sed 's/^/    /'
  ompi_info --parsable --all 2>/dev/null | grep -E "mpi_built_with_cuda_support:value|opal_cuda_support:value" | sed 's/^/    /'
  echo "=== selftest (CPU workers)"; selftest
  export STARPU_PERF_MODEL_HOMOGENEOUS_CUDA=1
  local mpirun=(mpirun --bind-to none -np "$np" -x STARPU_MPI_GPUDIRECT)
  local start=$SECONDS budget=${BUDGET:-560}
  point() {  # label, command...: runs with a log, prints the driver's summary line; within the time budget
    local label=$1; shift
    [[ " ${POINTS:-$label} " == *" $label "* ]] || return 0  # POINTS: only those (e.g. "check_gd1 one_process time_gd1")
    local log=$out/gpudirect_$label.log t0=$SECONDS left=$((budget - (SECONDS - start)))
    [ "$left" -ge 30 ] || { echo "=== $label: skipped (time budget of $budget s)"; return; }
    timeout --kill-after=10 "$((left < limit ? left : limit))" "$@" > "$log" 2>&1
    local rc=$?
    echo "=== $label: rc=$rc in $((SECONDS - t0)) s"
    grep -E "^ *starfact |summary:|GPUDirect|Warning" "$log" | tail -n 6 | sed 's/^/    /'
    [ $rc -eq 0 ] || tail -n 8 "$log" | sed 's/^/    ! /'
  }
  median() { sed -nE 's/.*summary: starfact median ([0-9.]+) s.*/\1/p' "$out/gpudirect_$1.log" 2>/dev/null | tail -n 1; }
  # Calibration (not timed): the kernels' models and, on a fresh STARPU_HOME, the bus between host and GPUs.
  point calibrate "$chol" --gpu-only --device-resident --ncuda 1 --n "$check_n" --no-check --no-vendor --calibrate --warmup 3
  for gd in 0 1; do
    STARPU_MPI_GPUDIRECT=$gd point check_gd$gd "${mpirun[@]}" "$chol" --gpu-only --device-resident --ncuda "$gpr" --grid "$grid" \
      --n "$check_n" --check --warmup 0 --repeat 1 --no-vendor
  done
  # Is CUDA IPC used? smcuda reports each peer whose device buffers it maps (one short run, verbose).
  STARPU_MPI_GPUDIRECT=1 point ipc_verbose "${mpirun[@]}" --mca btl_smcuda_cuda_ipc_verbose 10 "$chol" --gpu-only \
    --device-resident --ncuda "$gpr" --grid "$grid" --n 8192 --no-check --warmup 0 --repeat 1 --no-vendor
  grep -m 4 -i "ipc" "$out/gpudirect_ipc_verbose.log" | sed 's/^/    /'
  point one_process "$chol" --gpu-only --device-resident --ncuda $((np * gpr)) --n "$n" --no-check --warmup "$warmup" \
    --repeat "$repeat" --no-vendor
  for gd in 0 1; do
    STARPU_MPI_GPUDIRECT=$gd point time_gd$gd "${mpirun[@]}" "$chol" --gpu-only --device-resident --ncuda "$gpr" --grid "$grid" \
      --n "$n" --no-check --warmup "$warmup" --repeat "$repeat" --no-vendor
  done
  # With smcuda listed, host buffers go through it too (it ranks above vader): host-staged over vader alone as well,
  # the transport of the measurements with a MPI that is not CUDA-aware.
  OMPI_MCA_btl=self,vader STARPU_MPI_GPUDIRECT=0 point time_gd0_vader "${mpirun[@]}" "$chol" --gpu-only \
    --device-resident --ncuda "$gpr" --grid "$grid" --n "$n" --no-check --warmup "$warmup" --repeat "$repeat" --no-vendor
  local t0 t1 t2 t3; t0=$(median time_gd0); t1=$(median time_gd1); t2=$(median one_process); t3=$(median time_gd0_vader)
  echo "$driver, n = $n, double, $np ranks x $gpr GPU(s), grid $grid (median of $repeat):"
  echo "  host-staged (STARPU_MPI_GPUDIRECT=0): ${t0:-?} s (btl self,vader,smcuda), ${t3:-?} s (btl self,vader)"
  echo "  GPU-direct  (STARPU_MPI_GPUDIRECT=1): ${t1:-?} s"
  [ -n "$t0" ] && [ -n "$t1" ] && awk -v a="$t0" -v b="$t1" 'BEGIN{printf "  speed-up of GPU-direct: %.2fx\n", a/b}'
  echo "  one process, $((np * gpr)) GPUs (no MPI):         ${t2:-?} s"
  [ -n "$t1" ] && [ -n "$t2" ] && awk -v a="$t2" -v b="$t1" 'BEGIN{printf "  GPU-direct ranks against one process: %.2fx\n", a/b}'
}

case ${1:-} in
prepare) prepare ;;
run) remote ;;
selftest) selftest ;;
*) echo "usage: tools/gpudirect.sh prepare | run | selftest" >&2; exit 1 ;;
esac
