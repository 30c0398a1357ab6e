#!/usr/bin/env bash
# Command 2 of the README: installs the tests' packages (deps/setup.sh: pytest, PyTorch, scikit-learn, ...), builds
# what the tests need (target starfact_tests: every target but the benchmarks and tuning tools) and runs the test
# suite with ctest (extra args go to it). Without a GPU the GPU tests report "Skipped"; tools/device.sh runs them on
# the GPU machine.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/deps/setup.sh" >/dev/null
build=$(TARGETS=starfact_tests "$root/tools/build.sh")
cd "$build"
ctest --output-on-failure -j"${JOBS:-1}" "$@"
