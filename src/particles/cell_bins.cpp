#include "particles/cell_bins.hpp"

#include <cmath>

#include "particles/bounding_box.hpp"

namespace meniscus::particles {

template <int Dim>
CellBins<Dim> bin_rows_by_cell(ConstRealField x, int total, double edge, int reach) {
  CellBins<Dim> bins;
  bins.x = x;
  bins.reach = reach;
  bins.inv = 1.0 / edge;
  long cells = 1;
  if (total > 0) {
    double b[2 * Dim];
    local_bounding_box<Dim>(x, total, b, "bins::bounds");
    for (int d = 0; d < Dim; ++d) {
      bins.lower[d] = -b[Dim + d];
      bins.ncell[d] = static_cast<int>(std::floor((b[d] - bins.lower[d]) * bins.inv)) + 1;
      cells *= bins.ncell[d];
    }
  } else {
    for (int d = 0; d < Dim; ++d) bins.ncell[d] = 1;
  }
  // Counting sort of the rows by cell, then each cell's run ordered by row: deterministic.
  Kokkos::View<int*> cell_start("bins_cell_start", cells + 1);
  Kokkos::View<int*> key(Kokkos::view_alloc(Kokkos::WithoutInitializing, "bins_key"), total);
  const CellBins<Dim> g = bins;
  Kokkos::parallel_for(
      "bins::count", Kokkos::RangePolicy<>(0, total), KOKKOS_LAMBDA(const int p) {
        int c[Dim];
        const long k = g.cell_of(p, c);
        key(p) = static_cast<int>(k);
        Kokkos::atomic_add(&cell_start(k + 1), 1);
      });
  Kokkos::parallel_scan(
      "bins::cell_scan", Kokkos::RangePolicy<>(0, cells + 1), KOKKOS_LAMBDA(const long c, int& acc, const bool final) {
        const int v = cell_start(c);
        acc += v;
        if (final) cell_start(c) = acc;
      });
  Kokkos::View<int*> sorted(Kokkos::view_alloc(Kokkos::WithoutInitializing, "bins_sorted"), total);
  Kokkos::View<int*> fill("bins_fill", cells);
  Kokkos::parallel_for(
      "bins::scatter", Kokkos::RangePolicy<>(0, total), KOKKOS_LAMBDA(const int p) {
        const int k = key(p);
        sorted(cell_start(k) + Kokkos::atomic_fetch_add(&fill(k), 1)) = p;
      });
  // The scatter's slot order depends on threads: sort each cell's short run by row (insertion sort).
  Kokkos::parallel_for(
      "bins::cell_order", Kokkos::RangePolicy<>(0, cells), KOKKOS_LAMBDA(const long c) {
        const int a = cell_start(c), e = cell_start(c + 1);
        for (int i = a + 1; i < e; ++i) {
          const int v = sorted(i);
          int j = i - 1;
          while (j >= a && sorted(j) > v) {
            sorted(j + 1) = sorted(j);
            --j;
          }
          sorted(j + 1) = v;
        }
      });
  Kokkos::View<double**, Kokkos::LayoutRight> xs(Kokkos::view_alloc(Kokkos::WithoutInitializing, "bins_sorted_x"), total, Dim);
  Kokkos::parallel_for(
      "bins::sorted_x", Kokkos::RangePolicy<>(0, total), KOKKOS_LAMBDA(const int s) {
        for (int d = 0; d < Dim; ++d) xs(s, d) = x(sorted(s), d);
      });
  bins.cell_start = cell_start;
  bins.sorted = sorted;
  bins.xs = xs;
  return bins;
}

template CellBins<2> bin_rows_by_cell<2>(ConstRealField, int, double, int);
template CellBins<3> bin_rows_by_cell<3>(ConstRealField, int, double, int);

}  // namespace meniscus::particles
