#!/usr/bin/env bash
# MPM surface-tension benchmark (not a test): the 3D droplet impact of inputs/mpm-droplet-impact-3d.yaml
# (Chen et al. 2021, section 6.5: R = 0.15 m, k = 20 N/m, slip ground) at dx = 1/63 (63 x 189 x 63 cells,
# 8 particles per cell) for a fixed number of steps, in two layouts of a 2-core machine: 1 rank x 2
# OpenMP threads and 2 ranks x 1 thread, and in two phases: the scene's start (free fall) and the
# impact itself (the drop placed 1.5 cm above the ground, moving at the impact speed of 6.79 m/s, so
# it hits within the run). Prints ms/step, particle-steps/s (interior particles), the CPU time per
# step of all processes together, the surface samples per step and the per-stage split of a step
# (the slowest rank's time of each stage):
#   sampling  surface_sampling: level set, contour, Poisson samples, parents, k per sample
#   split     split: balance particles and the samples' mass and momentum onto the grid (+ surface force)
#   P2G       p2g: the interior particles onto the grid, and the ghost-node exchange
#   grid      grid_update (explicit) or newton (implicit: Newton + CG, with their own transfers)
#   merge     merge: the samples' and balance particles' share of G2P
#   G2P       g2p: interior particles
#   other     migration, sorting and the rest of the step
# Usage: bash bench/mpm-impact.sh [STEPS] [--set key=value ...]
#   e.g. bash bench/mpm-impact.sh 2 --set mpm.integrator=implicit --set mpm.dt_max=1e-3 (slow: docs/performance.md)
# (build first: bash scripts/build.sh). mpirun binds a single rank to one core unless told otherwise,
# which would put both OpenMP threads on it: threaded runs use --bind-to none and OpenMP's binding.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/mpi-env.sh"
steps=${1:-100}
shift || true
exe="$root/build/bin/meniscus"
deck="$root/inputs/mpm-droplet-impact-3d.yaml"
out=$(mktemp -d)
dx=0.015873015873015872  # 1/63
# The ground is the wall layer's face, 3 cells up; the drop's lowest point starts 1.5 cm above it.
impact=(--set "sources[0].center=[0.5, $(python3 -c "print(3 * $dx + 0.15 + 0.015)"), 0.5]"
        --set "sources[0].velocity=[0, -6.79, 0]")

# Two ranks cut the domain across x, through the drop: the default cut (across y, the long side)
# would leave one rank with the whole drop and the other with nothing to do.
halves=(--set "domain.ranks=[2, 1, 1]")

run() {  # label ranks threads [--set ...]
  local label=$1 ranks=$2 threads=$3
  shift 3
  local dir="$out/run"
  rm -rf "$dir" && mkdir -p "$dir"
  local bind=(--bind-to core) omp=()
  if [ "$threads" -gt 1 ]; then bind=(--bind-to none); omp=(-x OMP_PROC_BIND=spread -x OMP_PLACES=threads); fi
  OMP_NUM_THREADS=$threads mpirun "${bind[@]}" "${omp[@]}" -n "$ranks" "$root/bench/per-rank-time.sh" "%U %S" "$dir/cpu" \
    "$exe" run "$deck" --steps "$steps" --threads "$threads" --quiet --output "$dir" \
    --set domain.cell_size=$dx --set diagnostics.every=1 --set output.every_time=0 "$@" > "$dir/log" 2>&1 \
    || { cat "$dir/log"; exit 1; }
  python3 - "$dir" "$label" <<'PY'
import json, sys, csv, glob
d, label = sys.argv[1], sys.argv[2]
# CPU time of all processes (user + sys, start-up included): less inflated than wall time on a shared machine.
cpu_s = sum(sum(float(x) for x in open(f).read().split()[-2:]) for f in glob.glob(d + "/cpu.*"))
r = json.load(open(d + "/run.json"))
rows = list(csv.DictReader(open(d + "/diagnostics.csv")))
n = int(float(rows[0]["particles"]))
# Per-step columns: the row of step 0 (before any step: no samples, no Newton) is not a step.
stepped = [x for x in rows if int(float(x["step"])) > 0] or rows
surf = sum(float(x["surface_particles"]) for x in stepped) / len(stepped)
t = {k: v["max_s"] for k, v in r["timers"].items()}  # the slowest rank of each stage
steps = r["steps"]
step_s = (r["wall_s"] - t.get("diagnostics", 0)) / steps  # diagnostics are not part of a step
stages = [("sampling", ["surface_sampling"]), ("split", ["split"]), ("P2G", ["p2g"]),
          ("grid", ["grid_update", "newton"]), ("merge", ["merge"]), ("G2P", ["g2p"])]
parts, known = [], 0.0
for name, keys in stages:
    s = sum(t.get(k, 0) for k in keys) / steps
    known += s
    parts.append(f"{name} {s * 1e3:6.1f} ms {100 * s / step_s:4.1f}%")
other = step_s - known
parts.append(f"other {other * 1e3:5.1f} ms {100 * other / step_s:4.1f}%")
extra = ""
if "newton_iterations" in rows[-1]:
    extra = f" newton/step {sum(float(x['newton_iterations']) for x in stepped) / len(stepped):.1f}" \
            f" CG/step {sum(float(x['cg_iterations']) for x in stepped) / len(stepped):.0f}"
dt = float(rows[-1]["dt"])
print(f"{label:34s} interior={n} surface~{surf:.0f} dt={dt:.2e} {step_s * 1e3:7.1f} ms/step "
      f"{n / step_s / 1e3:6.1f} k particle-steps/s  CPU {cpu_s / steps * 1e3:6.1f} ms/step (all processes){extra}")
print(f"{'':34s} " + " | ".join(parts))
PY
}

echo "meniscus $("$exe" --version | cut -d' ' -f2-), dx = 1/63, $steps steps, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
run "free fall, 1 rank x 2 threads" 1 2 "$@"
run "free fall, 2 ranks x 1 thread" 2 1 "${halves[@]}" "$@"
run "impact, 1 rank x 2 threads" 1 2 "${impact[@]}" "$@"
run "impact, 2 ranks x 1 thread" 2 1 "${halves[@]}" "${impact[@]}" "$@"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -rf "$out"
