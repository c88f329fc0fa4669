#pragma once
// Local meshes of Xing et al. 2022 (sec. 4.2): for every surface particle i, independently, the
// neighbouring surface particles are projected onto i's tangent plane, the 2D Delaunay triangulation
// of the projected points gives i's one-ring, and the ring is lifted back to the 3D positions. The
// fans are never stitched: neighbouring fans may disagree (the paper reports under 2.5 % non-manifold
// triangles), because they only define per-particle area constraints.
//
// The one-ring is computed without a global triangulation (device friendly, after the first author's
// re-implementation): candidates sorted by polar angle form a star polygon around i; a spoke (i, u)
// whose two triangles (i, pre, u) and (i, u, next) violate the Delaunay condition (the angles at pre
// and next sum to more than pi) is flipped away, i.e. u leaves the ring, and pre and next are tested
// again; what survives is i's Delaunay one-ring. Co-circular quadruples (exact lattices) are decided by
// global ids so that every particle of the quadruple picks the same diagonal. Where consecutive ring
// vertices span pi or more around i, i is on the hull of its projected neighbourhood and the fan is
// open there (no wrap-around triangle).
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "core/kmath.hpp"

namespace meniscus::pbd {

constexpr int kMaxCandidates = 64;  // projected neighbours considered per particle
constexpr int kMaxRing = 24;        // ring vertices kept (2D Delaunay degree is 6 on average)

enum MeshFlag : int { kMeshValid = 1, kMeshClosed = 2, kMeshOverflow = 4 };

// Delaunay one-ring of the origin among n points (qx, qy) with ids `gid` (the origin's id gid0).
// Writes the ring as indices into the input, counter-clockwise, open fans starting after the gap;
// returns the flags (kMeshValid when at least 3 ring vertices, kMeshClosed, kMeshOverflow when the ring
// had more than kMaxRing vertices and was cut). n <= kMaxCandidates.
// `lifted` (optional, 3n values): the points' 3D offsets from the origin particle. Given, a spoke is
// flipped by the 3D corner angles of its quadrilateral instead of the projected ones (see
// MeshInputs::lifted_angles); the projection still orders the ring and keeps the fan a star.
KOKKOS_FUNCTION int delaunay_one_ring(int n, const double* qx, const double* qy, const int64_t* gid, int64_t gid0,
                                      int* ring, int* ring_count, const double* lifted = nullptr);

struct MeshInputs {
  Kokkos::View<double**, Kokkos::LayoutRight> x, normal;  // owned + ghost rows
  Kokkos::View<int*> offset, index;  // neighbours (support h) of the owned rows
  Kokkos::View<int*> label, isolated, has_normal;
  Kokkos::View<int64_t*> ids;
  int owned = 0;
  double support = 0.6;
  double far_cut = 0.4;  // films: neighbours with normals more than 45 degrees apart and this far are dropped (4r)
  // Delaunay test on the lifted quadrilateral (ours, not the paper's): particle i and the other three
  // particles of a quadrilateral project it on four different tangent planes and can disagree about
  // its diagonal, which leaves four non-manifold triangles (paper sec. 4.2 and Fig. 16). Comparing the
  // sums of the 3D corner angles opposite each diagonal gives every particle of the quadrilateral the
  // same answer; on a plane it is the 2D Delaunay test.
  bool lifted_angles = false;
};

struct LocalMeshes {
  Kokkos::View<int**, Kokkos::LayoutRight> ring;  // owned rows x kMaxRing: row indices (owned or ghost)
  Kokkos::View<int*> count, flags;
};

// Fans of the owned surface rows (others get count 0, flags 0).
void build_local_meshes(const MeshInputs& in, LocalMeshes& out);

}  // namespace meniscus::pbd
