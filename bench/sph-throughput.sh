#!/usr/bin/env bash
# SPH throughput benchmark (not a test): the zero-gravity cube of inputs/sph-zero-g-cube.yaml
# (29^3 = 24 389 particles, r = 0.02, dt = 1 ms, paper parameters) in two layouts of a 2-core machine:
# 1 rank x 2 OpenMP threads and 2 ranks x 1 thread. Prints the time per step, particle-steps/s, the
# average DFSPH (divergence, density) and CG iterations per step and the stage timers.
# Usage: bash bench/sph-throughput.sh [STEPS] [--set key=value ...]
#   e.g. bash bench/sph-throughput.sh 50 --set sph.st_mode=explicit --set sph.surface_tension=500
# (build first: bash scripts/build.sh). The issue's reference (authors' OpenMP code, single precision,
# AVX, 2 threads): 114 ms per step, 27 DFSPH and 0.2-1 CG iterations per step.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/mpi-env.sh"
steps=${1:-50}
shift || true
exe="$root/build/bin/meniscus"
deck="$root/inputs/sph-zero-g-cube.yaml"
out=$(mktemp -d)

run() {  # label ranks threads
  local label=$1 ranks=$2 threads=$3
  shift 3
  local dir="$out/${ranks}x${threads}"
  mkdir -p "$dir"
  local bind=(--bind-to core) omp=()
  if [ "$threads" -gt 1 ]; then bind=(--bind-to none); omp=(-x OMP_PROC_BIND=spread -x OMP_PLACES=threads); fi
  OMP_NUM_THREADS=$threads mpirun "${bind[@]}" "${omp[@]}" -n "$ranks" \
    "$exe" run "$deck" --steps "$steps" --threads "$threads" --quiet --output "$dir" \
    --set diagnostics.every="$steps" --set output.every_time=0 "$@" > "$dir/log" 2>&1 || { cat "$dir/log"; exit 1; }
  python3 - "$dir" "$label" <<'PY'
import json, sys, csv
d, label = sys.argv[1], sys.argv[2]
r = json.load(open(d + "/run.json"))
rows = list(csv.DictReader(open(d + "/diagnostics.csv")))
n, last = int(float(rows[0]["particles"])), rows[-1]
t = r["timers"]
# Diagnostics rebuild the neighbourhood once per row: leave them out of the per-step time.
step_s = (r["wall_s"] - t.get("diagnostics", {"max_s": 0})["max_s"]) / r["steps"]
stages = " ".join(f"{k}={v['max_s'] / r['steps'] * 1e3:.1f}ms" for k, v in t.items() if k != "diagnostics")
print(f"{label:24s} particles={n} {step_s * 1e3:7.1f} ms/step {n / step_s / 1e3:7.1f} k particle-steps/s "
      f"DFSPH div={float(last['divergence_iterations']):.1f} density={float(last['density_iterations']):.1f} "
      f"CG={float(last['cg_iterations']):.2f} | {stages}")
PY
}

echo "meniscus $("$exe" --version | cut -d' ' -f2-), $steps steps, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
run "1 rank x 2 threads" 1 2 "$@"
run "2 ranks x 1 thread" 2 1 "$@"
rm -rf "$out"
