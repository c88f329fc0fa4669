#pragma once
// Quadratic B-spline weights on a node-centred lattice: node i sits at lower + i*dx. A point's
// stencil is the 3 nodes per axis around its nearest node; weights form a partition of unity,
// reproduce linear functions (sum_i w_i x_i = x) and have D_p = dx^2/4 I, which APIC relies on.
#include <Kokkos_Core.hpp>
#include "core/kmath.hpp"

namespace meniscus::grid {

template <int Dim>
struct Stencil {
  int base[Dim];      // first node index per axis
  double w[Dim][3];   // 1D weights
  double dw[Dim][3];  // 1D weight derivatives, already divided by dx

  KOKKOS_INLINE_FUNCTION void compute(const double* x, const double* lower, double inv_dx) {
    for (int d = 0; d < Dim; ++d) {
      const double xg = (x[d] - lower[d]) * inv_dx;
      const int b = static_cast<int>(kmath::floor(xg - 0.5));
      const double f = xg - b;  // in [0.5, 1.5)
      base[d] = b;
      const double a0 = 1.5 - f, a1 = f - 1.0, a2 = f - 0.5;
      w[d][0] = 0.5 * a0 * a0;
      w[d][1] = 0.75 - a1 * a1;
      w[d][2] = 0.5 * a2 * a2;
      dw[d][0] = -a0 * inv_dx;
      dw[d][1] = -2.0 * a1 * inv_dx;
      dw[d][2] = a2 * inv_dx;
    }
  }

  // Weight and gradient of the node at offsets (a,b[,c]) in the stencil.
  KOKKOS_INLINE_FUNCTION double weight(const int* o) const {
    double v = 1.0;
    for (int d = 0; d < Dim; ++d) v *= w[d][o[d]];
    return v;
  }
  KOKKOS_INLINE_FUNCTION void gradient(const int* o, double* g) const {
    for (int d = 0; d < Dim; ++d) {
      double v = dw[d][o[d]];
      for (int e = 0; e < Dim; ++e)
        if (e != d) v *= w[e][o[e]];
      g[d] = v;
    }
  }
};

// Index of the node nearest to x on one axis (the centre of the stencil).
KOKKOS_INLINE_FUNCTION int nearest_node(double x, double lower, double inv_dx) {
  return static_cast<int>(kmath::floor((x - lower) * inv_dx + 0.5));
}

// APIC inertia factor for quadratic B-splines: D_p^{-1} = 4/dx^2.
KOKKOS_INLINE_FUNCTION double apic_inverse_inertia(double dx) { return 4.0 / (dx * dx); }

}  // namespace meniscus::grid
