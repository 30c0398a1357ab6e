# Source on the device machine: `source tools/device-env.sh [CARRY_DIR]` (default .carry).
# Puts the carried binaries on PATH, the carried StarPU/FxT libraries first on the library path, and the carried
# Python package (python/starfact with libstarfact_c.so) first on PYTHONPATH.
_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
_carry=${1:-${CARRY_DIR:-.carry}}
case $_carry in /*) ;; *) _carry=$_root/$_carry ;; esac
if [ -f "$_carry/bin.tar.xz" ] && [ ! -d "$_carry/bin" ]; then tar -C "$_carry" -xJf "$_carry/bin.tar.xz"; fi
if [ -f "$_carry/python.tar.xz" ] && [ ! -d "$_carry/python" ]; then tar -C "$_carry" -xJf "$_carry/python.tar.xz"; fi
[ -d "$_carry/python" ] && export PYTHONPATH=$_carry/python${PYTHONPATH:+:$PYTHONPATH}
export PYTHONDONTWRITEBYTECODE=1
export LD_LIBRARY_PATH=$_carry/lib:${LD_LIBRARY_PATH:-}
export PATH=$_carry/bin:$PATH
export STARPU_HOME=${STARPU_HOME:-/tmp/starfact-starpu-home}
export STARPU_SILENT=${STARPU_SILENT:-1}
export OUT=${OUT:-$_root/device-out}
mkdir -p "$OUT" "$STARPU_HOME"
unset _root _carry
