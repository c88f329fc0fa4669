// Inflow emitters of the SPH method (Jeske et al. 2023, Sec. 4.3: the water bell, Fig. 9, and the fluid chain, Fig. 10):
// discs that create a layer of particles every d / |u| seconds, in the same global order on every rank.
#include <cmath>
#include <vector>

#include "methods/sph/sph_jeske.hpp"

namespace meniscus::sph {

template <int Dim>
void SphJeske<Dim>::emit(double t) {
  // Layer k of an emitter leaves the disc at t_k = start + k d / |u| and has travelled |u| (t - t_k)
  // when it is created. Every rank enumerates the same layers and keeps the points it owns; ids
  // continue from next_id_ in that global order, so they do not depend on the rank count.
  if (p_.emitters.empty()) return;
  auto tm = timers_.scope("emit");
  const double d = p_.diameter();
  std::vector<double> hx, hv;
  std::vector<int> hmat;
  std::vector<int64_t> hid;
  const auto owners = decomp_->owner_map();  // wraps emitted points on periodic axes
  for (size_t e = 0; e < p_.emitters.size(); ++e) {
    const auto& em = p_.emitters[e];
    double u[3] = {0, 0, 0}, speed = 0;
    for (int c = 0; c < Dim; ++c) {
      u[c] = em.velocity[c];
      speed += u[c] * u[c];
    }
    speed = std::sqrt(speed);
    double n[3] = {u[0] / speed, u[1] / speed, u[2] / speed};
    // Orthonormal basis of the disc.
    double e1[3] = {0, 0, 0}, e2[3] = {0, 0, 0};
    if (Dim == 2) {
      e1[0] = -n[1];
      e1[1] = n[0];
    } else {
      const double a[3] = {std::fabs(n[0]) < 0.9 ? 1.0 : 0.0, std::fabs(n[0]) < 0.9 ? 0.0 : 1.0, 0.0};
      e1[0] = a[1] * n[2] - a[2] * n[1];
      e1[1] = a[2] * n[0] - a[0] * n[2];
      e1[2] = a[0] * n[1] - a[1] * n[0];
      const double l = std::sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
      for (double& c : e1) c /= l;
      e2[0] = n[1] * e1[2] - n[2] * e1[1];
      e2[1] = n[2] * e1[0] - n[0] * e1[2];
      e2[2] = n[0] * e1[1] - n[1] * e1[0];
    }
    const int kr = static_cast<int>(std::floor(em.radius / d));
    for (;;) {
      const double tk = em.start_time + emitted_layers_[e] * d / speed;
      if (tk > t + 1e-12 || (em.end_time > 0 && tk > em.end_time)) break;
      const double travel = speed * (t - tk);
      for (int b = (Dim == 3 ? -kr : 0); b <= (Dim == 3 ? kr : 0); ++b)
        for (int a = -kr; a <= kr; ++a) {
          // Lattice points of the disc, offset by half a spacing so the disc is symmetric.
          const double pa = a * d, pb = b * d;
          if (pa * pa + pb * pb > em.radius * em.radius + 1e-12) continue;
          double xp[Dim];
          for (int c = 0; c < Dim; ++c) xp[c] = em.center[c] + pa * e1[c] + pb * e2[c] + travel * n[c];
          owners.wrap(xp);
          const int64_t id = next_id_++;
          if (decomp_->owner_of(xp) != rank_) continue;
          for (int c = 0; c < Dim; ++c) {
            hx.push_back(xp[c]);
            hv.push_back(u[c]);
          }
          hid.push_back(id);
          hmat.push_back(em.material);
        }
      emitted_layers_[e]++;
    }
  }
  const size_t add = hid.size(), n0 = set_.size();
  if (add == 0) return;
  set_.resize(n0 + add);
  Kokkos::View<double**, Kokkos::HostSpace> xh("emit_x", add, Dim), vh("emit_v", add, Dim);
  Kokkos::View<int64_t*, Kokkos::HostSpace> idh("emit_id", add);
  Kokkos::View<int*, Kokkos::HostSpace> mh("emit_mat", add);
  for (size_t i = 0; i < add; ++i) {
    for (int c = 0; c < Dim; ++c) {
      xh(i, c) = hx[i * Dim + c];
      vh(i, c) = hv[i * Dim + c];
    }
    idh(i) = hid[i];
    mh(i) = hmat[i];
  }
  auto xd = Kokkos::create_mirror_view_and_copy(Kokkos::DefaultExecutionSpace::memory_space(), xh);
  auto vd = Kokkos::create_mirror_view_and_copy(Kokkos::DefaultExecutionSpace::memory_space(), vh);
  auto idd = Kokkos::create_mirror_view_and_copy(Kokkos::DefaultExecutionSpace::memory_space(), idh);
  auto md = Kokkos::create_mirror_view_and_copy(Kokkos::DefaultExecutionSpace::memory_space(), mh);
  auto x = set_.field(f_.x), v = set_.field(f_.v), m = set_.field(f_.mass);
  auto dv = set_.field(f_.dv_prev), kap = set_.field(f_.kappa), kapv = set_.field(f_.kappa_v);
  auto id = set_.id();
  auto mat = set_.material();
  auto rho0 = rest_density_;
  const double volume = p_.mass_volume_factor * std::pow(d, Dim);
  Kokkos::parallel_for(
      "sph::emit", Kokkos::RangePolicy<>(0, add), KOKKOS_LAMBDA(const int k) {
        const int p = static_cast<int>(n0) + k;
        for (int c = 0; c < Dim; ++c) {
          x(p, c) = xd(k, c);
          v(p, c) = vd(k, c);
          dv(p, c) = 0;  // a new particle has no warm start
        }
        m(p, 0) = rho0(md(k)) * volume;
        kap(p, 0) = 0;
        kapv(p, 0) = 0;
        id(p) = idd(k);
        mat(p) = md(k);
      });
}

template void SphJeske<2>::emit(double);
template void SphJeske<3>::emit(double);

}  // namespace meniscus::sph
