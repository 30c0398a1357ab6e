#!/usr/bin/env bash
# Prints the StarPU prefix that deps/setup.sh builds into (or STARPU_PREFIX when set); with --simgrid, the one
# deps/setup-simgrid.sh builds into (simulation builds, docs/simulation.md).
set -euo pipefail
if [ -n "${STARPU_PREFIX:-}" ]; then echo "$STARPU_PREFIX"; exit 0; fi
here=$(cd "$(dirname "$0")" && pwd)
if [ "${1:-}" = "--simgrid" ]; then
  source "$here/starpu-simgrid-config.sh"
  starfact_starpu_simgrid_prefix "${2:-}"  # --mpi: the SMPI build's
  exit 0
fi
source "$here/starpu-config.sh"
starfact_starpu_prefix
