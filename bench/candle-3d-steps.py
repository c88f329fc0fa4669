#!/usr/bin/env python3
# Per-step table of a bench/candle-3d.sh run (not a test): for every EVERY-th step the simulated time,
# Newton and CG iterations, loaded wall seconds of the step, the heat solve's share of it, the liquid
# fraction, the largest temperature, the fastest particle (diagnostics column max_speed, where the binary
# writes it) and, for runs with MONITOR=1, the fastest node in each of the two lightest mass classes that
# Newton moves or holds (the "implicit node speeds by mass class" line after each step): the light nodes
# above the square wax block's top corners, moved by the surface samples (docs/performance.md).
# Usage: candle-3d-steps.py RUN_DIR LOG [EVERY]
import csv, re, sys

run, log = sys.argv[1], sys.argv[2]
every = int(sys.argv[3]) if len(sys.argv) > 3 else 5
rows = [r for r in csv.DictReader(open(run + "/diagnostics.csv")) if int(float(r["step"])) > 0]
# One node-speed line per step, in step order.
speeds = []
for line in open(log, errors="replace"):
    if line.startswith("implicit node speeds by mass class"):
        cls = dict(re.findall(r"\[([0-9.e-]+),[0-9.e-]+\): [0-9]+, ([0-9.e+-]+), [0-9.e+-]+;", line))
        m = re.search(r"fastest on this rank ([0-9.e+-]+) m/s at node mass ([0-9.e+-]+) of the heaviest, x = (\([^)]*\))", line)
        speeds.append((cls, m.groups() if m else None))
f = lambda r, k: float(r.get(k, 0) or 0)
print(f"{'step':>4} {'t (s)':>6} {'Newton':>6} {'CG':>4} {'wall (s)':>8} {'heat %':>6} {'liquid':>8} {'T max':>6} "
      f"{'max v_p':>8} {'v light 1e-4..1e-2':>18} {'v 1e-2..0.1':>11} {'fastest |v-v^n| node (mass, x)':>40}")
prev = 0.0
for i, r in enumerate(rows):
    wall = f(r, "wall_s") - prev
    prev = f(r, "wall_s")
    step = int(float(r["step"]))
    if step % every and i != len(rows) - 1 and step != 1:
        continue
    heat = sum(f(r, k) for k in ("heat_assemble_s", "heat_setup_s", "heat_ksp_s", "heat_gather_s"))
    sp = speeds[i] if i < len(speeds) else ({}, None)
    fast = f"{float(sp[1][0]):.3g} m/s ({float(sp[1][1]):.3g}, {sp[1][2]})" if sp[1] else ""
    vp = f"{f(r, 'max_speed'):8.3g}" if "max_speed" in r else f"{'':>8}"
    print(f"{step:4d} {f(r, 'time'):6.2f} {f(r, 'newton_iterations'):6.0f} {f(r, 'cg_iterations'):4.0f} {wall:8.1f} "
          f"{100 * heat / wall if wall > 0 else 0:6.1f} {f(r, 'liquid_fraction'):8.2e} {f(r, 'temperature_max'):6.1f} {vp} "
          f"{sp[0].get('0.0001', ''):>18} {sp[0].get('0.01', ''):>11} {fast:>40}")
n = len(rows)
print(f"{n} steps to t = {f(rows[-1], 'time'):.3g} s: Newton {sum(f(r, 'newton_iterations') for r in rows) / n:.2f}, "
      f"CG {sum(f(r, 'cg_iterations') for r in rows) / n:.1f} per step; phase changes {f(rows[-1], 'phase_changes'):.0f}, "
      f"liquid fraction {f(rows[-1], 'liquid_fraction'):.3e}")
if speeds:
    light = [float(c.get("0.01", 0)) for c, _ in speeds]
    third = max(1, len(light) // 3)
    print(f"fastest node of 1-10 % of the heaviest mass: max {max(light):.3g} m/s; mean over the first third of the steps "
          f"{sum(light[:third]) / third:.3g}, over the last third {sum(light[-third:]) / third:.3g}")
