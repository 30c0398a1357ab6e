#!/usr/bin/env bash
# The SimGrid build of StarPU 1.3.10 for simulated runs (docs/simulation.md): the same Debian source package and
# patches as deps/setup.sh, configured by deps/starpu-simgrid-config.sh (--enable-simgrid, simulated CUDA workers
# without a CUDA toolkit) into its own cached prefix ~/.cache/starfact/starpu-1.3.10-simgrid-<key>. The normal
# StarPU and its prefix are not touched.
#   deps/setup-simgrid.sh            run deps/setup.sh (packages, deb-src entry, normal StarPU: cached), install
#                                    libsimgrid-dev (Debian 12: SimGrid 3.32), build StarPU unless its prefix is
#                                    complete
#   deps/setup-simgrid.sh --prefix   only print the prefix
#   deps/setup-simgrid.sh --mpi [--prefix]   the same for the SMPI build (StarPU-MPI on SimGrid's SMPI, static
#                                    libraries: several simulated nodes, experimental; docs/simulation.md)
# Cached: a second run does nothing and prints the prefix.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/starpu-simgrid-config.sh"
mpi=""; flags=starfact_starpu_simgrid_configure_flags
if [ "${1:-}" = "--mpi" ]; then mpi=--mpi; flags=starfact_starpu_smpi_configure_flags; shift; fi
prefix=$(starfact_starpu_simgrid_prefix $mpi)
if [ "${1:-}" = "--prefix" ]; then echo "$prefix"; exit 0; fi
log() { echo "[deps] $*" >&2; }
SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo

"$here/setup.sh" >/dev/null
if ! dpkg-query -W -f='${Status}' libsimgrid-dev 2>/dev/null | grep -q "install ok installed"; then
  log "installing libsimgrid-dev"
  $SUDO apt-get update -q >&2
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends libsimgrid-dev >&2
fi
prefix=$(starfact_starpu_simgrid_prefix $mpi)
if [ -f "$prefix/.complete" ]; then
  log "StarPU $STARPU_VERSION (SimGrid) already built in $prefix"
  echo "$prefix"; exit 0
fi
source "$here/starpu-build.sh"
# deps/setup.sh adds a deb-src entry only when it builds its own StarPU: with that one cached, it may be missing.
[ -z "$(starfact_add_deb_src)" ] || $SUDO apt-get update -q >&2
work=$STARFACT_CACHE_DIR/build-$(basename "$prefix")
rm -rf "$work"; mkdir -p "$work"
log "fetching StarPU source from Debian into $work"
(cd "$work" && apt-get source -q starpu >&2)
src=$(find "$work" -maxdepth 1 -type d -name "starpu-$STARPU_VERSION*" | head -1)
[ -n "$src" ] || { log "apt-get source starpu did not unpack a starpu-$STARPU_VERSION directory"; exit 1; }
patches=("$here"/starpu-*.patch)
[ -z "$mpi" ] || patches+=("$here"/smpi-*.patch)
starfact_build_starpu_tree "$src" "$prefix" "${STARPU_VERSION%.*}" "$($flags)" "${patches[@]}" || exit 1
grep -q "^#define STARPU_SIMGRID 1" "$prefix/include/starpu/${STARPU_VERSION%.*}/starpu_config.h" \
  || { log "$prefix: StarPU was built without SimGrid (configure did not find it?)"
       rm -f "$prefix/.complete"; exit 1; }
rm -rf "$work"
log "StarPU $STARPU_VERSION (SimGrid) installed in $prefix"
echo "$prefix"
