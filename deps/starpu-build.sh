# Sourced by deps/setup.sh, deps/setup-simgrid.sh and deps/build-starpu.sh: the steps that turn an unpacked StarPU
# source tree into an installed prefix. Kept apart from starpu-config.sh, whose contents key the cache: editing these
# steps does not rebuild a StarPU that is already there.

# starfact_add_deb_src: when no deb-src entry is configured, adds one for the same Debian mirror and suites as the
# binary entries (apt-get source needs it) and prints "added"; prints nothing otherwise. Needs root or sudo.
starfact_add_deb_src() {
  grep -rqs "deb-src" /etc/apt/sources.list /etc/apt/sources.list.d/ && return 0
  local sudo= mirror codename
  [ "$(id -u)" = 0 ] || sudo=sudo
  # (either file may be missing on a fresh box: grep's exit status must not end the script under pipefail)
  mirror=$(grep -rhoE "^(URIs:|deb) *\S*debian\S*" /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null \
           | grep -v security | head -1 | awk '{print $NF}' || true)
  mirror=${mirror:-http://deb.debian.org/debian}
  codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
  echo "[deps] adding deb-src entry for $mirror $codename" >&2
  printf 'Types: deb-src\nURIs: %s\nSuites: %s %s-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    "$mirror" "$codename" "$codename" | $sudo tee /etc/apt/sources.list.d/starfact-deb-src.sources >/dev/null
  echo added
}

# starfact_build_starpu_tree SRC PREFIX SERIES "FLAGS" PATCH...: applies the patches to SRC, runs autogen.sh when SRC
# has no configure script (a git checkout), configures with FLAGS into PREFIX, builds, installs, checks that the FxT
# tools came with it and marks PREFIX complete. Logs go to SRC/build/*.log; on failure their tail is printed.
starfact_build_starpu_tree() {
  local src=$1 prefix=$2 series=$3 flags=$4; shift 4
  local p
  for p in "$@"; do
    echo "[deps] applying $(basename "$p")" >&2
    patch -d "$src" -p1 --forward --batch < "$p" >&2 || { echo "[deps] $(basename "$p") does not apply to $src" >&2; return 1; }
  done
  if [ ! -x "$src/configure" ]; then
    echo "[deps] no configure script (a git checkout): running autogen.sh" >&2
    (cd "$src" && ./autogen.sh > autogen.log 2>&1) \
      || { tail -20 "$src/autogen.log" >&2; echo "[deps] autogen.sh failed (autoconf, automake, libtool installed?)" >&2; return 1; }
  fi
  echo "[deps] configure $flags" >&2
  mkdir -p "$src/build"
  # --disable-dependency-tracking: a one-off build needs no header dependencies (about 20 s less of configure on
  # 2 cores); it changes nothing installed, so it stays out of the flags that key the cache.
  (cd "$src/build" && ../configure --prefix="$prefix" --disable-dependency-tracking $flags > configure.log 2>&1) \
    || { tail -40 "$src/build/configure.log" >&2; echo "[deps] configure failed (log: $src/build/configure.log)" >&2; return 1; }
  echo "[deps] building StarPU (make -j${JOBS:-$(nproc)}); this takes a few minutes" >&2
  (cd "$src/build" && make -j"${JOBS:-$(nproc)}" > make.log 2>&1 && make install > install.log 2>&1) \
    || { tail -40 "$src/build/make.log" >&2; echo "[deps] build failed (log: $src/build/make.log)" >&2; return 1; }
  [ -x "$prefix/bin/starpu_fxt_tool" ] || { echo "[deps] starpu_fxt_tool was not installed" >&2; return 1; }
  grep -E "^#define STARPU_(USE_CUDA|USE_FXT|USE_MPI|NMAXWORKERS|MAXCPUS|MAXCUDADEVS) " \
    "$prefix/include/starpu/$series/starpu_config.h" >&2 || true
  touch "$prefix/.complete"
}
