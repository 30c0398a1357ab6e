#!/usr/bin/env bash
# starfact dependencies: Debian packages + StarPU 1.3.10 (CUDA, FxT) built from Debian's source package.
# Idempotent and cached: a second run with the same patches/flags does nothing and prints the prefix.
#   deps/setup.sh            everything: the library's packages, the Python package's and the tests' (tools/test.sh)
#   deps/setup.sh --library  only what the library and its drivers (starpu_chol, ...) build from: tools/bootstrap.sh
#   deps/setup.sh --python   the library's packages and the Python package's (NumPy, venv, pip), no test packages
#   deps/setup.sh --prefix   only print the prefix StarPU is (or will be) installed in
# Each form builds StarPU if its prefix is not complete.
# Environment: STARFACT_CACHE_DIR (default ~/.cache/starfact) holds the StarPU builds, outside the clone.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/starpu-config.sh"
set_name=all
case "${1:-}" in
  --prefix) starfact_starpu_prefix; exit 0 ;;
  --library) set_name=library ;;
  --python) set_name=python ;;
  "") ;;
  *) echo "usage: deps/setup.sh [--library | --python | --prefix]" >&2; exit 2 ;;
esac
prefix=$(starfact_starpu_prefix)
log() { echo "[deps] $*" >&2; }
SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo

# 1. Debian packages ---------------------------------------------------------------------------
# The library: compiler, CMake, ccache, and what StarPU is configured with (hwloc, FxT, Open MPI: they are part of
# StarPU's cache key, so the library set holds them all) and links to (OpenBLAS, LAPACKE); Catch2 (headers only),
# since a default configure builds the tests.
library=(build-essential cmake pkg-config dpkg-dev ccache libhwloc-dev libfxt-dev libopenmpi-dev openmpi-bin
         libopenblas-dev liblapacke-dev catch2)
# The Python package: NumPy, and venv + pip to install it (python/pyproject.toml; docs/python.md).
python=(python3 python3-numpy python3-venv python3-pip)
# The tests: pytest; PyTorch (CPU) and scikit-learn for the DLPack and LSSVC tests; ViTE (trace test); zlib and the
# Fashion-MNIST data set (the LS-SVM application built as a consumer project). On a fresh Debian 12, with what they
# depend on: the library set 188 packages (157 MB to download, 680 MB installed), the Python and test sets 346 more
# (290 MB, 1.3 GB: PyTorch, SciPy, the data set, ViTE and theirs).
tests=(python3-pytest python3-torch python3-sklearn vite zlib1g-dev dataset-fashion-mnist)
case $set_name in
  library) packages=("${library[@]}") ;;
  python) packages=("${library[@]}" "${python[@]}") ;;
  all) packages=("${library[@]}" "${python[@]}" "${tests[@]}") ;;
esac
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
