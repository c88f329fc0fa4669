#pragma once
// The wetting energy of a solid-liquid surface sample, smooth in its distance to the wall.
//
// Chen et al. (2021, Sec. 3.6) give each surface sample near a collider the solid-liquid coefficient k_SL, so that
// Young's law cos(theta) = (k_SG - k_SL) / k_LG (k_SG = 0) sets the contact angle; the paper gives no rule
// for "near". A sample counted solid-liquid inside delta_SL and liquid-gas outside it stores an energy that
// jumps at delta_SL, and a jump exerts no force: nothing holds a drop of large angle on its floor (it
// lifts off a free-slip floor, since the cap and a free drop differ by 0.3 % in energy at 160 deg), and
// the slip-attached rule that held it there instead (no normal velocity within half a cell of the wall)
// lets a contact line advance but never recede, so 3D drops ended 6-9 deg below Young's angle.
//
// Here the wetting part of a sample's energy, (k_SL - k_LG) h (h its footprint on the wall,
// physics::wall_footprint_gradient), is weighted by w(phi), phi the sample's distance to the wall:
// w = 1 up to delta_SL - b/2, 0 from delta_SL + b/2, and the quintic smoothstep in between (C2, so
// Newton's method sees a continuous Hessian). The mean of the ramp stays at delta_SL. The energy now
// depends on where a sample is, and its derivative (k_SL - k_LG) h w'(phi) n pulls a sample that lifts off
// the wall back to it with the adhesion k_LG (1 + cos theta) per unit area spread over the ramp: a drop
// stays attached on a free-slip floor, and its contact line recedes by paying that adhesion, as Young's
// balance asks. The same weight enters the explicit force (mpm_surface_coupling.cpp) and the implicit
// incremental potential (incremental_potential.cpp), where phi is taken at the sample's end-of-step
// position s + dt v(s), linearised about the wall's tangent plane (exact for planes).
// What it does not give is Young's vertical reaction at the contact line, k_LG sin(theta) per unit length:
// the footprint on the wall sits on the ramp's flat top (w' = 0) and pulls nothing, and the down-facing
// surface that hangs in the ramp pulls 0.66-0.69 of that reaction at 100-150 deg (1.2 at 60-80 deg), so above
// 90 deg the rim peels, the contact line recedes and the angle creeps up (measured, with the remedies tried:
// docs/theory-mpm-surface-tension.md, "Why drops above 90 deg creep").
#include <Kokkos_Core.hpp>

#include "physics/collider.hpp"

namespace meniscus::mpm {

struct WettingRamp {
  double lower = 0, upper = 0;  // w = 1 for phi <= lower, w = 0 for phi >= upper

  // w(phi), with dw/dphi in slope and d2w/dphi2 in curvature.
  KOKKOS_INLINE_FUNCTION double weight(double phi, double& slope, double& curvature) const {
    slope = curvature = 0;
    if (phi <= lower) return 1.0;
    if (phi >= upper) return 0.0;
    const double L = upper - lower, t = (phi - lower) / L;
    const double S = t * t * t * (10.0 + t * (-15.0 + 6.0 * t));
    slope = -30.0 * t * t * (1 - t) * (1 - t) / L;
    curvature = -60.0 * t * (1 - t) * (1 - 2 * t) / (L * L);
    return 1.0 - S;
  }
  KOKKOS_INLINE_FUNCTION double weight(double phi) const {
    double s, c;
    return weight(phi, s, c);
  }
};

// The walls of the adhesive wetting model (wetting_width > 0): every collider but a slip-attached one,
// which keeps the sharp cut and holds its liquid by its velocity condition. Such a wall holds the grid
// nodes within one cell of it (physics::Collider::hold_distance) and cuts the sampled surface at its
// own surface (resample_surface's `walls`), so that the solid-liquid interface and the wall's reaction
// both lie on the wall wherever it falls among the node rows (docs/theory-mpm-surface-tension.md).
template <int Dim>
void mark_wetting_walls(physics::ColliderSet<Dim>& colliders, double wetting_width, double dx) {
  if (!(wetting_width > 0)) return;
  for (int c = 0; c < colliders.count; ++c)
    if (colliders.items[c].type != physics::BoundaryType::SlipAttached) colliders.items[c].hold_distance = dx;
}

// The wetting walls of a (placed) collider set: those mark_wetting_walls marked.
template <int Dim>
physics::ColliderSet<Dim> wetting_walls(const physics::ColliderSet<Dim>& colliders) {
  physics::ColliderSet<Dim> walls;
  for (int c = 0; c < colliders.count; ++c)
    if (colliders.items[c].hold_distance > 0) walls.items[walls.count++] = colliders.items[c];
  return walls;
}

}  // namespace meniscus::mpm
