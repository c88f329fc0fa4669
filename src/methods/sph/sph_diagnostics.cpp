// Diagnostics of the SPH method (global over ranks): conservation sums, solver iterations (averaged
// over the steps since the previous row), the surface-energy proxy, connected components, sphericity
// and radius of gyration (the measures of the paper's experiments, Jeske et al. 2023, Sec. 4).
#include <cmath>

#include "core/log.hpp"
#include "core/reproducible_sum.hpp"
#include "methods/sph/sph_jeske.hpp"
#include "methods/sph/sph_metrics.hpp"

namespace meniscus::sph {

namespace {
// Per particle: mass, kinetic energy, momentum (Dim), angular momentum about the origin (3; 2D: z only).
template <int Dim>
struct SphParticleTerms {
  static constexpr int count = 2 + Dim + 3;
  particles::RealField x, v, m;
  KOKKOS_INLINE_FUNCTION void operator()(const long i, double* t) const {
    const double mi = m(i, 0);
    double vv = 0;
    for (int d = 0; d < Dim; ++d) {
      vv += v(i, d) * v(i, d);
      t[2 + d] = mi * v(i, d);
    }
    t[0] = mi;
    t[1] = 0.5 * mi * vv;
    for (int c = 0; c < 3; ++c) {
      const int i1 = (c + 1) % 3, i2 = (c + 2) % 3;
      t[2 + Dim + c] = (Dim == 3 || c == 2) ? mi * (x(i, i1) * v(i, i2) - x(i, i2) * v(i, i1)) : 0.0;
    }
  }
};

}  // namespace

template <int Dim>
void SphJeske<Dim>::diagnostics(DiagnosticRow& row) {
  auto t = timers_.scope("diagnostics");
  // The neighbourhood of the current positions (the step's one is one step old).
  update_neighborhood();
  const int n = owned_;
  auto x = set_.field(f_.x), v = set_.field(f_.v), m = set_.field(f_.mass);
  // Mass, kinetic energy, momentum, angular momentum about the origin: exact sums of the per-particle
  // terms (reproducible_sum, Demmel & Nguyen 2013), the same bits at any rank or thread count.
  SphParticleTerms<Dim> terms{x, v, m};
  double s[SphParticleTerms<Dim>::count];
  reproducible_sum(comm_, static_cast<long>(n), terms, s, "sph::sums");
  long n_local = n, n_total = 0;
  MPI_Allreduce(&n_local, &n_total, 1, MPI_LONG, MPI_SUM, comm_);
  const char* axes[3] = {"x", "y", "z"};
  row.emplace_back("particles", static_cast<double>(n_total));
  row.emplace_back("mass", s[0]);
  for (int d = 0; d < 3; ++d) row.emplace_back(std::string("momentum_") + axes[d], d < Dim ? s[2 + d] : 0.0);
  row.emplace_back("kinetic_energy", s[1]);
  // Angular momentum about the origin: every pair force of the method is central except XSPH's.
  const double* L = s + 2 + Dim;
  for (int a = 0; a < 3; ++a) row.emplace_back(std::string("angular_momentum_") + axes[a], L[a]);
  row.emplace_back("surface_tension", p_.sigma_at(time_));

  const double steps = stat_steps_ > 0 ? static_cast<double>(stat_steps_) : 1.0;
  row.emplace_back("divergence_iterations", sum_div_iters_ / steps);
  row.emplace_back("density_iterations", sum_density_iters_ / steps);
  row.emplace_back("cg_iterations", sum_st_iters_ / steps);
  row.emplace_back("cg_residual", last_.st_residual);
  row.emplace_back("density_error", last_.density_error);
  row.emplace_back("divergence_error", last_.divergence_error);
  row.emplace_back("unconverged_divergence_steps", static_cast<double>(unconverged_[kDivergence]));
  row.emplace_back("unconverged_density_steps", static_cast<double>(unconverged_[kDensity]));
  row.emplace_back("unconverged_cg_steps", static_cast<double>(unconverged_[kImplicit]));
  sum_div_iters_ = sum_density_iters_ = sum_st_iters_ = 0;
  stat_steps_ = 0;

  // Shape measures.
  Kokkos::View<double*> volume("sph_volume", total_);
  {
    auto mt = mass_t_;
    auto ph = phase_t_;
    auto rho0 = rest_density_;
    Kokkos::parallel_for(
        "sph::volume", Kokkos::RangePolicy<>(0, total_), KOKKOS_LAMBDA(const int i) { volume(i) = mt(i) / rho0(ph(i)); });
  }
  row.emplace_back("surface_energy_proxy", surface_energy_proxy<Dim>(nb_, volume, comm_));
  const auto cc = connected_components(nb_, set_.id(), comm_);
  row.emplace_back("components", static_cast<double>(cc.components));
  row.emplace_back("largest_component_fraction", n_total > 0 ? cc.largest / static_cast<double>(n_total) : 0.0);
  const auto g = gyration<Dim>(xt_, owned_, comm_);
  row.emplace_back("sphericity", g.sphericity);
  row.emplace_back("radius_of_gyration", g.radius_of_gyration);
  // Against a uniform ball (3D: sqrt(3/5) R) or disc (2D: R / sqrt 2) of the fluid's rest volume.
  double vol = 0;
  reproducible_sum(comm_, static_cast<long>(owned_), ViewTerms{volume}, &vol, "sph::rest_volume");
  const double req = Dim == 3 ? std::cbrt(3.0 * vol / (4.0 * M_PI)) : std::sqrt(vol / M_PI);
  const double rg_ball = Dim == 3 ? std::sqrt(0.6) * req : req / std::sqrt(2.0);
  row.emplace_back("rg_over_ball", rg_ball > 0 ? g.radius_of_gyration / rg_ball : 0.0);
  for (int d = 0; d < 3; ++d) row.emplace_back(std::string("centroid_") + axes[d], d < Dim ? g.centroid[d] : 0.0);
  for (int d = 0; d < 3; ++d) row.emplace_back(std::string("gyration_") + axes[d] + axes[d], g.moment[d]);

  long counters[4] = {removed_, projected_, static_cast<long>(n), static_cast<long>(n)};
  MPI_Allreduce(MPI_IN_PLACE, counters, 2, MPI_LONG, MPI_SUM, comm_);
  MPI_Allreduce(MPI_IN_PLACE, counters + 2, 1, MPI_LONG, MPI_MIN, comm_);
  MPI_Allreduce(MPI_IN_PLACE, counters + 3, 1, MPI_LONG, MPI_MAX, comm_);
  row.emplace_back("removed_particles", static_cast<double>(counters[0]));
  row.emplace_back("projected_particles", static_cast<double>(counters[1]));
  row.emplace_back("rank_particles_min", static_cast<double>(counters[2]));
  row.emplace_back("rank_particles_max", static_cast<double>(counters[3]));
  {
    // max/mean particles per rank (the load imbalance that domain.balance acts on)
    long total = static_cast<long>(n);
    MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_LONG, MPI_SUM, comm_);
    row.emplace_back("rank_particles_imbalance",
                     total > 0 ? static_cast<double>(counters[3]) * decomp_->size() / total : 1.0);
  }
}

template void SphJeske<2>::diagnostics(DiagnosticRow&);
template void SphJeske<3>::diagnostics(DiagnosticRow&);

}  // namespace meniscus::sph
