# Sourced by deps/setup-cuda-mpi.sh: the CUDA-aware Open MPI's version, configure flags and cached prefix. The
# prefix's key hashes the flags (the CUDA directory included) and this file, so changing either rebuilds Open MPI into
# a new prefix; StarPU 1.4 built against it gets a prefix of its own (deps/build-starpu.sh keys on STARPU_MPICC).
CUDA_MPI_OMPI_VERSION=4.1.4
STARFACT_CACHE_DIR=${STARFACT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/starfact}

# The CUDA toolkit Open MPI compiles its CUDA support against (cuda.h; libcuda.so is opened at run time): nvcc's.
starfact_cuda_dir() {
  command -v nvcc >/dev/null 2>&1 || { echo "[deps] nvcc not found: a CUDA-aware MPI needs the CUDA toolkit" >&2; return 1; }
  dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")"
}

# Open MPI 4.1 with CUDA support and little else:
# - --with-cuda: the CUDA convertor in ob1 (device buffers accepted by every point-to-point call), the smcuda BTL
#   (shared memory plus CUDA IPC between the GPUs of one node), the MPIX_Query_cuda_support extension (mpi-ext.h);
# - no UCX, verbs, OFI, PSM, Portals, knem, xpmem: one node, shared memory (and TCP between nodes);
# - internal hwloc, libevent and PMIx, so the installed tree runs on another machine with only libc and libcuda;
# - no Fortran, Java, OpenSHMEM, ROMIO (MPI-IO).
starfact_cuda_mpi_configure_flags() {
  local cuda_dir; cuda_dir=$(starfact_cuda_dir) || return 1
  local flags="--with-cuda=$cuda_dir --enable-mpi-ext=cuda --disable-mpi-fortran --disable-oshmem --disable-mpi-java"
  flags+=" --disable-io-romio --without-ucx --without-verbs --without-ofi --without-psm"
  flags+=" --without-psm2 --without-portals4 --without-knem --without-xpmem --without-hcoll --without-fca"
  flags+=" --with-hwloc=internal --with-libevent=internal --with-pmix=internal"
  echo "$flags"
}

starfact_cuda_mpi_prefix() {
  local here; here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  local key
  key=$( { starfact_cuda_mpi_configure_flags; cat "$here/cuda-mpi-config.sh"; } | sha256sum | cut -c1-12)
  echo "$STARFACT_CACHE_DIR/openmpi-$CUDA_MPI_OMPI_VERSION-cuda-$key"
}
