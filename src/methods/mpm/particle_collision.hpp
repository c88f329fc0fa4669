#pragma once
// Particle collision (Stomakhin et al. 2013, Sec. 9: the colliders act on the grid velocities and again
// on the particles after G2P). The grid condition holds only nodes inside a collider, and a particle in
// the first cell above a wall still takes part of its velocity from the free nodes above it, so liquid
// pressed against a floor sank 1.3-1.6 cells into it, which lowered the contact angle measured on the
// wall's plane by up to 7 deg (docs/theory-mpm-surface-tension.md). In G2P:
//  * a particle within half a cell of a `slip-attached` collider keeps only its tangential velocity
//    (relative to the wall): the liquid resting on such a wall neither sinks into it nor lifts off it.
//    Sinking used to anchor the bottom layer among the held nodes. On a plain slip wall the wetting
//    ramp's adhesion (mpm.surface_tension.wetting_width, wetting_adhesion.hpp) now holds a drop that
//    barely wets its floor (at 160 deg the attached cap and a free disc differ by 0.3 % in energy), and
//    unlike this rule it lets the contact line recede; with the sharp solid-liquid cut (width 0) nothing
//    but this rule holds such a drop;
//  * a particle that the step moves inside any collider is put back on its surface and loses its
//    velocity into the wall.
#include "physics/collider.hpp"

namespace meniscus::mpm {

// Moves a particle from x (start of the step) with velocity v over dt into xn, applying the particle
// collision to xn and v. dx: the cell size.
template <int Dim>
KOKKOS_INLINE_FUNCTION void move_particle(const physics::ColliderSet<Dim>& colliders, double dx, double dt,
                                          const double* x, double* v, double* xn) {
  auto normal_velocity = [&](const physics::Collider<Dim>& col, const double* at, double* n) {
    double xs[Dim], vn = 0;
    for (int d = 0; d < Dim; ++d) xs[d] = at[d] - col.offset[d];
    col.shape.normal(xs, n);
    for (int d = 0; d < Dim; ++d) vn += (v[d] - col.velocity[d] - (col.moving ? col.translation[d] : 0.0)) * n[d];
    return vn;
  };
  for (int c = 0; c < colliders.count; ++c) {
    const auto& col = colliders.items[c];
    if (col.type != physics::BoundaryType::SlipAttached || !(col.distance(x) < 0.5 * dx)) continue;
    double n[Dim];
    const double vn = normal_velocity(col, x, n);
    for (int d = 0; d < Dim; ++d) v[d] -= vn * n[d];
  }
  for (int d = 0; d < Dim; ++d) xn[d] = x[d] + dt * v[d];
  for (int c = 0; c < colliders.count; ++c) {
    const auto& col = colliders.items[c];
    const double phi = col.distance(xn);
    if (!(phi < 0)) continue;
    double n[Dim];
    const double vn = normal_velocity(col, xn, n);
    for (int d = 0; d < Dim; ++d) {
      xn[d] -= phi * n[d];
      if (vn < 0) v[d] -= vn * n[d];
    }
  }
}

}  // namespace meniscus::mpm
