#include "particles/neighbor_search.hpp"

#include <algorithm>
#include <cmath>

#include "core/kmath.hpp"
#include "particles/cell_bins.hpp"

namespace meniscus::particles {

template <int Dim>
void build_neighbor_lists(ConstRealField x, int owned, double support, NeighborLists& out, int cells_per_support) {
  const int total = static_cast<int>(x.extent(0));
  out.offset = Kokkos::View<int*>("nbr_offset", owned + 1);
  if (total == 0 || owned == 0) {
    out.index = Kokkos::View<int*>("nbr_index", 0);
    return;
  }
  // Cells of edge = support: the 3^Dim cells around a row hold all its neighbours (cell_bins.hpp).
  const CellBins<Dim> grid = bin_rows_by_cell<Dim>(x, total, support / cells_per_support, cells_per_support);
  const double h2 = support * support;
  // One distance pass into a fixed stride per row (rows that overflow it are counted and redone),
  // then a scan and a copy into the compact CSR arrays. The stride is a quarter above the mean count
  // that the bins predict (the occupied cells' mean occupancy times the support sphere's volume in
  // cells, 4 pi / 3 in 3D, pi in 2D), so that only crowded rows are searched twice: at 8 particles
  // per MPM cell and a support of 1.35 cells a row has about 80 neighbours, and with a fixed stride
  // of 64 every row was searched twice.
  const long cells = static_cast<long>(grid.cell_start.extent(0)) - 1;
  long occupied = 0;
  auto starts = grid.cell_start;
  Kokkos::parallel_reduce(
      "nbr::occupied", Kokkos::RangePolicy<>(0, cells),
      KOKKOS_LAMBDA(const long c, long& n) { n += starts(c + 1) > starts(c) ? 1 : 0; }, occupied);
  const double ball = Dim == 3 ? 4.0 * M_PI / 3.0 : M_PI;
  const double cells_in_support = std::pow(static_cast<double>(cells_per_support), Dim);
  const double expected =
      ball * cells_in_support * static_cast<double>(total) / static_cast<double>(occupied > 0 ? occupied : 1);
  const int kStride = std::min(256, std::max(64, 8 * static_cast<int>(std::ceil(1.25 * expected / 8))));
  auto offset = out.offset;
  Kokkos::View<int*> staged(Kokkos::view_alloc(Kokkos::WithoutInitializing, "nbr_staged"),
                            static_cast<size_t>(owned) * kStride);
  int overflow = 0;
  Kokkos::parallel_reduce(
      "nbr::row_collect", Kokkos::RangePolicy<>(0, owned),
      KOKKOS_LAMBDA(const int p, int& over) {
        int n = 0;
        const size_t base = static_cast<size_t>(p) * kStride;
        double xp[Dim];
        for (int d = 0; d < Dim; ++d) xp[d] = x(p, d);
        grid.for_each_near(xp, h2, [&](int q, double) {
          if (q == p) return;
          if (n < kStride) staged(base + n) = q;
          ++n;
        });
        offset(p + 1) = n;
        over += n > kStride ? 1 : 0;
      },
      overflow);
  int nnz = 0;
  Kokkos::parallel_scan(
      "nbr::row_scan", Kokkos::RangePolicy<>(0, owned + 1), KOKKOS_LAMBDA(const int p, int& acc, const bool final) {
        const int v = offset(p);
        acc += v;
        if (final) offset(p) = acc;
      },
      nnz);
  out.index = Kokkos::View<int*>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "nbr_index"), nnz);
  auto index = out.index;
  Kokkos::parallel_for(
      "nbr::row_fill", Kokkos::RangePolicy<>(0, owned), KOKKOS_LAMBDA(const int p) {
        const int a = offset(p), n = offset(p + 1) - a;
        if (n <= kStride) {
          const size_t base = static_cast<size_t>(p) * kStride;
          for (int k = 0; k < n; ++k) index(a + k) = staged(base + k);
        } else {
          int k = a;  // a crowded row (compressed fluid): search again straight into the CSR array
          double xp[Dim];
          for (int d = 0; d < Dim; ++d) xp[d] = x(p, d);
          grid.for_each_near(xp, h2, [&](int q, double) {
            if (q != p) index(k++) = q;
          });
        }
      });
  (void)overflow;
}

template <int Dim>
void brute_force_neighbor_lists(ConstRealField x, int owned, double support, NeighborLists& out) {
  const int total = static_cast<int>(x.extent(0));
  const double h2 = support * support;
  out.offset = Kokkos::View<int*>("bf_offset", owned + 1);
  auto offset = out.offset;
  auto near = KOKKOS_LAMBDA(const int p, const int q)->bool {
    if (p == q) return false;
    double r2 = 0;
    for (int d = 0; d < Dim; ++d) r2 += (x(p, d) - x(q, d)) * (x(p, d) - x(q, d));
    return r2 < h2;
  };
  Kokkos::parallel_for(
      "bf::count", Kokkos::RangePolicy<>(0, owned), KOKKOS_LAMBDA(const int p) {
        int n = 0;
        for (int q = 0; q < total; ++q) n += near(p, q) ? 1 : 0;
        offset(p + 1) = n;
      });
  int nnz = 0;
  Kokkos::parallel_scan(
      "bf::scan", Kokkos::RangePolicy<>(0, owned + 1), KOKKOS_LAMBDA(const int p, int& acc, const bool final) {
        const int v = offset(p);
        acc += v;
        if (final) offset(p) = acc;
      },
      nnz);
  out.index = Kokkos::View<int*>("bf_index", nnz);
  auto index = out.index;
  Kokkos::parallel_for(
      "bf::fill", Kokkos::RangePolicy<>(0, owned), KOKKOS_LAMBDA(const int p) {
        int n = offset(p);
        for (int q = 0; q < total; ++q)
          if (near(p, q)) index(n++) = q;
      });
}

template void build_neighbor_lists<2>(ConstRealField, int, double, NeighborLists&, int);
template void build_neighbor_lists<3>(ConstRealField, int, double, NeighborLists&, int);
template void brute_force_neighbor_lists<2>(ConstRealField, int, double, NeighborLists&);
template void brute_force_neighbor_lists<3>(ConstRealField, int, double, NeighborLists&);

}  // namespace meniscus::particles
