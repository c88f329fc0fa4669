#!/usr/bin/env bash
# 3D candle timings against Chen et al. 2021, Table 2 (not a test): inputs/candle-3d.yaml at dx = 1/N
# (N = 63 or 127, the paper's 1/127), STEPS backward-Euler steps with the flame lit from t = 0, on RANKS
# ranks x THREADS OpenMP threads. Prints the paper's Table 2 columns per step (sampling = surface
# sampling + momentum split, merging, one P2G, one G2P, the linear solves = our Newton loop, and the
# heat solve, which the paper's table does not list separately), the whole step, the paper's Candle
# (k = 0.1) row beside them, the mean dt, and wall seconds per simulated second (whole step / mean dt:
# an extrapolation from a few steps, since the start of the run, when the wax is still solid and
# resting, is not the paper's average over a whole melt).
# Usage: bash bench/candle-3d.sh [N] [STEPS] [RANKS] [THREADS] [MODE]  (check the memory first:
#   build/bin/meniscus check inputs/candle-3d.yaml --set domain.cell_size=...: it estimates 6.0 GiB for 1/127
#   on one rank, the peak from the second step on; bench/candle-3d-memory.sh measures it step by step)
# MODE full (default) runs the steps as the deck says. MODE transfers sets mpm.newton.tolerance = 1e30, so
# that Newton stops at its first residual check: every stage of the step is measured (sampling, merging,
# P2G, G2P, the heat solve, one energy and gradient evaluation) except the linear solves, which are then
# not in the "linear solve" and "time step" rows. For a resolution where a full step does not fit the
# machine time at hand (dx = 1/127 on a shared 2-core machine); the linear solves are then extrapolated from
# a full run at a coarser dx, and the output says so.
# The wick is one cell wide at every N: the deck's wick is one 1/127 cell, which at N = 63 would be half a
# cell, sampled by one or two particles across and held by the surface samples alone; Newton then spent 6
# of its 10 iterations on the four nodes around the wick's top (1.7 % of the heaviest node's mass;
# residual 4e-3 to 6e-2, docs/performance.md). For N != 127 the wick box and the four wax boxes around it
# are therefore redrawn with a wick of one cell of 1/N around the axis x = z = 0.5 (bench/candle-3d-wick.py).
# Over more than 3 steps it also prints a per-step table (bench/candle-3d-steps.py: Newton, CG, wall, heat
# share, liquid fraction, fastest particle and, with MONITOR=1, the fastest light nodes) and the CPU
# seconds per simulated second.
# MONITOR=1 in the environment logs every Newton iteration (-mpm_newton_monitor: residual, where it sits by
# node-mass class, KSP outcome, line-search step) to the run's log, whose path is printed first, so a long
# run can be followed (tail -f) and, if stopped, says how far it got.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/mpi-env.sh"
n=${1:-63}
steps=${2:-3}
ranks=${3:-1}
threads=${4:-2}
mode=${5:-full}
extra=()
quiet=(--quiet)
petsc=()
if [ "${MONITOR:-0}" = 1 ]; then quiet=(); petsc=(-- -mpm_newton_monitor); fi
case "$mode" in
  full) ;;
  transfers) extra=(--set mpm.newton.tolerance=1e30) ;;
  *) echo "MODE must be full or transfers" >&2; exit 2 ;;
esac
mapfile -t wick < <(python3 "$root/bench/candle-3d-wick.py" "$n")
out=$(mktemp -d)
echo "log: $out/log"
dx=$(python3 -c "print(repr(1.0 / $n))")
# Each rank runs under /usr/bin/time: its CPU seconds (user + system) and peak RSS in $out/cpu.RANK. On a
# shared machine the CPU seconds say how much of the machine the run got (the wall timers do not).
OMP_NUM_THREADS=$threads OMP_PROC_BIND=false /usr/bin/time -f "%M %e" -o "$out/rss_kib" \
  mpirun -n "$ranks" -x OMP_NUM_THREADS -x OMP_PROC_BIND \
  bash -c '/usr/bin/time -f "%U %S %M" -o "$0.$OMPI_COMM_WORLD_RANK" "$@"' "$out/cpu" \
  "$root/build/bin/meniscus" run "$root/inputs/candle-3d.yaml" \
  --steps "$steps" "${quiet[@]}" --output "$out/run" --set domain.cell_size="$dx" --set mpm.heat.heating_start_time=0 \
  --set diagnostics.every=1 --set output.every_time=0 --set checkpoint.every_minutes=0 "${wick[@]}" "${extra[@]}" "${petsc[@]}" > "$out/log" 2>&1 \
  || { cat "$out/log"; exit 1; }
python3 - "$out" "$ranks" "$threads" "$n" "$mode" <<'PY'
import csv, json, sys
d, ranks, threads, n, mode = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
r = json.load(open(d + "/run/run.json"))
rows = [x for x in csv.DictReader(open(d + "/run/diagnostics.csv")) if int(float(x["step"])) > 0]
parts = int(float(rows[-1]["particles"]))
steps = r["steps"]
t = {k: v["max_s"] for k, v in r["timers"].items()}
step_s = (r["wall_s"] - t.get("diagnostics", 0)) / steps
ms = lambda *keys: 1e3 * sum(t.get(k, 0) for k in keys) / steps
dt = r["time"] / steps
print(f"candle 3D, dx = 1/{n}, {parts} particles, {steps} steps, {ranks} rank(s) x {threads} thread(s), mean dt {dt:.3g} s")
rss_kib, elapsed = open(d + "/rss_kib").read().split()[-2:]
print(f"set-up (mpirun start to the first step: sources, decomposition; elapsed minus run.json's wall_s): "
      f"{float(elapsed) - r['wall_s']:.1f} s")
if mode == "transfers":
    print("MODE transfers: Newton stops at its first residual check, so the linear solves are NOT measured; the "
          "linear solve and time step rows below leave them out")
print(f"{'column':22s} {'ours ms/step':>14s} {'paper ms (Candle k=0.1, 1/127)':>32s}")
paper = {"sampling": 1420, "merging": 7, "P2G": 122, "G2P": 44, "linear solve": 2646, "heat solve": None, "time step": 29162}
ours = {"sampling": ms("surface_sampling", "split"), "merging": ms("merge"), "P2G": ms("p2g"), "G2P": ms("g2p"),
        "linear solve": ms("newton"), "heat solve": ms("heat_solve"), "time step": 1e3 * step_s}
for k, v in ours.items():
    p = paper[k]
    name = "Newton (no lin. solve)" if (k == "linear solve" and mode == "transfers") else k
    print(f"{name:22s} {v:14.1f} {('%d' % p) if p is not None else '(in time step)':>32s}")
print(f"wall s per simulated s: {step_s / dt:.0f} (whole step / mean dt); the paper's 29.162 s step at its dt")
mean = lambda k: sum(float(x.get(k, 0) or 0) for x in rows) / len(rows)
print(f"heat solve per step (rank 0): assembly {1e3 * mean('heat_assemble_s'):.1f} ms, preconditioner set-up "
      f"{1e3 * mean('heat_setup_s'):.1f} ms, CG {1e3 * mean('heat_ksp_s'):.1f} ms ({mean('heat_ksp_iterations'):.1f} iterations, "
      f"{'Jacobi' if mean('heat_jacobi') > 0.5 else 'GAMG'}), G2P {1e3 * mean('heat_gather_s'):.1f} ms; share of the step "
      f"{100 * ours['heat solve'] / ours['time step']:.1f} %")
walls = [float(x["wall_s"]) for x in rows]
per_step = [b - a for a, b in zip([0.0] + walls[:-1], walls)]
if len(rows) > 1:
    later = rows[1:]
    lm = lambda k: sum(float(x.get(k, 0) or 0) for x in later) / len(later)
    print(f"wall per step (diagnostics.csv): step 1 {per_step[0]:.1f} s, steps 2-{len(rows)} {sum(per_step[1:]) / len(later):.1f} s "
          f"each (the first step also builds the heat matrix's pattern and the solvers)")
    print(f"heat solve per step from step 2 on: assembly {1e3 * lm('heat_assemble_s'):.1f} ms, set-up "
          f"{1e3 * lm('heat_setup_s'):.1f} ms, CG {1e3 * lm('heat_ksp_s'):.1f} ms, G2P {1e3 * lm('heat_gather_s'):.1f} ms")
its = sum(float(x.get('newton_iterations', 0) or 0) for x in rows) / len(rows)
cg = sum(float(x.get('cg_iterations', 0) or 0) for x in rows) / len(rows)
print(f"newton iterations per step: {its:.1f} ({cg:.0f} CG iterations)" + (f"; Newton loop per iteration {ours['linear solve'] / its:.0f} ms" if its > 0 else ""))
cpu = [open(f"{d}/cpu.{k}").read().split()[-3:] for k in range(ranks)]
cpu_s = sum(float(u) + float(s_) for u, s_, _ in cpu)
rss = max(int(m) for _, _, m in cpu) * 1024
busy = cpu_s / (float(elapsed) * ranks * threads)
print(f"CPU seconds of all ranks (user + system): {cpu_s:.1f} in {float(elapsed):.1f} s elapsed: the run got {100 * busy:.0f} % "
      f"of the {ranks * threads} cores it asked for (the wall times above are about {1 / busy:.1f}x those of an idle machine "
      f"if the contention was uniform)")
print(f"CPU s per simulated s: {cpu_s / r['time']:.0f} (all ranks' CPU seconds incl. set-up / simulated time)")
print(f"peak RSS per rank: {rss / 2**30:.2f} GiB (largest rank), {sum(int(m) for _, _, m in cpu) * 1024 / parts:.0f} bytes "
      f"per particle over all ranks")
PY
if [ "$steps" -gt 3 ]; then python3 "$root/bench/candle-3d-steps.py" "$out/run" "$out/log" 5; fi
