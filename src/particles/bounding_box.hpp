#pragma once
// Bounding box of particle rows in one max-reduction: the value holds max x_d in [0, Dim) and
// max(-x_d) in [Dim, 2 Dim), so the lower corner is -value[Dim + d]. One reducer for every method
// (diagnostics extents, neighbour-search cell grids).
#include <Kokkos_Core.hpp>

namespace meniscus::particles {

// Every row counts (the default filter).
struct AllRows {
  KOKKOS_INLINE_FUNCTION bool operator()(int) const { return true; }
};

template <int Dim, class PositionView, class Keep = AllRows>
struct BoundingBoxReducer {
  using value_type = double[];
  using size_type = int;
  size_type value_count = 2 * Dim;
  PositionView x;
  Keep keep{};  // rows for which keep(p) is false are left out
  KOKKOS_INLINE_FUNCTION void operator()(const int p, double* s) const {
    if (!keep(p)) return;
    for (int d = 0; d < Dim; ++d) {
      s[d] = s[d] > x(p, d) ? s[d] : x(p, d);
      s[Dim + d] = s[Dim + d] > -x(p, d) ? s[Dim + d] : -x(p, d);
    }
  }
  KOKKOS_INLINE_FUNCTION void join(volatile double* dst, const volatile double* src) const {
    for (int i = 0; i < 2 * Dim; ++i) dst[i] = dst[i] > src[i] ? dst[i] : src[i];
  }
  KOKKOS_INLINE_FUNCTION void init(double* dst) const {
    for (int i = 0; i < 2 * Dim; ++i) dst[i] = -1e300;
  }
};

// This rank's box of rows [0, n) with keep(p) true: b as in BoundingBoxReducer (-1e300 everywhere
// when no row is kept).
template <int Dim, class PositionView, class Keep = AllRows>
void local_bounding_box(const PositionView& x, int n, double* b, const char* label, Keep keep = Keep()) {
  BoundingBoxReducer<Dim, PositionView, Keep> reducer{2 * Dim, x, keep};
  Kokkos::parallel_reduce(label, Kokkos::RangePolicy<>(0, n), reducer, b);
}

}  // namespace meniscus::particles
