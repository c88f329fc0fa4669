#pragma once
// Anti-penetration between material groups at one grid node (Yan et al. 2018, section 4.2,
// eqs. 21-26). Each group A present at the node has a mass m^A, a predicted velocity u^A (after the
// internal forces) and a mass gradient G^A = sum_j m_j grad N_I(x_j), which points away from A's
// mass. A's outward normal against a partner R is n = (G^A/|G^A| - G^R/|G^R|)/|...| (eqs. 23-25).
// Where A and R approach, (u^A - u^R) . n > 0, the perfectly inelastic collision impulse
//   dp^A = beta m^A m^R ((u^R - u^A) . n) / (m^A + m^R) n,   dp^R = -dp^A
// is applied along n only; tangential slip and separation are free. This is the dimensionally
// consistent form of the paper's eq. (21), whose printed numerator (p^s m^s - p^f m^f) multiplies
// momenta by masses. beta = 1 brings the normal velocities to their centre-of-mass value in one
// step; beta < 1 (0.3 between immiscible fluids in the paper) only slows the approach.
//   pairwise:     every unordered pair present at the node, impulses from the same predicted state
//                 (Jacobi); each impulse pair sums to zero, so linear momentum is exact.
//   each_vs_rest: the paper's "each phase against all others lumped together" (eq. 26); identical
//                 to pairwise with two groups, not momentum-exact with three or more.
#include <Kokkos_Core.hpp>

#include "core/kmath.hpp"

namespace meniscus::mpm_multiphase {

enum class ContactMode : int { None = 0, Pairwise = 1, EachVsRest = 2 };

constexpr int kMaxGroups = 8;

// A group's mass gradient at a node where its particles surround the node symmetrically (the bulk of
// a body) cancels to zero in exact arithmetic; in floating point it is a round-off residue whose
// direction depends on the order of the sums, i.e. on where the rank cuts fall (each rank adds its
// particles' share before the halo sum). A unit normal from that residue is noise, and the contact
// would push the groups along it. Gradients below kGradientFloor m / dx (m / dx: the gradient of a
// node at a free surface) are therefore taken as zero, like an exactly cancelled one. The floor is far
// above round-off (1e-16 of the summed terms, which are O(m / dx)) and far below any resolved surface.
constexpr double kGradientFloor = 1e-9;

// Zeroes g (Dim entries) when |g| <= kGradientFloor m inv_dx (see above); returns whether g is kept.
template <int Dim>
KOKKOS_INLINE_FUNCTION bool floor_mass_gradient(double* g, double m, double inv_dx) {
  double l2 = 0;
  for (int d = 0; d < Dim; ++d) l2 += g[d] * g[d];
  const double floor = kGradientFloor * m * inv_dx;
  if (l2 > floor * floor) return true;
  for (int d = 0; d < Dim; ++d) g[d] = 0;
  return false;
}

// Unit outward normal of A against R from the two mass gradients; false where it is undefined (a
// gradient vanishes, or the two unit gradients nearly coincide, as in thin interpenetrating layers).
template <int Dim>
KOKKOS_INLINE_FUNCTION bool contact_normal(const double* gA, const double* gR, double* n) {
  double la = 0, lr = 0;
  for (int d = 0; d < Dim; ++d) {
    la += gA[d] * gA[d];
    lr += gR[d] * gR[d];
  }
  if (!(la > 0) || !(lr > 0)) return false;
  la = kmath::sqrt(la);
  lr = kmath::sqrt(lr);
  double ln = 0;
  for (int d = 0; d < Dim; ++d) {
    n[d] = gA[d] / la - gR[d] / lr;
    ln += n[d] * n[d];
  }
  ln = kmath::sqrt(ln);
  if (ln < 1e-6) return false;
  for (int d = 0; d < Dim; ++d) n[d] /= ln;
  return true;
}

// Applies the contact at one node. m: G masses; grad, u: G x Dim (row per group); beta: G x G
// (symmetric). u is read as the predicted state and overwritten with the corrected velocities.
// Groups with m <= 0 are absent. With vol (G nodal volumes), a pair (or a group and the rest) is in
// contact only where their volumes sum to at least `fill` (a volume-overlap detection, not in the paper):
// the nodal masses of two bodies a cell apart overlap on the nodes between them, their volumes do
// not fill those nodes' cells. With centre (G x Dim: each group's mass-weighted particle centre over the
// node's stencil, sum_p w_Ip m_p x_p / m_I), a pair is in contact only where B's centre lies less than
// `separation` beyond A's along A's outward normal (a position-based detection, not in the paper; in the
// spirit of Nairn 2013's displacement-based detection). Two touching lattices of spacing h/2 read 3h/4
// between the centres at their interface, 6h/7 where the lighter group carries a quarter of a particle's
// weight; a quarter cell apart they read at least 0.93 h, a cell apart 1.5 h.
// Returns the number of impulses applied.
template <int Dim>
KOKKOS_INLINE_FUNCTION int apply_contact(int G, const double* m, const double* grad, double* u, const double* beta,
                                         ContactMode mode, const double* vol = nullptr, double fill = 0,
                                         const double* centre = nullptr, double separation = 0) {
  if (mode == ContactMode::None || G < 2) return 0;
  double dp[kMaxGroups * Dim];
  for (int i = 0; i < G * Dim; ++i) dp[i] = 0;
  int applied = 0;
  if (mode == ContactMode::Pairwise) {
    for (int a = 0; a < G; ++a) {
      if (!(m[a] > 0)) continue;
      for (int b = a + 1; b < G; ++b) {
        if (!(m[b] > 0) || !(beta[a * G + b] > 0)) continue;
        if (vol && vol[a] + vol[b] < fill) continue;
        double n[Dim];
        if (!contact_normal<Dim>(grad + a * Dim, grad + b * Dim, n)) continue;
        if (centre) {
          double apart = 0;
          for (int d = 0; d < Dim; ++d) apart += (centre[b * Dim + d] - centre[a * Dim + d]) * n[d];
          if (apart > separation) continue;
        }
        double rel = 0;
        for (int d = 0; d < Dim; ++d) rel += (u[a * Dim + d] - u[b * Dim + d]) * n[d];
        if (!(rel > 0)) continue;  // separating or sliding: no force
        const double j = -beta[a * G + b] * m[a] * m[b] / (m[a] + m[b]) * rel;
        for (int d = 0; d < Dim; ++d) {
          dp[a * Dim + d] += j * n[d];
          dp[b * Dim + d] -= j * n[d];
        }
        ++applied;
      }
    }
  } else {
    for (int a = 0; a < G; ++a) {
      if (!(m[a] > 0)) continue;
      double mr = 0, pr[Dim] = {}, gr[Dim] = {}, xr[Dim] = {}, bsum = 0, vsum = vol ? vol[a] : 0;
      for (int b = 0; b < G; ++b) {
        if (b == a || !(m[b] > 0)) continue;
        mr += m[b];
        if (centre)
          for (int d = 0; d < Dim; ++d) xr[d] += m[b] * centre[b * Dim + d];
        if (vol) vsum += vol[b];
        bsum += m[b] * beta[a * G + b];
        for (int d = 0; d < Dim; ++d) {
          pr[d] += m[b] * u[b * Dim + d];
          gr[d] += grad[b * Dim + d];
        }
      }
      if (!(mr > 0) || (vol && vsum < fill)) continue;
      const double bt = bsum / mr;  // the rest's beta: mass-weighted over its groups
      double n[Dim];
      if (!(bt > 0) || !contact_normal<Dim>(grad + a * Dim, gr, n)) continue;
      if (centre) {
        double apart = 0;  // the rest's centre: mass-weighted over its groups
        for (int d = 0; d < Dim; ++d) apart += (xr[d] / mr - centre[a * Dim + d]) * n[d];
        if (apart > separation) continue;
      }
      double rel = 0;
      for (int d = 0; d < Dim; ++d) rel += (u[a * Dim + d] - pr[d] / mr) * n[d];
      if (!(rel > 0)) continue;
      const double j = -bt * m[a] * mr / (m[a] + mr) * rel;
      for (int d = 0; d < Dim; ++d) dp[a * Dim + d] += j * n[d];
      ++applied;
    }
  }
  for (int a = 0; a < G; ++a)
    if (m[a] > 0)
      for (int d = 0; d < Dim; ++d) u[a * Dim + d] += dp[a * Dim + d] / m[a];
  return applied;
}

}  // namespace meniscus::mpm_multiphase
