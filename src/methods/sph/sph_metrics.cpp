#include "methods/sph/sph_metrics.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <map>
#include <vector>

#include "core/reproducible_sum.hpp"
#include "methods/sph/sph_kernels.hpp"

namespace meniscus::sph {

ComponentStats connected_components(const Neighborhood& nb, const particles::IdField& ids, MPI_Comm comm) {
  ComponentStats out;
  const int owned = nb.owned, total = nb.total;
  Kokkos::View<double**, Kokkos::LayoutRight> label("cc_label", total, 1), next("cc_next", owned, 1);
  Kokkos::parallel_for(
      "cc::init", Kokkos::RangePolicy<>(0, owned), KOKKOS_LAMBDA(const int i) { label(i, 0) = static_cast<double>(ids(i)); });
  nb.refresh_ghosts(label);
  auto off = nb.offset, idx = nb.index;
  // Jacobi sweeps with a ghost refresh between them; the labels are integers (ids < 2^53) stored as
  // doubles so that the row exchange can carry them.
  for (;;) {
    long changed = 0;
    Kokkos::parallel_reduce(
        "cc::sweep", Kokkos::RangePolicy<>(0, owned),
        KOKKOS_LAMBDA(const int i, long& c) {
          double m = label(i, 0);
          for (int k = off(i); k < off(i + 1); ++k) m = label(idx(k), 0) < m ? label(idx(k), 0) : m;
          next(i, 0) = m;
          c += m < label(i, 0) ? 1 : 0;
        },
        changed);
    Kokkos::parallel_for(
        "cc::copy", Kokkos::RangePolicy<>(0, owned), KOKKOS_LAMBDA(const int i) { label(i, 0) = next(i, 0); });
    ++out.sweeps;
    MPI_Allreduce(MPI_IN_PLACE, &changed, 1, MPI_LONG, MPI_SUM, comm);
    if (changed == 0) break;
    nb.refresh_ghosts(label);
  }
  // Count per label on each rank, merge everywhere.
  auto lh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), label);
  std::map<long, long> local;
  for (int i = 0; i < owned; ++i) local[static_cast<long>(lh(i, 0))]++;
  std::vector<long> flat;
  for (const auto& [l, c] : local) {
    flat.push_back(l);
    flat.push_back(c);
  }
  int size = 1;
  MPI_Comm_size(comm, &size);
  int mine = static_cast<int>(flat.size());
  std::vector<int> counts(size), displs(size, 0);
  MPI_Allgather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
  for (int r = 1; r < size; ++r) displs[r] = displs[r - 1] + counts[r - 1];
  std::vector<long> all(displs[size - 1] + counts[size - 1]);
  MPI_Allgatherv(flat.data(), mine, MPI_LONG, all.data(), counts.data(), displs.data(), MPI_LONG, comm);
  std::map<long, long> merged;
  for (size_t k = 0; k + 1 < all.size(); k += 2) merged[all[k]] += all[k + 1];
  out.components = static_cast<long>(merged.size());
  for (const auto& [l, c] : merged) out.largest = std::max(out.largest, c);
  return out;
}

namespace {
// Per particle: its coordinates and 1 (the centroid's sums).
template <int Dim>
struct CoordinateTerms {
  static constexpr int count = Dim + 1;
  particles::ConstRealField x;
  KOKKOS_INLINE_FUNCTION void operator()(const long i, double* t) const {
    for (int d = 0; d < Dim; ++d) t[d] = x(i, d);
    t[Dim] = 1.0;
  }
};

// Per particle: the central second moments (x_a - c_a)(x_b - c_b), a <= b, row by row.
template <int Dim>
struct MomentTerms {
  static constexpr int count = Dim * (Dim + 1) / 2;
  particles::ConstRealField x;
  double c[Dim];
  KOKKOS_INLINE_FUNCTION void operator()(const long i, double* t) const {
    int k = 0;
    for (int a = 0; a < Dim; ++a)
      for (int b = a; b < Dim; ++b) t[k++] = (x(i, a) - c[a]) * (x(i, b) - c[b]);
  }
};

}  // namespace

template <int Dim>
GyrationStats gyration(particles::ConstRealField x, int owned, MPI_Comm comm) {
  GyrationStats g;
  // Two passes (centroid, then central moments) for accuracy far from the origin; both are exact sums
  // (reproducible_sum, Demmel & Nguyen 2013), so the same particles give the same bits at any rank count.
  double s[Dim + 1];
  reproducible_sum(comm, static_cast<long>(owned), CoordinateTerms<Dim>{x}, s, "gyr::sum");
  const double n = s[Dim];
  if (!(n > 0)) return g;
  MomentTerms<Dim> moments{x, {}};
  for (int d = 0; d < Dim; ++d) moments.c[d] = g.centroid[d] = s[d] / n;
  double upper[MomentTerms<Dim>::count];
  reproducible_sum(comm, static_cast<long>(owned), moments, upper, "gyr::moment");
  double S[Dim * Dim] = {};
  for (int a = 0, k = 0; a < Dim; ++a)
    for (int b = a; b < Dim; ++b) S[a * Dim + b] = upper[k++];
  Eigen::Matrix<double, Dim, Dim> M;
  for (int a = 0; a < Dim; ++a)
    for (int b = 0; b < Dim; ++b) M(a, b) = (a <= b ? S[a * Dim + b] : S[b * Dim + a]) / n;
  Eigen::SelfAdjointEigenSolver<Eigen::Matrix<double, Dim, Dim>> es(M);
  const auto ev = es.eigenvalues();  // ascending
  g.sphericity = ev(Dim - 1) > 0 ? ev(0) / ev(Dim - 1) : 0.0;
  g.radius_of_gyration = std::sqrt(std::max(M.trace(), 0.0));
  for (int a = 0; a < Dim; ++a) g.moment[a] = M(a, a);
  return g;
}

template <int Dim>
double surface_energy_proxy(const Neighborhood& nb, Kokkos::View<const double*> volume, MPI_Comm comm) {
  const CubicSpline<Dim> w(nb.support);
  auto x = nb.x;
  auto off = nb.offset, idx = nb.index;
  // Per particle V_i |sum_j V_j grad W_ij|^2, computed once, then summed exactly (reproducible_sum,
  // Demmel & Nguyen 2013): rank-independent as far as each term is.
  Kokkos::View<double*> term("sph_surface_proxy_term", nb.owned);
  Kokkos::parallel_for(
      "sph::surface_energy_proxy", Kokkos::RangePolicy<>(0, nb.owned), KOKKOS_LAMBDA(const int i) {
        double gc[Dim] = {};
        for (int k = off(i); k < off(i + 1); ++k) {
          const int j = idx(k);
          double xij[Dim], g[Dim];
          for (int d = 0; d < Dim; ++d) xij[d] = x(i, d) - x(j, d);
          w.gradient(xij, g);
          for (int d = 0; d < Dim; ++d) gc[d] += volume(j) * g[d];
        }
        double s = 0;
        for (int d = 0; d < Dim; ++d) s += gc[d] * gc[d];
        term(i) = volume(i) * s;
      });
  double e = 0;
  reproducible_sum(comm, static_cast<long>(nb.owned), ViewTerms{term}, &e, "sph::surface_energy_proxy_sum");
  return e;
}

template GyrationStats gyration<2>(particles::ConstRealField, int, MPI_Comm);
template GyrationStats gyration<3>(particles::ConstRealField, int, MPI_Comm);
template double surface_energy_proxy<2>(const Neighborhood&, Kokkos::View<const double*>, MPI_Comm);
template double surface_energy_proxy<3>(const Neighborhood&, Kokkos::View<const double*>, MPI_Comm);

}  // namespace meniscus::sph
