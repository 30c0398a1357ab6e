#!/usr/bin/env bash
# Configures and builds starfact (Release) into build/ against deps/setup.sh's StarPU.
#   tools/build.sh [extra cmake args]
#   env: BUILD_DIR (default build), JOBS (default nproc), TARGETS (default all: "a b" builds only those)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
prefix=$("$root/deps/starpu-prefix.sh")
[ -f "$prefix/.complete" ] || { echo "[build] StarPU is not built yet: run deps/setup.sh first" >&2; exit 1; }
# A compiler cache (ccache, when installed) shared by every clone: paths under the clone are hashed relative to it.
launch=()
if command -v ccache >/dev/null 2>&1 && [ "${STARFACT_CCACHE:-1}" != 0 ]; then
  source "$root/deps/starpu-config.sh"
  export CCACHE_DIR=${CCACHE_DIR:-$STARFACT_CACHE_DIR/ccache} CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}
  export CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
  for lang in C CXX CUDA; do launch+=("-DCMAKE_${lang}_COMPILER_LAUNCHER=ccache"); done
fi
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DSTARPU_PREFIX="$prefix" "${launch[@]}" "$@" >&2
if [ -n "${TARGETS:-}" ]; then
  cmake --build "$build" -j"${JOBS:-$(nproc)}" --target $TARGETS >&2
else
  cmake --build "$build" -j"${JOBS:-$(nproc)}" >&2
fi
echo "$build"
