// The explicit variant of the cohesion + adhesion + viscosity forces (paper Eq. 8 and the explicit
// forms of Eqs. 21 and 25), evaluated at time t: for st_mode = explicit and for tests that compare
// the implicit update with it.
#include "methods/sph/implicit_cohesion_viscosity.hpp"
#include "methods/sph/implicit_pair_terms.hpp"
#include "methods/sph/implicit_step_terms.hpp"

namespace meniscus::sph {

namespace {
using Exec = Kokkos::DefaultExecutionSpace;
using implicit_terms::for_each_friction_sample;
using implicit_terms::make_terms;
using implicit_terms::refresh;
using implicit_terms::Terms;
}  // namespace

template <int Dim>
void ImplicitCohesionViscosity<Dim>::explicit_acceleration(const Neighborhood& nb, const ImplicitForceParams& p,
                                                           Kokkos::View<double**, Kokkos::LayoutRight> v, Kokkos::View<const double*> mass,
                                                           Kokkos::View<const double*> density,
                                                           Kokkos::View<const int*> phase,
                                                           const BoundarySamples& boundary, Kokkos::View<double**, Kokkos::LayoutRight> a) {
  const Terms<Dim> t = make_terms<Dim>(nb, p, boundary);
  refresh(nb, v);
  auto offset = nb.offset;
  auto index = nb.index;
  auto x = nb.x;
  auto bx = boundary.x;
  auto bv = boundary.v;
  auto bvol = boundary.volume;
  auto bsig = boundary.sigma;
  Kokkos::parallel_for(
      "sph_st::explicit", Kokkos::RangePolicy<Exec>(0, nb.owned), KOKKOS_LAMBDA(const int i) {
        const double mi = mass(i), rhoi = density(i);
        double ai[Dim];
        for (int d = 0; d < Dim; ++d) ai[d] = 0;
        for (int k = offset(i); k < offset(i + 1); ++k) {
          const int j = index(k);
          if (phase(j) != phase(i)) continue;
          double xij[Dim], r2 = 0, xv = 0;
          for (int d = 0; d < Dim; ++d) {
            xij[d] = x(i, d) - x(j, d);
            r2 += xij[d] * xij[d];
            xv += xij[d] * (v(i, d) - v(j, d));
          }
          const auto kv = t.fluid.at(kmath::sqrt(r2));
          const double rho_bar = 0.5 * (rhoi + density(j)), m_bar = 0.5 * (mi + mass(j));
          const double coh = -t.sigma / mi * m_bar / rho_bar * kv.w_st;  // paper Eq. 8
          const double vis = implicit_terms::viscosity_coupling<Dim>(kv.dw_over_r, r2, t.h, t.mu * m_bar / (rhoi * density(j)));
          for (int d = 0; d < Dim; ++d) ai[d] += coh * xij[d] + vis * xij[d] * xv;
        }
        if (t.has_boundary && bvol(i) > 0) {
          double xib[Dim], r2 = 0;
          for (int d = 0; d < Dim; ++d) {
            xib[d] = x(i, d) - bx(i, d);
            r2 += xib[d] * xib[d];
          }
          const double r = kmath::sqrt(r2);
          if (r < t.h) {
            const double rho_b = 0.5 * (rhoi + t.rho0), m_b = 0.5 * (mi + t.rho0 * bvol(i));
            const double adh = -bsig(i) / mi * m_b / rho_b * t.wall.at(r).w_st;
            for (int d = 0; d < Dim; ++d) ai[d] += adh * xib[d];
          }
          if (t.mu_b > 0) {
            double xi[3] = {0, 0, 0}, xb[3] = {0, 0, 0};
            for (int d = 0; d < Dim; ++d) {
              xi[d] = x(i, d);
              xb[d] = bx(i, d);
            }
            const double vk = bvol(i) / (2 * (Dim - 1));
            for_each_friction_sample<Dim>(xi, xb, t.tangent_offset, [&](const double* xik) {
              double rk2 = 0, xvb = 0;
              for (int d = 0; d < Dim; ++d) {
                rk2 += xik[d] * xik[d];
                xvb += xik[d] * (v(i, d) - bv(i, d));
              }
              const double c = implicit_terms::viscosity_coupling<Dim>(t.fluid.at(kmath::sqrt(rk2)).dw_over_r, rk2, t.h,
                                                                       t.mu_b * vk / rhoi);
              for (int d = 0; d < Dim; ++d) ai[d] += c * xik[d] * xvb;
            });
          }
        }
        for (int d = 0; d < Dim; ++d) a(i, d) = ai[d];
      });
}

template void ImplicitCohesionViscosity<2>::explicit_acceleration(const Neighborhood&, const ImplicitForceParams&,
                                                             Kokkos::View<double**, Kokkos::LayoutRight>, Kokkos::View<const double*>,
                                                             Kokkos::View<const double*>, Kokkos::View<const int*>,
                                                             const BoundarySamples&, Kokkos::View<double**, Kokkos::LayoutRight>);
template void ImplicitCohesionViscosity<3>::explicit_acceleration(const Neighborhood&, const ImplicitForceParams&,
                                                             Kokkos::View<double**, Kokkos::LayoutRight>, Kokkos::View<const double*>,
                                                             Kokkos::View<const double*>, Kokkos::View<const int*>,
                                                             const BoundarySamples&, Kokkos::View<double**, Kokkos::LayoutRight>);

}  // namespace meniscus::sph
