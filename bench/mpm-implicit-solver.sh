#!/usr/bin/env bash
# Implicit MPM linear solver benchmark (not a test): the 3D droplet impact of
# inputs/mpm-droplet-impact-3d.yaml at dx = 1/63 in free fall (backward Euler, dt_max 1 ms, the
# Newton and CG tolerances of the deck's defaults), the same steps run back to back with
#   before:  mpm.newton.hessian = matrix_free (Hessian products through the particles, CG + Jacobi),
#            with the Newton loop before its adaptive CG rtol (fixed CG rtol, exact Hessian first:
#            -mpm_newton_forcing false -mpm_newton_hessian_first exact)
#            (this option shares today's Newton vectors and CPU flags); with BEFORE_EXE naming a build
#            of commit 621a1a1, the code the issue started from, "before" runs that build instead
#   base:    only when BASE_EXE names another build of meniscus (e.g. the previous commit's): its
#            default assembled solve, for a before/after of a solver change in the same run
#   after:   mpm.newton.hessian = assembled (the default: reduced MATAIJ on the unknown nodes, CG +
#            symmetric SOR, switching to PCGAMG when a solve needs more than
#            -mpm_newton_sor_max_iterations), all settings at their defaults (the Eisenstat-Walker
#            forcing term off)
#   after + forcing: the same with the opt-in forcing term (-mpm_newton_forcing true; off by default
#            because Newton stagnated with it on a candle test, docs/theory-mpm-implicit.md)
# on 1 rank x 2 OpenMP threads. The Newton tolerance is the same in all. Prints per implicit step: wall time, Newton iterations, CG
# iterations (and per Newton iteration), the Newton stage's share, core time (user + sys of the
# process, start-up included) per particle-step, the same over the steps alone (run.json's
# core_ms_per_particle_step: what Chen et al. 2021, Table 2 counts) and the peak resident set, then the ratios of wall time and core time per step of
# each configuration against "before" (and against "base" when given): the table rows of
# docs/performance.md. Idle OpenMP threads sleep (OMP_WAIT_POLICY=passive unless set), so the core
# times count work rather than spinning while single-threaded PETSc runs.
# CONFIGS picks the configurations (default "before base after forcing"; e.g. CONFIGS="base after" for
# a quick before/after of a change against BASE_EXE without the slow matrix-free run).
# Usage: [BEFORE_EXE=path] [BASE_EXE=path] [CONFIGS=...] bash bench/mpm-implicit-solver.sh [STEPS] [--set key=value ...]  (build first: bash scripts/build.sh)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/mpi-env.sh"
steps=${1:-3}
shift || true
exe="$root/build/bin/meniscus"
deck="$root/inputs/mpm-droplet-impact-3d.yaml"
out=$(mktemp -d)
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
dx=0.015873015873015872  # 1/63

run() {  # label executable hessian petsc-options [--set ...]
  local label=$1 exe=$2 hessian=$3 petsc=$4
  shift 4
  local dir="$out/$hessian$RANDOM"
  mkdir -p "$dir"
  # CPU time of the process's main thread, sampled every 0.2 s from /proc: on a shared machine the
  # wall time measures the scheduler's share, while the main thread (busy from start to end: it runs
  # PETSc's single-threaded parts and its share of every OpenMP loop) bounds the wall time a quiet
  # machine would give from below; it is load-independent like the core time.
  python3 - "$dir" "$exe" <<'PY' &
import os, sys, time
d, comm = sys.argv[1], os.path.basename(sys.argv[2])[:15]  # /proc comm: the name's first 15 characters
pid, best = None, {}
while not os.path.exists(d + "/done"):
    if pid is None:
        for p in filter(str.isdigit, os.listdir("/proc")):
            try:
                args = open(f"/proc/{p}/cmdline", "rb").read().split(b"\0")
                if open(f"/proc/{p}/comm").read().strip() == comm and d.encode() in args:
                    pid = p
            except OSError:
                pass
    else:
        try:
            for t in os.listdir(f"/proc/{pid}/task"):
                f = open(f"/proc/{pid}/task/{t}/stat").read().rsplit(")", 1)[1].split()
                best[t] = int(f[11]) + int(f[12])
        except OSError:
            pass
    time.sleep(0.2)
tick = os.sysconf("SC_CLK_TCK")
open(d + "/threads", "w").write(f"{best.get(pid, 0) / tick} {sum(best.values()) / tick}\n")
PY
  local poller=$!
  PETSC_OPTIONS="$petsc" OMP_NUM_THREADS=2 mpirun --bind-to none -x PETSC_OPTIONS -x OMP_WAIT_POLICY -x OMP_PROC_BIND=spread -x OMP_PLACES=threads -n 1 \
    /usr/bin/time -f "%M %U %S" -o "$dir/cpu" "$exe" run "$deck" --steps "$steps" --threads 2 --quiet --output "$dir" \
    --set domain.cell_size=$dx --set diagnostics.every=1 --set output.every_time=0 \
    --set mpm.integrator=implicit --set mpm.dt_max=1e-3 ${hessian:+--set mpm.newton.hessian=$hessian} "$@" > "$dir/log" 2>&1 \
    || { touch "$dir/done"; cat "$dir/log"; exit 1; }
  touch "$dir/done"
  wait $poller || true
  python3 - "$dir" "$label" <<'PY'
import json, sys, csv
d, label = sys.argv[1], sys.argv[2]
cpu_s = sum(float(x) for x in open(d + "/cpu").read().split()[-2:])
rss_mb = float(open(d + "/cpu").read().split()[-3]) / 1024
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
# run.json's core time covers the steps alone (set-up excluded; builds before 2026-11-29 do not write it)
steps_only = r.get("core_ms_per_particle_step")
print(f"{'':32s} core time of the steps alone (run.json, set-up excluded): "
      + (f"{steps_only:.3f} ms/particle-step" if steps_only is not None else "not recorded by this build"))
main_s = float(open(d + "/threads").read().split()[0])
print(f"{'':32s} per step: Newton " + " ".join(f"{float(x['newton_iterations']):.0f}" for x in rows) +
      ", CG " + " ".join(f"{float(x['cg_iterations']):.0f}" for x in rows) +
      f"; main-thread CPU {main_s / steps:.2f} s/step (quiet-machine wall estimate, start-up included)"
      f"; peak RSS {rss_mb:.0f} MB ({rss_mb * 1048576 / n / 1024:.1f} kB per particle)"
      f"; kinetic energy after the last step {float(rows[-1]['kinetic_energy']):.17g}")
with open(d + "/../summary", "a") as f:
    f.write(f"{label}\t{step_s}\t{cpu_s / steps}\t{main_s / steps}\n")
PY
}

ratios() {  # wall and core time per step of each configuration against the first one and "base"
  python3 - "$out/summary" <<'PY'
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
refs = [r for r in rows if r[0].startswith(("before", "base"))]
for ref in refs:
    for r in rows:
        if r is ref or r[0].startswith("before"):
            continue
        print(f"{r[0]} against {ref[0]}: wall {float(ref[1]) / float(r[1]):5.2f}x less, "
              f"core time {float(ref[2]) / float(r[2]):5.2f}x, main-thread CPU {float(ref[3]) / max(float(r[3]), 1e-9):5.2f}x "
              "less per step")
PY
}

echo "meniscus $("$exe" --version | cut -d' ' -f2-), 3D impact free fall, dx = 1/63, $steps steps, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
configs=" ${CONFIGS:-before base after forcing} "
if [[ $configs == *" before "* && -n "${BEFORE_EXE:-}" ]]; then
  # A build of the code the issue started from (commit 621a1a1: matrix-free Hessian, CG + Jacobi),
  # which knows neither mpm.newton.hessian nor the -mpm_newton_* options; its deck is the same file.
  run "before: $("$BEFORE_EXE" --version | cut -d' ' -f2-)" "$BEFORE_EXE" "" "" "$@"
elif [[ $configs == *" before "* ]]; then
  run "before: matrix-free, old Newton" "$exe" matrix_free "-mpm_newton_forcing false -mpm_newton_hessian_first exact" "$@"
fi
if [[ -n "${BASE_EXE:-}" && $configs == *" base "* ]]; then
  run "base: assembled, $("$BASE_EXE" --version | cut -d' ' -f2-)" "$BASE_EXE" assembled "" "$@"
fi
[[ $configs == *" after "* ]] && run "after: assembled, defaults, $("$exe" --version | cut -d' ' -f2-)" "$exe" assembled "" "$@"
[[ $configs == *" forcing "* ]] && run "after + forcing (opt-in)" "$exe" assembled "-mpm_newton_forcing true" "$@"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
ratios
rm -rf "$out"
