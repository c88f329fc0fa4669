#!/usr/bin/env python3
# The --set overrides that redraw inputs/candle-3d.yaml's wick one cell of 1/N wide around the axis
# x = z = 0.5 (and the four wax boxes around it), printed one word a line ("--set", "key=value", ...)
# for `mapfile`. The deck's wick is one cell of 1/127; at a coarser N it would be a fraction of a cell,
# sampled by one or two particles across and held by the surface samples alone (docs/performance.md,
# "Newton's tail at 1/63 was the wick's top"). Used by bench/candle-3d.sh and tests/slurm/candle_requeue.sh.
# Usage: candle-3d-wick.py N  (prints nothing for N = 127, the deck as shipped)
import sys

n = int(sys.argv[1])
if n != 127:
    a, b = 0.5 - 0.5 / n, 0.5 + 0.5 / n  # the wick's x and z range: one cell around the axis
    lo, hi, y0, y1, top = 50 / 127, 77 / 127, 2 / 127, 78 / 127, 84 / 127  # the deck's wax block and wick top
    v = lambda *c: "[" + ",".join(repr(x) for x in c) + "]"
    sets = {"sources[0].upper": v(a, y1, hi), "sources[1].lower": v(b, y0, lo),
            "sources[2].lower": v(a, y0, lo), "sources[2].upper": v(b, y1, a),
            "sources[3].lower": v(a, y0, b), "sources[3].upper": v(b, y1, hi),
            "sources[4].lower": v(a, y0, a), "sources[4].upper": v(b, top, b)}
    for k, x in sets.items():
        print("--set")
        print(f"{k}={x}")
