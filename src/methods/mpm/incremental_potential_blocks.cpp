// The incremental potential's Hessian as node-pair blocks for the assembled matrix (Chen et al.
// 2021, Sec. 3.3 and Appendix: the Hessian is sum_q grad N_i(q)^T d2e_q/dG2 grad N_j(q)). Each
// quadrature point (particle or surface sample) adds the blocks of every pair of its 3^Dim stencil
// nodes; the per-point Hessians are those linearize() stored, so the projected and the exact
// Hessian are assembled exactly as add_hessian applies them.
#include <Kokkos_Sort.hpp>
#include <vector>

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

// The blocks of the points that share one stencil (their base node), summed before they are
// scattered: B holds block (i, j) at ((i * M + j) * Dim + a) * Dim + b for j >= i. Points sorted by
// stencil (8 particles per cell) then write each block of the global array once per cell instead
// of once per point; the scattered writes into the value array were the kernel's cost.
template <int Dim>
struct CellBlocks {
  static constexpr int M = PointStencil<Dim>::M;
  double B[M * M * Dim * Dim];
  KOKKOS_INLINE_FUNCTION double& at(int i, int j, int a, int b) { return B[((i * M + j) * Dim + a) * Dim + b]; }
  KOKKOS_INLINE_FUNCTION void clear(const PointStencil<Dim>& ps) {
    for (int i = 0; i < M; ++i) {
      if (ps.row[i] < 0) continue;
      for (int j = i; j < M; ++j)
        for (int ab = 0; ab < Dim * Dim; ++ab) B[(i * M + j) * Dim * Dim + ab] = 0;
    }
  }
  // Scatters the summed blocks (and their transposes below the diagonal) into the value array, row
  // by row: row i takes block (i, j) for j >= i and (j, i)^T for j < i, so that a row's entries
  // (one slot lookup in that row each) are written together. Writing each pair's block and its
  // transpose at once instead sent the transposes to 27 different rows per stencil node and looked
  // their entries up in those rows' slots. Each entry receives the same single sum per cell either
  // way, so the values are the same bit for bit.
  template <class Access>
  KOKKOS_INLINE_FUNCTION void flush(const HessianLayout<Dim>& layout, const PointStencil<Dim>& ps, Access& acc) {
    for (int i = 0; i < M; ++i) {
      if (ps.row[i] < 0) continue;
      const long row_stride = static_cast<long>(ps.count_in_row[i]) * Dim;
      const long first = ps.first[i];
      for (int j = 0; j < M; ++j) {
        if (ps.row[j] < 0) continue;
        const int e = layout.slot(ps.row[i], pair_slot<Dim>(i, j));
        if (e < 0) continue;
        const long base = first * Dim * Dim + (e - first) * Dim;
        if (j >= i) {
          for (int a = 0; a < Dim; ++a)
            for (int b = 0; b < Dim; ++b) acc(base + a * row_stride + b) += at(i, j, a, b);
        } else {
          for (int a = 0; a < Dim; ++a)
            for (int b = 0; b < Dim; ++b) acc(base + a * row_stride + b) += at(j, i, b, a);
        }
      }
    }
  }
};

// A point with a general Hessian K (N x N, index a*Dim + c, symmetric): with
// T_i[a][(b,d)] = sum_c dN_i[c] K[(a,c),(b,d)], block B_ij[a][b] = sum_d T_i[a][(b,d)] dN_j[d].
// The loops run over all M stencil nodes (collect() always lists M: for_each_stencil_node visits
// 3^Dim nodes). With the run-time bound ps.count in the triangular inner loop, GCC 12 at -O3 warned
// "iteration 1 invokes undefined behavior" on the outer loop (-Waggressive-loop-optimizations):
// no access was out of bounds (count == M, and AssembledHessianMatchesProduct3D matched the
// matrix-free product to 1e-12); compiling the kernel with M as the inner bound alone removes the
// warning, a local copy of the count does not, so it came from GCC's analysis of the nested loop
// with an unknown bound, not from the code. The constant bound states what holds.
template <int Dim, class KRow>
KOKKOS_INLINE_FUNCTION void add_general(const PointStencil<Dim>& ps, const KRow& K, CellBlocks<Dim>& cb) {
  constexpr int N = Dim * Dim, M = PointStencil<Dim>::M;
  for (int i = 0; i < M; ++i) {
    if (ps.row[i] < 0) continue;
    double T[Dim][N];
    for (int a = 0; a < Dim; ++a)
      for (int bd = 0; bd < N; ++bd) {
        double t = 0;
        for (int c = 0; c < Dim; ++c) t += ps.grad[i][c] * K((a * Dim + c) * N + bd);
        T[a][bd] = t;
      }
    for (int j = i; j < M; ++j) {
      if (ps.row[j] < 0) continue;
      for (int a = 0; a < Dim; ++a)
        for (int b = 0; b < Dim; ++b) {
          double s = 0;
          for (int d = 0; d < Dim; ++d) s += T[a][b * Dim + d] * ps.grad[j][d];
          cb.at(i, j, a, b) += s;
        }
    }
  }
}

// A fluid particle: S = eta' (dG + dG^T) + c tr(dG) I gives
// B_ij[a][b] = eta' (delta_ab dN_i.dN_j + dN_i[b] dN_j[a]) + c dN_i[a] dN_j[b].
template <int Dim>
KOKKOS_INLINE_FUNCTION void add_fluid(const PointStencil<Dim>& ps, double visc, double c, CellBlocks<Dim>& cb) {
  if (visc == 0) {
    // An inviscid particle (the droplet decks): only the rank-one pressure part c dN_i dN_j^T, half
    // the work of the general form (whose viscous terms would add zeros).
    // Blocks (i, j >= i) of one i are contiguous in the buffer; the columns j without an unknown
    // are summed too (clear() zeroed them, flush() skips them), so the loop has no branch.
    constexpr int M = PointStencil<Dim>::M;
    for (int i = 0; i < M; ++i) {
      if (ps.row[i] < 0) continue;
      double ca[Dim];
      for (int a = 0; a < Dim; ++a) ca[a] = c * ps.grad[i][a];
      double* out = &cb.at(i, i, 0, 0);
      for (int j = i; j < M; ++j, out += Dim * Dim)
        for (int a = 0; a < Dim; ++a)
          for (int b = 0; b < Dim; ++b) out[a * Dim + b] += ca[a] * ps.grad[j][b];
    }
    return;
  }
  for (int i = 0; i < ps.count; ++i) {
    if (ps.row[i] < 0) continue;
    for (int j = i; j < ps.count; ++j) {
      if (ps.row[j] < 0) continue;
      double gg = 0;
      for (int d = 0; d < Dim; ++d) gg += ps.grad[i][d] * ps.grad[j][d];
      for (int a = 0; a < Dim; ++a)
        for (int b = 0; b < Dim; ++b)
          cb.at(i, j, a, b) += visc * ((a == b ? gg : 0.0) + ps.grad[i][b] * ps.grad[j][a]) + c * ps.grad[i][a] * ps.grad[j][b];
    }
  }
}

// Points in the order of their stencil's base node (ties by index, so the order and the sums are
// reproducible): order(k) is the k-th point.
template <int Dim, class Point>
Kokkos::View<long*> stencil_order(const Point& point, long n, const grid::NodeBox<Dim>& box, const double* lower_in,
                                  double inv_dx) {
  Kokkos::View<long*> key("ip::stencil_key", n);
  double lower[Dim];
  for (int d = 0; d < Dim; ++d) lower[d] = lower_in[d];
  Kokkos::parallel_for(
      "ip::stencil_keys", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const long p) {
        double q[Dim];
        point.position(p, q);
        grid::Stencil<Dim> st;
        st.compute(q, lower, inv_dx);
        key(p) = box.index(st.base) * n + p;
      });
  Kokkos::sort(key);
  Kokkos::parallel_for(
      "ip::stencil_order", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const long k) { key(k) = key(k) % n; });
  return key;
}

// Sums the blocks of the points order(k) into the value array. Cells (the points of one stencil,
// consecutive in `order`) are grouped in tiles of 4^Dim base nodes, and the tiles in 2^Dim colours
// by the parity of their coordinates: two tiles of one colour lie at least one tile apart along some
// axis, so their cells' bases differ by 5 nodes or more there, their stencils (3 nodes wide) and
// hence the rows and entries their blocks go to are disjoint, and each colour's tiles add to the
// array directly, one tile per work item with one cell buffer, its cells in stencil order (the
// neighbouring cells of a tile write neighbouring entries). A ScatterView instead kept one copy of
// the array per thread: 103 MB at dx = 1/63 on the 3D impact, twice the matrix itself; colouring
// single cells (3^Dim colours) lost the neighbouring writes and cost 1.7x the kernel time. The sums
// no longer depend on the number of threads. point(p, ps, cb) adds point p's blocks.
template <int Dim, class Point>
void scatter_point_blocks(const char* name, const HessianLayout<Dim>& layout, const grid::NodeBox<Dim>& box,
                          const double* lower_in, double dx, const Kokkos::View<long*>& order,
                          const Kokkos::View<double*>& values, const Point& point) {
  const long n = static_cast<long>(order.extent(0));
  if (n == 0) return;
  double lower[Dim];
  for (int d = 0; d < Dim; ++d) lower[d] = lower_in[d];
  const double inv_dx = 1.0 / dx;
  constexpr int Tile = 4, Colours = 1 << Dim;
  long tiles = 1, tiles_per_axis[Dim];
  for (int d = 0; d < Dim; ++d) {
    tiles_per_axis[d] = box.n[d] / Tile + 3;  // bases from box.lo - Tile on
    tiles *= tiles_per_axis[d];
  }
  // Each point's cell (base node) and the colour and tile of that cell.
  Kokkos::View<long*> base("ip::cell_base", n), tile("ip::cell_tile", n);
  Kokkos::parallel_for(
      "ip::cell_bases", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const long k) {
        double q[Dim];
        point.position(order(k), q);
        grid::Stencil<Dim> st;
        st.compute(q, lower, inv_dx);
        base(k) = box.index(st.base);
        long t = 0;
        int colour = 0;
        for (int d = Dim - 1; d >= 0; --d) {
          const long td = (st.base[d] - box.lo[d] + Tile) / Tile;
          t = t * tiles_per_axis[d] + td;
          colour = 2 * colour + static_cast<int>(td % 2);
        }
        tile(k) = colour * tiles + t;
      });
  long cells = 0;
  Kokkos::parallel_reduce(
      "ip::cell_count", Kokkos::RangePolicy<>(0, n),
      KOKKOS_LAMBDA(const long k, long& acc) { acc += (k == 0 || base(k) != base(k - 1)) ? 1 : 0; }, cells);
  // Cells sorted by (colour, tile, stencil order): key = (colour * tiles + tile) * cells + cell.
  Kokkos::View<long*> cell_start("ip::cell_start", cells + 1), key("ip::cell_key", cells);
  Kokkos::parallel_scan(
      "ip::cell_starts", Kokkos::RangePolicy<>(0, n),
      KOKKOS_LAMBDA(const long k, long& upd, const bool final) {
        if (k == 0 || base(k) != base(k - 1)) {
          if (final) {
            cell_start(upd) = k;
            key(upd) = tile(k) * cells + upd;
          }
          upd += 1;
        }
        if (final && k == n - 1) cell_start(cells) = n;
      });
  Kokkos::sort(key);
  // Work items: runs of cells of one tile; per colour, a range of them.
  auto key_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), key);
  std::vector<long> item_start, colour_start(Colours + 1, 0);
  for (long i = 0; i < cells; ++i)
    if (i == 0 || key_host(i) / cells != key_host(i - 1) / cells) {
      const long c = key_host(i) / cells / tiles;
      for (long cc = c + 1; cc <= Colours; ++cc) colour_start[cc] = static_cast<long>(item_start.size()) + 1;
      item_start.push_back(i);
    }
  item_start.push_back(cells);
  Kokkos::View<long*> items("ip::tile_items", item_start.size());
  Kokkos::deep_copy(items, Kokkos::View<long*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                               item_start.data(), item_start.size()));
  for (int c = 0; c < Colours; ++c) {
    if (colour_start[c + 1] == colour_start[c]) continue;
    Kokkos::parallel_for(
        name, Kokkos::RangePolicy<>(colour_start[c], colour_start[c + 1]), KOKKOS_LAMBDA(const long it) {
          CellBlocks<Dim> cb;
          PointStencil<Dim> ps;
          for (long i = items(it); i < items(it + 1); ++i) {
            const long cell_index = key(i) % cells;
            for (long k = cell_start(cell_index); k < cell_start(cell_index + 1); ++k) {
              const long p = order(k);
              double q[Dim];
              point.position(p, q);
              collect<Dim>(layout, box, lower, dx, inv_dx, q, ps);
              if (k == cell_start(cell_index)) cb.clear(ps);
              point.add(p, ps, cb);
            }
            cb.flush(layout, ps, values);
          }
        });
  }
}

template <int Dim>
struct ParticleBlocks {
  particles::RealField x, J, vol;
  particles::IntField mat;
  Kokkos::View<physics::Material*> mats;
  Kokkos::View<double*> fc;
  Kokkos::View<double**, Kokkos::LayoutRight> KP;
  double dt;
  KOKKOS_INLINE_FUNCTION void position(long p, double* q) const {
    for (int d = 0; d < Dim; ++d) q[d] = x(p, d);
  }
  KOKKOS_INLINE_FUNCTION void add(long p, const PointStencil<Dim>& ps, CellBlocks<Dim>& cb) const {
    const physics::Material& m = mats(mat(p));
    if (m.model == physics::MaterialModel::FixedCorotated) {
      add_general<Dim>(ps, Kokkos::subview(KP, p, Kokkos::ALL), cb);
      return;
    }
    add_fluid<Dim>(ps, m.viscosity * J(p, 0) * vol(p, 0) * dt, fc(p), cb);
  }
};

// A 3D surface sample, whose K = Q^T K6 Q lives on the sample's two tangents t1, t2
// (physics/smoothed_surface_energy.hpp): with h_i[s] = dN_i . t_s,
// B_ij[a][b] = sum_{s,u} h_i[s] K6[(a,s),(b,u)] h_j[u], so a block costs 18 multiply-adds instead of
// add_general's 27, and T_i 36 instead of 81. KT: K6 (36 numbers) then t1, t2.
template <class KRow>
KOKKOS_INLINE_FUNCTION void add_tangential(const PointStencil<3>& ps, const KRow& KT, CellBlocks<3>& cb) {
  constexpr int M = PointStencil<3>::M;
  double h[M][2];
  for (int j = 0; j < M; ++j)
    for (int u = 0; u < 2; ++u)
      h[j][u] = ps.grad[j][0] * KT(36 + 3 * u) + ps.grad[j][1] * KT(36 + 3 * u + 1) + ps.grad[j][2] * KT(36 + 3 * u + 2);
  for (int i = 0; i < M; ++i) {
    if (ps.row[i] < 0) continue;
    double T[3][6];  // T[a][b * 2 + u] = sum_s h_i[s] K6[(a,s),(b,u)]
    for (int a = 0; a < 3; ++a)
      for (int bu = 0; bu < 6; ++bu) T[a][bu] = h[i][0] * KT((a * 2) * 6 + bu) + h[i][1] * KT((a * 2 + 1) * 6 + bu);
    for (int j = i; j < M; ++j) {
      if (ps.row[j] < 0) continue;
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) cb.at(i, j, a, b) += T[a][b * 2] * h[j][0] + T[a][b * 2 + 1] * h[j][1];
    }
  }
}

template <int Dim>
struct SampleBlocks {
  Kokkos::View<double**, Kokkos::LayoutRight> s, KS, KT;
  KOKKOS_INLINE_FUNCTION void position(long r, double* q) const {
    for (int d = 0; d < Dim; ++d) q[d] = s(r, d);
  }
  KOKKOS_INLINE_FUNCTION void add(long r, const PointStencil<Dim>& ps, CellBlocks<Dim>& cb) const {
    if constexpr (Dim == 3) add_tangential(ps, Kokkos::subview(KT, r, Kokkos::ALL), cb);
    else add_general<Dim>(ps, Kokkos::subview(KS, r, Kokkos::ALL), cb);
  }
};

// Particles and surface samples in one index space (the particles first), so that one pass adds
// both: a cell's particles and samples are summed into one buffer and the value array is written
// once per cell. Two passes (particles, then samples) wrote the 5^Dim-block value array twice, and
// those scattered writes were most of both kernels' time (3D impact at dx = 1/63: 15-17 % of a step's
// core time each, perf).
template <int Dim>
struct PointBlocks {
  ParticleBlocks<Dim> particles;
  SampleBlocks<Dim> samples;
  long np;
  KOKKOS_INLINE_FUNCTION void position(long k, double* q) const {
    if (k < np) particles.position(k, q);
    else samples.position(k - np, q);
  }
  KOKKOS_INLINE_FUNCTION void add(long k, const PointStencil<Dim>& ps, CellBlocks<Dim>& cb) const {
    if (k < np) particles.add(k, ps, cb);
    else samples.add(k - np, ps, cb);
  }
};

}  // namespace

template <int Dim>
void IncrementalPotential<Dim>::add_hessian_blocks(const HessianLayout<Dim>& layout,
                                                  const Kokkos::View<double*>& values) const {
  // The points do not move within a step: their order by stencil is found once per potential.
  // Within a cell the particles come first (lower indices), then the samples.
  const double inv_dx = 1.0 / in_.dx;
  const long np = static_cast<long>(in_.particles), ns = static_cast<long>(in_.sample_position.extent(0));
  const PointBlocks<Dim> points{ParticleBlocks<Dim>{in_.x, in_.J, in_.volume, in_.material, in_.materials,
                                                    fluid_curvature_, solid_K_, in_.dt},
                                SampleBlocks<Dim>{in_.sample_position, surface_K_, surface_tangent_K_}, np};
  if (static_cast<long>(point_order_.extent(0)) != np + ns)
    point_order_ = stencil_order<Dim>(points, np + ns, in_.gbox, in_.lower, inv_dx);
  scatter_point_blocks<Dim>("ip::hessian_blocks", layout, in_.gbox, in_.lower, in_.dx, point_order_, values, points);
}

template void IncrementalPotential<2>::add_hessian_blocks(const HessianLayout<2>&, const Kokkos::View<double*>&) const;
template void IncrementalPotential<3>::add_hessian_blocks(const HessianLayout<3>&, const Kokkos::View<double*>&) const;

}  // namespace meniscus::mpm
