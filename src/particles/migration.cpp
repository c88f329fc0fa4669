#include "particles/migration.hpp"

#include <string>

#include "core/error.hpp"
#include "core/log.hpp"
#include "particles/neighbor_exchange.hpp"

namespace meniscus::particles {

template <int Dim>
void wrap_periodic(ParticleSet& set, const grid::Decomposition<Dim>& decomp, int position_field) {
  if (!decomp.any_periodic()) return;
  const auto owners = decomp.owner_map();
  const RealField x = set.field(position_field);
  Kokkos::parallel_for(
      "migrate::wrap", Kokkos::RangePolicy<>(0, set.size()), KOKKOS_LAMBDA(const int p) {
        double xp[Dim];
        for (int d = 0; d < Dim; ++d) xp[d] = x(p, d);
        owners.wrap(xp);
        for (int d = 0; d < Dim; ++d) x(p, d) = xp[d];
      });
}

template <int Dim>
MigrationStats migrate(ParticleSet& set, const grid::Decomposition<Dim>& decomp, int position_field) {
  wrap_periodic<Dim>(set, decomp, position_field);
  const int n = static_cast<int>(set.size());
  const int me = decomp.rank();
  const auto owners = decomp.owner_map();
  const RealField x = set.field(position_field);
  const auto& nbrs = decomp.neighbors();
  const int nn = static_cast<int>(nbrs.size());

  // Map rank -> neighbour slot (-1: not a neighbour).
  Kokkos::View<int*> slot_of("slot_of", decomp.size());
  {
    auto h = Kokkos::create_mirror_view(slot_of);
    Kokkos::deep_copy(h, -1);
    for (int k = 0; k < nn; ++k) h(nbrs[k]) = k;
    Kokkos::deep_copy(slot_of, h);
  }
  // Destination slot per particle: nn = stays here. Most particles stay inside this rank's region,
  // which a box test settles without the owner lookup.
  // Owned node range, widened to +-infinity on the domain's outer faces (as the owner map clamps).
  int lo[Dim], hi[Dim];
  double lower[Dim];
  const double inv_dx = 1.0 / decomp.dx();
  for (int d = 0; d < Dim; ++d) {
    lo[d] = decomp.owned_lo()[d] == 0 ? -2147483647 : decomp.owned_lo()[d];
    hi[d] = decomp.owned_hi()[d] == decomp.nodes()[d] ? 2147483647 : decomp.owned_hi()[d];
    lower[d] = decomp.lower()[d];
  }
  Kokkos::View<int*> dest("dest", n);
  Kokkos::View<int64_t*> bad("bad", 1);
  Kokkos::deep_copy(bad, -1);
  const IdField ids = set.id();
  int nleave = 0;
  Kokkos::parallel_reduce(
      "migrate::dest", Kokkos::RangePolicy<>(0, n),
      KOKKOS_LAMBDA(const int p, int& leaving) {
        double xp[Dim];
        bool home = true;
        for (int d = 0; d < Dim; ++d) {
          xp[d] = x(p, d);
          const int i = static_cast<int>(kmath::floor((xp[d] - lower[d]) * inv_dx + 0.5));
          home = home && i >= lo[d] && i < hi[d];
        }
        int s = nn;
        if (!home) {
          const int r = owners.owner(xp);
          if (r != me) {
            s = slot_of(r);
            if (s < 0) {
              bad(0) = ids(p);
              s = nn;
            }
          }
        }
        dest(p) = s;
        leaving += s != nn ? 1 : 0;
      },
      nleave);
  auto bad_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), bad);
  int local_bad = bad_h(0) >= 0 ? 1 : 0, any_bad = 0;
  MPI_Allreduce(&local_bad, &any_bad, 1, MPI_INT, MPI_MAX, decomp.comm());
  if (any_bad) {
    throw RuntimeError(local_bad ? log::format("particle %ld moved past the neighbouring ranks in one step (rank %d); "
                                               "the time step is too large for the velocity field",
                                               static_cast<long>(bad_h(0)), me)
                                 : std::string("a particle moved past the neighbouring ranks in one step"));
  }

  // Stable split into stayers and leavers.
  IndexList leavers("leavers", nleave), leaver_slot("leaver_slot", nleave), keep("keep", nleave > 0 ? n - nleave : 0);
  if (nleave > 0)
    Kokkos::parallel_scan(
      "migrate::split", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int p, int& prefix, const bool final) {
        const bool leave = dest(p) != nn;
        if (final) {
          if (leave) {
            leavers(prefix) = p;
            leaver_slot(prefix) = dest(p);
          }
          else keep(p - prefix) = p;
        }
        prefix += leave ? 1 : 0;
      });

  // Group leavers by neighbour on the host (they are few).
  auto leavers_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), leavers);
  auto slot_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), leaver_slot);
  std::vector<int> counts(nn, 0);
  for (int i = 0; i < nleave; ++i) counts[slot_h(i)]++;
  std::vector<int> offs(nn + 1, 0);
  for (int k = 0; k < nn; ++k) offs[k + 1] = offs[k] + counts[k];
  IndexList send("send", nleave);
  {
    auto send_h = Kokkos::create_mirror_view(send);
    std::vector<int> fill = offs;
    for (int i = 0; i < nleave; ++i) send_h(fill[slot_h(i)]++) = leavers_h(i);
    Kokkos::deep_copy(send, send_h);
  }

  NeighborExchange ex(decomp.comm(), nbrs);
  ex.plan(send, counts);

  std::vector<RealField> fields;
  for (size_t f = 0; f < set.field_info().size(); ++f)
    if (set.field_info()[f].persistent) fields.push_back(set.field(static_cast<int>(f)));
  // Pack from the current arrays before compaction (gather replaces the views).
  const IdField id_src = set.id();
  const IntField mat_src = set.material();
  // Receive into temporary views, then compact and append.
  std::vector<RealField> incoming;
  for (const auto& f : fields) incoming.emplace_back("incoming", ex.recv_total(), f.extent(1));
  IdField in_ids("incoming_ids", ex.recv_total());
  IntField in_mats("incoming_mats", ex.recv_total());
  ex.ship(fields, &id_src, &mat_src, incoming, &in_ids, &in_mats, 0);

  const size_t nkeep = static_cast<size_t>(n - nleave);
  if (nleave > 0) set.gather(keep, nkeep);
  set.resize(nkeep + ex.recv_total());
  size_t k = 0;
  const size_t nin = ex.recv_total();
  for (size_t f = 0; f < set.field_info().size(); ++f) {
    if (!set.field_info()[f].persistent) continue;
    RealField dst = set.field(static_cast<int>(f));
    RealField src = incoming[k++];
    const int nc = static_cast<int>(src.extent(1));
    Kokkos::parallel_for(
        "migrate::append", Kokkos::RangePolicy<>(0, nin), KOKKOS_LAMBDA(const int r) {
          for (int c = 0; c < nc; ++c) dst(nkeep + r, c) = src(r, c);
        });
  }
  const IdField id_dst = set.id();
  const IntField mat_dst = set.material();
  Kokkos::parallel_for(
      "migrate::append_ids", Kokkos::RangePolicy<>(0, nin), KOKKOS_LAMBDA(const int r) {
        id_dst(nkeep + r) = in_ids(r);
        mat_dst(nkeep + r) = in_mats(r);
      });
  return {static_cast<long>(nleave), static_cast<long>(nin)};
}

template <int Dim>
void sort_by_cell(ParticleSet& set, const grid::Decomposition<Dim>& decomp, int position_field) {
  const int n = static_cast<int>(set.size());
  if (n == 0) return;
  const RealField x = set.field(position_field);
  int lo[Dim], ext[Dim];
  double lower[Dim];
  long ncells = 1;
  for (int d = 0; d < Dim; ++d) {
    lo[d] = decomp.ghost_lo()[d];
    ext[d] = decomp.ghost_hi()[d] - decomp.ghost_lo()[d];
    lower[d] = decomp.lower()[d];
    ncells *= ext[d];
  }
  const double inv_dx = 1.0 / decomp.dx();
  Kokkos::View<int*> key("cell_key", n);
  Kokkos::parallel_for(
      "sort::key", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int p) {
        long k = 0, stride = 1;
        for (int d = 0; d < Dim; ++d) {
          int i = static_cast<int>(kmath::floor((x(p, d) - lower[d]) * inv_dx + 0.5)) - lo[d];
          i = i < 0 ? 0 : (i >= ext[d] ? ext[d] - 1 : i);
          k += i * stride;
          stride *= ext[d];
        }
        key(p) = static_cast<int>(k);
      });
  auto key_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), key);
  std::vector<int> start(ncells + 1, 0);
  for (int p = 0; p < n; ++p) start[key_h(p) + 1]++;
  for (long c = 0; c < ncells; ++c) start[c + 1] += start[c];
  IndexList order("sort_order", n);
  auto order_h = Kokkos::create_mirror_view(order);
  for (int p = 0; p < n; ++p) order_h(start[key_h(p)]++) = p;
  Kokkos::deep_copy(order, order_h);
  set.gather(order, n);
}

template void wrap_periodic<2>(ParticleSet&, const grid::Decomposition<2>&, int);
template void wrap_periodic<3>(ParticleSet&, const grid::Decomposition<3>&, int);
template MigrationStats migrate<2>(ParticleSet&, const grid::Decomposition<2>&, int);
template MigrationStats migrate<3>(ParticleSet&, const grid::Decomposition<3>&, int);
template void sort_by_cell<2>(ParticleSet&, const grid::Decomposition<2>&, int);
template void sort_by_cell<3>(ParticleSet&, const grid::Decomposition<3>&, int);

}  // namespace meniscus::particles
