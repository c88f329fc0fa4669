// DFSPH pressure solves of the SPH method (Bender & Koschier 2017, "Divergence-Free SPH for
// Incompressible and Viscous Fluids", IEEE TVCG 23(3); called in the order of Jeske et al. 2023,
// Sec. 3.5, Algorithm 2, lines 9 and 12): the per-particle factor alpha_i, the divergence-free solve (density change rate -> 0) and the
// constant-density solve (predicted density -> rest density). Both iterate on per-step caches of
// m_j grad W_ij (SphJeske::compute_density), so an iteration only takes dot products.
#include <mpi.h>

#include "methods/sph/sph_jeske.hpp"
#include "methods/sph/sph_kernels.hpp"

namespace meniscus::sph {
template <int Dim>
void SphJeske<Dim>::compute_alpha() {
  auto t = timers_.scope("dfsph_factor");
  const CubicSpline<Dim> w(p_.support());
  auto grad = grad_;
  auto bgrad = bgrad_;
  auto m = mass_t_;
  auto rho = rho_;
  auto alpha = alpha_;
  auto off = nb_.offset;
  const auto bc = contacts_;
  const double gscale = w.l / w.h;
  Kokkos::parallel_for(
      "sph::alpha", Kokkos::RangePolicy<>(0, owned_), KOKKOS_LAMBDA(const int i) {
        double sum[Dim] = {}, sq = 0;
        for (int k = off(i); k < off(i + 1); ++k) {
          for (int d = 0; d < Dim; ++d) {
            sum[d] += grad(k, d);
            sq += grad(k, d) * grad(k, d);
          }
        }
        for (int b = 0; b < bc.count(i); ++b)
          for (int d = 0; d < Dim; ++d) sum[d] += bgrad(i, b, d);
        double den = sq;
        for (int d = 0; d < Dim; ++d) den += sum[d] * sum[d];
        const double typical = m(i) * gscale;
        alpha(i) = den > 1e-6 * typical * typical ? rho(i) / den : 0.0;
      });
}

template <int Dim>
void SphJeske<Dim>::apply_stiffness(double dt, Kokkos::View<double*> kappa, Kokkos::View<double**, Kokkos::LayoutRight> vstar) {
  // v_i -= dt [sum_j m_j (k_i/rho_i + k_j/rho_j) grad W_ij + sum_b rho0 V_b (k_i/rho_i) grad W_ib];
  // `kappa` holds k/rho (one division per particle instead of per pair).
  refresh(kappa);
  auto grad = grad_;
  auto bgrad = bgrad_;
  auto m = mass_t_;
  auto rho = rho_;
  auto off = nb_.offset, idx = nb_.index;
  auto ph = phase_t_;
  auto rho0 = rest_density_;
  const auto bc = contacts_;
  Kokkos::parallel_for(
      "sph::apply_stiffness", Kokkos::RangePolicy<>(0, owned_), KOKKOS_LAMBDA(const int i) {
        const double ki = kappa(i);
        double a[Dim] = {};
        for (int k = off(i); k < off(i + 1); ++k) {
          const double s = ki + kappa(idx(k));
          for (int d = 0; d < Dim; ++d) a[d] += s * grad(k, d);
        }
        if (ki != 0)
          for (int b = 0; b < bc.count(i); ++b)
            for (int d = 0; d < Dim; ++d) a[d] += ki * bgrad(i, b, d);
        for (int d = 0; d < Dim; ++d) vstar(i, d) -= dt * a[d];
      });
  hold_nozzle_rows(vstar);  // liquid in an emitter's nozzle keeps the jet velocity
}

namespace {
// Density change rate sum_j m_j v_ij . grad W_ij + sum_b rho0 V_b (v_i - v_b) . grad W_ib.
template <int Dim>
struct DensityRate {
  Kokkos::View<double**, Kokkos::LayoutRight> grad;
  Kokkos::View<double* [BoundaryContacts<Dim>::kMax][Dim]> bgrad;
  Kokkos::View<double**, Kokkos::LayoutRight> v;
  Kokkos::View<double*> m, rho0;
  Kokkos::View<int*> off, idx, ph;
  BoundaryContacts<Dim> bc;
  KOKKOS_INLINE_FUNCTION double operator()(const int i) const {
    double s = 0;
    for (int k = off(i); k < off(i + 1); ++k) {
      const int j = idx(k);
      double dot = 0;
      for (int d = 0; d < Dim; ++d) dot += (v(i, d) - v(j, d)) * grad(k, d);
      s += dot;
    }
    for (int b = 0; b < bc.count(i); ++b) {
      double dot = 0;
      for (int d = 0; d < Dim; ++d) dot += (v(i, d) - bc.v(i, b, d)) * bgrad(i, b, d);
      s += dot;
    }
    return s;
  }
};
}  // namespace

template <int Dim>
Kokkos::View<double*> SphJeske<Dim>::begin_stiffness_solve(double dt, particles::RealField stored,
                                                           Kokkos::View<double**, Kokkos::LayoutRight> vstar) {
  // The stiffness summed over this step's iterations, stored for the next step's warm start.
  Kokkos::View<double*> acc("stiffness_sum", owned_);
  if (!p_.warm_start) return acc;
  auto kap = kappa_t_;
  Kokkos::parallel_for(
      "sph::warm_stiffness", Kokkos::RangePolicy<>(0, owned_), KOKKOS_LAMBDA(const int i) {
        // Half of the last step's stiffness (as SPlisHSPlasH does): a stale value decays
        // geometrically instead of being re-applied for ever (the clamp keeps every new term >= 0).
        kap(i) = 0.5 * stored(i, 0);
        acc(i) = kap(i);
      });
  apply_stiffness(dt, kap, vstar);
  return acc;
}

template <int Dim>
void SphJeske<Dim>::accumulate_and_apply_stiffness(double dt, Kokkos::View<double*> kappa, Kokkos::View<double*> acc,
                                                    Kokkos::View<double**, Kokkos::LayoutRight> vstar) {
  Kokkos::parallel_for(
      "sph::sum_stiffness", Kokkos::RangePolicy<>(0, owned_), KOKKOS_LAMBDA(const int i) { acc(i) += kappa(i); });
  apply_stiffness(dt, kappa, vstar);
}

template <int Dim>
void SphJeske<Dim>::store_stiffness(Kokkos::View<double*> acc, particles::RealField stored) {
  Kokkos::parallel_for(
      "sph::store_stiffness", Kokkos::RangePolicy<>(0, owned_), KOKKOS_LAMBDA(const int i) { stored(i, 0) = acc(i); });
}

template <int Dim>
int SphJeske<Dim>::divergence_solve(double dt, Kokkos::View<double**, Kokkos::LayoutRight> vstar) {
  auto t = timers_.scope("divergence_solve");
  auto kstore = set_.field(f_.kappa_v);
  auto kap = kappa_t_;
  auto acc = begin_stiffness_solve(dt, kstore, vstar);
  DensityRate<Dim> rate{grad_, bgrad_, vstar, mass_t_, rest_density_, nb_.offset, nb_.index,
                        phase_t_, contacts_};
  auto alpha = alpha_;
  auto rho = rho_;
  auto off = nb_.offset;
  auto ph = phase_t_;
  auto rho0 = rest_density_;
  const auto bc = contacts_;
  const int min_nbrs = static_cast<int>(neighbor_count_min_for_divergence());
  long n_global = 0, n_local = owned_;
  MPI_Allreduce(&n_local, &n_global, 1, MPI_LONG, MPI_SUM, comm_);
  int it = 0;
  for (;; ++it) {
    refresh(vstar);
    double err = 0;
    Kokkos::parallel_reduce(
        "sph::divergence_error", Kokkos::RangePolicy<>(0, owned_),
        KOKKOS_LAMBDA(const int i, double& e) {
          double r = rate(i);
          // Only compression is corrected, and not for sparse neighbourhoods (splashes, free surface).
          if (r < 0 || (off(i + 1) - off(i) < min_nbrs && bc.count(i) == 0)) r = 0;
          kap(i) = r * alpha(i) / (dt * rho(i));
          e += r * dt / rho0(ph(i));
        },
        err);
    MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_DOUBLE, MPI_SUM, comm_);
    err = n_global > 0 ? err / n_global : 0.0;
    last_.divergence_error = err;
    if ((it >= 1 && err <= p_.divergence_tolerance) || it >= p_.max_divergence_iterations) break;
    accumulate_and_apply_stiffness(dt, kap, acc, vstar);
  }
  store_stiffness(acc, kstore);
  return it;
}

template <int Dim>
int SphJeske<Dim>::density_solve(double dt, Kokkos::View<double**, Kokkos::LayoutRight> vstar) {
  auto t = timers_.scope("density_solve");
  auto kstore = set_.field(f_.kappa);
  auto kap = kappa_t_;
  auto acc = begin_stiffness_solve(dt, kstore, vstar);
  DensityRate<Dim> rate{grad_, bgrad_, vstar, mass_t_, rest_density_, nb_.offset, nb_.index,
                        phase_t_, contacts_};
  auto alpha = alpha_;
  auto rho = rho_;
  auto ph = phase_t_;
  auto rho0 = rest_density_;
  long n_global = 0, n_local = owned_;
  MPI_Allreduce(&n_local, &n_global, 1, MPI_LONG, MPI_SUM, comm_);
  int it = 0;
  for (;; ++it) {
    refresh(vstar);
    double err = 0;
    Kokkos::parallel_reduce(
        "sph::density_error", Kokkos::RangePolicy<>(0, owned_),
        KOKKOS_LAMBDA(const int i, double& e) {
          const double predicted = rho(i) + dt * rate(i);
          const double excess = predicted > rho0(ph(i)) ? predicted - rho0(ph(i)) : 0.0;
          kap(i) = excess * alpha(i) / (dt * dt * rho(i));
          e += excess / rho0(ph(i));
        },
        err);
    MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_DOUBLE, MPI_SUM, comm_);
    err = n_global > 0 ? err / n_global : 0.0;
    last_.density_error = err;
    if ((it >= p_.min_density_iterations && err <= p_.density_tolerance) || it >= p_.max_density_iterations) break;
    accumulate_and_apply_stiffness(dt, kap, acc, vstar);
  }
  store_stiffness(acc, kstore);
  return it;
}

#define MENISCUS_SPH_PRESSURE_INSTANTIATE(D)                                                                   \
  template void SphJeske<D>::compute_alpha();                                                                  \
  template void SphJeske<D>::apply_stiffness(double, Kokkos::View<double*>, Kokkos::View<double**, Kokkos::LayoutRight>);          \
  template Kokkos::View<double*> SphJeske<D>::begin_stiffness_solve(double, particles::RealField,              \
                                                                    Kokkos::View<double**, Kokkos::LayoutRight>);                   \
  template void SphJeske<D>::accumulate_and_apply_stiffness(double, Kokkos::View<double*>, Kokkos::View<double*>, \
                                                            Kokkos::View<double**, Kokkos::LayoutRight>);                           \
  template void SphJeske<D>::store_stiffness(Kokkos::View<double*>, particles::RealField);                    \
  template int SphJeske<D>::divergence_solve(double, Kokkos::View<double**, Kokkos::LayoutRight>);                                 \
  template int SphJeske<D>::density_solve(double, Kokkos::View<double**, Kokkos::LayoutRight>);
MENISCUS_SPH_PRESSURE_INSTANTIATE(2)
MENISCUS_SPH_PRESSURE_INSTANTIATE(3)
#undef MENISCUS_SPH_PRESSURE_INSTANTIATE

}  // namespace meniscus::sph
