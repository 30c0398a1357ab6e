#!/usr/bin/env bash
# Builds a StarPU source tree you provide (a release tarball unpacked, or a git checkout of a tag) with starfact's
# configure flags and CUDA 13 patch, into its own cached prefix, and prints that prefix. For StarPU 1.4, whose MPI
# layer moves tiles between ranks 2.2x faster than 1.3's (docs/mpi.md); deps/setup.sh keeps building 1.3.10 from
# Debian 12's source package, since Debian 12's servers carry no 1.4 source.
#   deps/build-starpu.sh SRC_DIR          e.g. SRC_DIR = starpu-1.4.7 (tarball) or a checkout of tag starpu-1.4.7
#   STARPU_PREFIX=$(deps/build-starpu.sh SRC_DIR) tools/build.sh
# Needs what deps/setup.sh installs, plus autoconf, automake and libtool for a git checkout (no configure script).
# STARPU_MPICC=/path/to/mpicc builds StarPU-MPI with that MPI instead of the mpicc on PATH (its own prefix: the path
# is part of the configure flags, hence of the key); deps/setup-cuda-mpi.sh uses it for a CUDA-aware Open MPI.
# Cached: a second run with the same source version, flags and patch does nothing and prints the prefix.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/starpu-config.sh"
log() { echo "[deps] $*" >&2; }
src=${1:?usage: deps/build-starpu.sh SRC_DIR (a StarPU source tree)}
src=$(cd "$src" && pwd)
[ -f "$src/configure.ac" ] || { log "$src has no configure.ac: not a StarPU source tree"; exit 1; }
version=$(sed -n 's/^AC_INIT(\[StarPU\], *\[\([0-9.]*\)\].*/\1/p' "$src/configure.ac" | head -1)
[ -n "$version" ] || { log "cannot read StarPU's version from $src/configure.ac"; exit 1; }
series=${version%.*}
case $series in 1.3|1.4) ;; *) log "StarPU $version: starfact builds against the 1.3 and 1.4 series"; exit 1 ;; esac
# The compute-mode patch (CUDA 13 dropped cudaDeviceProp::computeMode) applies to both series; the cuBLAS v2 one only
# to 1.3 (1.4 keeps the legacy cuBLAS API in a file of its own).
patches=("$here/starpu-cuda13-computemode.patch")
[ "$series" = 1.3 ] && patches+=("$here/starpu-cuda13-cublas-v2.patch")
flags=$(starfact_starpu_configure_flags)
[ "$series" = 1.4 ] && flags+=" --disable-starpupy"
if [ -n "${STARPU_MPICC:-}" ]; then
  [ -x "$STARPU_MPICC" ] || { log "STARPU_MPICC=$STARPU_MPICC is not an executable"; exit 1; }
  flags+=" --enable-mpi --disable-mpi-check --with-mpicc=$STARPU_MPICC --with-mpiexec=$(dirname "$STARPU_MPICC")/mpiexec"
fi
key=$( { echo "$flags"; cat "${patches[@]}" "$here/starpu-config.sh"; } | sha256sum | cut -c1-12)
prefix=$STARFACT_CACHE_DIR/starpu-$version-$key
if [ -f "$prefix/.complete" ]; then
  log "StarPU $version already built in $prefix"
  echo "$prefix"; exit 0
fi
work=$STARFACT_CACHE_DIR/build-starpu-$version-$key
rm -rf "$work"; mkdir -p "$work"
log "copying $src into $work"
cp -a "$src/." "$work/src"
source "$here/starpu-build.sh"
starfact_build_starpu_tree "$work/src" "$prefix" "$series" "$flags" "${patches[@]}" || exit 1
rm -rf "$work"
log "StarPU $version installed in $prefix"
echo "$prefix"
