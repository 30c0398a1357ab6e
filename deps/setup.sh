#!/usr/bin/env bash
# starfact dependencies: Debian packages + StarPU 1.3.10 (CUDA, FxT) built from Debian's source package.
# Idempotent and cached: a second run with the same patches/flags does nothing and prints the prefix.
#   deps/setup.sh            install what is missing, build StarPU if its prefix is not complete
#   deps/setup.sh --prefix   only print the prefix StarPU is (or will be) installed in
# Environment: STARFACT_CACHE_DIR (default ~/.cache/starfact) holds the StarPU builds, outside the clone.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/starpu-config.sh"
prefix=$(starfact_starpu_prefix)
if [ "${1:-}" = "--prefix" ]; then echo "$prefix"; exit 0; fi
log() { echo "[deps] $*" >&2; }
SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo

# 1. Debian packages ---------------------------------------------------------------------------
# The Python package's tests: NumPy and pytest; PyTorch (CPU) and scikit-learn for the DLPack and LSSVC tests
# (with their dependencies about 170 MB to download, 820 MB installed, a minute or two).
packages=(build-essential cmake pkg-config dpkg-dev libhwloc-dev libfxt-dev libopenblas-dev liblapacke-dev
          catch2 ccache libopenmpi-dev openmpi-bin vite zlib1g-dev dataset-fashion-mnist
          python3 python3-numpy python3-pip python3-venv python3-pytest python3-torch python3-sklearn)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
need_src=0; [ -f "$prefix/.complete" ] || need_src=1
if [ "$need_src" = 1 ]; then  # apt-get source needs a deb-src entry (starpu-build.sh adds one if missing)
  source "$here/starpu-build.sh"
  [ -z "$(starfact_add_deb_src)" ] || missing+=(__update__)
fi
if [ ${#missing[@]} -gt 0 ]; then
  log "installing: ${missing[*]/__update__/}"
  $SUDO apt-get update -q >&2
  real=(); for p in "${missing[@]}"; do [ "$p" = __update__ ] || real+=("$p"); done
  [ ${#real[@]} -eq 0 ] || $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${real[@]}" >&2
fi

# 2. StarPU --------------------------------------------------------------------------------------
# The key hashes the configure flags, which depend on what step 1 installed (mpicc): on a fresh box the
# prefix computed before the installs would name a build that tools/build.sh never looks for.
prefix=$(starfact_starpu_prefix)
if [ -f "$prefix/.complete" ]; then
  log "StarPU $STARPU_VERSION already built in $prefix"
  echo "$prefix"; exit 0
fi
work=$STARFACT_CACHE_DIR/build-$(basename "$prefix")
rm -rf "$work"; mkdir -p "$work"
log "fetching StarPU source from Debian into $work"
(cd "$work" && apt-get source -q starpu >&2)
src=$(find "$work" -maxdepth 1 -type d -name "starpu-$STARPU_VERSION*" | head -1)
[ -n "$src" ] || { log "apt-get source starpu did not unpack a starpu-$STARPU_VERSION directory"; exit 1; }
source "$here/starpu-build.sh"
starfact_build_starpu_tree "$src" "$prefix" "${STARPU_VERSION%.*}" "$(starfact_starpu_configure_flags)" \
  "$here"/starpu-*.patch || exit 1
rm -rf "$work"
log "StarPU $STARPU_VERSION installed in $prefix"
echo "$prefix"
