#!/usr/bin/env python3
# Every diagnostics column except the timings, at every step 0..STEPS, of a Slurm job's run (A) against
# the same run made directly (B): the largest relative difference must not exceed TOL. Used by the Slurm
# tests (candle_requeue.sh, candle_two_nodes.sh).
# Usage: compare_diagnostics.py A.csv B.csv STEPS TOL
import csv, sys
a = {int(float(r["step"])): r for r in csv.DictReader(open(sys.argv[1]))}
b = {int(float(r["step"])): r for r in csv.DictReader(open(sys.argv[2]))}
steps, tol = int(sys.argv[3]), float(sys.argv[4])
# Timings, per-rank counts and the heat matrix's entry count (its pattern is kept until a node falls
# outside it, so the count depends on where the run started) are no physics (tests/support, reproducible_column).
timing = lambda k: k.endswith("_s") or k.startswith("rank_particles") or k == "heat_nonzeros"
worst, where, by_column = 0.0, None, {}
for s in range(steps + 1):
    if s not in a or s not in b:
        print(f"step {s} missing ({'job' if s not in a else 'direct'} run)"); sys.exit(1)
    for k, x in b[s].items():
        if timing(k) or k not in a[s]:
            continue
        x, y = float(x), float(a[s][k])
        d = abs(x - y) / max(abs(x), 1e-300) if x != y else 0.0
        if d > by_column.get(k, (0.0,))[0]:
            by_column[k] = (d, s)
        if d > worst:
            worst, where = d, (s, k, x, y)
for k, (d, s) in sorted(by_column.items(), key=lambda kv: -kv[1][0])[:6]:
    print(f"  {k}: relative difference {d:.3g} (first largest at step {s})")
last = b[steps]
print(f"{steps} steps, t = {float(last['time']):.4g} s, liquid fraction {float(last.get('liquid_fraction', 0)):.4g}, "
      f"T max {float(last.get('temperature_max', 0)):.5g} K; largest relative difference {worst:.3g}" + (f" (step {where[0]}, {where[1]}: {where[2]!r} vs {where[3]!r})" if where else ""))
sys.exit(0 if worst <= tol else 1)
