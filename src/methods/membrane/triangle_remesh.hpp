#pragma once
// Remeshing of the 3D membrane (Ruan et al. 2021 §5.3, Stage 6: "a set of local operations for
// topological repair on a triangle mesh", following El Topo, Brochu and Bridson 2009). This is the
// part of those operations the membrane needs to keep its triangles usable for Eq. 11, whose weights
// cot(theta) / 2 blow up as an angle closes: edge split, edge collapse, edge flip and vertex
// smoothing, applied in passes until no split, collapse or flip is left. Topology changes (merging
// sheets, pinch-off) are not done.
//
//  * Split: an edge longer than split_ratio L0 gets a vertex at its midpoint, joined to the two
//    opposite vertices. The surface does not move, so the enclosed volume is unchanged.
//  * Collapse: an edge shorter than collapse_ratio L0 merges into one vertex placed on the line
//    through the edge's midpoint along the local normal (closed surface) or along z (open surface),
//    at the point that keeps the enclosed volume (the volume is linear in that point); an edge with
//    one fixed end (below) collapses onto that end, as the 2D chain does, so that short edges at a
//    contact line or a wall go too (its volume change is restored with the flips'). Refused when
//    the point lies more than half the edge length off the midpoint, when the one-rings share more
//    than the two opposite vertices (the link condition, which keeps the mesh a manifold), when a
//    triangle would turn over or get an edge longer than split_ratio L0, or when its smallest angle
//    would fall below both min_angle_deg and the smallest angle there before.
//  * Flip: the diagonal of two triangles whose normals differ by less than max_flip_dihedral_deg is
//    replaced by the other diagonal when that raises the smaller of their smallest angles. A flip
//    changes the volume by the tetrahedron of the four vertices (small when the pair is nearly
//    flat, but on a convex drop always a loss); the total is reported, and at the end the free
//    vertices move by one uniform offset along their normals (along z for an open membrane) that
//    restores the volume of the start; edges that offset stretched past split_ratio L0 are split.
//  * Smooth (after each pass's flips): every free vertex moves along its tangent plane toward the
//    area-weighted mean of its one-ring triangles' centroids (El Topo's null-space smoothing,
//    reduced to the tangent plane), then along its normal (z when open) by the amount that keeps
//    its one-ring patch's volume, so the enclosed volume is kept to round-off. Refused when a
//    triangle would turn over, an edge would exceed split_ratio L0, or the one-ring's smallest
//    angle would not rise. The vertex takes the velocity interpolated linearly in the old one-ring.
//    Without it, a membrane whose vertices slide along it (the paper's vertex motion: the liquid's
//    tangential velocity) keeps slivers that no collapse or flip may remove (1.9 deg measured on
//    the Rayleigh drop).
//
// Vertices on the boundary of an open membrane (its ends on the tank walls) and vertices that are not
// free (kind != 0: wall, contact; polyline.hpp's VertexKind) are fixed: never moved, never removed; a
// split edge between two such vertices of the same kind gives a vertex of that kind. New vertices
// take the average velocity of the edge's ends (the paper's "velocity interpolation on particles
// newly created by the mesher"). Host work, on the whole membrane (the digest's phase 1: remesh on
// one rank, then redistribute).
#include <array>
#include <vector>

#include "geometry/triangle_mesh.hpp"
#include "methods/membrane/triangle_membrane.hpp"

namespace meniscus::membrane {

struct TriangleRemeshOptions {
  double L0 = 0;                    // target edge length (the paper: half the grid spacing)
  double split_ratio = 1.5;
  double collapse_ratio = 0.5;
  double min_angle_deg = 20;        // collapses may not create smaller angles than this (or than before)
  double max_flip_dihedral_deg = 10;  // 0 disables flips
  bool closed = true;               // closed drop (volume by divergence theorem) or open pool (over a base plane)
  // Tangential smoothing after each pass's flips (a fraction of the move toward the one-ring's
  // area-weighted centroid, see remesh_triangles); 0 disables it.
  double smoothing_rate = 1.0;
  int max_passes = 20;
};

struct TriangleRemeshStats {
  long splits = 0, collapses = 0, flips = 0;
  long smoothed = 0;  // vertex moves of the tangential smoothing (all passes)
  int passes = 0;
  double flip_volume_change = 0;    // sum of the flips' signed volume changes
  double fixed_collapse_volume_change = 0;  // sum of the changes of collapses onto fixed vertices
  double volume_change_before_offset = 0;   // volume after the operations minus before
  double restore_offset = 0;        // the normal offset that restored the volume afterwards
};

// Remeshes `mesh` in place; `velocity` and `kind` (one per vertex, or empty) follow the vertices.
// Throws std::invalid_argument for L0 <= 0, ratios that do not satisfy
// 0 < collapse_ratio < split_ratio / 2 (a split must not produce edges that would be collapsed), or
// arrays of the wrong size.
TriangleRemeshStats remesh_triangles(geometry::TriangleMesh& mesh, std::vector<std::array<double, 3>>& velocity,
                                     std::vector<int>& kind, const TriangleRemeshOptions& options);

// The same on a membrane that holds the whole mesh (one rank, or every rank holding the same
// replicated copy, as the 3D step does: membrane_flow_3d.hpp): positions, velocities and kinds are
// carried over, and the membrane is rebuilt.
TriangleRemeshStats remesh_membrane(TriangleMembrane& m, const TriangleRemeshOptions& options);

// Smallest interior angle of any triangle, in degrees.
double min_triangle_angle_deg(const geometry::TriangleMesh& mesh);

}  // namespace meniscus::membrane
