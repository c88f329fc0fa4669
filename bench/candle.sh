#!/usr/bin/env bash
# Candle benchmark (not a test): inputs/mpm-candle-2d.yaml (Chen et al. 2021, Sec. 6.9 in 2D, dx = 1/64,
# backward Euler, the heat solve every step) for STEPS steps after the flame is lit, on RANKS ranks x 1
# thread. Prints per-stage seconds per step (surface sampling, P2G, Newton = the linear solves of the
# momentum step, heat solve, G2P), the heat solve's share of an implicit step (the issue's target: under
# 15 %), heat KSP iterations per step and the heat solve's parts (assembly, preconditioner set-up, CG, G2P;
# diagnostics.csv columns heat_*_s), particle-steps per second and memory per particle (peak RSS / N).
# Usage: bash bench/candle.sh [STEPS] [RANKS] [--set key=value ...]  (build first: bash scripts/build.sh)
# Timings on a shared machine are noisy: say how loaded it was when you report them.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/mpi-env.sh"
steps=${1:-50}
ranks=${2:-1}
shift 2 || shift $# || true
out=$(mktemp -d)
OMP_NUM_THREADS=1 /usr/bin/time -f "%M" -o "$out/rss_kib" mpirun -n "$ranks" "$root/build/bin/meniscus" run \
  "$root/inputs/mpm-candle-2d.yaml" --steps "$steps" --quiet --output "$out/run" \
  --set mpm.heat.heating_start_time=0 --set diagnostics.every=1 --set output.every_time=0 "$@" > "$out/log" 2>&1 \
  || { cat "$out/log"; exit 1; }
python3 - "$out" "$ranks" <<'PY'
import csv, json, sys
d, ranks = sys.argv[1], int(sys.argv[2])
r = json.load(open(d + "/run/run.json"))
rows = [x for x in csv.DictReader(open(d + "/run/diagnostics.csv")) if int(float(x["step"])) > 0]
n = int(float(rows[-1]["particles"]))
steps = r["steps"]
t = {k: v["max_s"] for k, v in r["timers"].items()}
step_s = (r["wall_s"] - t.get("diagnostics", 0)) / steps
print(f"candle 2D, {n} particles, {steps} steps, {ranks} rank(s) x 1 thread")
for k in ("surface_sampling", "split", "p2g", "newton", "heat_solve", "g2p", "merge", "migrate", "sort"):
    if k in t:
        print(f"  {k:18s} {1e3 * t[k] / steps:9.2f} ms/step  {100 * t[k] / steps / step_s:5.1f} %")
print(f"  whole step         {1e3 * step_s:9.2f} ms/step")
print(f"heat solve share of an implicit step: {100 * t.get('heat_solve', 0) / steps / step_s:.1f} % (target < 15 %)")
its = [float(x["heat_ksp_iterations"]) for x in rows]
print(f"heat KSP iterations per step: mean {sum(its) / len(its):.1f}, max {max(its):.0f}")
mean = lambda k: sum(float(x.get(k, 0) or 0) for x in rows) / len(rows)
print(f"heat solve parts per step (rank 0): assembly {1e3 * mean('heat_assemble_s'):.2f} ms, preconditioner set-up "
      f"{1e3 * mean('heat_setup_s'):.2f} ms, CG {1e3 * mean('heat_ksp_s'):.2f} ms, G2P {1e3 * mean('heat_gather_s'):.2f} ms; "
      f"preconditioner {'Jacobi' if mean('heat_jacobi') > 0.5 else 'GAMG'} (conduction ratio {mean('heat_conduction_ratio'):.2f}), "
      f"{mean('heat_nonzeros'):.0f} stored matrix entries")
print(f"particle-steps/s: {n * steps / r['wall_s']:.0f}")
rss = int(open(d + "/rss_kib").read().split()[-1]) * 1024
print(f"peak RSS of mpirun's child tree (as /usr/bin/time sees it): {rss / 2**20:.1f} MiB, {rss / n / 1024:.1f} KiB per particle")
PY
