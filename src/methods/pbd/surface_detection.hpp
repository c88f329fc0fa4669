#pragma once
// Surface particles by light shading (Xing et al. 2022, sec. 4.1, after Shibata et al. 2015): a point
// light at particle i shines on a small sphere around it; every neighbour j casts a circular shadow
// of angular radius alpha_j = asin(min(r, l/2) / l) (l = |x_j - x_i|) about the direction to j; the
// particle is on the surface when the illuminated fraction R of the sphere is at least beta = 1/9.
// The paper's supplement with the exact screen discretisation is not published; two measures are
// offered:
//  - Bins: the sphere in 18 x 36 bins of 10 degrees (polar angle from +y, azimuth atan2(z, x), the
//    layout of the first author's re-implementation), a bin dark when it lies in the (theta, phi) box
//    of any shadow, bins weighted by sin(theta). Our correction: the box's azimuth half-width is the
//    cap's true one, asin(sin alpha / sin theta_j), and a cap over a pole darkens every azimuth (the
//    plain +-alpha box leaves light leaking around the poles).
//  - Cones: exact cones sampled with M Fibonacci directions (for tests and quality runs; M x k work).
// Normals (paper Eqs. 5-6, Mueller et al. 2003): n_i = -grad c / |grad c|, grad c = sum_j (m/rho_j)
// grad W_ij; none when |grad c| h < 1e-3 (e.g. a single-layer sheet).
#include <Kokkos_Core.hpp>

#include "core/cubic_spline.hpp"
#include "core/kmath.hpp"

namespace meniscus::pbd {

enum class ShadingMode : int { Bins = 0, Cones = 1 };

constexpr int kThetaBins = 18, kPhiBins = 36;

struct ShadingInputs {
  Kokkos::View<double**, Kokkos::LayoutRight> x;  // owned + ghost rows
  Kokkos::View<int*> offset, index;
  int owned = 0;
  double radius = 0.1;   // r: shadow radius min(r, l/2)
  double threshold = 1.0 / 9.0;
  double isolation = 0.4;  // a particle with no neighbour closer than this (2 d0 = 4r) is isolated
  ShadingMode mode = ShadingMode::Bins;
  Kokkos::View<double* [3]> directions;  // Cones: unit directions
};

// Fibonacci sphere: m nearly uniform unit directions.
Kokkos::View<double* [3]> fibonacci_directions(int m);

// Illuminated fraction, surface flag (1 surface, 0 interior) and isolated flag of the owned rows.
void shade(const ShadingInputs& in, Kokkos::View<double*> illuminated, Kokkos::View<int*> surface,
           Kokkos::View<int*> isolated);

// Unit outward normals of the owned rows from the colour field (rho on owned and ghost rows);
// has_normal 0 where the gradient vanishes.
void colour_normals(Kokkos::View<double**, Kokkos::LayoutRight> x, Kokkos::View<int*> offset, Kokkos::View<int*> index, int owned,
                    double mass, Kokkos::View<double*> rho, double support, Kokkos::View<double**, Kokkos::LayoutRight> normal,
                    Kokkos::View<int*> has_normal);

}  // namespace meniscus::pbd
