#!/usr/bin/env bash
# The README's first command: install what is missing, build, and run the default scene (a 2D dam
# break after Martin & Moyce, about a minute on 2 ranks) with a progress line. Output goes to
# runs/dam-break-2d/ (diagnostics.csv, run.json).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$root/scripts/build.sh"
source "$root/scripts/mpi-env.sh"
ranks=${MENISCUS_RANKS:-2}
cd "$root"
echo "[quickstart] mpirun -n $ranks build/bin/meniscus run inputs/dam-break-2d.yaml $*"
mpirun -n "$ranks" "$root/build/bin/meniscus" run inputs/dam-break-2d.yaml "$@"
echo "[quickstart] results: $root/runs/dam-break-2d/ (diagnostics.csv, run.json)"
