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
      for (int b = (Dim == 3 ? -kr - 1 : 0); b <= (Dim == 3 ? kr : 0); ++b)
        for (int a = -kr - 1; a <= kr; ++a) {
          // Lattice points of the disc, offset by half a spacing: the disc is symmetric and no particle
          // sits on the jet axis. An axis column is exactly symmetric, so in a head-on collision (the
          // water bell) nothing can push it sideways and it was driven back into the nozzle.
          const double pa = (a + 0.5) * d, pb = Dim == 3 ? (b + 0.5) * d : 0.0;
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
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> xh("emit_x", add, Dim), vh("emit_v", add, Dim);
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

template <int Dim>
void SphJeske<Dim>::mark_nozzle_rows(double t) {
  // Why a nozzle: a fresh layer is the blunt free end of the jet. Left to the forces, the cohesion of
  // the paper's sigma (8400 N/m in the chain) pulls its rim inward and the layers together at up to
  // 3-4 times the jet speed, the constant-density solve then pushes the overlap apart, against the
  // jet, and liquid sprays back above the nozzle (measured on the CI-size chain: 70 particles moving
  // backwards near a nozzle at up to 22 m/s, 8 % of all particles behind its plane after 0.3 s).
  // Liquid in a real nozzle is held by the pipe wall: the particles of the first support radius of
  // each jet keep the jet velocity (the emitter region of Bender's SPlisHSPlasH, whose scenes the paper
  // renders, does the same). They still act on the free liquid downstream through density, pressure
  // and cohesion, which then sees a continuous jet instead of a free end. A particle that falls into a
  // nozzle joins its jet.
  nozzle_rows_ = 0;
  in_nozzle_ = Kokkos::View<int*>("sph_in_nozzle", owned_);
  nozzle_velocity_ = Kokkos::View<double**, Kokkos::LayoutRight>("sph_nozzle_velocity", owned_, Dim);
  if (p_.emitters.empty()) return;
  auto tm = timers_.scope("emit");
  const double d = p_.diameter(), length = nozzle_length();
  auto x = set_.field(f_.x);
  auto flag = in_nozzle_;
  auto vel = nozzle_velocity_;
  for (const auto& em : p_.emitters) {
    double u[Dim], c[Dim], n[Dim], speed = 0;
    for (int k = 0; k < Dim; ++k) {
      u[k] = em.velocity[k];
      c[k] = em.center[k];
      speed += u[k] * u[k];
    }
    speed = std::sqrt(speed);
    for (int k = 0; k < Dim; ++k) n[k] = u[k] / speed;
    // Held from the first layer until the last one has left the nozzle.
    if (t < em.start_time - 1e-12 || (em.end_time > 0 && t > em.end_time + length / speed)) continue;
    const double rim2 = (em.radius + 0.5 * d) * (em.radius + 0.5 * d);
    const double back = -0.5 * d;
    int held = 0;
    Kokkos::parallel_reduce(
        "sph::mark_nozzle", Kokkos::RangePolicy<>(0, owned_),
        KOKKOS_LAMBDA(const int i, int& cnt) {
          double s = 0, r2 = 0;
          for (int k = 0; k < Dim; ++k) s += (x(i, k) - c[k]) * n[k];
          for (int k = 0; k < Dim; ++k) {
            const double lateral = x(i, k) - c[k] - s * n[k];
            r2 += lateral * lateral;
          }
          if (s >= back && s < length && r2 <= rim2 && flag(i) == 0) {
            flag(i) = 1;
            for (int k = 0; k < Dim; ++k) vel(i, k) = u[k];
            ++cnt;
          }
        },
        held);
    nozzle_rows_ += held;
  }
}

template <int Dim>
void SphJeske<Dim>::hold_nozzle_rows(Kokkos::View<double**, Kokkos::LayoutRight> vstar) {
  if (nozzle_rows_ == 0) return;
  auto flag = in_nozzle_;
  auto vel = nozzle_velocity_;
  Kokkos::parallel_for(
      "sph::hold_nozzle", Kokkos::RangePolicy<>(0, owned_), KOKKOS_LAMBDA(const int i) {
        if (flag(i))
          for (int k = 0; k < Dim; ++k) vstar(i, k) = vel(i, k);
      });
}

template void SphJeske<2>::emit(double);
template void SphJeske<3>::emit(double);
template void SphJeske<2>::mark_nozzle_rows(double);
template void SphJeske<3>::mark_nozzle_rows(double);
template void SphJeske<2>::hold_nozzle_rows(Kokkos::View<double**, Kokkos::LayoutRight>);
template void SphJeske<3>::hold_nozzle_rows(Kokkos::View<double**, Kokkos::LayoutRight>);

}  // namespace meniscus::sph
