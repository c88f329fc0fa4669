// Inflow emitters of the SPH method (Jeske et al. 2023, Sec. 4.3: the water bell, Fig. 9, and the fluid chain, Fig. 10):
// discs that create a layer of particles every d / |u| seconds, in the same global order on every rank
// (particles/disc_emitters.hpp).
#include <cmath>
#include <vector>

#include "methods/sph/sph_jeske.hpp"

namespace meniscus::sph {

template <int Dim>
void SphJeske<Dim>::emit(double t) {
  // Layers in the same global order on every rank (particles/disc_emitters.hpp).
  if (p_.emitters.empty()) return;
  auto tm = timers_.scope("emit");
  const double d = p_.diameter();
  particles::EmittedPoints pts;
  particles::emit_disc_layers<Dim>(p_.emitters, d, t, emitted_layers_, next_id_, *decomp_, rank_, pts);
  const auto& hx = pts.x;
  const auto& hv = pts.v;
  const auto& hid = pts.id;
  const auto& hmat = pts.material;
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
