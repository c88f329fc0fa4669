#!/usr/bin/env bash
# SPH scene benchmark (not a test): runs an emitter scene of Jeske et al. 2023 at the paper's parameters from
# t = 0 to END_TIME in two layouts of a 2-core machine (1 rank x 2 OpenMP threads, 2 ranks x 1 thread)
# and prints the time per step, the average and final particle counts, particle-steps/s (average
# count / time per step), the DFSPH (divergence, density) and CG iterations per step averaged over the
# run, the stage timers, and the load average before and after each run.
# Usage: bash bench/sph-scenes.sh SCENE END_TIME [--set key=value ...]
#   SCENE: water-bell (inputs/sph-water-bell.yaml; the issue's reference: 0.6 s, up to 66.6 k particles,
#          average 33.5 k, 170 ms per step) or fluid-chain (inputs/sph-fluid-chain.yaml; 0.4 s, up to
#          45 k particles, 199 ms per step), or any inputs/sph-*.yaml name.
#   e.g. bash bench/sph-scenes.sh water-bell 0.6
# Layouts can be restricted with LAYOUTS="1x2" or LAYOUTS="2x1" (default: both).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/mpi-env.sh"
scene=${1:?scene name, e.g. water-bell}
end=${2:?end time in s}
shift 2
exe="$root/build/bin/meniscus"
deck="$root/inputs/sph-$scene.yaml"
[ -f "$deck" ] || { echo "no deck $deck"; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

run() {  # ranks threads
  local ranks=$1 threads=$2
  shift 2
  local dir="$out/${ranks}x${threads}"
  mkdir -p "$dir"
  local bind=(--bind-to core) omp=()
  if [ "$threads" -gt 1 ]; then bind=(--bind-to none); omp=(-x OMP_PROC_BIND=spread -x OMP_PLACES=threads); fi
  local load0 load1
  load0=$(cut -d' ' -f1-3 /proc/loadavg)
  OMP_NUM_THREADS=$threads mpirun "${bind[@]}" "${omp[@]}" -n "$ranks" \
    "$exe" run "$deck" --end-time "$end" --threads "$threads" --quiet --output "$dir" \
    --set diagnostics.every=25 --set output.every_time=0 "$@" > "$dir/log" 2>&1 || { cat "$dir/log"; exit 1; }
  load1=$(cut -d' ' -f1-3 /proc/loadavg)
  python3 - "$dir" "$ranks rank(s) x $threads thread(s)" "$load0" "$load1" <<'PY'
import json, sys, csv
d, label, load0, load1 = sys.argv[1:5]
r = json.load(open(d + "/run.json"))
rows = [row for row in csv.DictReader(open(d + "/diagnostics.csv")) if float(row["time"]) > 0]
counts = [float(row["particles"]) for row in rows]
avg, final = sum(counts) / len(counts), counts[-1]
t = r["timers"]
# Diagnostics rebuild the neighbourhood once per row: leave them out of the per-step time.
step_s = (r["wall_s"] - t.get("diagnostics", {"max_s": 0})["max_s"]) / r["steps"]
mean = lambda key: sum(float(row[key]) for row in rows) / len(rows)  # each row averages 25 steps
stages = " ".join(f"{k}={v['max_s'] / r['steps'] * 1e3:.1f}" for k, v in t.items() if k != "diagnostics")
print(f"{label}: {r['steps']} steps, particles avg {avg / 1e3:.1f} k final {final / 1e3:.1f} k, "
      f"{step_s * 1e3:.1f} ms/step, {avg / step_s / 1e3:.1f} k particle-steps/s, "
      f"DFSPH div {mean('divergence_iterations'):.1f} + density {mean('density_iterations'):.1f}, "
      f"CG {mean('cg_iterations'):.2f} per step; load before {load0}, after {load1}")
print(f"  stages (ms/step): {stages}")
PY
}

echo "meniscus $("$exe" --version | cut -d' ' -f2-), $scene to t = $end s, $(nproc) cores, $(date -u +%FT%TZ)"
for layout in ${LAYOUTS:-1x2 2x1}; do
  run "${layout%x*}" "${layout#*x}" "$@"
done
