#!/usr/bin/env bash
# Weak-scaling benchmark (not a test): explicit MPM dam break (inputs/bench/mpm-dam-break-3d.yaml, 64^3
# cells, 8 particles per cell, dt = 1e-4 s) with the particles per rank fixed: the block is
# 0.4375 x 0.625 x (0.21875 x RANKS) m against the walls, so 1, 2 and 4 ranks hold 125,440 particles
# each; one thread per rank, oversubscribed on a 2-core machine (4 ranks share 2 cores), with the
# particle-balanced decomposition. Prints wall ms per step of the time loop, the stage timers of the
# slowest rank, the max/mean particles per rank, and the halo volume per rank and step: DMDA ghost
# exchanges P2G's sum (DMLocalToGlobal, ADD) and G2P's read (DMGlobalToLocal), 2 node planes deep
# (ghost width 2) and 4 doubles per node (mass and momentum), over every cut face of the rank's block.
# Usage: bash bench/mpm-weak-scaling.sh [STEPS]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/mpi-env.sh"
steps=${1:-60}
exe="$root/build/bin/meniscus"
deck="$root/inputs/bench/mpm-dam-break-3d.yaml"
out=$(mktemp -d)
echo "meniscus $("$exe" --version | cut -d' ' -f2-), $steps steps, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| ranks | particles (per rank) | max/mean | wall / step | p2g | grid | g2p | migrate | halo / rank / step |"
echo "|---|---|---|---|---|---|---|---|---|"
for ranks in 1 2 4; do
  dir="$out/$ranks"
  mkdir -p "$dir"
  top=$(python3 -c "print(0.03125 + 0.21875 * $ranks)")
  OMP_NUM_THREADS=1 mpirun --bind-to none -n "$ranks" "$exe" run "$deck" --steps "$steps" --threads 1 --quiet \
    --output "$dir" --set "sources[0].upper=[0.46875,0.65625,$top]" --set materials[0].bulk_modulus=1e5 \
    --set diagnostics.every=1000000 > "$dir/log" 2>&1 || { tail -20 "$dir/log"; exit 1; }
  python3 - "$dir" "$ranks" <<'PY'
import csv, json, sys
d, ranks = sys.argv[1], int(sys.argv[2])
r = json.load(open(d + "/run.json"))
rows = list(csv.DictReader(open(d + "/diagnostics.csv")))
n = int(float(rows[-1]["particles"]))
imb = float(rows[-1]["rank_particles_imbalance"])
t = r["timers"]
ms = lambda k: t[k]["max_s"] / r["steps"] * 1e3 if k in t else 0.0
# Halo: the balanced layout cuts one axis per factor of 2 here (z for 2 ranks; z and one more for 4);
# an interior cut face of the 65 x 65-node grid is a 65 x 65 plane; each exchange moves 2 planes of
# 4 doubles per node, twice per step (ADD and INSERT).
faces = {1: 0, 2: 1, 4: 2}[ranks]
halo = faces * 2 * 65 * 65 * 4 * 8 * 2
print(f"| {ranks} | {n:,} ({n // ranks:,}) | {imb:.3f} | {r['wall_s'] / r['steps'] * 1e3:.1f} ms | {ms('p2g'):.1f} | "
      f"{ms('grid_update'):.1f} | {ms('g2p'):.1f} | {ms('migrate'):.1f} | {halo / 1e6:.2f} MB |")
PY
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -rf "$out"
