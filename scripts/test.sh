#!/usr/bin/env bash
# The README's second command (and .ci/run): install what is missing, build, run the whole test
# suite with ctest. Slow 3D checks carry the label `long` and are left out unless MENISCUS_LONG=1.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${MENISCUS_BUILD_DIR:-$root/build}
bash "$root/scripts/build.sh"
source "$root/scripts/mpi-env.sh"
cd "$build"
if [ "${MENISCUS_LONG:-0}" = "1" ]; then
  ctest --output-on-failure -j"$(nproc)"
else
  ctest --output-on-failure -j"$(nproc)" -LE long
fi
