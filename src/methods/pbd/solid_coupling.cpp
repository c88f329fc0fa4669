#include "methods/pbd/solid_coupling.hpp"

namespace meniscus::pbd {

long drop_pairs_through_solids(particles::NeighborLists& lists, Kokkos::View<double**, Kokkos::LayoutRight> x,
                               Kokkos::View<const int64_t*> ids, int rows, const physics::ColliderSet<3>& colliders,
                               double support, double radius) {
  if (colliders.count == 0 || rows == 0) return 0;
  auto off = lists.offset, idx = lists.index;
  const auto cols = colliders;
  const double tol = 1e-6 * radius;
  Kokkos::View<int*> keep(Kokkos::view_alloc(Kokkos::WithoutInitializing, "pbd_pair_keep"), idx.extent(0));
  Kokkos::View<int*> kept("pbd_pairs_kept", rows + 1);
  Kokkos::parallel_for(
      "pbd::pairs_through_solids", Kokkos::RangePolicy<>(0, rows), KOKKOS_LAMBDA(const int i) {
        const double xi[3] = {x(i, 0), x(i, 1), x(i, 2)};
        bool near = false;  // a segment shorter than h can reach a solid only from within h of it
        for (int c = 0; c < cols.count; ++c) near = near || cols.items[c].distance(xi) < support;
        int n = 0;
        for (int k = off(i); k < off(i + 1); ++k) {
          const int j = idx(k);
          bool through = false;
          if (near) {
            const bool from_i = ids(i) < ids(j);
            const int s = from_i ? i : j, e = from_i ? j : i;
            const double a[3] = {x(s, 0), x(s, 1), x(s, 2)};
            const double b[3] = {x(e, 0), x(e, 1), x(e, 2)};
            double path[3], len2 = 0;
            for (int d = 0; d < 3; ++d) {
              path[d] = b[d] - a[d];
              len2 += path[d] * path[d];
            }
            const double len = kmath::sqrt(len2);
            for (int c = 0; c < cols.count && !through && len > 0; ++c) {
              const auto& col = cols.items[c];
              if (!(col.distance(a) > 0 && col.distance(b) > 0)) continue;  // an end inside: kept
              double q[3], fq = 0;
              through = trace_segment(col, a, path, len, tol, q, fq);
            }
          }
          keep(k) = through ? 0 : 1;
          n += through ? 0 : 1;
        }
        kept(i + 1) = n;
      });
  long total = 0;
  Kokkos::parallel_scan(
      "pbd::pairs_kept_offsets", Kokkos::RangePolicy<>(0, rows + 1),
      KOKKOS_LAMBDA(const int i, long& sum, const bool final) {
        sum += kept(i);
        if (final) kept(i) = static_cast<int>(sum);
      },
      total);
  const long removed = static_cast<long>(idx.extent(0)) - total;
  if (removed == 0) return 0;
  Kokkos::View<int*> index(Kokkos::view_alloc(Kokkos::WithoutInitializing, "pbd_neighbor_index"), total);
  Kokkos::parallel_for(
      "pbd::pairs_compact", Kokkos::RangePolicy<>(0, rows), KOKKOS_LAMBDA(const int i) {
        int w = kept(i);
        for (int k = off(i); k < off(i + 1); ++k)
          if (keep(k)) index(w++) = idx(k);
      });
  lists.offset = kept;
  lists.index = index;
  return removed;
}

}  // namespace meniscus::pbd
