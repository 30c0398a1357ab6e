#!/usr/bin/env bash
# Optional: a CUDA-aware Open MPI and a StarPU 1.4 built against it, so that StarPU-MPI sends tiles from GPU memory
# to GPU memory between ranks instead of staging them through host memory (docs/mpi.md, "GPU-direct transfers
# between ranks"). Each step is cached under STARFACT_CACHE_DIR (default ~/.cache/starfact); a second run does
# nothing and prints the same prefixes.
#   deps/setup-cuda-mpi.sh STARPU_SRC [cmake args]   1. Open MPI 4.1 from Debian 12's source package, --with-cuda
#                                                    2. StarPU 1.4 from STARPU_SRC (deps/build-starpu.sh) against it
#                                                    3. starfact against both, in BUILD_DIR (default build-cuda-mpi)
#                                                    4. checks: Open MPI's CUDA support, StarPU-MPI's use of it, and
#                                                       `ctest -L mpi` in BUILD_DIR with this MPI (CHECK=0 skips it)
#   deps/setup-cuda-mpi.sh --mpi-only                step 1 only
#   deps/setup-cuda-mpi.sh --mpi-prefix              print the Open MPI prefix (built or not)
# STARPU_SRC: a StarPU 1.4 source tree (release tarball unpacked, or `git archive` of a tag such as starpu-1.4.12);
# also taken from the environment variable STARPU14_SRC. Extra cmake args go to tools/build.sh, e.g.
# -DSTARFACT_WITH_CUDA=OFF for a quick CPU-only check, -DCMAKE_CUDA_ARCHITECTURES=90 for H100s.
# Prints CUDA_MPI_PREFIX=..., STARPU_PREFIX=... and BUILD_DIR=... on stdout (logs go to stderr).
# Environment: JOBS (make/cmake parallelism, default nproc), BUILD_DIR, CHECK, STARFACT_CACHE_DIR.
set -euo pipefail  # (pipelines into grep read all input, no grep -q: its early exit would fail them by SIGPIPE)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
source "$here/cuda-mpi-config.sh"
log() { echo "[deps] $*" >&2; }
SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
jobs=${JOBS:-$(nproc)}

mpi_prefix=$(starfact_cuda_mpi_prefix)
case ${1:-} in
--mpi-prefix) echo "$mpi_prefix"; exit 0 ;;
--mpi-only) mpi_only=1; shift ;;
*) mpi_only=0 ;;
esac
src=""
if [ "$mpi_only" = 0 ]; then
  if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then src=$1; shift; fi
  src=${src:-${STARPU14_SRC:-}}
  [ -n "$src" ] || { log "usage: deps/setup-cuda-mpi.sh STARPU_SRC [cmake args] (a StarPU 1.4 source tree; or STARPU14_SRC)"; exit 1; }
  [ -f "$src/configure.ac" ] || { log "$src has no configure.ac: not a StarPU source tree"; exit 1; }
fi

# Open MPI's own checks of an installed prefix: built with CUDA, the cuda extension (MPIX_Query_cuda_support in
# <mpi-ext.h>) installed, the smcuda BTL present.
check_mpi() {
  local p=$1
  OPAL_PREFIX=$p "$p/bin/ompi_info" --parsable --all 2>/dev/null | grep "^mca:mpi:base:param:mpi_built_with_cuda_support:value:true" >/dev/null \
    || { log "$p: ompi_info does not report mpi_built_with_cuda_support true"; return 1; }
  grep -qs "MPIX_CUDA_AWARE_SUPPORT 1" "$p"/include/openmpi/mpiext/mpiext_cuda_c.h "$p"/include/mpi-ext.h \
    || { log "$p: <mpi-ext.h> does not define MPIX_CUDA_AWARE_SUPPORT 1"; return 1; }
  [ -f "$p/lib/openmpi/mca_btl_smcuda.so" ] || { log "$p: no smcuda BTL"; return 1; }
}

# 1. Open MPI ----------------------------------------------------------------------------------------------------
build_mpi() {
  if [ -f "$mpi_prefix/.complete" ]; then log "CUDA-aware Open MPI already built in $mpi_prefix"; return 0; fi
  local flags; flags=$(starfact_cuda_mpi_configure_flags)
  command -v dpkg-source >/dev/null || { log "dpkg-source missing: run deps/setup.sh (it installs dpkg-dev)"; return 1; }
  source "$here/starpu-build.sh"
  if [ -n "$(starfact_add_deb_src)" ]; then $SUDO apt-get update -q >&2; fi
  local work=$STARFACT_CACHE_DIR/build-$(basename "$mpi_prefix")
  rm -rf "$work"; mkdir -p "$work"
  log "fetching Open MPI's source package from Debian into $work"
  (cd "$work" && apt-get source -q --download-only openmpi >&2)
  # Upstream's release tree (Debian's .orig tarball) without Debian's packaging patches: those change configure.ac
  # and Makefile.am for Debian's layout (library directories, symbol versions, Fortran wrappers, other
  # architectures) and would require rerunning autogen.pl; none touches the CUDA or shared-memory code.
  (cd "$work" && dpkg-source --skip-patches -x openmpi_"$CUDA_MPI_OMPI_VERSION"-*.dsc ompi >&2)
  [ -x "$work/ompi/configure" ] || { log "dpkg-source did not unpack Open MPI $CUDA_MPI_OMPI_VERSION into $work/ompi"; return 1; }
  log "configure $flags"
  mkdir -p "$work/ompi/build"
  (cd "$work/ompi/build" && ../configure --prefix="$mpi_prefix" $flags > configure.log 2>&1) \
    || { tail -40 "$work/ompi/build/configure.log" >&2; log "configure failed (log: $work/ompi/build/configure.log)"; return 1; }
  grep -E "^checking if have cuda support|^checking for MCA component btl:smcuda compile mode" -A1 \
    "$work/ompi/build/configure.log" >&2 || true
  log "building Open MPI (make -j$jobs); about 15 minutes on 2 cores"
  (cd "$work/ompi/build" && make -j"$jobs" > make.log 2>&1 && make install > install.log 2>&1) \
    || { grep -m5 -B2 -A8 "error:" "$work/ompi/build/make.log" >&2 || tail -40 "$work/ompi/build/make.log" >&2
         log "build failed (log: $work/ompi/build/make.log)"; return 1; }
  check_mpi "$mpi_prefix" || return 1
  touch "$mpi_prefix/.complete"
  rm -rf "$work"
  log "CUDA-aware Open MPI installed in $mpi_prefix"
}
build_mpi
echo "CUDA_MPI_PREFIX=$mpi_prefix"
[ "$mpi_only" = 1 ] && exit 0

# 2. StarPU 1.4 against it ---------------------------------------------------------------------------------------
# deps/build-starpu.sh configures with --with-mpicc=$STARPU_MPICC, which also keys its prefix.
# (StarPU's autogen.sh runs `libtool --version`: Debian ships that command in libtool-bin.)
if [ ! -x "$src/configure" ] && ! { command -v autoreconf && command -v libtool; } >/dev/null; then
  log "installing autoconf, automake, libtool (a git checkout of StarPU has no configure script)"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends autoconf automake libtool \
    libtool-bin >&2
fi
starpu_prefix=$(PATH=$mpi_prefix/bin:$PATH STARPU_MPICC=$mpi_prefix/bin/mpicc JOBS=$jobs "$here/build-starpu.sh" "$src")
case $(basename "$starpu_prefix") in starpu-1.4.*) ;; *) log "$src is not StarPU 1.4 (GPU-direct needs 1.4)"; exit 1 ;; esac
# StarPU-MPI compiled its GPU-direct path only when <mpi-ext.h> defined MPIX_CUDA_AWARE_SUPPORT: it then calls
# MPIX_Query_cuda_support at start-up.
starpumpi=$(ls "$starpu_prefix"/lib/libstarpumpi-1.4.so.* | head -1)
nm -D "$starpumpi" | grep " U MPIX_Query_cuda_support" >/dev/null \
  || { log "$starpumpi does not call MPIX_Query_cuda_support: StarPU-MPI was built without GPU-direct"; exit 1; }
readelf -d "$starpumpi" | grep "$mpi_prefix/lib" >/dev/null \
  || log "warning: $starpumpi has no run path to $mpi_prefix/lib (set LD_LIBRARY_PATH when running)"
echo "STARPU_PREFIX=$starpu_prefix"

# 3. starfact against both ---------------------------------------------------------------------------------------
build=${BUILD_DIR:-$root/build-cuda-mpi}
log "building starfact in $build"
STARPU_PREFIX=$starpu_prefix BUILD_DIR=$build JOBS=$jobs "$root/tools/build.sh" \
  -DMPI_C_COMPILER="$mpi_prefix/bin/mpicc" -DMPI_CXX_COMPILER="$mpi_prefix/bin/mpicxx" \
  -DMPIEXEC_EXECUTABLE="$mpi_prefix/bin/mpirun" "$@" >/dev/null
ldd "$build/examples/starpu_chol" | grep "libmpi.so.* => $mpi_prefix/lib" >/dev/null \
  || { log "$build/examples/starpu_chol does not link libmpi from $mpi_prefix"; ldd "$build/examples/starpu_chol" | grep -E "mpi|starpu" >&2; exit 1; }
echo "BUILD_DIR=$build"

# 4. the distributed tests with this MPI -------------------------------------------------------------------------
if [ "${CHECK:-1}" = 1 ]; then
  log "ctest -L mpi in $build"
  (cd "$build" && ctest -L mpi --output-on-failure -j1 >&2) || { log "the distributed tests failed with $mpi_prefix"; exit 1; }
fi
