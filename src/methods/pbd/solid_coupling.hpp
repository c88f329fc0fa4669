#pragma once
// Solid coupling of the position-based method (Xing et al. 2022, sec. 3.4 "solid coupling"): per
// particle and collider, applied to the predicted position p* after every projection sweep.
//  - Collision (Mueller et al. 2007): a particle closer than r to the solid is moved along the SDF
//    normal to distance r.
//  - Swept test (ours): with dt = 1/30 a particle moves up to |v| dt in one step, more than a thin
//    plate is thick; testing only p* then pushes it out of the plate's far face, through the wall.
//    The path from the start-of-step position a to p* is sphere-traced with the signed distance
//    (which never overestimates the distance to the surface, so no crossing is skipped); where it
//    enters the solid and the ordinary projection would leave p* behind the entry face, p* is kept at
//    distance r above the tangent plane of the entry point, on the side it came from.
//  - Adhesion (the paper's "adhesion constraints [Bender et al. 2017]", form not given; ours): a particle
//    whose centre lies in the shell r <= phi < r + r_a is pulled towards the contact distance, C = phi - r,
//    dp = -C / (1 + epsilon^W) grad phi.
//  - Thin walls (the paper's teapot; pbd.split_pairs_by_solids): neighbour pairs whose segment passes
//    through a solid are removed at every rebuild, so liquid on the two sides of a wall does not interact.
#include "core/kmath.hpp"
#include "particles/neighbor_search.hpp"
#include "physics/collider.hpp"

namespace meniscus::pbd {

// Sphere-traces the segment from a along `path` (length len > 0) with the signed distance, which never
// overestimates the distance to the surface, so no crossing is skipped. Returns whether the segment
// enters the solid (distance below tol); q: the entry point, fq: the distance there.
KOKKOS_INLINE_FUNCTION bool trace_segment(const physics::Collider<3>& col, const double a[3], const double path[3],
                                          double len, double tol, double q[3], double& fq) {
  double t = 0;
  for (int it = 0; it < 64 && t <= len; ++it) {
    for (int d = 0; d < 3; ++d) q[d] = a[d] + (t / len) * path[d];
    const double f = col.distance(q);
    if (f < tol) {
      fq = f;
      return true;
    }
    t += f;
  }
  return false;
}

// Moves p (the predicted position) out of collider `col`; a is the particle's position at the start of
// the step. Returns whether p was moved.
KOKKOS_INLINE_FUNCTION bool collide_particle(const physics::Collider<3>& col, const double a[3], double p[3],
                                             double r, bool swept) {
  const double phi = col.distance(p);
  if (swept) {
    const double phi_a = col.distance(a);
    double path[3], len2 = 0;
    for (int d = 0; d < 3; ++d) {
      path[d] = p[d] - a[d];
      len2 += path[d] * path[d];
    }
    const double len = kmath::sqrt(len2);
    // The path can reach the solid only if it is longer than the start's distance to it; a start inside
    // the solid (a moving collider overtook it) is left to the ordinary projection.
    if (phi_a > 0 && len > phi_a) {
      double q[3], fq = 0;
      if (trace_segment(col, a, path, len, 1e-6 * r, q, fq)) {
        // Where the ordinary projection below (along the normal at p*) leaves the particle on the side
        // it came from, it is kept (and the results are those of the test without the sweep). Where it
        // would put it behind the face it entered through (p* went through a thin wall, or past its
        // middle), p* is instead kept r above that face's tangent plane.
        double nq[3], np[3], qs[3], ps[3], above = fq, behind = fq;  // heights over the surface, not over q
        for (int d = 0; d < 3; ++d) {
          qs[d] = q[d] - col.offset[d];
          ps[d] = p[d] - col.offset[d];
        }
        col.shape.normal(qs, nq);
        col.shape.normal(ps, np);
        const double push = phi < r ? r - phi : 0.0;
        for (int d = 0; d < 3; ++d) {
          above += (p[d] - q[d]) * nq[d];
          behind += (p[d] + push * np[d] - q[d]) * nq[d];
        }
        if (behind < 0) {
          for (int d = 0; d < 3; ++d) p[d] += (r - above) * nq[d];
          return true;
        }
      }
    }
  }
  if (!(phi < r)) return false;
  double ps[3], nrm[3];
  for (int d = 0; d < 3; ++d) ps[d] = p[d] - col.offset[d];
  col.shape.normal(ps, nrm);
  for (int d = 0; d < 3; ++d) p[d] += (r - phi) * nrm[d];
  return true;
}

// Pulls p towards distance r from the collider when it lies within r_a beyond it.
KOKKOS_INLINE_FUNCTION void adhere_particle(const physics::Collider<3>& col, double p[3], double r, double range,
                                            double cfm) {
  const double phi = col.distance(p);
  if (!(phi >= r && phi < r + range)) return;
  double ps[3], nrm[3];
  for (int d = 0; d < 3; ++d) ps[d] = p[d] - col.offset[d];
  col.shape.normal(ps, nrm);
  const double s = -(phi - r) / (1 + cfm);
  for (int d = 0; d < 3; ++d) p[d] += s * nrm[d];
}

// Thin walls (Xing et al. 2022, sec. 3.4: liquid on opposite sides of a thin wall must not interact,
// the teapot): removes from the neighbour lists of rows [0, rows) every pair whose segment passes
// through a collider. Both ends must lie outside the solid (a predicted position inside it keeps its
// pairs; the collision projection moves it out); the segment is traced from the end with the smaller
// global id, so a pair is decided alike from both sides and on every rank. Only rows closer to a
// collider than their farthest neighbour (the support h) are traced. Returns the pairs removed.
long drop_pairs_through_solids(particles::NeighborLists& lists, Kokkos::View<double**, Kokkos::LayoutRight> x,
                               Kokkos::View<const int64_t*> ids, int rows, const physics::ColliderSet<3>& colliders,
                               double support, double radius);

}  // namespace meniscus::pbd
