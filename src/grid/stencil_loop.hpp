#pragma once
// The 3^Dim nodes of a particle's quadratic stencil as unrolled nested loops, handing each node's
// local index, weight, weight gradient and offset r = x_i - x_p to a callback. Both transfers (P2G,
// G2P) and every later particle-grid kernel share this loop, so the index arithmetic lives once.
#include <algorithm>

#include "grid/bspline.hpp"
#include "grid/grid_field.hpp"

namespace meniscus::grid {

// The stencil's nodes with local indices lo[d] <= i_d < hi[d] on each axis (Ranged), or all 3^Dim of
// them with the loop bounds known at compile time, so that the full stencil's loops unroll as before.
template <int Dim, bool Ranged, class F>
KOKKOS_FORCEINLINE_FUNCTION void for_each_stencil_node_in(const Stencil<Dim>& st, const NodeBox<Dim>& box,
                                                          const double* lower, double dx, const double* xp,
                                                          const int* lo, const int* hi, F&& f) {
  double r[Dim][3];
  for (int d = 0; d < Dim; ++d)
    for (int k = 0; k < 3; ++k) r[d][k] = lower[d] + (st.base[d] + k) * dx - xp[d];
  const long idx0 = box.index(st.base);
  if constexpr (Dim == 2) {
    const long s1 = box.n[0];
    for (int j = Ranged ? lo[1] : 0; j < (Ranged ? hi[1] : 3); ++j)
      for (int i = Ranged ? lo[0] : 0; i < (Ranged ? hi[0] : 3); ++i) {
        const double w = st.w[0][i] * st.w[1][j];
        const double g[2] = {st.dw[0][i] * st.w[1][j], st.w[0][i] * st.dw[1][j]};
        const double rr[2] = {r[0][i], r[1][j]};
        f(idx0 + i + j * s1, w, g, rr);
      }
  } else {
    const long s1 = box.n[0], s2 = static_cast<long>(box.n[0]) * box.n[1];
    for (int k = Ranged ? lo[2] : 0; k < (Ranged ? hi[2] : 3); ++k)
      for (int j = Ranged ? lo[1] : 0; j < (Ranged ? hi[1] : 3); ++j) {
        const double wjk = st.w[1][j] * st.w[2][k];
        const double djk = st.dw[1][j] * st.w[2][k], jdk = st.w[1][j] * st.dw[2][k];
        for (int i = Ranged ? lo[0] : 0; i < (Ranged ? hi[0] : 3); ++i) {
          const double w = st.w[0][i] * wjk;
          const double g[3] = {st.dw[0][i] * wjk, st.w[0][i] * djk, st.w[0][i] * jdk};
          const double rr[3] = {r[0][i], r[1][j], r[2][k]};
          f(idx0 + i + j * s1 + k * s2, w, g, rr);
        }
      }
  }
}

template <int Dim, class F>
KOKKOS_FORCEINLINE_FUNCTION void for_each_stencil_node(const Stencil<Dim>& st, const NodeBox<Dim>& box,
                                                       const double* lower, double dx, const double* xp, F&& f) {
  for_each_stencil_node_in<Dim, false>(st, box, lower, dx, xp, nullptr, nullptr, f);
}

// As for_each_stencil_node, over the nodes of nonzero weight only. A uniform GIMP stencil
// (grid/gimp.hpp: support 5/4 h) has a zero weight at one end of an axis whenever the point lies more
// than h/4 from its nearest node, so it has 2 or 3 nodes per axis, about 16 of the 27 in 3D. A skipped
// node's weight and gradient are exactly zero, so every sum over the stencil keeps its value.
template <int Dim, class F>
KOKKOS_FORCEINLINE_FUNCTION void for_each_support_node(const Stencil<Dim>& st, const NodeBox<Dim>& box,
                                                       const double* lower, double dx, const double* xp, F&& f) {
  int lo[Dim], hi[Dim];
  for (int d = 0; d < Dim; ++d) {
    lo[d] = st.w[d][0] == 0.0 ? 1 : 0;
    hi[d] = st.w[d][2] == 0.0 ? 2 : 3;
  }
  for_each_stencil_node_in<Dim, true>(st, box, lower, dx, xp, lo, hi, f);
}

// The nodes that the stencils of points inside [lo, hi] reach, clipped to `clip` (the ghosted box);
// empty (n = 0 on every axis) when lo > hi on some axis (no points). The stencil's first node is
// monotone in x and the same for the quadratic B-spline and uniform GIMP (grid::compute_gimp_stencil),
// so the corners give the range.
template <int Dim>
NodeBox<Dim> stencil_node_box(const double* lo, const double* hi, const double* lower, double inv_dx,
                              const NodeBox<Dim>& clip) {
  NodeBox<Dim> box = clip;
  bool empty = false;
  for (int d = 0; d < Dim; ++d) empty = empty || lo[d] > hi[d];
  if (empty) {
    for (int d = 0; d < Dim; ++d) box.n[d] = 0;
    return box;
  }
  Stencil<Dim> first, last;
  first.compute(lo, lower, inv_dx);
  last.compute(hi, lower, inv_dx);
  for (int d = 0; d < Dim; ++d) {
    const int from = std::max(clip.lo[d], first.base[d]), to = std::min(clip.lo[d] + clip.n[d], last.base[d] + 3);
    box.lo[d] = from;
    box.n[d] = std::max(0, to - from);
  }
  return box;
}

}  // namespace meniscus::grid
