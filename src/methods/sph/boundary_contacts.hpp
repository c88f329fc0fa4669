#pragma once
// Boundary handling against the framework's SDF colliders (docs/theory-sph.md, "Boundaries"): each
// fluid particle within the support h of a collider gets one boundary sample per collider, built
// from the collider's signed distance phi and normal n as if the wall were locally a half-space.
// The sample carries the exact kernel-weighted volume of that half-space (a precomputed 1D table
// Psi(phi) = int_{solid} W, the density-map idea of Koschier & Bender 2017), placed at
//   x_b = x_i - s n,  s = r + 0.75 max(phi, 0)  (so W(s) > 0 for every phi < h),
// with volume V_b = Psi(phi) / W(s), so that rho0 V_b W(x_i - x_b) reproduces the wall's density
// contribution exactly for a plane. DFSPH and the adhesion terms use it as the paper's volume-map
// sample (x_b, V_b, v_b).
#include <Kokkos_Core.hpp>

#include "methods/sph/sph_kernels.hpp"
#include "particles/particle_set.hpp"
#include "physics/collider.hpp"

namespace meniscus::sph {

// Psi(phi) = integral of W over the half-space {y . n <= -phi} seen from a point at distance phi.
template <int Dim>
struct HalfSpaceVolume {
  Kokkos::View<double*> table;  // Psi at phi = i h / (n - 1), i = 0..n-1
  double h = 0;
  int n = 0;
  KOKKOS_INLINE_FUNCTION double operator()(double phi) const {
    const double a = phi < 0 ? -phi : phi;
    double psi = 0;
    if (a < h) {
      const double u = a / h * (n - 1);
      const int i = static_cast<int>(u);
      const double f = u - i;
      psi = i + 1 < n ? (1 - f) * table(i) + f * table(i + 1) : table(n - 1);
    }
    return phi < 0 ? 1.0 - psi : psi;
  }
};
template <int Dim>
HalfSpaceVolume<Dim> make_half_space_volume(double support, int samples = 1025);

// Up to kMax samples per owned particle (one per collider within reach, nearest first).
template <int Dim>
struct BoundaryContacts {
  static constexpr int kMax = 3;
  Kokkos::View<int*> count;              // owned
  Kokkos::View<double* [kMax][Dim]> x, v;  // owned
  Kokkos::View<double* [kMax]> volume, sigma;
};

struct ContactSettings {
  double particle_radius = 0, support = 0;
  int wall_count = 0;  // the first colliders of the set are the box faces
  double adhesion = 0, wall_adhesion = 0;
};

template <int Dim>
void compute_boundary_contacts(particles::ConstRealField x, int owned, const physics::ColliderSet<Dim>& colliders,
                               const HalfSpaceVolume<Dim>& psi, const ContactSettings& s, BoundaryContacts<Dim>& out);

}  // namespace meniscus::sph
