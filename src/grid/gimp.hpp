#pragma once
// Uniform GIMP shape functions (Bardenhagen & Kober 2004) with particle half-width h/4, as used by
// Yan et al. 2018 (section 3.1, eqs. 5-6): the convolution of the linear hat with a box of
// half-width h/4. In units of the cell, with xi = |x - x_I|/h,
//   S(xi) = (7 - 16 xi^2)/8      for xi <= 1/4
//         = 1 - xi               for 1/4 < xi <= 3/4
//         = (5 - 4 xi)^2/16      for 3/4 < xi <= 5/4, and 0 beyond.
// S is C1, sums to one over the nodes and reproduces linear functions. The support (5/4 h) lies in
// the 3 nodes per axis around the nearest node, so the stencil has the layout of the quadratic
// B-spline one (grid::Stencil) and every loop over stencil nodes (grid::for_each_stencil_node) works
// with either.
#include <Kokkos_Core.hpp>

#include "core/kmath.hpp"
#include "grid/bspline.hpp"

namespace meniscus::grid {

// S(xi) for xi = |x - x_I|/h >= 0.
KOKKOS_INLINE_FUNCTION double gimp_weight(double xi) {
  if (xi <= 0.25) return (7.0 - 16.0 * xi * xi) / 8.0;
  if (xi <= 0.75) return 1.0 - xi;
  if (xi <= 1.25) {
    const double a = 5.0 - 4.0 * xi;
    return a * a / 16.0;
  }
  return 0.0;
}

// dS/dxi for xi >= 0.
KOKKOS_INLINE_FUNCTION double gimp_slope(double xi) {
  if (xi <= 0.25) return -4.0 * xi;
  if (xi <= 0.75) return -1.0;
  if (xi <= 1.25) return -(5.0 - 4.0 * xi) / 2.0;
  return 0.0;
}

// Fills `st` with the GIMP weights of the point x: base = nearest node - 1 on every axis, w the 1D
// weights and dw = dN/dx (derivative with respect to the particle position, divided by dx already).
template <int Dim>
KOKKOS_INLINE_FUNCTION void compute_gimp_stencil(Stencil<Dim>& st, const double* x, const double* lower,
                                                 double inv_dx) {
  for (int d = 0; d < Dim; ++d) {
    const double xg = (x[d] - lower[d]) * inv_dx;
    const int b = static_cast<int>(kmath::floor(xg + 0.5)) - 1;
    st.base[d] = b;
    for (int k = 0; k < 3; ++k) {
      const double r = xg - (b + k);  // (x - x_I)/h
      const double xi = r < 0 ? -r : r;
      st.w[d][k] = gimp_weight(xi);
      st.dw[d][k] = (r < 0 ? -1.0 : 1.0) * gimp_slope(xi) * inv_dx;
    }
  }
}

}  // namespace meniscus::grid
