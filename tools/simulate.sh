#!/usr/bin/env bash
# Runs starpu_chol (or starpu_lu) simulated on a GPU node that need not exist: StarPU's SimGrid mode runs the real
# scheduler and task graph, kernels and transfers in virtual time, from recorded performance models
# (docs/simulation.md).
#   tools/simulate.sh --build                      set up and build the simulation build (deps/setup-simgrid.sh,
#                                                  then build-sim/ with -DSTARFACT_SIMULATION=ON: starpu_chol,
#                                                  starpu_lu and starpu_qr; cached)
#   tools/simulate.sh --build-mpi                  the same for several nodes: the SMPI StarPU, build-smpi/
#                                                  (SimGrid's smpicc/smpicxx; starpu_chol, starpu_lu and starpu_qr;
#                                                  docs/simulation.md)
#   tools/simulate.sh [options] [-- driver flags]  one simulated run, e.g.
#   tools/simulate.sh --models sim/models/h200 --gpus 4 -- --n 131072 --nb 2048 --prec d
#   tools/simulate.sh --driver lu --models sim/models/h200 --gpus 4 -- --n 65536 --nb 4096
#   tools/simulate.sh --driver qr --models sim/models/h200 --gpus 2 -- --m 32768 --n 8192 --nb 2048 --tree panel
# Options:
#   --driver D     chol (starpu_chol, default), lu (starpu_lu: the tile LU with partial pivoting; with --nodes its
#                  distributed run: --grid 1xK, grids of several rows need models of the tile interchanges) or qr
#                  (starpu_qr: the panel and cholqr trees, on one process or with --nodes over the ranks; the tile
#                  trees flat, binary and domains have no models; docs/simulation.md).
#                  lu reads DIR/lu/codelets/45/* over DIR/codelets/45/* (its own recordings of the shared symbols,
#                  trsm and gemm)
#                  and completes the column tasks' models of heights not recorded (sim/lu_models.py); qr reads
#                  DIR/qr/codelets/45/* over them and completes its panel's and R's check's models of heights not
#                  recorded (sim/qr_models.py)
#   --models DIR   performance models: DIR/codelets/45/<symbol>.<host> (all of one host), and DIR/bus/<host>.* when
#                  the calibration run measured the bus (default sim/models/synthetic: synthetic rates, no prediction)
#   --gpus N       GPUs of each simulated node, 1..8 (default 1)
#   --nodes K      simulated nodes, one StarPU-MPI rank each, under SimGrid's smpirun (default 1: one process),
#                  transfers between ranks as GPU-direct ones: no pinning cost (docs/simulation.md, "Several nodes")
#   --cpus C       CPU cores of the simulated node (default 16; a --gpu-only run starts no CPU worker)
#   --platform "ARGS"  more sim/make_platform.py arguments (e.g. "--nvlink-gbs 300 --pcie-gbs 50")
#   --keep DIR     prepare the simulated machine's model directory in DIR and keep it (default: a temporary one)
#   --task-cost-us X  per-task cost of StarPU's CUDA worker added to every kernel's model (default: the number in
#                  DIR/task_cost_us of --models when it holds one, else 0; sim/task_cost.py, docs/simulation.md)
# The driver runs with --gpu-only --device-resident before the flags after --, which may override them.
# Environment: SIM_BUILD_DIR (default build-sim), SMPI_BUILD_DIR (default build-smpi).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SIM_BUILD_DIR:-$root/build-sim}
smpi_build=${SMPI_BUILD_DIR:-$root/build-smpi}
die() { echo "simulate.sh: $*" >&2; exit 2; }

# A build folder configured against another StarPU prefix (its cache key changed) starts afresh: CMake keeps what
# pkg-config found the first time.
fresh() {  # build folder, prefix
  local found; found=$(sed -n 's/^STARPU_LIBDIR:INTERNAL=//p' "$1/CMakeCache.txt" 2>/dev/null || true)
  [ -z "$found" ] || [ "$found" = "$2/lib" ] || rm -f "$1/CMakeCache.txt"
}
if [ "${1:-}" = "--build" ]; then
  prefix=$("$root/deps/setup-simgrid.sh")
  fresh "$build" "$prefix"
  STARPU_PREFIX=$prefix BUILD_DIR=$build TARGETS="${TARGETS:-starpu_chol starpu_lu starpu_qr}" \
    "$root/tools/build.sh" -DSTARFACT_SIMULATION=ON >/dev/null
  echo "$build"
  exit 0
fi
if [ "${1:-}" = "--build-mpi" ]; then
  prefix=$("$root/deps/setup-simgrid.sh" --mpi)
  fresh "$smpi_build" "$prefix"
  STARPU_PREFIX=$prefix BUILD_DIR=$smpi_build TARGETS="${TARGETS:-starpu_chol starpu_lu starpu_qr}" \
    "$root/tools/build.sh" -DSTARFACT_SIMULATION=ON -DCMAKE_C_COMPILER=smpicc -DCMAKE_CXX_COMPILER=smpicxx >/dev/null
  echo "$smpi_build"
  exit 0
fi

models=$root/sim/models/synthetic gpus=1 nodes=1 cpus=16 platform="" keep="" task_cost="" driver=chol
while [ $# -gt 0 ]; do
  case $1 in
    --driver) driver=${2:?--driver needs chol or lu}; shift 2 ;;
    --models) models=${2:?--models needs a directory}; shift 2 ;;
    --gpus) gpus=${2:?--gpus needs a number}; shift 2 ;;
    --nodes) nodes=${2:?--nodes needs a number}; shift 2 ;;
    --cpus) cpus=${2:?--cpus needs a number}; shift 2 ;;
    --platform) platform=${2?--platform needs arguments}; shift 2 ;;
    --keep) keep=${2:?--keep needs a directory}; shift 2 ;;
    --task-cost-us) task_cost=${2:?--task-cost-us needs a number}; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,33p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1' (driver flags go after --)" ;;
  esac
done
case $driver in chol|lu|qr) ;; *) die "--driver must be chol, lu or qr, got '$driver'" ;; esac
case $gpus in [1-8]) ;; *) die "--gpus must be 1..8 (StarPU's --enable-maxcudadev=8), got '$gpus'" ;; esac
case $cpus in ''|*[!0-9]*) die "--cpus must be a number, got '$cpus'" ;; esac
case $nodes in ''|*[!0-9]*|0) die "--nodes must be a number >= 1, got '$nodes'" ;; esac
[ -n "$task_cost" ] || task_cost=$(cat "$models/task_cost_us" 2>/dev/null || echo 0)
[[ $task_cost =~ ^[0-9]+([.][0-9]+)?$ ]] || die "--task-cost-us must be a number of microseconds >= 0, got '$task_cost'"
[ "$nodes" = 1 ] || build=$smpi_build
exe=$build/examples/starpu_$driver
[ -x "$exe" ] || die "$exe is not built: run tools/simulate.sh $([ "$nodes" = 1 ] && echo --build || echo --build-mpi)"
grep -q "STARFACT_SIMULATION:BOOL=ON" "$build/CMakeCache.txt" 2>/dev/null \
  || die "$build is not a simulation build (-DSTARFACT_SIMULATION=ON): run tools/simulate.sh --build"
if [ "$nodes" -gt 1 ]; then
  command -v smpirun >/dev/null || die "smpirun not found (libsimgrid-dev: deps/setup-simgrid.sh)"
  grep -q "^CMAKE_CXX_COMPILER:.*smpicxx" "$build/CMakeCache.txt" \
    || die "$build is not the SMPI build (smpicxx): run tools/simulate.sh --build-mpi"
fi
[ -d "$models/codelets/45" ] || die "no performance models in $models/codelets/45 (sim/README.md: how to record them)"
hosts=$(find "$models/codelets/45" -maxdepth 1 -type f -name 'starfact_*.*' | sed 's/.*\.//' | sort -u)
[ -n "$hosts" ] || die "no starfact_* model files in $models/codelets/45"
[ "$(echo "$hosts" | wc -l)" = 1 ] || die "models of several hosts in $models/codelets/45 ($(echo $hosts)): keep one"
calhost=$hosts
simhost=$calhost-${gpus}gpu

# The simulated machine's model directory: the models under its name, its bus files.
if [ -n "$keep" ]; then dir=$keep; rm -rf "$dir"; mkdir -p "$dir"; else dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT; fi
mkdir -p "$dir/codelets/45" "$dir/bus"
overlay=""; [ "$driver" = lu ] && [ -d "$models/lu/codelets/45" ] && overlay=$models/lu/codelets/45
[ "$driver" = qr ] && [ -d "$models/qr/codelets/45" ] && overlay=$models/qr/codelets/45
for f in "$models"/codelets/45/*."$calhost" ${overlay:+"$overlay"/*."$calhost"}; do
  b=$(basename "$f"); cp "$f" "$dir/codelets/45/${b%.$calhost}.$simhost"
done
# The LU's column tasks: an entry per column height; the heights the calibration did not record are fitted.
[ "$driver" != lu ] || python3 "$root/sim/lu_models.py" "$dir/codelets/45" "$simhost"
[ "$driver" != qr ] || python3 "$root/sim/qr_models.py" "$dir/codelets/45" "$simhost"
[ "$task_cost" = 0 ] || python3 "$root/sim/task_cost.py" "$dir/codelets/45" "$task_cost"
from_bus=()
[ -f "$models/bus/$calhost.platform.v4.xml" ] && from_bus=(--from-bus "$models/bus/$calhost")
# shellcheck disable=SC2086
nodes_arg=(); [ "$nodes" -gt 1 ] && nodes_arg=(--nodes "$nodes")
python3 "$root/sim/make_platform.py" --host "$simhost" --gpus "$gpus" --cpus "$cpus" --out "$dir/bus" \
  "${from_bus[@]}" "${nodes_arg[@]}" $platform

measured=""; [ ${#from_bus[@]} -gt 0 ] && measured=", host links measured"
echo "# simulated: starpu_$driver on $nodes node(s) $simhost ($gpus GPU(s), $cpus CPU cores each; models of" \
     "'$calhost' from $models${overlay:+ and $overlay}$measured; per-task cost $task_cost us)"
# StarPU reads the models and the platform of STARPU_HOSTNAME from STARPU_PERF_MODEL_DIR; one model serves every
# simulated GPU (calibrated on device 0); models are not updated from simulated times.
export STARPU_PERF_MODEL_DIR=$dir STARPU_HOSTNAME=$simhost STARPU_PERF_MODEL_HOMOGENEOUS_CUDA=1 STARPU_NCUDA=$gpus
export STARPU_CALIBRATE=0
# SimGrid mode takes a model's mean whatever its samples, and warns at each task whose entry has fewer than
# STARPU_CALIBRATE_MINIMUM (10): the LU's column tasks record one sample per calibration run (sim/calibrate.sh, 4 to 9).
export STARPU_CALIBRATE_MINIMUM=1
unset STARPU_HOME
# SimGrid reads its own --cfg/--log flags first and passes the rest to the driver.
# One worker per GPU: StarPU's SimGrid mode drives each GPU from one worker (blocking drivers).
flags=(--perfmodel-dir "$dir" --gpu-only --device-resident --streams 1)
logs=(--log=xbt_cfg.thres:warning)
if [ "$nodes" = 1 ]; then
  "$exe" "${logs[@]}" "${flags[@]}" "$@"
  exit 0
fi
# Several nodes: one StarPU-MPI rank per node under smpirun (SimGrid's MPI), on the cluster platform; the ranks'
# StarPU threads run on their node's hosts (StarPU-MPI<r>-CPU.., -CUDA..). smpirun loads the program once per rank
# (privatization); the program's own computations take no simulated time.
# StarPU 1.3's SMPI mode stages every tile a rank sends or receives through a host buffer, and charges its pinning
# 650 us per MiB (datawizard/malloc.c): 21 ms a 2048 tile, which made 4 simulated ranks of one GPU 15 times slower
# than the real ranks with GPU-direct transfers (docs/simulation.md), which need no host buffer. Off unless the
# caller sets it; it also removes the 175 us of a first allocation on a GPU, which a warm-up run pays anyway.
export STARPU_SIMGRID_CUDA_MALLOC_COST=${STARPU_SIMGRID_CUDA_MALLOC_COST:-0}
# Host copies of tiles share their pages (runtime/mpi.cpp), which nothing reads or writes: SMPI copies no payload
# between them (the SMPI StarPU sends a contiguous tile as bytes: deps/smpi-*.patch), and its "local" shared malloc
# maps one shared memory file for all of them without touching a page ("global" maps a file in blocks with
# MAP_POPULATE: page tables for every received tile, 8 nodes at n = 131072 mapped 300 GB). The simulated threads'
# stacks go without a guard page: StarPU-MPI starts one per pending request, and a guarded stack takes two of the
# process's memory mappings (vm.max_map_count, 65530: 16 nodes at n = 262144 ran out of them).
smpirun -platform "$dir/bus/$simhost.cluster.xml" -hostfile "$dir/bus/$simhost.hosts" -np "$nodes" "$exe" \
  "${flags[@]}" "$@" "${logs[@]}" --log=smpi_config.thres:warning --log=ker_lmm.thres:error \
  --cfg=smpi/privatization:yes --cfg=smpi/simulate-computation:no --cfg=smpi/shared-malloc:local \
  --cfg=contexts/guard-size:0
