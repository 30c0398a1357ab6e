#!/usr/bin/env bash
# Configures and builds starfact (Release) into build/ against deps/setup.sh's StarPU.
#   tools/build.sh [extra cmake args]
#   env: BUILD_DIR (default build), JOBS (default nproc), TARGETS (default all: "a b" builds only those)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
prefix=$("$root/deps/starpu-prefix.sh")
[ -f "$prefix/.complete" ] || { echo "[build] StarPU is not built yet: run deps/setup.sh first" >&2; exit 1; }
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DSTARPU_PREFIX="$prefix" "$@" >&2
if [ -n "${TARGETS:-}" ]; then
  cmake --build "$build" -j"${JOBS:-$(nproc)}" --target $TARGETS >&2
else
  cmake --build "$build" -j"${JOBS:-$(nproc)}" >&2
fi
echo "$build"
