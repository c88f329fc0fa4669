#!/usr/bin/env bash
# Multiphase MPM throughput (not a test): the dam break (one group) and the 1:2 ball in water (two
# groups, contact, SPH density) of inputs/mpm-multiphase-*-3d-ci.yaml, in two layouts of a 2-core
# machine: 1 rank x 2 OpenMP threads and 2 ranks x 1 thread. Prints particle-steps/s and the stage
# timers (ms per step, slowest rank). Usage: bash bench/mpm-multiphase-throughput.sh [STEPS] [DECK-SUFFIX]
# DECK-SUFFIX "-ci" (default) runs the CI sizes; "" the paper-scale decks. MENISCUS_EXE=path times
# another build of meniscus (before/after comparisons on the same machine). SCENES="dam-break
# ball-in-water-1to2" (default) picks the decks; LAYOUTS="1x2 2x1" (default) the ranks x threads.
# Besides wall-clock rates it prints the run's CPU time (user + system of every rank and thread,
# start-up included): on a machine shared with other jobs the wall clock mostly measures the load.
# MENISCUS_SET="key=value ..." adds deck overrides to every run (e.g. mpm_multiphase.contact_separation=0
# times the ball decks with the paper's contact detection).
# The scene "ball-in-water-1to2-impact" is the paper-scale 1:2 ball deck with the ball started 1 cm above the water
# at 2 m/s downwards: steps from rest rebuild the SPH neighbour list once, these every few steps.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/mpi-env.sh"
steps=${1:-100}
suffix=${2--ci}
exe="${MENISCUS_EXE:-$root/build/bin/meniscus}"  # MENISCUS_EXE: compare another build
out=$(mktemp -d)

run() {  # label deck ranks threads [--set key=value ...]
  local label=$1 deck=$2 ranks=$3 threads=$4
  shift 4
  local dir="$out/${label// /_}"
  mkdir -p "$dir"
  local bind=(--bind-to core) omp=()
  if [ "$threads" -gt 1 ]; then bind=(--bind-to none); omp=(-x OMP_PROC_BIND=spread -x OMP_PLACES=threads); fi
  OMP_NUM_THREADS=$threads /usr/bin/time -f "%U %S" -o "$dir/cpu" mpirun "${bind[@]}" "${omp[@]}" -n "$ranks" \
    "$exe" run "$deck" "$@" --steps "$steps" --threads "$threads" --quiet --output "$dir" > "$dir/log" 2>&1 || { cat "$dir/log"; exit 1; }
  python3 - "$dir" "$label" <<'PY'
import json, sys, csv
d, label = sys.argv[1], sys.argv[2]
cpu = sum(float(s) for s in open(d + "/cpu").read().split()[-2:])
r = json.load(open(d + "/run.json"))
rows = list(csv.DictReader(open(d + "/diagnostics.csv")))
n = int(float(rows[0]["particles"]))
t = r["timers"]
stages = " ".join(f"{k}={v['max_s'] / r['steps'] * 1e3:.1f}ms" for k, v in t.items() if k != "diagnostics")
print(f"{label:36s} particles={n:8d} {r['particle_steps_per_s'] / 1e6:6.3f} M particle-steps/s  cpu={cpu:.1f}s  per step: {stages}")
PY
}

echo "meniscus $("$exe" --version | cut -d' ' -f2-), $steps steps, $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
for scene in ${SCENES:-dam-break ball-in-water-1to2}; do
  extra=()
  if [ "$scene" = ball-in-water-1to2-impact ]; then
    extra=(--set "sources[1].center=[0.3,0.34,0.175]" --set "sources[1].velocity=[0,-2,0]")
  fi
  for kv in ${MENISCUS_SET:-}; do extra+=(--set "$kv"); done
  deck="$root/inputs/mpm-multiphase-${scene%-impact}-3d$suffix.yaml"
  for layout in ${LAYOUTS:-1x2 2x1}; do
    ranks=${layout%x*} threads=${layout#*x}
    run "$scene $ranks rank(s) x $threads thread(s)" "$deck" "$ranks" "$threads" "${extra[@]}"
  done
done
rm -rf "$out"
