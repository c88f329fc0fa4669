// The incremental potential's Hessian as node-pair blocks for the assembled matrix (Chen et al.
// 2021, Sec. 3.3 and Appendix: the Hessian is sum_q grad N_i(q)^T d2e_q/dG2 grad N_j(q)). Each
// quadrature point (particle or surface sample) adds the blocks of every pair of its 3^Dim stencil
// nodes; the per-point Hessians are those linearize() stored, so the projected and the exact
// Hessian are assembled exactly as add_hessian applies them.
#include <Kokkos_ScatterView.hpp>

#include "grid/stencil_loop.hpp"
#include "methods/mpm/incremental_potential.hpp"

namespace meniscus::mpm {

namespace {

template <int Dim>
struct PointStencil {
  static constexpr int M = Dim == 2 ? 9 : 27;
  long idx[M];
  double grad[M][Dim];
  int row[M];    // the node's compact row (-1: no unknown)
  int first[M];  // its row's first entry and entry count
  int count_in_row[M];
  int count = 0;
};

// Slot (offset -2..2 per axis, axis 0 fastest) of stencil node j seen from stencil node i: the
// stencil's nodes are base + (k % 3, k / 3 % 3, k / 9) in the loop order of for_each_stencil_node.
template <int Dim>
KOKKOS_INLINE_FUNCTION int pair_slot(int i, int j) {
  int s = 0, stride = 1;
  for (int d = 0; d < Dim; ++d) {
    s += (j % 3 - i % 3 + 2) * stride;
    i /= 3;
    j /= 3;
    stride *= HessianLayout<Dim>::Span;
  }
  return s;
}

// Start of block (i, j) in the values and the stride between its rows, or -1 when not stored.
template <int Dim>
KOKKOS_INLINE_FUNCTION long block_base(const HessianLayout<Dim>& layout, const PointStencil<Dim>& ps, int i, int j,
                                       long& row_stride) {
  if (ps.row[j] < 0) return -1;
  const int e = layout.slot(ps.row[i], pair_slot<Dim>(i, j));
  if (e < 0) return -1;
  row_stride = static_cast<long>(ps.count_in_row[i]) * Dim;
  return static_cast<long>(ps.first[i]) * Dim * Dim + static_cast<long>(e - ps.first[i]) * Dim;
}

template <int Dim>
KOKKOS_INLINE_FUNCTION void collect(const HessianLayout<Dim>& layout, const grid::NodeBox<Dim>& box,
                                    const double* lower, double dx, double inv_dx, const double* q,
                                    PointStencil<Dim>& ps) {
  grid::Stencil<Dim> st;
  st.compute(q, lower, inv_dx);
  ps.count = 0;
  grid::for_each_stencil_node<Dim>(st, box, lower, dx, q, [&](long idx, double, const double* g, const double*) {
    const int k = ps.count;
    ps.idx[k] = idx;
    for (int d = 0; d < Dim; ++d) ps.grad[k][d] = g[d];
    const int r = layout.row(idx);
    ps.row[k] = r;
    ps.first[k] = r >= 0 ? layout.row_start(r) : 0;
    ps.count_in_row[k] = r >= 0 ? layout.row_start(r + 1) - ps.first[k] : 0;
    ++ps.count;
  });
}

// Blocks of a point with a general Hessian K (N x N, index a*Dim + c): with T_i[a][(b,d)] =
// sum_c dN_i[c] K[(a,c),(b,d)], the block is B_ij[a][b] = sum_d T_i[a][(b,d)] dN_j[d].
template <int Dim, class KRow, class Access>
KOKKOS_INLINE_FUNCTION void add_general(const HessianLayout<Dim>& layout, const PointStencil<Dim>& ps, const KRow& K,
                                        Access& acc) {
  constexpr int N = Dim * Dim;
  for (int i = 0; i < ps.count; ++i) {
    if (ps.row[i] < 0) continue;
    double T[Dim][N];
    for (int a = 0; a < Dim; ++a)
      for (int bd = 0; bd < N; ++bd) {
        double t = 0;
        for (int c = 0; c < Dim; ++c) t += ps.grad[i][c] * K((a * Dim + c) * N + bd);
        T[a][bd] = t;
      }
    for (int j = 0; j < ps.count; ++j) {
      long row_stride = 0;
      const long base = block_base<Dim>(layout, ps, i, j, row_stride);
      if (base < 0) continue;
      for (int a = 0; a < Dim; ++a)
        for (int b = 0; b < Dim; ++b) {
          double s = 0;
          for (int d = 0; d < Dim; ++d) s += T[a][b * Dim + d] * ps.grad[j][d];
          acc(base + a * row_stride + b) += s;
        }
    }
  }
}

}  // namespace

template <int Dim>
void IncrementalPotential<Dim>::add_hessian_blocks(const HessianLayout<Dim>& layout, Kokkos::View<double*> values) const {
  const auto x = in_.x, J = in_.J, vol = in_.volume;
  const auto mat = in_.material;
  const auto mats = in_.materials;
  const auto box = in_.gbox;
  const double dx = in_.dx, inv_dx = 1.0 / in_.dx, dt = in_.dt;
  double lower[Dim];
  for (int d = 0; d < Dim; ++d) lower[d] = in_.lower[d];
  const auto fc = fluid_curvature_;
  const auto KP = solid_K_;
  auto scatter = Kokkos::Experimental::create_scatter_view(values);
  Kokkos::parallel_for(
      "ip::hessian_blocks_particles", Kokkos::RangePolicy<>(0, in_.particles), KOKKOS_LAMBDA(const int p) {
        double q[Dim];
        for (int d = 0; d < Dim; ++d) q[d] = x(p, d);
        PointStencil<Dim> ps;
        collect<Dim>(layout, box, lower, dx, inv_dx, q, ps);
        auto acc = scatter.access();
        const physics::Material& m = mats(mat(p));
        if (m.model == physics::MaterialModel::FixedCorotated) {
          auto row = Kokkos::subview(KP, p, Kokkos::ALL);
          add_general<Dim>(layout, ps, row, acc);
          return;
        }
        // Fluid: S = eta' (dG + dG^T) + c tr(dG) I gives
        // B_ij[a][b] = eta' (delta_ab dN_i.dN_j + dN_i[b] dN_j[a]) + c dN_i[a] dN_j[b].
        const double visc = m.viscosity * J(p, 0) * vol(p, 0) * dt, c = fc(p);
        for (int i = 0; i < ps.count; ++i) {
          if (ps.row[i] < 0) continue;
          for (int j = 0; j < ps.count; ++j) {
            long row_stride = 0;
            const long base = block_base<Dim>(layout, ps, i, j, row_stride);
            if (base < 0) continue;
            double gg = 0;
            for (int d = 0; d < Dim; ++d) gg += ps.grad[i][d] * ps.grad[j][d];
            for (int a = 0; a < Dim; ++a)
              for (int b = 0; b < Dim; ++b)
                acc(base + a * row_stride + b) += visc * ((a == b ? gg : 0.0) + ps.grad[i][b] * ps.grad[j][a]) +
                                                  c * ps.grad[i][a] * ps.grad[j][b];
          }
        }
      });
  const auto s = in_.sample_position;
  const auto KS = surface_K_;
  Kokkos::parallel_for(
      "ip::hessian_blocks_surface", Kokkos::RangePolicy<>(0, s.extent(0)), KOKKOS_LAMBDA(const int r) {
        double q[Dim];
        for (int d = 0; d < Dim; ++d) q[d] = s(r, d);
        PointStencil<Dim> ps;
        collect<Dim>(layout, box, lower, dx, inv_dx, q, ps);
        auto acc = scatter.access();
        auto row = Kokkos::subview(KS, r, Kokkos::ALL);
        add_general<Dim>(layout, ps, row, acc);
      });
  Kokkos::Experimental::contribute(values, scatter);
}

template void IncrementalPotential<2>::add_hessian_blocks(const HessianLayout<2>&, Kokkos::View<double*>) const;
template void IncrementalPotential<3>::add_hessian_blocks(const HessianLayout<3>&, Kokkos::View<double*>) const;

}  // namespace meniscus::mpm
