#!/usr/bin/env python3
"""Writes the candle letters H, O, T of inputs/candle-letters-3d*.yaml as closed OBJ meshes
(plain Python 3, no packages): inputs/meshes/letter-H.obj, letter-O.obj, letter-T.obj.

  python3 scripts/make-letter-meshes.py                      # the defaults below
  python3 scripts/make-letter-meshes.py --thickness 0.08 --output-dir my-meshes

Chen et al. 2021 (Sec. 6.12, Fig. 17) cut their candle letters from meshes; these are the letters of
inputs/candle-letters-2d.yaml (0.18 m wide, 0.24 m high, strokes 0.06 m) extruded along z. Each letter is
an orthogonal outline in the xy-plane (x to the right, y up, lower-left corner at the origin), optionally
with one hole (the O), extruded from z = 0 to z = thickness. Vertices are shared between the caps and the
side walls, so every edge belongs to exactly two triangles traversed in opposite directions (checked), and
every triangle is counter-clockwise seen from outside, as meniscus' OBJ reader expects. The header comment
of each file records the enclosed volume, which equals the outline's area times the thickness.
"""
import argparse
import os
import sys

from mesh_tools import check_closed, signed_volume  # scripts/ is on sys.path when run as a script

STROKE = 0.06
# Outlines counter-clockwise seen from +z; holes clockwise.
LETTERS = {
    "H": ([(0, 0), (1, 0), (1, 1.5), (2, 1.5), (2, 0), (3, 0), (3, 4), (2, 4), (2, 2.5), (1, 2.5), (1, 4), (0, 4)],
          None),
    "O": ([(0, 0), (3, 0), (3, 4), (0, 4)], [(1, 1), (1, 3), (2, 3), (2, 1)]),
    "T": ([(1, 0), (2, 0), (2, 3), (3, 3), (3, 4), (0, 4), (0, 3), (1, 3)], None),
}


def area2(poly):
    """Twice the signed area (positive when counter-clockwise)."""
    return sum(poly[k][0] * poly[(k + 1) % len(poly)][1] - poly[(k + 1) % len(poly)][0] * poly[k][1]
               for k in range(len(poly)))


def ear_clip(poly):
    """Counter-clockwise triangles (index triples into poly) of a simple counter-clockwise polygon."""
    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    def inside(p, a, b, c):
        return cross(a, b, p) >= 0 and cross(b, c, p) >= 0 and cross(c, a, p) >= 0

    left = list(range(len(poly)))
    tris = []
    while len(left) > 3:
        for k in range(len(left)):
            i, j, l = left[k - 1], left[k], left[(k + 1) % len(left)]
            a, b, c = poly[i], poly[j], poly[l]
            if cross(a, b, c) <= 0:
                continue  # reflex or straight corner: not an ear
            if any(inside(poly[m], a, b, c) for m in left if m not in (i, j, l)):
                continue
            tris.append((i, j, l))
            del left[k]
            break
        else:
            raise SystemExit("make-letter-meshes.py: internal error, no ear found")
    tris.append(tuple(left))
    return tris


def ring_caps(outer, hole):
    """Counter-clockwise triangles of the ring between a 4-corner outer loop and a 4-corner hole whose
    corners face them (indices: outer 0..3, hole 4..7, hole given clockwise)."""
    # Pair each outer corner with the nearest hole corner.
    def nearest(p):
        return min(range(4), key=lambda m: (hole[m][0] - p[0]) ** 2 + (hole[m][1] - p[1]) ** 2)
    tris = []
    for k in range(4):
        a, b = k, (k + 1) % 4
        ha, hb = 4 + nearest(outer[a]), 4 + nearest(outer[b])
        tris.append((a, b, hb))
        tris.append((a, hb, ha))
    return tris


def extrude(outer, hole, scale, thickness):
    loops = [outer] + ([hole] if hole else [])
    flat = [(x * scale, y * scale) for loop in loops for (x, y) in loop]
    n = len(flat)
    verts = [(x, y, 0.0) for x, y in flat] + [(x, y, thickness) for x, y in flat]
    caps = ring_caps(outer, hole) if hole else ear_clip(outer)
    tris = []
    for a, b, c in caps:
        tris.append((a + n, b + n, c + n))  # top, normal +z
        tris.append((a, c, b))              # bottom, normal -z
    start = 0
    for loop in loops:
        m = len(loop)
        for k in range(m):
            p, q = start + k, start + (k + 1) % m
            # Edge p -> q with the solid on its left: (p, q, q', p') faces outwards.
            tris.append((p, q, q + n))
            tris.append((p, q + n, p + n))
        start += m
    return verts, tris


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--thickness", type=float, default=0.06, help="extrusion along z (m), default 0.06")
    ap.add_argument("--output-dir", default=os.path.join(here, os.pardir, "inputs", "meshes"),
                    help="folder for letter-H.obj, letter-O.obj, letter-T.obj (default inputs/meshes)")
    args = ap.parse_args()
    if args.thickness <= 0:
        sys.exit("make-letter-meshes.py: need --thickness > 0")
    os.makedirs(args.output_dir, exist_ok=True)
    for name, (outer, hole) in LETTERS.items():
        assert area2(outer) > 0 and (hole is None or area2(hole) < 0)
        verts, tris = extrude(outer, hole, STROKE, args.thickness)
        check_closed(tris)
        vol = signed_volume(verts, tris)
        area = (area2(outer) + (area2(hole) if hole else 0)) / 2 * STROKE * STROKE
        if abs(vol - area * args.thickness) > 1e-12:
            sys.exit(f"make-letter-meshes.py: internal error, letter {name} encloses {vol}, not {area * args.thickness}")
        path = os.path.join(args.output_dir, f"letter-{name}.obj")
        with open(path, "w") as f:
            f.write(f"# Candle letter {name} written by scripts/make-letter-meshes.py: closed, triangles counter-clockwise\n")
            f.write(f"# seen from outside. Outline 0.18 x 0.24 m (strokes {STROKE} m) in the xy-plane, lower-left corner at\n")
            f.write(f"# the origin, extruded from z = 0 to z = {args.thickness:g} m. {len(verts)} vertices, {len(tris)} triangles,\n")
            f.write(f"# enclosed volume {vol:.9e} m^3.\n")
            for x, y, z in verts:
                f.write(f"v {x:.9f} {y:.9f} {z:.9f}\n")
            for a, b, c in tris:
                f.write(f"f {a + 1} {b + 1} {c + 1}\n")
        print(f"wrote {path}: {len(verts)} vertices, {len(tris)} triangles, volume {vol:.6e} m^3")


if __name__ == "__main__":
    main()
