#include "particles/halo.hpp"

#include <vector>

namespace meniscus::particles {

template <int Dim>
void HaloPlan<Dim>::build(const ParticleSet& set, const grid::Decomposition<Dim>& decomp, int position_field,
                          double width) {
  const int n = static_cast<int>(set.size());
  const auto& nbrs = decomp.neighbors();
  const int nn = static_cast<int>(nbrs.size());
  const RealField x = set.field(position_field);

  // Regions of the neighbours, widened by the interaction radius.
  Kokkos::View<double* [2][Dim]> boxes("halo_boxes", nn);
  {
    auto h = Kokkos::create_mirror_view(boxes);
    for (int k = 0; k < nn; ++k) {
      double lo[Dim], hi[Dim];
      decomp.region(nbrs[k], lo, hi);
      for (int d = 0; d < Dim; ++d) {
        h(k, 0, d) = lo[d] - width;
        h(k, 1, d) = hi[d] + width;
      }
    }
    Kokkos::deep_copy(boxes, h);
  }
  auto inside = KOKKOS_LAMBDA(const int k, const int p)->bool {
    for (int d = 0; d < Dim; ++d)
      if (!(x(p, d) >= boxes(k, 0, d) && x(p, d) < boxes(k, 1, d))) return false;
    return true;
  };
  // One stable pass per neighbour (few of them) keeps the send order deterministic.
  std::vector<int> counts(nn, 0);
  std::vector<IndexList> lists(nn);
  int total = 0;
  for (int k = 0; k < nn; ++k) {
    int c = 0;
    Kokkos::parallel_reduce(
        "halo::count", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int p, int& s) { s += inside(k, p) ? 1 : 0; },
        c);
    counts[k] = c;
    total += c;
  }
  IndexList send("halo_send", total);
  int off = 0;
  for (int k = 0; k < nn; ++k) {
    const int base = off;
    Kokkos::parallel_scan(
        "halo::list", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int p, int& prefix, const bool final) {
          const bool in = inside(k, p);
          if (final && in) send(base + prefix) = p;
          prefix += in ? 1 : 0;
        });
    off += counts[k];
  }
  exchange_ = NeighborExchange(decomp.comm(), nbrs);
  exchange_.plan(send, counts);
  ghost_ids_ = IdField("ghost_ids", exchange_.recv_total());
  const IdField ids = set.id();
  exchange_.ship({}, &ids, nullptr, {}, &ghost_ids_, nullptr, 0);
}

template <int Dim>
RealField HaloPlan<Dim>::refresh(const RealField& field) {
  RealField ghosts("ghosts", exchange_.recv_total(), field.extent(1));
  refresh_into(field, ghosts);
  return ghosts;
}

template <int Dim>
void HaloPlan<Dim>::refresh_into(const RealField& field, RealField& ghosts) {
  exchange_.ship({field}, nullptr, nullptr, {ghosts}, nullptr, nullptr, 0);
}

template class HaloPlan<2>;
template class HaloPlan<3>;

}  // namespace meniscus::particles
