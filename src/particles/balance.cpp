#include "particles/balance.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/log.hpp"
#include "grid/balance.hpp"
#include "particles/particle_sources.hpp"

namespace meniscus::particles {

template <int Dim>
std::array<std::vector<long>, Dim> node_histograms(const Kokkos::View<double**, Kokkos::LayoutRight, MemSpace>& x,
                                                   const grid::Decomposition<Dim>& decomp) {
  const int n = static_cast<int>(x.extent(0));
  int offset[Dim + 1];
  int nodes[Dim];
  double lower[Dim];
  offset[0] = 0;
  for (int d = 0; d < Dim; ++d) {
    nodes[d] = decomp.nodes()[d];
    lower[d] = decomp.lower()[d];
    offset[d + 1] = offset[d] + nodes[d];
  }
  const double inv_dx = 1.0 / decomp.dx();
  // All axes in one view (axis d from offset[d]); a particle adds one to a plane of each axis.
  Kokkos::View<long*, MemSpace> hist("balance_histogram", offset[Dim]);
  Kokkos::parallel_for(
      "balance::histogram", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int p) {
        for (int d = 0; d < Dim; ++d) {
          int i = static_cast<int>(kmath::floor((x(p, d) - lower[d]) * inv_dx + 0.5));
          i = i < 0 ? 0 : (i >= nodes[d] ? nodes[d] - 1 : i);
          Kokkos::atomic_add(&hist(offset[d] + i), 1L);
        }
      });
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), hist);
  std::vector<long> all(h.data(), h.data() + offset[Dim]);
  MPI_Allreduce(MPI_IN_PLACE, all.data(), offset[Dim], MPI_LONG, MPI_SUM, decomp.comm());
  std::array<std::vector<long>, Dim> out;
  for (int d = 0; d < Dim; ++d) out[d].assign(all.begin() + offset[d], all.begin() + offset[d + 1]);
  return out;
}

template <int Dim>
std::unique_ptr<grid::Decomposition<Dim>> balanced_decomposition(MPI_Comm comm,
                                                                 const typename grid::Decomposition<Dim>::Spec& spec,
                                                                 const config::Section& root,
                                                                 const std::vector<std::string>& material_names,
                                                                 int min_nodes) {
  auto even = std::make_unique<grid::Decomposition<Dim>>(comm, spec);
  if (even->size() == 1 || root.section("domain").text("balance") != "particles" || root.list("sources").empty())
    return even;
  // Seed once on the even split only to count; the method seeds again on the final blocks (the
  // lattice and the ids do not depend on the blocks). Particles a method later removes (inside
  // colliders) are counted too.
  std::array<std::vector<long>, Dim> hist;
  {
    const auto seeded = seed_sources<Dim>(root, *even, material_names, /*positions_only=*/true);
    hist = node_histograms<Dim>(seeded.x, *even);
  }
  std::array<int, Dim> procs{};
  std::array<std::vector<int>, Dim> ranges;
  const std::string why = grid::balanced_layout<Dim>(hist, even->size(), std::max(min_nodes, spec.stencil_width + 1),
                                                     spec.procs, procs, ranges);
  if (!why.empty()) {
    // A wider minimum block than the even split needs (SPH's support radius) can rule out every
    // process grid; the even split then stays, and the method reports its own limit.
    log::warn("domain.balance: particles: %s; keeping the even split", why.c_str());
    return even;
  }
  if (ranges == grid::ownership_ranges<Dim>(*even)) return even;
  even.reset();  // one DMDA at a time
  return grid::make_decomposition<Dim>(comm, spec, ranges);
}

double particle_imbalance(long local_count, MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  long sum = 0, largest = 0;
  MPI_Allreduce(&local_count, &sum, 1, MPI_LONG, MPI_SUM, comm);
  MPI_Allreduce(&local_count, &largest, 1, MPI_LONG, MPI_MAX, comm);
  return sum > 0 ? static_cast<double>(largest) * size / static_cast<double>(sum) : 1.0;
}

void warn_no_rebalancing(const config::Section& root, const char* method, MPI_Comm comm) {
  const auto d = root.section("domain");
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0 && d.real("rebalance_threshold") > 0)
    log::warn("%s ignores %s: it balances its ranks at start-up only (MPM and SPH rebalance during a run)", method,
              d.key_path("rebalance_threshold").c_str());
}

template <int Dim>
Rebalancer<Dim>::Rebalancer(const config::Section& root, int min_nodes) {
  const auto d = root.section("domain");
  threshold_ = d.real("rebalance_threshold");
  interval_ = d.integer("rebalance_interval");
  min_nodes_ = min_nodes;
  if (threshold_ > 0 && threshold_ < 1)
    throw InputError(d.file(), d.key_path("rebalance_threshold"),
                     "max/mean particles per rank is never below 1: use a threshold >= 1, or 0 for no rebalancing");
}

template <int Dim>
std::unique_ptr<grid::Decomposition<Dim>> Rebalancer<Dim>::propose(const RealField& x, size_t n,
                                                                   const grid::Decomposition<Dim>& current,
                                                                   long step, bool force) {
  if (!enabled() || current.size() == 1) return nullptr;
  if (!force && (interval_ <= 0 || step % interval_ != 0)) return nullptr;
  const double t0 = MPI_Wtime();
  const double before = particle_imbalance(static_cast<long>(n), current.comm());
  if (!force && !(before > threshold_)) return nullptr;
  const RealField mine = Kokkos::subview(x, std::make_pair(size_t(0), n), Kokkos::ALL);
  const auto hist = node_histograms<Dim>(mine, current);
  auto spec = current.spec();
  std::array<int, Dim> procs{};
  std::array<std::vector<int>, Dim> ranges;
  const std::string why = grid::balanced_layout<Dim>(hist, current.size(), std::max(min_nodes_, spec.stencil_width + 1),
                                                     spec.procs, procs, ranges);
  if (!why.empty() || ranges == grid::ownership_ranges<Dim>(current)) return nullptr;
  const double predicted = grid::predicted_imbalance<Dim>(hist, ranges);
  // Cuts that would not lower the load are not worth the move (the next check would ask again).
  if (!force && !(predicted < before)) return nullptr;
  spec.ranges = ranges;
  pending_ = Stats{step, before, predicted, 1, 0};
  started_ = t0;
  return std::make_unique<grid::Decomposition<Dim>>(current.comm(), spec);
}

template <int Dim>
void Rebalancer<Dim>::finish(long local_count, MPI_Comm comm) {
  last_ = pending_;
  last_.after = particle_imbalance(local_count, comm);
  last_.seconds = MPI_Wtime() - started_;
  ++count_;
  log::info("rebalanced after step %ld: max/mean particles per rank %.3f -> %.3f (predicted %.3f), %.3f s",
            last_.step, last_.before, last_.after, last_.predicted, last_.seconds);
}

template class Rebalancer<2>;
template class Rebalancer<3>;

template std::array<std::vector<long>, 2> node_histograms<2>(const Kokkos::View<double**, Kokkos::LayoutRight, MemSpace>&,
                                                             const grid::Decomposition<2>&);
template std::array<std::vector<long>, 3> node_histograms<3>(const Kokkos::View<double**, Kokkos::LayoutRight, MemSpace>&,
                                                             const grid::Decomposition<3>&);
template std::unique_ptr<grid::Decomposition<2>> balanced_decomposition<2>(MPI_Comm, const grid::Decomposition<2>::Spec&,
                                                                           const config::Section&,
                                                                           const std::vector<std::string>&, int);
template std::unique_ptr<grid::Decomposition<3>> balanced_decomposition<3>(MPI_Comm, const grid::Decomposition<3>::Spec&,
                                                                           const config::Section&,
                                                                           const std::vector<std::string>&, int);

}  // namespace meniscus::particles
