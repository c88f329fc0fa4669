#pragma once
// Filament particles (Xing et al. 2022, sec. 4.3): on a liquid thread the density, distance and area
// constraints lock the particles in a line that does not contract, so the paper detects filament
// particles by a principal component analysis of their neighbourhoods and switches off their density
// constraints. The paper's supplement with the exact test is not published; reconstruction: the
// kernel-weighted covariance of the neighbour positions (particle i included),
//   pbar = sum_j W_ij x_j / sum_j W_ij,  C = sum_j W_ij (x_j - pbar)(x_j - pbar)^T / sum_j W_ij,
// with eigenvalues e1 >= e2 >= e3; i is a filament particle when it has at least 3 neighbours and
// e2 / e1 < ratio (a line of particles has e2 = 0, a plane or a ball e2 ~ e1).
#include <Kokkos_Core.hpp>

#include "core/kmath.hpp"

namespace meniscus::pbd {

// Eigenvalues of the symmetric 3x3 matrix a = (a00, a11, a22, a01, a02, a12), descending (closed form,
// Smith 1961).
KOKKOS_INLINE_FUNCTION void symmetric_eigenvalues(const double* a, double* e) {
  const double p1 = a[3] * a[3] + a[4] * a[4] + a[5] * a[5];
  const double q = (a[0] + a[1] + a[2]) / 3.0;
  const double p2 = (a[0] - q) * (a[0] - q) + (a[1] - q) * (a[1] - q) + (a[2] - q) * (a[2] - q) + 2.0 * p1;
  if (p2 <= 1e-300) {
    e[0] = e[1] = e[2] = q;
    return;
  }
  const double p = kmath::sqrt(p2 / 6.0);
  const double b0 = (a[0] - q) / p, b1 = (a[1] - q) / p, b2 = (a[2] - q) / p;
  const double b3 = a[3] / p, b4 = a[4] / p, b5 = a[5] / p;
  const double det = b0 * (b1 * b2 - b5 * b5) - b3 * (b3 * b2 - b5 * b4) + b4 * (b3 * b5 - b1 * b4);
  const double r = kmath::clamp(0.5 * det, -1.0, 1.0);
  const double phi = kmath::atan2(kmath::sqrt(1.0 - r * r), r) / 3.0;  // acos(r) / 3
  const double two_pi_3 = 2.0943951023931954923;
  e[0] = q + 2.0 * p * kmath::cos(phi);
  e[2] = q + 2.0 * p * kmath::cos(phi + two_pi_3);
  e[1] = 3.0 * q - e[0] - e[2];
}

// filament(i) = 1 for the owned rows i (neighbour CSR offset/index over x) that pass the test above.
void detect_filaments(Kokkos::View<double**, Kokkos::LayoutRight> x, Kokkos::View<int*> offset,
                      Kokkos::View<int*> index, int owned, double support, double ratio, Kokkos::View<int*> filament);

}  // namespace meniscus::pbd
