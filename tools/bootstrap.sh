#!/usr/bin/env bash
# Command 1 of the README: installs the dependencies (cached), builds starfact, and runs the main
# job: starpu_chol on a default problem, on the GPU when one is present (extra args go to it).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/deps/setup.sh" >/dev/null
build=$("$root/tools/build.sh")
exec "$build/examples/starpu_chol" "$@"
