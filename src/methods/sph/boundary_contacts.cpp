#include "methods/sph/boundary_contacts.hpp"

#include <cmath>
#include <vector>

namespace meniscus::sph {

template <int Dim>
HalfSpaceVolume<Dim> make_half_space_volume(double support, int samples) {
  // Host quadrature once per run. 3D: Psi(phi) = int_phi^h A(z) dz with the slab integral
  // A(z) = 2 pi int_z^h W(r) r dr. 2D: A(z) = int W(sqrt(z^2 + t^2)) dt over the chord, by the
  // substitution r = sqrt(z^2 + t^2) done numerically on a fine t grid.
  const CubicSpline<Dim> w(support);
  const int nz = 4096;
  const double dz = support / nz;
  std::vector<double> A(nz + 1, 0.0);
  for (int i = 0; i <= nz; ++i) {
    const double z = i * dz;
    double s = 0;
    const int nt = 2000;
    if (Dim == 3) {
      const double dr = (support - z) / nt;
      for (int k = 0; k < nt; ++k) {
        const double r = z + (k + 0.5) * dr;
        s += w.value(r) * r * dr;
      }
      s *= 2 * M_PI;
    } else {
      const double tmax = std::sqrt(std::max(support * support - z * z, 0.0));
      const double dt = tmax / nt;
      for (int k = 0; k < nt; ++k) {
        const double t = (k + 0.5) * dt;
        s += w.value(std::sqrt(z * z + t * t)) * dt;
      }
      s *= 2;
    }
    A[i] = s;
  }
  // Cumulative trapezoid from h downwards: C[i] = int_{z_i}^h A.
  std::vector<double> C(nz + 1, 0.0);
  for (int i = nz - 1; i >= 0; --i) C[i] = C[i + 1] + 0.5 * (A[i] + A[i + 1]) * dz;
  // The kernel integrates to 1, so Psi(0) = 1/2 exactly; rescale the quadrature to it.
  const double scale = 0.5 / C[0];
  HalfSpaceVolume<Dim> out;
  out.h = support;
  out.n = samples;
  out.table = Kokkos::View<double*>("half_space_volume", samples);
  auto th = Kokkos::create_mirror_view(out.table);
  for (int i = 0; i < samples; ++i) {
    const double u = static_cast<double>(i) / (samples - 1) * nz;
    const int k = std::min(static_cast<int>(u), nz - 1);
    const double f = u - k;
    th(i) = scale * ((1 - f) * C[k] + f * C[k + 1]);
  }
  Kokkos::deep_copy(out.table, th);
  return out;
}

template <int Dim>
void compute_boundary_contacts(particles::ConstRealField x, int owned, const physics::ColliderSet<Dim>& colliders,
                               const HalfSpaceVolume<Dim>& psi, const ContactSettings& s, BoundaryContacts<Dim>& out) {
  constexpr int K = BoundaryContacts<Dim>::kMax;
  if (static_cast<int>(out.count.extent(0)) != owned) {
    out.count = Kokkos::View<int*>("bnd_count", owned);
    out.x = Kokkos::View<double* [K][Dim]>("bnd_x", owned);
    out.v = Kokkos::View<double* [K][Dim]>("bnd_v", owned);
    out.volume = Kokkos::View<double* [K]>("bnd_volume", owned);
    out.sigma = Kokkos::View<double* [K]>("bnd_sigma", owned);
  }
  auto cnt = out.count;
  auto bx = out.x, bv = out.v;
  auto vol = out.volume, sig = out.sigma;
  const CubicSpline<Dim> w(s.support);
  const double r = s.particle_radius, h = s.support;
  Kokkos::parallel_for(
      "sph::boundary_contacts", Kokkos::RangePolicy<>(0, owned), KOKKOS_LAMBDA(const int i) {
        double xi[Dim];
        for (int d = 0; d < Dim; ++d) xi[d] = x(i, d);
        int n = 0;
        double phis[K];
        for (int c = 0; c < colliders.count; ++c) {
          const auto& col = colliders.items[c];
          const double phi = col.shape.distance(xi);
          if (!(phi < h)) continue;
          double nrm[Dim];
          col.shape.normal(xi, nrm);
          const double sdist = r + 0.75 * (phi > 0 ? phi : 0.0);
          const double wv = w.value(sdist);
          const double V = psi(phi) / wv;
          if (!(V > 0)) continue;
          // Keep the K nearest (insertion by phi).
          int slot = n < K ? n : K;
          while (slot > 0 && phis[slot - 1] > phi) {
            if (slot < K) {
              phis[slot] = phis[slot - 1];
              vol(i, slot) = vol(i, slot - 1);
              sig(i, slot) = sig(i, slot - 1);
              for (int d = 0; d < Dim; ++d) {
                bx(i, slot, d) = bx(i, slot - 1, d);
                bv(i, slot, d) = bv(i, slot - 1, d);
              }
            }
            --slot;
          }
          if (slot >= K) continue;
          phis[slot] = phi;
          vol(i, slot) = V;
          sig(i, slot) = c < s.wall_count ? s.wall_adhesion : s.adhesion;
          for (int d = 0; d < Dim; ++d) {
            bx(i, slot, d) = xi[d] - sdist * nrm[d];
            bv(i, slot, d) = col.velocity[d];
          }
          n = n < K ? n + 1 : K;
        }
        cnt(i) = n;
      });
}

template HalfSpaceVolume<2> make_half_space_volume<2>(double, int);
template HalfSpaceVolume<3> make_half_space_volume<3>(double, int);
template void compute_boundary_contacts<2>(particles::ConstRealField, int, const physics::ColliderSet<2>&,
                                           const HalfSpaceVolume<2>&, const ContactSettings&, BoundaryContacts<2>&);
template void compute_boundary_contacts<3>(particles::ConstRealField, int, const physics::ColliderSet<3>&,
                                           const HalfSpaceVolume<3>&, const ContactSettings&, BoundaryContacts<3>&);

}  // namespace meniscus::sph
