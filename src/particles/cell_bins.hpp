#pragma once
// Particle rows binned into uniform cells by a counting sort (count per cell, exclusive scan, scatter,
// then each cell's short run ordered by row so that nothing depends on thread scheduling). A query
// visits every row within `reach` cells of a point, by cell and by row within a cell; the cells of one
// line along x are adjacent in the sorted order, so each line is one contiguous run of `xs` (positions
// copied in sorted order) and the scan streams memory instead of gathering x row by row.
// The neighbour lists (neighbor_search.hpp) use cells of edge = support (reach 1); a kernel sum that
// needs no list can use smaller cells (edge = support / 2, reach 2), which visits about half as many
// candidates in 3D (125 cells of (h/2)^3 against 27 of h^3).
#include <Kokkos_Core.hpp>

#include "particles/particle_set.hpp"

namespace meniscus::particles {

template <int Dim>
struct CellBins {
  ConstRealField x;
  Kokkos::View<int*> cell_start, sorted;
  Kokkos::View<double**, Kokkos::LayoutRight> xs;  // x(sorted(s), d)
  double lower[Dim] = {};
  int ncell[Dim] = {};
  int reach = 1;
  double inv = 0;

  KOKKOS_INLINE_FUNCTION long cell_of_point(const double* xp, int* c) const {
    long k = 0, stride = 1;
    for (int d = 0; d < Dim; ++d) {
      int i = static_cast<int>((xp[d] - lower[d]) * inv);
      i = i < 0 ? 0 : (i >= ncell[d] ? ncell[d] - 1 : i);
      c[d] = i;
      k += i * stride;
      stride *= ncell[d];
    }
    return k;
  }
  KOKKOS_INLINE_FUNCTION long cell_of(const int p, int* c) const {
    double xp[Dim];
    for (int d = 0; d < Dim; ++d) xp[d] = x(p, d);
    return cell_of_point(xp, c);
  }
  // Calls f(q, r2) for every row q with r2 = |xp - x_q|^2 < h2, scanning the cells within `reach` of
  // xp's cell (the caller skips its own row if it must).
  template <class F>
  KOKKOS_INLINE_FUNCTION void for_each_near(const double* xp, const double h2, F&& f) const {
    int c[Dim];
    cell_of_point(xp, c);
    int lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (int d = 0; d < Dim; ++d) {
      lo[d] = c[d] >= reach ? c[d] - reach : 0;
      hi[d] = c[d] + reach < ncell[d] ? c[d] + reach : ncell[d] - 1;
    }
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
          if (r2 < h2) f(sorted(s), r2);
        }
      }
  }
};

// Bins rows [0, total) of x into cells of edge `edge` over their bounding box; queries then scan
// `reach` cells on each side. Rank-local.
template <int Dim>
CellBins<Dim> bin_rows_by_cell(ConstRealField x, int total, double edge, int reach);

}  // namespace meniscus::particles
