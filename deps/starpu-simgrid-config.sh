# Sourced by deps/setup-simgrid.sh, tools/simulate.sh and CMakeLists.txt (through deps/starpu-prefix.sh --simgrid):
# the configure flags and cache location of the SimGrid build of StarPU (docs/simulation.md). The normal build's
# flags come from starpu-config.sh; this file only changes what simulation needs, so that the normal build's key
# (which hashes starpu-config.sh, not this file) is untouched.
#   --enable-simgrid   the scheduler and the task graph run for real, kernels and transfers in SimGrid's virtual
#                      time (kernel times from the performance models, bus from sampling/bus/ or the platform file)
#   --disable-cuda     simulated CUDA workers need no CUDA toolkit: StarPU's SimGrid mode builds its CUDA driver
#                      without CUDA, and starfact declares its CUDA implementations without compiling them
#   --disable-mpi      in the one-process build; the SMPI build (several simulated nodes, --mpi below) has StarPU-MPI,
#                      static libraries only (SMPI loads the program as a shared object, once per rank) and smpicc
#   --disable-build-examples etc. as in the normal build
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/starpu-config.sh"

starfact_starpu_simgrid_configure_flags() {
  local flags
  flags=$(starfact_starpu_configure_flags | sed -E 's/ --enable-cuda --with-cuda-dir=[^ ]*/ --disable-cuda/;
                                                   s/ --enable-mpi --disable-mpi-check/ --disable-mpi/')
  case " $flags " in *" --disable-cuda "*) ;; *) flags+=" --disable-cuda" ;; esac
  flags+=" --enable-simgrid"
  echo "$flags"
}

# The SMPI build: StarPU-MPI compiled by SimGrid's smpicc (configure's default under --enable-simgrid), with the
# deps/smpi-*.patch patches too (the SMPI build's key hashes them; the one-process build's does not):
#   smpi-starpu-mpi-contiguous-bytes.patch   a tile whose data is contiguous goes to MPI as bytes, not as its
#                                            MPI_Type_vector: SMPI copies a derived datatype's payload through
#                                            temporary buffers (docs/simulation.md, "Cost of the simulation ...")
starfact_starpu_smpi_configure_flags() {
  starfact_starpu_simgrid_configure_flags | sed 's/ --disable-static//; s/ --disable-mpi/ --enable-mpi --disable-mpi-check --disable-shared --enable-static/'
}

# starfact_starpu_simgrid_prefix [--mpi]: the prefix of the one-process build, or of the SMPI build.
starfact_starpu_simgrid_prefix() {
  local here; here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  local key flags=starfact_starpu_simgrid_configure_flags name=simgrid
  local patches=("$here"/starpu-*.patch)
  [ "${1:-}" = --mpi ] && { flags=starfact_starpu_smpi_configure_flags; name=smpi; patches+=("$here"/smpi-*.patch); }
  key=$( { $flags; cat "${patches[@]}" "$here/starpu-config.sh" \
           "$here/starpu-simgrid-config.sh"; } | sha256sum | cut -c1-12)
  echo "$STARFACT_CACHE_DIR/starpu-$STARPU_VERSION-$name-$key"
}
