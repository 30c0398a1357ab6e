# Sourced by deps/setup.sh, CMakeLists.txt (through deps/starpu-prefix.sh) and tools/*.sh.
# One place for the StarPU version, configure flags and cache location: the cache key hashes
# this file (flags included) and the patches, so changing any of them rebuilds StarPU into a new prefix.
STARPU_VERSION=1.3.10
STARFACT_CACHE_DIR=${STARFACT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/starfact}

starfact_starpu_configure_flags() {
  local flags="--enable-maxcpus=256 --enable-maxcudadev=8 --enable-maxnodes=16 --with-fxt"
  flags+=" --disable-build-examples --disable-build-tests --disable-build-doc --disable-opencl"
  flags+=" --disable-fortran --disable-socl --disable-starpufft --disable-starpurm --disable-openmp"
  flags+=" --disable-mlr --disable-hdf5 --disable-gdb --disable-opengl-render --disable-leveldb --enable-blas-lib=none"
  # Shared libraries only (starfact links them through pkg-config): libtool would compile every file a second time
  # for the static ones (a third of the build's CPU time).
  flags+=" --disable-static"
  if command -v nvcc >/dev/null 2>&1; then
    local cuda_dir; cuda_dir=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")
    flags+=" --enable-cuda --with-cuda-dir=$cuda_dir"
  else
    flags+=" --disable-cuda"
  fi
  if command -v mpicc >/dev/null 2>&1; then flags+=" --enable-mpi --disable-mpi-check"; else flags+=" --disable-mpi"; fi
  echo "$flags"
}

starfact_starpu_prefix() {
  local here; here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  local key
  key=$( { starfact_starpu_configure_flags; cat "$here"/starpu-*.patch "$here/starpu-config.sh"; } \
         | sha256sum | cut -c1-12)
  echo "$STARFACT_CACHE_DIR/starpu-$STARPU_VERSION-$key"
}
