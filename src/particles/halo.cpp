#include "particles/halo.hpp"

#include <algorithm>
#include <vector>

namespace meniscus::particles {

template <int Dim>
void HaloPlan<Dim>::build(const ParticleSet& set, const grid::Decomposition<Dim>& decomp, int position_field,
                          double width) {
  const int n = static_cast<int>(set.size());
  const auto& imgs = decomp.images();
  const int ni = static_cast<int>(imgs.size());
  const RealField x = set.field(position_field);

  // One message per distinct rank (this rank too, for its own periodic images); a rank's rows are
  // its images' lists one after the other, in the decomposition's image order.
  std::vector<int> ranks;
  for (const auto& im : imgs) ranks.push_back(im.rank);
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  const int nn = static_cast<int>(ranks.size());
  std::vector<int> order;  // images grouped by rank
  for (int k = 0; k < nn; ++k)
    for (int i = 0; i < ni; ++i)
      if (imgs[i].rank == ranks[k]) order.push_back(i);

  // Image regions (the neighbour's region minus the shift), widened by the interaction radius.
  Kokkos::View<double* [2][Dim]> boxes("halo_boxes", ni);
  {
    auto h = Kokkos::create_mirror_view(boxes);
    for (int i = 0; i < ni; ++i) {
      double lo[Dim], hi[Dim];
      decomp.region(imgs[i].rank, lo, hi);
      for (int d = 0; d < Dim; ++d) {
        h(i, 0, d) = lo[d] - imgs[i].shift[d] - width;
        h(i, 1, d) = hi[d] - imgs[i].shift[d] + width;
      }
    }
    Kokkos::deep_copy(boxes, h);
  }
  auto inside = KOKKOS_LAMBDA(const int k, const int p)->bool {
    for (int d = 0; d < Dim; ++d)
      if (!(x(p, d) >= boxes(k, 0, d) && x(p, d) < boxes(k, 1, d))) return false;
    return true;
  };
  // One stable pass per image (few of them) keeps the send order deterministic.
  std::vector<int> image_counts(ni, 0), counts(nn, 0);
  int total = 0;
  for (int k = 0, o = 0; k < nn; ++k)
    for (; o < ni && imgs[order[o]].rank == ranks[k]; ++o) {
      const int i = order[o];
      int c = 0;
      Kokkos::parallel_reduce(
          "halo::count", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int p, int& s) { s += inside(i, p) ? 1 : 0; },
          c);
      image_counts[i] = c;
      counts[k] += c;
      total += c;
    }
  IndexList send("halo_send", total), rows("halo_rows", total);
  RealField send_shift("halo_send_shift", total, Dim);
  int off = 0;
  for (int o = 0; o < ni; ++o) {
    const int i = order[o];
    const int base = off;
    double shift[Dim];
    for (int d = 0; d < Dim; ++d) shift[d] = imgs[i].shift[d];
    Kokkos::parallel_scan(
        "halo::list", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int p, int& prefix, const bool final) {
          const bool in = inside(i, p);
          if (final && in) {
            send(base + prefix) = p;
            rows(base + prefix) = base + prefix;
            for (int d = 0; d < Dim; ++d) send_shift(base + prefix, d) = shift[d];
          }
          prefix += in ? 1 : 0;
        });
    off += image_counts[i];
  }
  exchange_ = NeighborExchange(decomp.comm(), ranks);
  exchange_.plan(send, counts);
  ghost_ids_ = IdField("ghost_ids", exchange_.recv_total());
  const IdField ids = set.id();
  exchange_.ship({}, &ids, nullptr, {}, &ghost_ids_, nullptr, 0);
  // The shift belongs to a sent row, not to a particle (one particle can go to a rank twice, as two
  // images), so it travels once along a plan over the send rows themselves.
  ghost_shift_ = RealField("ghost_shift", exchange_.recv_total(), Dim);
  shifted_ = decomp.any_periodic();
  if (shifted_) {
    NeighborExchange by_row(decomp.comm(), ranks);
    by_row.plan(rows, counts);
    by_row.ship({send_shift}, nullptr, nullptr, {ghost_shift_}, nullptr, nullptr, 0);
  }
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

template <int Dim>
void HaloPlan<Dim>::refresh_rows(const RealField& total, size_t owned) {
  exchange_.ship({total}, nullptr, nullptr, {total}, nullptr, nullptr, owned);
}

template <int Dim>
void HaloPlan<Dim>::refresh_position_rows(const RealField& total, size_t owned) {
  refresh_rows(total, owned);
  if (!shifted_) return;
  const RealField shift = ghost_shift_;
  Kokkos::parallel_for(
      "halo::shift_positions", Kokkos::RangePolicy<>(0, exchange_.recv_total()), KOKKOS_LAMBDA(const int g) {
        for (int d = 0; d < Dim; ++d) total(owned + g, d) += shift(g, d);
      });
}

template <int Dim>
typename HaloPlan<Dim>::Returned HaloPlan<Dim>::send_to_owners(const IndexList& ghost_of_row,
                                                                const std::vector<RealField>& fields) {
  const int nrows = static_cast<int>(ghost_of_row.extent(0));
  const auto& nbrs = exchange_.neighbors();
  const int nn = static_cast<int>(nbrs.size());
  // Ghosts arrive in neighbour blocks: ghost g belongs to block k with offset g - start[k].
  std::vector<int> start(nn + 1, 0);
  for (int k = 0; k < nn; ++k) start[k + 1] = start[k] + exchange_.recv_counts()[k];
  auto g_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ghost_of_row);
  std::vector<int> counts(nn, 0), block(nrows);
  for (int i = 0; i < nrows; ++i) {
    const int g = g_h(i);
    int k = 0;
    while (k + 1 <= nn && start[k + 1] <= g) ++k;
    block[i] = k;
    counts[k]++;
  }
  std::vector<int> fill(nn, 0);
  for (int k = 1; k < nn; ++k) fill[k] = fill[k - 1] + counts[k - 1];
  IndexList order("return_order", nrows);
  RealField offset_in_block("offset_in_block", nrows, 1);
  {
    auto o_h = Kokkos::create_mirror_view(order);
    auto b_h = Kokkos::create_mirror_view(offset_in_block);
    for (int i = 0; i < nrows; ++i) {
      o_h(fill[block[i]]) = i;
      b_h(i, 0) = g_h(i) - start[block[i]];
      fill[block[i]]++;
    }
    Kokkos::deep_copy(order, o_h);
    Kokkos::deep_copy(offset_in_block, b_h);
  }
  NeighborExchange back(exchange_.comm(), nbrs);
  back.plan(order, counts);
  Returned out;
  std::vector<RealField> src = fields, dst;
  src.push_back(offset_in_block);
  for (const auto& f : src) dst.emplace_back("returned", back.recv_total(), f.extent(1));
  back.ship(src, nullptr, nullptr, dst, nullptr, nullptr, 0);
  // Row r from neighbour k names entry start_k + offset of the list this rank sent to k.
  std::vector<int> send_start(nn + 1, 0);
  for (int k = 0; k < nn; ++k) send_start[k + 1] = send_start[k] + exchange_.send_counts()[k];
  std::vector<int> from(back.recv_total());
  for (int k = 0, r = 0; k < nn; ++k)
    for (int c = 0; c < back.recv_counts()[k]; ++c) from[r++] = send_start[k];
  IndexList base("return_base", back.recv_total());
  {
    auto h = Kokkos::create_mirror_view(base);
    for (size_t r = 0; r < from.size(); ++r) h(r) = from[r];
    Kokkos::deep_copy(base, h);
  }
  out.owner_index = IndexList("owner_index", back.recv_total());
  auto owner = out.owner_index;
  auto sent = exchange_.send_list();
  auto offs = dst.back();
  Kokkos::parallel_for(
      "halo::owner_index", Kokkos::RangePolicy<>(0, back.recv_total()),
      KOKKOS_LAMBDA(const int r) { owner(r) = sent(base(r) + static_cast<int>(offs(r, 0))); });
  dst.pop_back();
  out.fields = dst;
  return out;
}

template class HaloPlan<2>;
template class HaloPlan<3>;

}  // namespace meniscus::particles
