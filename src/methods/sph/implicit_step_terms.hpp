#pragma once
// Host-side set-up shared by the implicit solve and the explicit variant: the constants every pair
// kernel needs (Terms), the ghost refresh through the neighbourhood's callback, and Weiler's boundary
// friction samples.
#include <Kokkos_Core.hpp>

#include "core/error.hpp"
#include "core/kmath.hpp"
#include "methods/sph/implicit_cohesion_viscosity.hpp"
#include "methods/sph/implicit_pair_terms.hpp"

namespace meniscus::sph::implicit_terms {

// Everything a kernel needs to evaluate pair and boundary terms at time t.
template <int Dim>
struct Terms {
  PairKernels<Dim> fluid, wall;  // cohesion kernel, adhesion kernel (theta optional)
  double h, dt, sigma, mu, rho0, mu_b, tangent_offset;
  bool has_boundary;
};

template <int Dim>
Terms<Dim> make_terms(const Neighborhood& nb, const ImplicitForceParams& p, const BoundarySamples& b) {
  if (!(nb.support > 0) || !(p.particle_diameter > 0) || !(p.dt > 0))
    throw RuntimeError("implicit cohesion: support radius, particle diameter and dt must be positive");
  Terms<Dim> t;
  t.fluid = PairKernels<Dim>(nb.support, p.particle_diameter, cohesion_theta<Dim>());
  t.wall = PairKernels<Dim>(nb.support, p.particle_diameter, p.adhesion_theta ? cohesion_theta<Dim>() : 1.0);
  t.h = nb.support;
  t.dt = p.dt;
  t.sigma = p.sigma;
  t.mu = p.viscosity;
  t.rho0 = p.rest_density;
  t.mu_b = p.boundary_viscosity;
  t.tangent_offset = p.tangential_distance_factor * nb.support;
  t.has_boundary = b.volume.extent(0) > 0;
  return t;
}

// Ghost refresh through the neighbourhood's callback; a neighbourhood without ghosts may leave it unset.
inline void refresh(const Neighborhood& nb, Kokkos::View<double**, Kokkos::LayoutRight> field) {
  if (nb.refresh_ghosts) {
    nb.refresh_ghosts(field);
  } else if (nb.total > nb.owned) {
    throw RuntimeError("implicit cohesion: the neighbourhood has ghost rows but no refresh_ghosts callback");
  }
}

// The boundary friction samples of Weiler et al. 2018 around the nearest boundary point xb of a
// particle at xi: xb +- f h t_a, each carrying volume V / (2 (Dim - 1)). Calls f(x_ik) per sample.
template <int Dim, class F>
KOKKOS_INLINE_FUNCTION void for_each_friction_sample(const double* xi, const double* xb, double offset, F&& f) {
  double n[3] = {0, 0, 0}, len = 0;
  for (int d = 0; d < Dim; ++d) {
    n[d] = xi[d] - xb[d];
    len += n[d] * n[d];
  }
  len = kmath::sqrt(len);
  if (!(len > 0)) return;
  for (int d = 0; d < Dim; ++d) n[d] /= len;
  double t[2][3];
  tangents<Dim>(n, t);
  for (int a = 0; a < Dim - 1; ++a)
    for (int s = -1; s <= 1; s += 2) {
      double xik[3] = {0, 0, 0};
      for (int d = 0; d < Dim; ++d) xik[d] = xi[d] - (xb[d] + s * offset * t[a][d]);
      f(xik);
    }
}

}  // namespace meniscus::sph::implicit_terms
