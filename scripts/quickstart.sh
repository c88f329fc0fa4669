#!/usr/bin/env bash
# The README's first command: install what is missing, build, and run the default scene with a
# progress line: a 2D drop settling to its 60 degree contact angle under momentum-conserving MPM
# surface tension (Chen et al. 2021, Sec. 6.7), 15-30 s on 2 ranks. Output goes to
# runs/mpm-contact-angle-2d/ (particle files with particles.xdmf for ParaView,
# diagnostics.csv, run.json).
# MENISCUS_DECK picks another scene (e.g. inputs/dam-break-2d.yaml, Martin & Moyce's dam break, or
# inputs/mpm-candle-2d-ci.yaml, a small melting candle), MENISCUS_RANKS the rank count; extra
# arguments go to `meniscus run`.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$root/scripts/build.sh"
source "$root/scripts/mpi-env.sh"
ranks=${MENISCUS_RANKS:-2}
deck=${MENISCUS_DECK:-inputs/mpm-contact-angle-2d.yaml}
cd "$root"
# The scene's own folder under runs/ is the quickstart's: running the command again replaces the
# previous quickstart results (--overwrite), unless the caller continues a run or names another folder.
extra=(--overwrite)
for a in "$@"; do
  case "$a" in --restart*|--output*) extra=() ;; esac
done
echo "[quickstart] mpirun -n $ranks build/bin/meniscus run $deck ${extra[*]} $*"
mpirun -n "$ranks" "$root/build/bin/meniscus" run "$deck" "${extra[@]}" "$@"
name=$(basename "$deck" .yaml)
echo "[quickstart] results: $root/runs/$name/ (open particles.xdmf in ParaView; diagnostics.csv, run.json)"
