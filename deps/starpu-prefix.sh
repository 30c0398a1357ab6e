#!/usr/bin/env bash
# Prints the StarPU prefix that deps/setup.sh builds into (or STARPU_PREFIX when set).
set -euo pipefail
if [ -n "${STARPU_PREFIX:-}" ]; then echo "$STARPU_PREFIX"; exit 0; fi
source "$(cd "$(dirname "$0")" && pwd)/starpu-config.sh"
starfact_starpu_prefix
