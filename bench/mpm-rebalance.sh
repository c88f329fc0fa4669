#!/usr/bin/env bash
# Rebalancing benchmark (not a test): the issue-13 dam-break block (inputs/bench/mpm-dam-break-3d.yaml
# with sources[0].upper = [0.4375, 0.625, 0.4375], ExaMPM's bulk modulus 1e5 and dt up to 1e-3 s so that
# the column collapses within a few hundred steps) on RANKS ranks, one thread each, once with the
# start-up cuts kept (domain.rebalance_threshold = 0) and once rebalancing at THRESHOLD every 10 steps.
# Prints max/mean particles per rank over time (diagnostics.csv), the wall time per step, and each
# rebalance's log line (imbalance before -> after, seconds from the decision to the migrated particles).
# Usage: bash bench/mpm-rebalance.sh [RANKS] [STEPS] [CELL_SIZE] [THRESHOLD]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/mpi-env.sh"
ranks=${1:-4}
steps=${2:-300}
cell=${3:-0.03125}
threshold=${4:-1.2}
exe="$root/build/bin/meniscus"
deck="$root/inputs/bench/mpm-dam-break-3d.yaml"
out=$(mktemp -d)
every=$((steps / 10))
echo "meniscus $("$exe" --version | cut -d' ' -f2-), $ranks ranks x 1 thread, $steps steps, cell $cell, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for t in 0 "$threshold"; do
  dir="$out/$t"
  mkdir -p "$dir"
  OMP_NUM_THREADS=1 mpirun --bind-to none -n "$ranks" "$exe" run "$deck" --steps "$steps" --threads 1 \
    --output "$dir" --set "sources[0].upper=[0.4375,0.625,0.4375]" --set materials[0].bulk_modulus=1e5 \
    --set domain.cell_size="$cell" --set mpm.dt_max=1e-3 --set diagnostics.every="$every" \
    --set domain.rebalance_threshold="$t" --set domain.rebalance_interval=10 > "$dir/log" 2>&1 ||
    { tail -20 "$dir/log"; exit 1; }
  python3 - "$dir" "$t" <<'PY'
import csv, json, sys
d, t = sys.argv[1], sys.argv[2]
r = json.load(open(d + "/run.json"))
rows = list(csv.DictReader(open(d + "/diagnostics.csv")))
series = "  ".join("%s:%.3f" % (row["step"], float(row["rank_particles_imbalance"])) for row in rows)
label = "start-up cuts kept" if float(t) == 0 else "rebalance_threshold %s" % t
tm = r["timers"]
reb = tm.get("rebalance", {}).get("max_s", 0.0)
print("%s: %d particles, %.1f ms wall per step, rebalance timer (slowest rank) %.3f s in all" %
      (label, int(float(rows[-1]["particles"])), r["wall_s"] / r["steps"] * 1e3 if "wall_s" in r else float("nan"), reb))
print("  max/mean by step: " + series)
PY
  grep "rebalanced after step" "$dir/log" | sed 's/^/  /' || true
done
rm -rf "$out"
