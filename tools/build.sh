#!/usr/bin/env bash
# Configures and builds starfact (Release) into build/ against deps/setup.sh's StarPU.
#   tools/build.sh [extra cmake args]
#   env: BUILD_DIR (default build), JOBS (default nproc), TARGETS (default all: "a b" builds only those),
#        STARFACT_CCACHE=0 (no compiler cache)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
prefix=$("$root/deps/starpu-prefix.sh")
[ -f "$prefix/.complete" ] || { echo "[build] StarPU is not built yet: run deps/setup.sh first" >&2; exit 1; }
# A compiler cache (ccache, when installed) shared by every clone: paths under the clone are hashed relative to it.
# Its settings are part of the launcher CMake keeps, so that `cmake --build` and make run directly (pip's build of
# the Python package, python/setup.py) use the same cache as this script.
launch=()
if command -v ccache >/dev/null 2>&1 && [ "${STARFACT_CCACHE:-1}" != 0 ]; then
  source "$root/deps/starpu-config.sh"
  cache="env;CCACHE_DIR=${CCACHE_DIR:-$STARFACT_CACHE_DIR/ccache};CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}"
  # (the sloppiness lets ccache cache the sources compiled with a precompiled header, STARFACT_PCH)
  cache+=";CCACHE_NOHASHDIR=1;CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}"
  cache+=";CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime;ccache"
  for lang in C CXX CUDA; do launch+=("-DCMAKE_${lang}_COMPILER_LAUNCHER=$cache"); done
else
  for lang in C CXX CUDA; do launch+=("-DCMAKE_${lang}_COMPILER_LAUNCHER="); done  # a cached one is dropped
fi
# A build folder configured against another StarPU prefix (its cache key changed: new flags or patches) forgets what
# CMake found there, which it would otherwise keep: pkg-config's results and the checks of starpu_config.h.
reset=()
found=$(sed -n 's/^STARPU_LIBDIR:INTERNAL=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
if [ -n "$found" ] && [ "$found" != "$prefix/lib" ]; then
  echo "[build] $build was configured with the StarPU in $(dirname "$found"): looking for $prefix's instead" >&2
  reset=(-U "STARPU*" -U "__pkg_config_checked_STARPU*" -U "pkgcfg_lib_STARPU*")
fi
cmake -S "$root" -B "$build" "${reset[@]}" -DCMAKE_BUILD_TYPE=Release -DSTARPU_PREFIX="$prefix" "${launch[@]}" "$@" >&2
if [ -n "${TARGETS:-}" ]; then
  cmake --build "$build" -j"${JOBS:-$(nproc)}" --target $TARGETS >&2
else
  cmake --build "$build" -j"${JOBS:-$(nproc)}" >&2
fi
echo "$build"
