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

#include "core/kmath.hpp"
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

// The contact-line hold (mpm.surface_tension.contact_line_hold). Young's balance asks the wall to pull the
// contact line down with k_LG sin(theta_Y) per unit length (the liquid-gas surface pulls it up with that much;
// Chen et al. 2021, Sec. 3.6, Eq. 11 give the tangential part, k_SL on the footprint against k_LG cos(theta)).
// The ramp's adhesion pulls only 0.66-0.69 of it above 90 deg, so the rim peels (docs). Here a held node of a
// wetting wall also removes liquid's velocity away from the wall, as a slip-attached wall would, but by no
// more than its share of what Young's reaction leaves after the ramp's own pull: the impulse limit dt * cap_i,
// cap_i being k_LG sin(theta_Y) times the contact-line length that the node carries, less the ramp's pull
// (k_SL - k_LG) h w'(phi) of the same samples. A rim pulled up harder than Young's peels and recedes; one pulled
// less stays put. Without the subtraction (ramp plus a full k_LG sin(theta_Y)) the hold exceeds Young's and the
// seeded 2D drops advanced 3.6-4.1 deg below it in 2 s; with it they stay within 2.6 deg (docs).
//
// The line's length from the samples: a surface crossing the ramp's band 0 <= phi <= b_up once has wall-
// tangential area sum |a_t| = b_up per unit length of line (2D: per contact point) whatever its angle, since
// |a_t| of a surface element is its extent along the wall normal. So each liquid-gas sample in the ramp
// contributes k_LG sin(theta_Y) |a_t| / b_up, spread over the held nodes of its stencil with weights N_i
// renormalised over them (footprint samples on the wall have a_t = 0 and add nothing). The limits sum on
// the grid with the momenta (one more grid column), so they do not depend on the rank count. The same in 3D
// (Sum |a_t| = b_up times the line's length), where the band counts the line at mid-band height: a first-order
// excess b_up |cot theta| / (2 a) for a line of radius a (docs). The explicit grid update applies
// the hold after the forces. Per node that cut is the minimiser of m/2 |v - v*|^2 + dt cap (v - v_c).n subject to
// (v - v_c).n >= 0 (v* the velocity after the forces). The implicit step, by default (hold_mode after_solve), applies
// the same cut after the Newton solve (MpmMethod::implicit_contact_line_hold); with hold_mode in_solve it minimises
// the same work and bound together with the incremental potential, inside the Newton solve
// (ImplicitGridSolver::set_contact_line_hold, an active set on the held nodes). Both read the caps summed in the
// same P2G.
KOKKOS_INLINE_FUNCTION double contact_line_cap(double k_lg, double k_sl, double tangential_area, double band) {
  const double c = k_lg != 0 ? -k_sl / k_lg : 1.0;
  return kmath::fabs(k_lg) * kmath::sqrt(c * c < 1 ? 1 - c * c : 0.0) * tangential_area / band;
}

// Removes up to `limit` (a velocity) of the normal velocity away from the first wetting wall that holds node
// x; the approach into it was already removed by the wall's own condition. Returns true where the node still
// leaves that wall (its velocity away exceeded the limit: the line peels there), false where it is held.
template <int Dim>
KOKKOS_INLINE_FUNCTION bool hold_contact_line(const physics::ColliderSet<Dim>& colliders, const double* x, double* v,
                                              double limit) {
  for (int c = 0; c < colliders.count; ++c) {
    const auto& col = colliders.items[c];
    if (!(col.hold_distance > 0) || col.type == physics::BoundaryType::Sticky || !col.holds(x)) continue;
    double xs[Dim], n[Dim], vn = 0;
    for (int d = 0; d < Dim; ++d) xs[d] = x[d] - col.offset[d];
    col.shape.normal(xs, n);
    for (int d = 0; d < Dim; ++d) vn += (v[d] - col.velocity[d] - (col.moving ? col.translation[d] : 0.0)) * n[d];
    const double cut = vn > 0 ? (vn < limit ? vn : limit) : 0.0;
    for (int d = 0; d < Dim; ++d) v[d] -= cut * n[d];
    return vn > limit;
  }
  return false;
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
