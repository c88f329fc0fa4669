// The MPM method's diagnostics row: conserved quantities (mass, linear and angular momentum with the
// APIC affine part, energies), extents, surface measures and per-rank particle counts.
#include <string>

#include "core/kmath.hpp"
#include "core/reproducible_sum.hpp"
#include "methods/mpm/mpm_method.hpp"
#include "particles/bounding_box.hpp"
#include "particles/max_speed.hpp"

namespace meniscus::mpm {

namespace {
// Each particle's terms of the diagnostics' global sums: mass, momentum, angular momentum (with the APIC
// affine part), kinetic and potential energy, mass-weighted position; summed by reproducible_sum, so
// the sums do not depend on the rank or thread count.
template <int Dim>
struct ParticleTerms {
  static constexpr int count = 1 + Dim + 3 + 2 + Dim;  // mass, p, L, KE, PE, sum m x
  particles::RealField x, v, C, m;
  double g[Dim];
  double inertia;  // dx^2/4

  KOKKOS_INLINE_FUNCTION void operator()(const long p, double* s) const {
    const double mp = m(p, 0);
    double vv = 0, cc = 0, gx = 0;
    s[0] = mp;
    for (int d = 0; d < Dim; ++d) {
      s[1 + d] = mp * v(p, d);
      vv += v(p, d) * v(p, d);
      gx += g[d] * x(p, d);
      s[1 + Dim + 3 + 2 + d] = mp * x(p, d);
    }
    for (int i = 0; i < Dim * Dim; ++i) cc += C(p, i) * C(p, i);
    double L[3] = {0, 0, 0};
    if constexpr (Dim == 2) {
      L[2] = x(p, 0) * v(p, 1) - x(p, 1) * v(p, 0) + inertia * (C(p, 2) - C(p, 1));
    } else {
      L[0] = x(p, 1) * v(p, 2) - x(p, 2) * v(p, 1) + inertia * (C(p, 7) - C(p, 5));
      L[1] = x(p, 2) * v(p, 0) - x(p, 0) * v(p, 2) + inertia * (C(p, 2) - C(p, 6));
      L[2] = x(p, 0) * v(p, 1) - x(p, 1) * v(p, 0) + inertia * (C(p, 3) - C(p, 1));
    }
    for (int a = 0; a < 3; ++a) s[1 + Dim + a] = mp * L[a];
    s[1 + Dim + 3] = 0.5 * mp * (vv + inertia * cc);
    s[1 + Dim + 4] = -mp * gx;
  }
};

// The current volume of every material (J tracks det F for solids too).
struct VolumeTerms {
  static constexpr int count = 1;
  particles::RealField J, vol;
  KOKKOS_INLINE_FUNCTION void operator()(const long p, double* s) const { s[0] = vol(p, 0) * J(p, 0); }
};
}  // namespace

template <int Dim>
void MpmMethod<Dim>::diagnostics(DiagnosticRow& row) {
  auto t = timers_.scope("diagnostics");
  ParticleTerms<Dim> terms;
  terms.x = set_.field(f_.x);
  terms.v = set_.field(f_.v);
  terms.C = set_.field(f_.C);
  terms.m = set_.field(f_.mass);
  for (int d = 0; d < Dim; ++d) terms.g[d] = gravity_[d];
  terms.inertia = decomp_->dx() * decomp_->dx() / 4.0;
  double s[ParticleTerms<Dim>::count];
  reproducible_sum(comm_, static_cast<long>(set_.size()), terms, s, "mpm::sums");
  double b[2 * Dim];
  particles::local_bounding_box<Dim>(set_.field(f_.x), static_cast<int>(set_.size()), b, "mpm::bounds");
  MPI_Allreduce(MPI_IN_PLACE, b, 2 * Dim, MPI_DOUBLE, MPI_MAX, comm_);
  long n = static_cast<long>(set_.size()), nmin = 0, nmax = 0, ntot = 0, clamped = 0;
  MPI_Allreduce(&n, &nmin, 1, MPI_LONG, MPI_MIN, comm_);
  MPI_Allreduce(&n, &nmax, 1, MPI_LONG, MPI_MAX, comm_);
  MPI_Allreduce(&n, &ntot, 1, MPI_LONG, MPI_SUM, comm_);
  MPI_Allreduce(&clamped_, &clamped, 1, MPI_LONG, MPI_SUM, comm_);

  const char* axes[3] = {"x", "y", "z"};
  row.emplace_back("particles", static_cast<double>(ntot));
  row.emplace_back("mass", s[0]);
  for (int d = 0; d < 3; ++d) row.emplace_back(std::string("momentum_") + axes[d], d < Dim ? s[1 + d] : 0.0);
  for (int a = 0; a < 3; ++a) row.emplace_back(std::string("angular_momentum_") + axes[a], s[1 + Dim + a]);
  row.emplace_back("kinetic_energy", s[1 + Dim + 3]);
  row.emplace_back("potential_energy", s[1 + Dim + 4]);
  // The fastest particle (m/s): a few light nodes moved by the surface samples alone show up here first.
  row.emplace_back("max_speed", particles::global_max_speed<Dim>(comm_, set_.field(f_.v), set_.size(), "mpm::diag_max_speed"));
  for (int d = 0; d < 3; ++d)
    row.emplace_back(std::string("centroid_") + axes[d], d < Dim && s[0] > 0 ? s[1 + Dim + 5 + d] / s[0] : 0.0);
  for (int d = 0; d < 3; ++d) row.emplace_back(std::string("extent_") + axes[d], d < Dim && ntot > 0 ? b[d] + b[Dim + d] : 0.0);
  for (int d = 0; d < 3; ++d) row.emplace_back(std::string("max_") + axes[d], d < Dim && ntot > 0 ? b[d] : 0.0);
  for (int d = 0; d < 3; ++d) row.emplace_back(std::string("min_") + axes[d], d < Dim && ntot > 0 ? -b[Dim + d] : 0.0);
  double volume = 0;
  reproducible_sum(comm_, static_cast<long>(set_.size()), VolumeTerms{set_.field(f_.J), set_.field(f_.volume)}, &volume,
                   "mpm::volume");
  row.emplace_back("volume", volume);
  if (st_.enabled) {
    // Exact sums over the contour's elements and the samples (surface_measures): the same samples give
    // the same bits at any rank count (MpmMethod.SurfaceMeasuresAreTheSameBitsAtEveryRankCount).
    const SurfaceMeasures sm = surface_measures<Dim>(comm_, st_.samples, st_.coefficient.wetting_ramp());
    long counts[2] = {static_cast<long>(st_.samples.size()), st_.dropped};
    MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_LONG, MPI_SUM, comm_);
    const long dropped = counts[1];
    row.emplace_back("surface_particles", static_cast<double>(counts[0]));
    row.emplace_back(Dim == 2 ? "surface_length" : "surface_area", sm.contour);
    row.emplace_back("surface_energy", sm.energy);
    // Liquid-gas and solid-liquid parts of the surface (contact angles, Chen et al. 2021 Sec. 3.6; the paper gives no
    // rule for which samples are solid-liquid, so both measures are reported).
    row.emplace_back(Dim == 2 ? "liquid_gas_length" : "liquid_gas_area", sm.liquid_gas);
    row.emplace_back(Dim == 2 ? "solid_liquid_length" : "solid_liquid_area", sm.solid_liquid);
    row.emplace_back("dt_capillary", st_.coefficient.max_coefficient() > 0 ? capillary_dt() : 0.0);
    row.emplace_back("dropped_surface_particles", static_cast<double>(dropped));
    row.emplace_back("dt_over_dt_capillary",
                     st_.coefficient.max_coefficient() > 0 ? last_dt_ / capillary_dt() : 0.0);
  }
  if (implicit_) {
    row.emplace_back("newton_iterations", static_cast<double>(last_implicit_.newton_iterations));
    row.emplace_back("cg_iterations", static_cast<double>(last_implicit_.linear_iterations));
    row.emplace_back("light_nodes", static_cast<double>(last_implicit_.light_nodes));
    if (st_.line_hold) {
      row.emplace_back("hold_passes", static_cast<double>(last_implicit_.hold_passes));
      row.emplace_back("hold_released", static_cast<double>(last_implicit_.hold_released));
    }
  }
  if (heat_.solver) heat_diagnostics(row);
  row.emplace_back("rank_particles_min", static_cast<double>(nmin));
  row.emplace_back("rank_particles_max", static_cast<double>(nmax));
  // max/mean particles per rank (the load imbalance that domain.balance acts on)
  row.emplace_back("rank_particles_imbalance", ntot > 0 ? static_cast<double>(nmax) * decomp_->size() / ntot : 1.0);
  row.emplace_back("clamped_particles", static_cast<double>(clamped));
}

template void MpmMethod<2>::diagnostics(DiagnosticRow&);
template void MpmMethod<3>::diagnostics(DiagnosticRow&);

}  // namespace meniscus::mpm
