#!/usr/bin/env bash
# Command 2 of the README: builds (if needed) and runs the test suite with ctest.
# Without a GPU the GPU tests report "Skipped"; tools/device.sh runs them on the H100.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/deps/setup.sh" >/dev/null
build=$("$root/tools/build.sh")
cd "$build"
ctest --output-on-failure -j"${JOBS:-1}" "$@"
