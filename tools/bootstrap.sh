#!/usr/bin/env bash
# Command 1 of the README: installs what the library needs (deps/setup.sh --library: Debian packages and StarPU,
# cached), builds the library and starpu_chol only, and runs the main job: starpu_chol on its default problem, on the
# GPU when one is present (extra args go to it). The tests, benchmarks and the Python package, with their packages,
# come with command 2 (tools/test.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/deps/setup.sh" --library >/dev/null
build=$(TARGETS=starpu_chol "$root/tools/build.sh")
exec "$build/examples/starpu_chol" "$@"
