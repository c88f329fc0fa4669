#pragma once
// The two position-based-fluids constraint families of Xing et al. 2022 as device functions, plus
// the Jacobi sweep that gathers their corrections (sec. 3.1 and 3.4; Macklin & Mueller 2013).
//
// Density (paper Eqs. 1-4): C_i = rho_i/rho0 - 1 with rho_i = sum_{j in N(i), j = i included} m W_ij,
//   lambda_i = -C_i / (sum_k |grad_k C_i|^2 + eps^P), no inverse masses;
//   grad_i C_i = (m/rho0) sum_j grad W_ij, grad_j C_i = -(m/rho0) grad W_ij.
// Distance (paper Eqs. 9-10): C_ij = min(0, |x_ij| - d0) for neighbours of the same label (surface or
//   interior), lambda = -C/(2 + eps^D), grad_i = x_ij/|x_ij| = -grad_j.
//
// Jacobi with a per-particle gather: every particle sums the corrections that all constraints touching
// it ask for, reading one iterate. The density part is dp_i = (m/rho0) sum_j (lambda_i + lambda_j)
// grad W_ij (paper Eq. 4 without s_corr), the distance part sum_j lambda_ij x_ij/|x_ij|. No particle
// writes into another's accumulator, so the result does not depend on the thread count, and across
// ranks only on the summation order of the (cell-ordered) neighbour lists.
#include <Kokkos_Core.hpp>

#include "core/cubic_spline.hpp"
#include "core/kmath.hpp"

namespace meniscus::pbd {

// lambda of a density constraint from C, the gradient sum g = sum_j grad W_ij and q = sum_j |grad W_ij|^2
// (both without the factor m/rho0, which `scale` carries).
KOKKOS_INLINE_FUNCTION double density_lambda(double c, const double* g, double q, double scale, double cfm) {
  const double s = scale * scale * (g[0] * g[0] + g[1] * g[1] + g[2] * g[2] + q);
  return -c / (s + cfm);
}

// Correction of particle i from the distance constraint with j (xij = x_i - x_j): zero unless the
// pair is closer than d0.
KOKKOS_INLINE_FUNCTION void distance_correction(const double* xij, double d0, double cfm, double* out) {
  const double r = kmath::sqrt(xij[0] * xij[0] + xij[1] * xij[1] + xij[2] * xij[2]);
  out[0] = out[1] = out[2] = 0;
  if (!(r < d0) || r <= 0) return;
  const double lambda = (d0 - r) / (2.0 + cfm);  // -C/(|grad_i|^2 + |grad_j|^2 + eps), C = r - d0
  for (int d = 0; d < 3; ++d) out[d] = lambda * xij[d] / r;
}

// What the sweep reads: positions of owned + ghost rows (ghosts current), neighbour CSR of the owned
// rows, per-row labels (0 interior, 1 surface) and a per-row switch for the density constraint.
struct PbfSweep {
  Kokkos::View<double**, Kokkos::LayoutRight> x;
  Kokkos::View<int*> offset, index;
  Kokkos::View<int*> label;        // total rows
  Kokkos::View<int*> density_off;  // total rows; 1: no density constraint (isolated, filament)
  int owned = 0;
  double mass = 0, rest_density = 1, support = 0, min_distance = 0;
  double density_cfm = 600, distance_cfm = 40;
  bool unilateral_density = false;  // C_i = max(rho_i/rho0 - 1, 0): density constraints only push apart
  bool distance_same_label = true;
};

// Orders every neighbour row by the neighbours' global ids (insertion sort per row; rows hold about
// 90 entries). Every sum over neighbours then runs in the same order whatever the rank count or the
// particles' storage order, so the sweeps give bit-identical results on 1, 2 or 4 ranks.
void sort_rows_by_id(Kokkos::View<int*> offset, Kokkos::View<int*> index, Kokkos::View<const int64_t*> id, int owned);

// rho_i and lambda_i of the owned rows.
void density_and_lambda(const PbfSweep& s, Kokkos::View<double*> rho, Kokkos::View<double*> lambda);
// dp_i of the owned rows (lambda current on ghost rows too).
void gather_corrections(const PbfSweep& s, Kokkos::View<double*> lambda, Kokkos::View<double**, Kokkos::LayoutRight> dp);

}  // namespace meniscus::pbd
