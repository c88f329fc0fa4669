#pragma once
// Bounding box of particle rows in one max-reduction: the value holds max x_d in [0, Dim) and
// max(-x_d) in [Dim, 2 Dim), so the lower corner is -value[Dim + d]. One reducer for every method
// (diagnostics extents, neighbour-search cell grids).
#include <Kokkos_Core.hpp>

namespace meniscus::particles {

// Every row in box 0 (the default: one box).
struct OneBox {
  KOKKOS_INLINE_FUNCTION int operator()(int) const { return 0; }
};

// `boxes` boxes at once: row p goes into box slot(p) (left out where slot(p) < 0); value_count is
// 2 Dim boxes, box b's values at [2 Dim b, 2 Dim (b + 1)).
template <int Dim, class PositionView, class Slot = OneBox>
struct BoundingBoxReducer {
  using value_type = double[];
  using size_type = int;
  size_type value_count = 2 * Dim;
  PositionView x;
  Slot slot{};
  KOKKOS_INLINE_FUNCTION void operator()(const int p, double* v) const {
    const int b = slot(p);
    if (b < 0) return;
    double* s = v + 2 * Dim * b;
    for (int d = 0; d < Dim; ++d) {
      s[d] = s[d] > x(p, d) ? s[d] : x(p, d);
      s[Dim + d] = s[Dim + d] > -x(p, d) ? s[Dim + d] : -x(p, d);
    }
  }
  KOKKOS_INLINE_FUNCTION void join(volatile double* dst, const volatile double* src) const {
    for (int i = 0; i < value_count; ++i) dst[i] = dst[i] > src[i] ? dst[i] : src[i];
  }
  KOKKOS_INLINE_FUNCTION void init(double* dst) const {
    for (int i = 0; i < value_count; ++i) dst[i] = -1e300;
  }
};

// This rank's box of rows [0, n): b as in BoundingBoxReducer (-1e300 everywhere when n = 0).
template <int Dim, class PositionView>
void local_bounding_box(const PositionView& x, int n, double* b, const char* label) {
  BoundingBoxReducer<Dim, PositionView> reducer{2 * Dim, x};
  Kokkos::parallel_reduce(label, Kokkos::RangePolicy<>(0, n), reducer, b);
}

// This rank's boxes of rows [0, n) sorted into `boxes` boxes by slot(p) (2 Dim boxes values in b, each
// box as above; -1e300 where a box has no row).
template <int Dim, class PositionView, class Slot>
void local_bounding_boxes(const PositionView& x, int n, int boxes, double* b, const char* label, Slot slot) {
  BoundingBoxReducer<Dim, PositionView, Slot> reducer{2 * Dim * boxes, x, slot};
  Kokkos::parallel_reduce(label, Kokkos::RangePolicy<>(0, n), reducer, b);
}

}  // namespace meniscus::particles
