#!/usr/bin/env bash
# Implicit MPM linear solver benchmark (not a test): the 3D droplet impact of
# inputs/mpm-droplet-impact-3d.yaml at dx = 1/63 in free fall (backward Euler, dt_max 1 ms, the
# Newton and CG tolerances of the deck's defaults), the same steps run back to back with
#   before:  mpm.newton.hessian = matrix_free (Hessian products through the particles, CG + Jacobi),
#            with the Newton loop as it was before session 11 (fixed CG rtol, exact Hessian first:
#            -mpm_newton_forcing false -mpm_newton_hessian_first exact)
#   base:    only when BASE_EXE names another build of meniscus (e.g. the previous commit's): its
#            default assembled solve, for a before/after of a solver change in the same run
#   after:   mpm.newton.hessian = assembled (the default: reduced MATAIJ on the unknown nodes, CG +
#            symmetric SOR, switching to PCGAMG when a solve needs more than
#            -mpm_newton_sor_max_iterations), all settings at their defaults (the Eisenstat-Walker
#            forcing term off)
#   after + forcing: the same with the opt-in forcing term (-mpm_newton_forcing true; off by default
#            because Newton stagnated with it on a candle test, docs/theory-mpm-implicit.md)
# on 1 rank x 2 OpenMP threads. The Newton tolerance is the same in all. Prints per implicit step: wall time, Newton iterations, CG
# iterations (and per Newton iteration), the Newton stage's share, and core time (user + sys of the
# process, start-up included) per particle-step.
# Usage: [BASE_EXE=path] bash bench/mpm-implicit-solver.sh [STEPS] [--set key=value ...]  (build first: bash scripts/build.sh)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/mpi-env.sh"
steps=${1:-3}
shift || true
exe="$root/build/bin/meniscus"
deck="$root/inputs/mpm-droplet-impact-3d.yaml"
out=$(mktemp -d)
dx=0.015873015873015872  # 1/63

run() {  # label executable hessian petsc-options [--set ...]
  local label=$1 exe=$2 hessian=$3 petsc=$4
  shift 4
  local dir="$out/$hessian$RANDOM"
  mkdir -p "$dir"
  PETSC_OPTIONS="$petsc" OMP_NUM_THREADS=2 mpirun --bind-to none -x PETSC_OPTIONS -x OMP_PROC_BIND=spread -x OMP_PLACES=threads -n 1 \
    /usr/bin/time -f "%U %S" -o "$dir/cpu" "$exe" run "$deck" --steps "$steps" --threads 2 --quiet --output "$dir" \
    --set domain.cell_size=$dx --set diagnostics.every=1 --set output.every_time=0 \
    --set mpm.integrator=implicit --set mpm.dt_max=1e-3 --set mpm.newton.hessian=$hessian "$@" > "$dir/log" 2>&1 \
    || { cat "$dir/log"; exit 1; }
  python3 - "$dir" "$label" <<'PY'
import json, sys, csv
d, label = sys.argv[1], sys.argv[2]
cpu_s = sum(float(x) for x in open(d + "/cpu").read().split()[-2:])
r = json.load(open(d + "/run.json"))
rows = [x for x in csv.DictReader(open(d + "/diagnostics.csv")) if int(float(x["step"])) > 0]
n = int(float(rows[0]["particles"]))
steps = r["steps"]
t = {k: v["max_s"] for k, v in r["timers"].items()}
step_s = (r["wall_s"] - t.get("diagnostics", 0)) / steps
newton = sum(float(x["newton_iterations"]) for x in rows)
cg = sum(float(x["cg_iterations"]) for x in rows)
print(f"{label:32s} particles={n} steps={steps} dt={float(rows[-1]['dt']):.2e}  {step_s:6.2f} s/step  "
      f"Newton/step {newton / len(rows):4.1f}  CG/step {cg / len(rows):6.1f}  CG/Newton {cg / max(newton, 1):5.1f}  "
      f"newton stage {100 * t.get('newton', 0) / steps / step_s:4.1f} %  core time {cpu_s / (n * steps) * 1e3:.3f} ms/particle-step")
print(f"{'':32s} per step: Newton " + " ".join(f"{float(x['newton_iterations']):.0f}" for x in rows) +
      ", CG " + " ".join(f"{float(x['cg_iterations']):.0f}" for x in rows))
PY
}

echo "meniscus $("$exe" --version | cut -d' ' -f2-), 3D impact free fall, dx = 1/63, $steps steps, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
run "before: matrix-free, old Newton" "$exe" matrix_free "-mpm_newton_forcing false -mpm_newton_hessian_first exact" "$@"
if [[ -n "${BASE_EXE:-}" ]]; then
  run "base: assembled, $("$BASE_EXE" --version | cut -d' ' -f2-)" "$BASE_EXE" assembled "" "$@"
fi
run "after: assembled, defaults" "$exe" assembled "" "$@"
run "after + forcing (opt-in)" "$exe" assembled "-mpm_newton_forcing true" "$@"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -rf "$out"
