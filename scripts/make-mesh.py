#!/usr/bin/env python3
"""Writes the example meshes in inputs/meshes/ (plain Python 3, no packages).

  python3 scripts/make-mesh.py                 # torus.obj with the defaults below
  python3 scripts/make-mesh.py --major 0.3 --minor 0.1 --segments 64 32 --output my-torus.obj

The torus lies in the xy-plane, centred at the origin (place it with a source's `translate`):
  x = (R + r cos v) cos u,  y = (R + r cos v) sin u,  z = r sin v.
Vertices are shared between neighbouring quads, so the surface is closed (every edge belongs to
exactly two triangles, traversed in opposite directions), and each triangle is counter-clockwise
seen from outside, i.e. its normal points out of the solid, as meniscus' OBJ reader expects.
The vertices lie on the smooth surface, so the polygonal volume is slightly below 2 pi^2 R r^2;
the header comment records both.
"""
import argparse
import math
import os
import sys

from mesh_tools import check_closed, signed_volume  # scripts/ is on sys.path when run as a script


def torus(major, minor, nu, nv):
    """Vertices and 0-based counter-clockwise triangles of a torus with nu x nv quads."""
    verts = []
    for i in range(nu):
        u = 2.0 * math.pi * i / nu
        for j in range(nv):
            v = 2.0 * math.pi * j / nv
            ring = major + minor * math.cos(v)
            verts.append((ring * math.cos(u), ring * math.sin(u), minor * math.sin(v)))

    def index(i, j):
        return (i % nu) * nv + (j % nv)

    tris = []
    # d/du x d/dv points outwards, so (i, j) -> (i+1, j) -> (i+1, j+1) -> (i, j+1) is counter-clockwise
    # seen from outside.
    for i in range(nu):
        for j in range(nv):
            a, b, c, d = index(i, j), index(i + 1, j), index(i + 1, j + 1), index(i, j + 1)
            tris.append((a, b, c))
            tris.append((a, c, d))
    return verts, tris


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    default_out = os.path.join(here, os.pardir, "inputs", "meshes", "torus.obj")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--major", type=float, default=0.2, help="major radius R (m), default 0.2")
    ap.add_argument("--minor", type=float, default=0.08, help="tube radius r (m), default 0.08")
    ap.add_argument("--segments", type=int, nargs=2, default=[40, 20], metavar=("NU", "NV"),
                    help="segments around the ring and around the tube, default 40 20")
    ap.add_argument("--output", default=default_out, help="OBJ file to write (default inputs/meshes/torus.obj)")
    args = ap.parse_args()
    nu, nv = args.segments
    if not (args.major > args.minor > 0):
        sys.exit("make-mesh.py: need major > minor > 0 (a torus without self-intersection)")
    if nu < 3 or nv < 3:
        sys.exit("make-mesh.py: need at least 3 segments each way")

    verts, tris = torus(args.major, args.minor, nu, nv)
    check_closed(tris)
    vol = signed_volume(verts, tris)
    exact = 2.0 * math.pi ** 2 * args.major * args.minor ** 2
    if not vol > 0:
        raise SystemExit("internal error: the mesh faces inwards")

    out = os.path.normpath(args.output)
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    with open(out, "w", encoding="ascii") as f:
        f.write("# Torus written by scripts/make-mesh.py: closed, triangles counter-clockwise seen from outside.\n")
        f.write(f"# major radius R = {args.major:g} m, tube radius r = {args.minor:g} m, {nu} x {nv} segments,\n")
        f.write(f"# {len(verts)} vertices, {len(tris)} triangles, centred at the origin, axis along z.\n")
        f.write(f"# enclosed volume {vol:.9e} m^3; smooth torus 2 pi^2 R r^2 = {exact:.9e} m^3 "
                f"({100.0 * (vol / exact - 1.0):+.3f} %)\n")
        for x, y, z in verts:
            f.write(f"v {x:.9f} {y:.9f} {z:.9f}\n")
        for a, b, c in tris:
            f.write(f"f {a + 1} {b + 1} {c + 1}\n")
    print(f"wrote {out}: {len(verts)} vertices, {len(tris)} triangles, volume {vol:.6e} m^3 "
          f"({100.0 * (vol / exact - 1.0):+.3f} % from 2 pi^2 R r^2 = {exact:.6e})")


if __name__ == "__main__":
    main()
