#!/usr/bin/env bash
# The README's second command (and .ci/run): install what is missing, build, run the whole test
# suite with ctest. Slow 3D checks carry the label `long` and are left out unless MENISCUS_LONG=1.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${MENISCUS_BUILD_DIR:-$root/build}
# The suite includes the in-situ (ParaView Catalyst) checks, so install ParaView too (about 6.5 min of
# apt on a fresh machine; docs/insitu.md). MENISCUS_WITH_PARAVIEW=0 leaves it out.
export MENISCUS_WITH_PARAVIEW=${MENISCUS_WITH_PARAVIEW:-1}
bash "$root/scripts/build.sh"
source "$root/scripts/mpi-env.sh"
cd "$build"
if [ "${MENISCUS_LONG:-0}" = "1" ]; then
  ctest --output-on-failure -j"$(nproc)"
else
  ctest --output-on-failure -j"$(nproc)" -LE long
fi
