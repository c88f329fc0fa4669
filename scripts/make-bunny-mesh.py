#!/usr/bin/env python3
"""Writes inputs/meshes/bunny.obj, the soluble body of the multiphase dissolution decks
(Yan et al. 2018, case 5 dissolve the Stanford bunny; its scan is not redistributable here, so this
script builds a bunny-like closed surface instead). Plain Python 3, no packages.

  python3 scripts/make-bunny-mesh.py                       # the defaults below
  python3 scripts/make-bunny-mesh.py --rings 32 --output my-bunny.obj

Shape: the union of five ellipsoids (body, head, two ears, tail; metres, y up, the body resting on
y = 0, nose towards +x, about 0.13 x 0.16 x 0.08 m). The surface is star-shaped about a point inside
the body: every vertex of a latitude-longitude sphere is pushed out along its ray to the farthest
point where the ray leaves the union, so the mesh is closed and counter-clockwise seen from outside
for any resolution (gaps between parts along one ray are filled, e.g. under the ears).
"""
import argparse
import math
import os
import sys

from mesh_tools import check_closed, signed_volume  # scripts/ is on sys.path when run as a script

# (centre, radii) of the parts, m.
PARTS = [
    ((0.000, 0.045, 0.0), (0.058, 0.045, 0.040)),   # body
    ((0.048, 0.085, 0.0), (0.030, 0.028, 0.026)),   # head
    ((0.040, 0.130, 0.013), (0.010, 0.032, 0.008)),  # ear
    ((0.040, 0.130, -0.013), (0.010, 0.032, 0.008)),  # ear
    ((-0.060, 0.050, 0.0), (0.013, 0.013, 0.013)),   # tail
]
CENTRE = (0.010, 0.050, 0.0)  # inside the body: the star centre


def far_exit(d):
    """Largest t with CENTRE + t d on the surface of some part (d a unit vector)."""
    best = 0.0
    for c, r in PARTS:
        o = [(CENTRE[k] - c[k]) / r[k] for k in range(3)]
        v = [d[k] / r[k] for k in range(3)]
        a = sum(x * x for x in v)
        b = 2.0 * sum(o[k] * v[k] for k in range(3))
        cc = sum(x * x for x in o) - 1.0
        disc = b * b - 4.0 * a * cc
        if disc < 0:
            continue
        t = (-b + math.sqrt(disc)) / (2.0 * a)
        best = max(best, t)
    return best


def bunny(rings, segments):
    """Vertices and 0-based counter-clockwise triangles: poles along +-y, `rings` latitude rings."""
    dirs = [(0.0, 1.0, 0.0)]
    for i in range(1, rings + 1):
        th = math.pi * i / (rings + 1)
        for j in range(segments):
            ph = 2.0 * math.pi * j / segments
            dirs.append((math.sin(th) * math.cos(ph), math.cos(th), -math.sin(th) * math.sin(ph)))
    dirs.append((0.0, -1.0, 0.0))
    verts = []
    for d in dirs:
        t = far_exit(d)
        verts.append(tuple(CENTRE[k] + t * d[k] for k in range(3)))

    def ring(i, j):
        return 1 + (i - 1) * segments + (j % segments)

    south = len(dirs) - 1
    tris = []
    for j in range(segments):
        tris.append((0, ring(1, j), ring(1, j + 1)))
        tris.append((south, ring(rings, j + 1), ring(rings, j)))
    for i in range(1, rings):
        for j in range(segments):
            a, b, c, d = ring(i, j), ring(i + 1, j), ring(i + 1, j + 1), ring(i, j + 1)
            tris.append((a, b, c))
            tris.append((a, c, d))
    return verts, tris


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rings", type=int, default=40, help="latitude rings between the poles, default 40")
    ap.add_argument("--segments", type=int, default=64, help="segments around each ring, default 64")
    ap.add_argument("--output", default=os.path.join(here, os.pardir, "inputs", "meshes", "bunny.obj"),
                    help="OBJ file to write (default inputs/meshes/bunny.obj)")
    args = ap.parse_args()
    if args.rings < 2 or args.segments < 3:
        sys.exit("make-bunny-mesh.py: need at least 2 rings and 3 segments")
    verts, tris = bunny(args.rings, args.segments)
    check_closed(tris)
    vol = signed_volume(verts, tris)
    if not vol > 0:
        raise SystemExit("internal error: the mesh faces inwards")
    lo = [min(v[k] for v in verts) for k in range(3)]
    hi = [max(v[k] for v in verts) for k in range(3)]
    out = os.path.normpath(args.output)
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    with open(out, "w", encoding="ascii") as f:
        f.write("# Bunny-like body written by scripts/make-bunny-mesh.py (union of five ellipsoids, star-shaped).\n")
        f.write(f"# {len(verts)} vertices, {len(tris)} triangles, closed, counter-clockwise seen from outside.\n")
        f.write(f"# bounding box [{lo[0]:.4f}, {lo[1]:.4f}, {lo[2]:.4f}] .. [{hi[0]:.4f}, {hi[1]:.4f}, {hi[2]:.4f}] m, "
                f"enclosed volume {vol:.6e} m^3\n")
        for x, y, z in verts:
            f.write(f"v {x:.9f} {y:.9f} {z:.9f}\n")
        for a, b, c in tris:
            f.write(f"f {a + 1} {b + 1} {c + 1}\n")
    print(f"wrote {out}: {len(verts)} vertices, {len(tris)} triangles, volume {vol:.6e} m^3")


if __name__ == "__main__":
    main()
