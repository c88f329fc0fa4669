"""Checks shared by the mesh scripts (make-mesh.py, make-bunny-mesh.py, make-letter-meshes.py): a closed,
consistently oriented triangle mesh and its enclosed volume."""


def signed_volume(verts, tris):
    """Divergence theorem: sum of the tetrahedra (origin, a, b, c) / 6."""
    total = 0.0
    for a, b, c in tris:
        (ax, ay, az), (bx, by, bz), (cx, cy, cz) = verts[a], verts[b], verts[c]
        total += ax * (by * cz - bz * cy) - ay * (bx * cz - bz * cx) + az * (bx * cy - by * cx)
    return total / 6.0


def check_closed(tris):
    """Every directed edge once, and its reverse once: closed and consistently oriented."""
    directed = {}
    for t in tris:
        for k in range(3):
            e = (t[k], t[(k + 1) % 3])
            directed[e] = directed.get(e, 0) + 1
    for (p, q), n in directed.items():
        if n != 1 or directed.get((q, p), 0) != 1:
            raise SystemExit(f"internal error: edge {p + 1}-{q + 1} is not shared by exactly two triangles")
