#pragma once
// Walls and colliders on the particles themselves. The grid conditions (physics/collider.hpp) act on
// nodes inside a collider only, so a GIMP particle whose nearest node lies on the wall plane still
// receives an outward velocity from its interior nodes and creeps through the wall by a fraction of a
// cell per second; a settled water column then spreads into the side walls and stands several per
// cent short. Uniform GIMP gives every particle the extent of a box of half-width dx/4 (Yan et al.
// 2018, eq. 6): after G2P a particle closer than that to a collider surface is put back at that
// distance along the outward normal, and its velocity loses the component into the collider (relative
// to the wall's own velocity). Tangential motion and separation are untouched.
#include <Kokkos_Core.hpp>

#include "physics/collider.hpp"

namespace meniscus::mpm_multiphase {

template <int Dim>
KOKKOS_INLINE_FUNCTION void keep_particle_outside(const physics::ColliderSet<Dim>& set, double half_width, double* x,
                                                  double* v) {
  for (int c = 0; c < set.count; ++c) {
    const auto& col = set.items[c];
    const double dist = col.distance(x);
    if (dist >= half_width) continue;
    double xs[Dim], n[Dim];
    for (int d = 0; d < Dim; ++d) xs[d] = x[d] - col.offset[d];
    col.shape.normal(xs, n);
    double vn = 0;
    for (int d = 0; d < Dim; ++d) {
      const double wall = col.velocity[d] + (col.moving ? col.translation[d] : 0.0);
      vn += (v[d] - wall) * n[d];
    }
    if (vn < 0)
      for (int d = 0; d < Dim; ++d) v[d] -= vn * n[d];
    for (int d = 0; d < Dim; ++d) x[d] += (half_width - dist) * n[d];
  }
}

}  // namespace meniscus::mpm_multiphase
