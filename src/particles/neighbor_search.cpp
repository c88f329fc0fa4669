#include "particles/neighbor_search.hpp"

#include <cmath>

#include "core/kmath.hpp"
#include "particles/bounding_box.hpp"

namespace meniscus::particles {

namespace {

// Uniform cells of edge `support` over the bounding box, with the rows sorted by cell.
template <int Dim>
struct CellGrid {
  ConstRealField x;
  Kokkos::View<int*> cell_start, sorted;
  Kokkos::View<double**, Kokkos::LayoutRight> xs;  // x(sorted(s), d)
  double lower[Dim];
  int ncell[Dim];
  double inv = 0, h2 = 0;

  KOKKOS_INLINE_FUNCTION long cell_of(const int p, int* c) const {
    long k = 0, stride = 1;
    for (int d = 0; d < Dim; ++d) {
      int i = static_cast<int>((x(p, d) - lower[d]) * inv);
      i = i < 0 ? 0 : (i >= ncell[d] ? ncell[d] - 1 : i);
      c[d] = i;
      k += i * stride;
      stride *= ncell[d];
    }
    return k;
  }
  // Calls f(q) for every row q != p with |x_p - x_q|^2 < h2, scanning the 3^Dim cells around p.
  // The cells k0-1..k0+1 of one (k1, k2) line are adjacent in the sorted order, so each line is one
  // contiguous run of `xs` (positions copied in sorted order): the scan streams memory instead of
  // gathering x(q) row by row. Neighbours still come out by cell, then by row within a cell.
  template <class F>
  KOKKOS_INLINE_FUNCTION void for_each_neighbor(const int p, F&& f) const {
    int c[Dim];
    cell_of(p, c);
    int lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (int d = 0; d < Dim; ++d) {
      lo[d] = c[d] > 0 ? c[d] - 1 : 0;
      hi[d] = c[d] + 1 < ncell[d] ? c[d] + 1 : ncell[d] - 1;
    }
    double xp[Dim];
    for (int d = 0; d < Dim; ++d) xp[d] = x(p, d);
    for (int k2 = lo[2]; k2 <= hi[2]; ++k2)
      for (int k1 = lo[1]; k1 <= hi[1]; ++k1) {
        const long line = static_cast<long>(ncell[0]) * (k1 + (Dim == 3 ? static_cast<long>(ncell[1]) * k2 : 0));
        const int end = cell_start(line + hi[0] + 1);
        for (int s = cell_start(line + lo[0]); s < end; ++s) {
          double r2 = 0;
          for (int d = 0; d < Dim; ++d) {
            const double dx = xp[d] - xs(s, d);
            r2 += dx * dx;
          }
          if (r2 < h2) {
            const int q = sorted(s);
            if (q != p) f(q);
          }
        }
      }
  }
};
}  // namespace

template <int Dim>
void build_neighbor_lists(ConstRealField x, int owned, double support, NeighborLists& out) {
  const int total = static_cast<int>(x.extent(0));
  out.offset = Kokkos::View<int*>("nbr_offset", owned + 1);
  if (total == 0 || owned == 0) {
    out.index = Kokkos::View<int*>("nbr_index", 0);
    return;
  }
  double b[2 * Dim];
  local_bounding_box<Dim>(x, total, b, "nbr::bounds");
  double lower[Dim];
  int ncell[Dim];
  long cells = 1;
  const double inv = 1.0 / support;
  for (int d = 0; d < Dim; ++d) {
    lower[d] = -b[Dim + d];
    ncell[d] = static_cast<int>(std::floor((b[d] - lower[d]) * inv)) + 1;
    cells *= ncell[d];
  }
  CellGrid<Dim> grid;
  grid.x = x;
  grid.inv = inv;
  grid.h2 = support * support;
  for (int d = 0; d < Dim; ++d) {
    grid.lower[d] = lower[d];
    grid.ncell[d] = ncell[d];
  }
  // Counting sort of the rows by cell. Rows are placed in ascending order inside each cell by a
  // per-cell prefix over the (row-ordered) count pass, so the result is deterministic.
  Kokkos::View<int*> cell_start("nbr_cell_start", cells + 1);
  Kokkos::View<int*> key(Kokkos::view_alloc(Kokkos::WithoutInitializing, "nbr_key"), total);
  Kokkos::parallel_for(
      "nbr::count", Kokkos::RangePolicy<>(0, total), KOKKOS_LAMBDA(const int p) {
        int c[Dim];
        const long k = grid.cell_of(p, c);
        key(p) = static_cast<int>(k);
        Kokkos::atomic_add(&cell_start(k + 1), 1);
      });
  Kokkos::parallel_scan(
      "nbr::cell_scan", Kokkos::RangePolicy<>(0, cells + 1), KOKKOS_LAMBDA(const long c, int& acc, const bool final) {
        const int v = cell_start(c);
        acc += v;
        if (final) cell_start(c) = acc;
      });
  Kokkos::View<int*> sorted(Kokkos::view_alloc(Kokkos::WithoutInitializing, "nbr_sorted"), total);
  Kokkos::View<int*> fill("nbr_fill", cells);
  Kokkos::parallel_for(
      "nbr::scatter", Kokkos::RangePolicy<>(0, total), KOKKOS_LAMBDA(const int p) {
        const int k = key(p);
        sorted(cell_start(k) + Kokkos::atomic_fetch_add(&fill(k), 1)) = p;
      });
  // The scatter's slot order depends on threads: sort each cell's short run by row (insertion sort).
  Kokkos::parallel_for(
      "nbr::cell_order", Kokkos::RangePolicy<>(0, cells), KOKKOS_LAMBDA(const long c) {
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
  Kokkos::View<double**, Kokkos::LayoutRight> xs(Kokkos::view_alloc(Kokkos::WithoutInitializing, "nbr_sorted_x"), total, Dim);
  Kokkos::parallel_for(
      "nbr::sorted_x", Kokkos::RangePolicy<>(0, total), KOKKOS_LAMBDA(const int s) {
        for (int d = 0; d < Dim; ++d) xs(s, d) = x(sorted(s), d);
      });
  grid.cell_start = cell_start;
  grid.sorted = sorted;
  grid.xs = xs;
  // One distance pass into a fixed stride per row (rows that overflow it are counted and redone),
  // then a scan and a copy into the compact CSR arrays.
  constexpr int kStride = 64;
  auto offset = out.offset;
  Kokkos::View<int*> staged(Kokkos::view_alloc(Kokkos::WithoutInitializing, "nbr_staged"),
                            static_cast<size_t>(owned) * kStride);
  int overflow = 0;
  Kokkos::parallel_reduce(
      "nbr::row_collect", Kokkos::RangePolicy<>(0, owned),
      KOKKOS_LAMBDA(const int p, int& over) {
        int n = 0;
        const size_t base = static_cast<size_t>(p) * kStride;
        grid.for_each_neighbor(p, [&](int q) {
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
          grid.for_each_neighbor(p, [&](int q) { index(k++) = q; });
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

template void build_neighbor_lists<2>(ConstRealField, int, double, NeighborLists&);
template void build_neighbor_lists<3>(ConstRealField, int, double, NeighborLists&);
template void brute_force_neighbor_lists<2>(ConstRealField, int, double, NeighborLists&);
template void brute_force_neighbor_lists<3>(ConstRealField, int, double, NeighborLists&);

}  // namespace meniscus::particles
