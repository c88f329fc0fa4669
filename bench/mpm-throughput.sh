#!/usr/bin/env bash
# Explicit MPM throughput benchmark (not a test): the 3D dam break of inputs/bench/mpm-dam-break-3d.yaml
# at 64^3 and 96^3 cells, 8 particles per cell, dt = 1e-4 s, in two layouts of a 2-core machine:
# 1 rank x 2 OpenMP threads and 2 ranks x 1 thread. Prints particle-steps/s, the stage timers and
# the peak resident memory per particle (all ranks, grid and libraries included).
# Usage: bash bench/mpm-throughput.sh [STEPS]     (build first: bash scripts/build.sh)
# mpirun binds a single rank to one core unless told otherwise, which would put both OpenMP
# threads on it: threaded runs use --bind-to none and OpenMP's own binding.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/mpi-env.sh"
steps=${1:-100}
exe="$root/build/bin/meniscus"
deck="$root/inputs/bench/mpm-dam-break-3d.yaml"
out=$(mktemp -d)

run() {  # label cells ranks threads
  local label=$1 cells=$2 ranks=$3 threads=$4
  local dx
  dx=$(python3 -c "print(1.0/$cells)")
  local dir="$out/$label"
  mkdir -p "$dir"
  # One rank per core is bound by mpirun; a threaded rank is left unbound and binds its threads.
  local bind=(--bind-to core) omp=()
  if [ "$threads" -gt 1 ]; then bind=(--bind-to none); omp=(-x OMP_PROC_BIND=spread -x OMP_PLACES=threads); fi
  OMP_NUM_THREADS=$threads mpirun "${bind[@]}" "${omp[@]}" -n "$ranks" "$root/bench/per-rank-time.sh" "%M" "$dir/rss" \
    "$exe" run "$deck" --steps "$steps" --threads "$threads" --quiet --output "$dir" \
    --set domain.cell_size="$dx" > "$dir/log" 2>&1 || { cat "$dir/log"; exit 1; }
  python3 - "$dir" "$label" <<'PY'
import json, sys, glob, csv
d, label = sys.argv[1], sys.argv[2]
r = json.load(open(d + "/run.json"))
rows = list(csv.DictReader(open(d + "/diagnostics.csv")))
n = int(float(rows[0]["particles"]))
# Peak RSS of every rank (one file per rank: bench/per-rank-time.sh), summed.
rss_files = glob.glob(d + "/rss.*")
assert len(rss_files) == r.get("ranks", len(rss_files)), (rss_files, r.get("ranks"))
rss_kb = sum(int(open(f).read().split()[-1]) for f in rss_files)
t = r["timers"]
stages = " ".join(f"{k}={v['max_s'] / r['steps'] * 1e3:.1f}ms" for k, v in t.items() if k != "diagnostics")
print(f"{label:28s} particles={n:9d} {r['particle_steps_per_s'] / 1e6:6.2f} M particle-steps/s  "
      f"{rss_kb * 1024 / n:5.0f} B/particle  per step: {stages}")
PY
}

echo "meniscus $("$exe" --version | cut -d' ' -f2-), $steps steps, $(nproc) cores"
run "64^3 1 rank x 2 threads" 64 1 2
run "64^3 2 ranks x 1 thread" 64 2 1
run "96^3 1 rank x 2 threads" 96 1 2
run "96^3 2 ranks x 1 thread" 96 2 1
rm -rf "$out"
