#!/usr/bin/env bash
# Position-based surface tension benchmark (Xing et al. 2022, `pbd-xing2022`; not a test): runs a PBD
# scene for STEPS steps in the layouts of a 2-core machine (1 rank x 2 OpenMP threads, 2 ranks x 1
# thread) and prints, per layout, the stage times in the paper's Table 1 categories (constraint
# projection, surface detection, local meshing; the rest: neighbour search, collision, viscosity,
# migration, sort, film insertion), each stage's share, the wall time and the core time (user + sys of
# every process of the run, start-up included) per particle-iteration, and beside them the paper's
# figure for the scene (Table 1, 28 Xeon cores): wall us per particle-iteration and the core time it
# implies if the 28 cores scaled perfectly (x 28), with the load average before and after the run.
# A particle-iteration is one particle in one constraint iteration; the count is summed over the steps
# from the particle count of every step (diagnostics every step), so emitted or inserted particles count.
# Usage: bash bench/pbd-scenes.sh SCENE STEPS [--set key=value ...]
#   SCENE: bouncing-droplet (inputs/pbd-bouncing-droplet.yaml, 11 536 particles; paper 11 494, 2.09 us)
#          or catenoid (inputs/pbd-catenoid.yaml, 1008 particles; paper 53 620, 1.47 us), or any
#          inputs/pbd-*.yaml name (no paper figure).
#   e.g. bash bench/pbd-scenes.sh bouncing-droplet 3
# Layouts can be chosen with LAYOUTS="1x2 2x1 1x1" (default "1x2 2x1"). OMP_WAIT_POLICY defaults to
# passive (threads sleep at barriers instead of spinning), so that the core time counts work, not
# waiting, on a shared machine; OMP_WAIT_POLICY=active bench/pbd-scenes.sh ... for the spinning default.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/mpi-env.sh"
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
scene=${1:?scene name, e.g. bouncing-droplet}
steps=${2:?number of steps}
shift 2
exe="$root/build/bin/meniscus"
deck="$root/inputs/pbd-$scene.yaml"
[ -f "$deck" ] || { echo "no deck $deck"; exit 2; }
[ -x "$exe" ] || { echo "no executable $exe (build the target meniscus)"; exit 2; }
case "$scene" in  # Table 1 of the paper: us per particle-iteration (total per frame / particles / nlIter)
  bouncing-droplet) paper="2.09 11494 70.8 6.7 5.4" ;;
  catenoid) paper="1.47 53620 60.7 7.6 12.6" ;;
  colliding-droplets) paper="1.84 9262 64.7 7.1 5.3" ;;
  faucet) paper="2.75 28336 66.7 6.5 5.4" ;;
  impaled-droplet) paper="2.53 47369 50.0 8.3 6.1" ;;
  *) paper="" ;;
esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
extra=("$@")  # --set key=value ... for every run

run() {  # layout RANKSxTHREADS
  local ranks=${1%x*} threads=${1#*x} dir="$work/$1" load0 load1
  mkdir -p "$dir"
  load0=$(cut -d' ' -f1-3 /proc/loadavg)
  local mpi=(--bind-to core -x OMP_WAIT_POLICY)
  [ "$threads" -gt 1 ] && mpi=(--bind-to none -x OMP_WAIT_POLICY -x OMP_PROC_BIND=spread -x OMP_PLACES=threads)
  OMP_NUM_THREADS=$threads /usr/bin/time -f "%U %S" -o "$dir/core" mpirun "${mpi[@]}" -n "$ranks" \
    "$exe" run "$deck" --steps "$steps" --threads "$threads" --quiet --output "$dir" \
    --set diagnostics.every=1 --set output.every_time=0 "${extra[@]}" > "$dir/log" 2>&1 || { cat "$dir/log"; exit 1; }
  load1=$(cut -d' ' -f1-3 /proc/loadavg)
  python3 - "$dir" "$ranks rank(s) x $threads thread(s)" "$load0" "$load1" "$paper" <<'PY'
import csv, json, re, sys
d, label, load0, load1, paper = sys.argv[1:6]
r = json.load(open(d + "/run.json"))
rows = [row for row in csv.DictReader(open(d + "/diagnostics.csv")) if float(row["time"]) > 0]
iters = int(r["deck"]["pbd"]["iterations"])  # constraint iterations per step (the resolved deck)
pit = sum(float(row["particles"]) for row in rows[: r["steps"]]) * iters
t = r["timers"]
user, sys_ = (float(x) for x in open(d + "/core").read().split()[-2:])
paper_cats = ["constraint_projection", "surface_detection", "local_meshing"]
stages = {k: v["max_s"] for k, v in t.items() if k not in ("diagnostics", "output")}
stage_sum = sum(stages.values())
wall = r["wall_s"] - t.get("diagnostics", {"max_s": 0})["max_s"] - t.get("output", {"max_s": 0})["max_s"]
print(f"{label}: {r['steps']} steps x {iters} iterations, {pit / r['steps'] / iters:.0f} particles on average, "
      f"{pit / 1e6:.3f} M particle-iterations; load before {load0}, after {load1}")
for k in paper_cats + sorted(k for k in stages if k not in paper_cats):
    if k in stages:
        print(f"  {k:22s} {stages[k]:9.2f} s  {100 * stages[k] / stage_sum:5.1f} %")
m = re.match(r"(\d+) rank\(s\) x (\d+)", label)
cores = int(m.group(1)) * int(m.group(2))
print(f"  wall per particle-iteration: {1e6 * wall / pit:.2f} us (stages {1e6 * stage_sum / pit:.2f} us), "
      f"x {cores} cores = {1e6 * wall * cores / pit:.2f} core-us; core time (user + sys, whole run) "
      f"{1e6 * (user + sys_) / pit:.2f} us")
if paper:
    us, n, proj, surf, mesh = paper.split()
    print(f"  paper (Table 1, {n} particles, 28 Xeon cores): {us} us wall, {float(us) * 28:.1f} core-us per "
          f"particle-iteration; projection {proj} %, surface detection {surf} %, local meshing {mesh} % of the frame")
PY
}

echo "meniscus $("$exe" --version | cut -d' ' -f2-), pbd-$scene, $steps steps, $(nproc) cores, $(date -u +%FT%TZ)"
for layout in ${LAYOUTS:-1x2 2x1}; do
  run "$layout"
done
