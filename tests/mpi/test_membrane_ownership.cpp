// The distributed layout of the membrane (2D: membrane_ownership.hpp; 3D: local_triangle_membrane):
// each rank owns the vertices in its MAC cells and holds ghost copies of their one ring (2D: segment
// neighbours); after the vertices move, the
// migration hands each vertex to the rank owning its new cell (ghost positions refreshed from their
// owners through the shared vertex halo of triangle_membrane.hpp). Checked against the whole polyline
// moved on every rank: the per-rank owned counts sum to the total, each owned vertex lies in one of
// the rank's own cells (read from the DMDA box, not from the owner map), the ghosts are exactly the
// one ring's other ends, every local copy holds the whole polyline's bits, and the gathered
// polyline (global-id order) equals the whole one; remeshed as a gathered chain and split again, it
// has the layout of the whole polyline remeshed. The same for the 3D triangle layout (no remeshing).
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "methods/membrane/coupled_solve.hpp"
#include "methods/membrane/mac_grid.hpp"
#include "methods/membrane/membrane_ownership.hpp"
#include "methods/membrane/remesh.hpp"
#include "methods/membrane/triangle_interpolation.hpp"
#include "methods/membrane/triangle_membrane.hpp"

namespace mm = meniscus::membrane;

namespace {

template <class V>
auto host(const V& v) {
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
}

// Rotates vertices [0, count) of the positions `xv` (n x 2 or n x 3) by `angle` in the plane of
// axes a, b about the box centre 0.5 (the same bits for a vertex wherever it is).
template <class X>
void rotate(const X& xv, long count, double angle, int a = 0, int b = 1) {
  auto x = host(xv);
  const double c = std::cos(angle), s = std::sin(angle);
  for (long i = 0; i < count; ++i) {
    const double ra = x(i, a) - 0.5, rb = x(i, b) - 0.5;
    x(i, a) = 0.5 + (c * ra - s * rb);
    x(i, b) = 0.5 + (s * ra + c * rb);
  }
  Kokkos::deep_copy(xv, x);
}

// Owned vertices of a layout (positions `x`, rows [0, owned)) lie in this rank's DMDA box.
template <int Dim, class X>
void expect_in_own_cells(const X& x, long owned, const meniscus::grid::Decomposition<Dim>& dec) {
  for (long i = 0; i < owned; ++i)
    for (int d = 0; d < Dim; ++d) {
      const int c = static_cast<int>(std::floor((x(i, d) - dec.lower()[d]) / dec.dx()));
      EXPECT_GE(c, dec.owned_lo()[d]) << "vertex " << i << " axis " << d;
      EXPECT_LT(c, dec.owned_hi()[d]) << "vertex " << i << " axis " << d;
    }
}

// The sum of `mine` over the ranks.
long total(long mine) {
  long sum = 0;
  MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  return sum;
}

// Asserts the layout of `lp` against `whole` (global id = index); returns this rank's owned count.
long expect_layout(const mm::LocalPolyline& lp, const mm::Polyline& whole, const meniscus::grid::Decomposition<2>& dec) {
  const auto wx = host(whole.x), wv = host(whole.v), lx = host(lp.m.x), lv = host(lp.m.v);
  const auto wk = host(whole.kind), lk = host(lp.m.kind);
  const auto ws = host(whole.seg), ls = host(lp.m.seg);
  std::set<long> owned, ghosts;
  for (long i = 0; i < lp.m.vertices(); ++i) {
    const long g = lp.gid[i];
    for (int d = 0; d < 2; ++d) {
      EXPECT_EQ(lx(i, d), wx(g, d)) << "vertex " << g;
      EXPECT_EQ(lv(i, d), wv(g, d)) << "vertex " << g;
    }
    EXPECT_EQ(lk(i), wk(g));
    if (i >= lp.owned) {
      ghosts.insert(g);
      continue;
    }
    owned.insert(g);
  }
  expect_in_own_cells(lx, lp.owned, dec);
  EXPECT_EQ(static_cast<long>(owned.size()), lp.owned);
  // The one ring: the other ends of every whole-polyline segment with an owned end.
  std::set<long> ring;
  std::set<std::pair<long, long>> segs;
  for (long e = 0; e < whole.segments(); ++e) {
    const long a = ws(e, 0), b = ws(e, 1);
    if (!owned.count(a) && !owned.count(b)) continue;
    segs.insert({a, b});
    if (!owned.count(a)) ring.insert(a);
    if (!owned.count(b)) ring.insert(b);
  }
  EXPECT_EQ(ghosts, ring);
  std::set<std::pair<long, long>> local_segs;
  for (long e = 0; e < lp.m.segments(); ++e) local_segs.insert({lp.gid[ls(e, 0)], lp.gid[ls(e, 1)]});
  EXPECT_EQ(local_segs, segs);
  for (size_t q = 0; q < lp.ghost_owner.size(); ++q) {
    const double p[2] = {lx(lp.owned + q, 0), lx(lp.owned + q, 1)};
    EXPECT_EQ(lp.ghost_owner[q], mm::cell_owner(dec, p));
    EXPECT_NE(lp.ghost_owner[q], dec.rank());
  }
  return lp.owned;
}

}  // namespace

// A perturbed drop (160 vertices, 24^2 cells) turned a quarter turn in 8 steps (up to 1.6 cells a step at
// the rim): the layout holds after every migration and the vertices change ranks (from 2 ranks on).
TEST(MembraneOwnership, PolylineVerticesMigrateWithTheirCells) {
  const double lower[2] = {0, 0};
  const int cells[2] = {24, 24};
  mm::MacGrid grid(MPI_COMM_WORLD, lower, cells, 1.0 / 24, "test");
  const auto& dec = grid.decomposition();
  const mm::Polyline whole = mm::make_circle(0.5, 0.5, 0.3, 160, 0.1);
  {  // velocities and kinds as data to carry along
    auto v = host(whole.v);
    auto k = host(whole.kind);
    for (long i = 0; i < whole.vertices(); ++i) {
      v(i, 0) = 1.0 + i;
      v(i, 1) = -0.5 * i;
      k(i) = i % 3 == 0 ? mm::kWallX : mm::kFree;
    }
    Kokkos::deep_copy(whole.v, v);
    Kokkos::deep_copy(whole.kind, k);
  }
  mm::LocalPolyline lp = mm::distribute_polyline(whole, dec);
  long moved = 0;
  EXPECT_EQ(total(expect_layout(lp, whole, dec)), whole.vertices());
  for (int step = 0; step < 8; ++step) {
    const std::set<long> before(lp.gid.begin(), lp.gid.begin() + lp.owned);
    rotate(whole.x, whole.vertices(), M_PI / 16);
    // Owned vertices move; the ghosts get this step's positions from their owners.
    rotate(lp.m.x, lp.owned, M_PI / 16);
    mm::update_ghosts(mm::make_vertex_halo(lp.gid.data(), lp.owned, lp.ghost_owner, MPI_COMM_WORLD), lp.m.x,
                      MPI_COMM_WORLD);
    mm::migrate_polyline(lp, dec);
    EXPECT_EQ(total(expect_layout(lp, whole, dec)), whole.vertices()) << "step " << step;
    for (long i = 0; i < lp.owned; ++i) moved += !before.count(lp.gid[i]);
  }
  const long arrivals = total(moved);
  if (dec.size() > 1) EXPECT_GT(arrivals, 20);  // migration was exercised
  else EXPECT_EQ(arrivals, 0);
  // Output order: the gathered polyline is the whole one, bit for bit, at every rank count.
  const mm::Polyline g = mm::gather_polyline(lp, dec);
  ASSERT_EQ(g.vertices(), whole.vertices());
  ASSERT_EQ(g.segments(), whole.segments());
  const auto gx = host(g.x), wx = host(whole.x), gv = host(g.v), wv = host(whole.v);
  const auto gs = host(g.seg), ws = host(whole.seg);
  for (long i = 0; i < g.vertices(); ++i)
    for (int d = 0; d < 2; ++d) {
      EXPECT_EQ(gx(i, d), wx(i, d));
      EXPECT_EQ(gv(i, d), wv(i, d));
    }
  for (long e = 0; e < g.segments(); ++e)
    for (int c = 0; c < 2; ++c) EXPECT_EQ(gs(e, c), ws(e, c));
  // The remeshing rule: the gathered chain is remeshed as on one rank and split again by cell.
  mm::Polyline gathered = g, reference = whole;
  const long splits = mm::remesh_chain(gathered, true, 0.007).splits;
  mm::remesh_chain(reference, true, 0.007);
  EXPECT_GT(splits, 50);
  lp = mm::distribute_polyline(gathered, dec);
  EXPECT_EQ(total(expect_layout(lp, reference, dec)), whole.vertices() + splits);
  if (dec.rank() == 0)
    std::printf("membrane ownership: %ld vertex arrivals at other ranks over 8 steps; %ld splits when remeshed\n",
                arrivals, splits);
}

namespace {
// The membrane of inputs/membrane-drop-3d.yaml (icosphere of 10,242 vertices, R = 0.3) on its 32^3
// MAC grid split over the world, and the rank owning each vertex's cell.
struct DropOnGrid {
  const double lower[3] = {0, 0, 0};
  const int cells[3] = {32, 32, 32};
  const double dx = 1.0 / 32;
  mm::MacGrid3 grid{MPI_COMM_WORLD, lower, cells, dx, "test"};
  const meniscus::geometry::TriangleMesh mesh = mm::make_icosphere({0.5, 0.5, 0.5}, 0.3, 5);
  const mm::TriangleMembrane whole = mm::make_triangle_membrane(mesh);
  std::vector<int> owner;
  DropOnGrid() {
    for (const auto& v : mesh.vertices) owner.push_back(mm::cell_owner(grid.decomposition(), v.data()));
  }
};

// The 3D layout `part` against the whole mesh `whole` (moved the same way): owned vertices in the
// rank's cells, ghosts exactly the other corners of the triangles with an owned corner, the
// triangles those (same corner order), owned triangles those whose lowest global id is owned here,
// every local copy with the whole's bits. Returns this rank's owned vertex and triangle counts.
std::pair<long, long> expect_layout_3d(const mm::TriangleMembrane& part, const mm::TriangleMembrane& whole,
                                       const meniscus::grid::Decomposition<3>& dec) {
  const auto px = host(part.x), wx = host(whole.x);
  const auto pt = host(part.tri), wt = host(whole.tri);
  const auto pg = host(part.gid);
  expect_in_own_cells(px, part.owned_vertices, dec);
  std::set<long> owned, ghosts, ring;
  for (long i = 0; i < part.vertices(); ++i) {
    for (int d = 0; d < 3; ++d) EXPECT_EQ(px(i, d), wx(pg(i), d)) << "vertex " << pg(i);
    (i < part.owned_vertices ? owned : ghosts).insert(pg(i));
  }
  std::set<std::array<long, 3>> tris, expected;
  long owned_tris = 0;
  for (long t = 0; t < part.triangles(); ++t) {
    const std::array<long, 3> g = {pg(pt(t, 0)), pg(pt(t, 1)), pg(pt(t, 2))};
    tris.insert(g);
    const bool mine = owned.count(std::min({g[0], g[1], g[2]})) > 0;
    EXPECT_EQ(mine, t < part.owned_triangles) << "triangle " << t;
    owned_tris += mine;
  }
  for (long t = 0; t < whole.triangles(); ++t) {
    const std::array<long, 3> g = {wt(t, 0), wt(t, 1), wt(t, 2)};
    if (!owned.count(g[0]) && !owned.count(g[1]) && !owned.count(g[2])) continue;
    expected.insert(g);
    for (long v : g)
      if (!owned.count(v)) ring.insert(v);
  }
  EXPECT_EQ(tris, expected);
  EXPECT_EQ(ghosts, ring);
  for (size_t q = 0; q < part.ghost_owner.size(); ++q) {
    const long i = part.owned_vertices + static_cast<long>(q);
    const double p[3] = {px(i, 0), px(i, 1), px(i, 2)};
    EXPECT_EQ(part.ghost_owner[q], mm::cell_owner(dec, p));
  }
  return {part.owned_vertices, owned_tris};
}
}  // namespace

// 3D: the membrane of inputs/membrane-drop-3d.yaml (icosphere of 10,242 vertices, R = 0.3, 32^3
// cells) split by cell ownership, then turned in 8 steps by pi/16 about x and pi/16 about z each
// (up to 1.9 cells per rotation) with a migration after each: the layout holds, vertices
// change ranks, and the owned rows of the capillary force equal the whole membrane's. Each rank
// stores about total / ranks vertices plus its ghosts instead of the whole membrane.
TEST(MembraneOwnership, TriangleVerticesMigrateWithTheirCells) {
  const DropOnGrid drop;
  const auto& dec = drop.grid.decomposition();
  const auto& mesh = drop.mesh;
  const long n = static_cast<long>(mesh.vertices.size());
  const mm::TriangleMembrane& whole = drop.whole;
  const std::vector<int>& owner = drop.owner;
  mm::TriangleMembrane part = mm::local_triangle_membrane(mesh, owner, dec.rank());
  auto [v0, t0] = expect_layout_3d(part, whole, dec);
  EXPECT_EQ(total(v0), n);
  EXPECT_EQ(total(t0), whole.triangles());
  long most = part.vertices();  // the fullest rank's vertices (owned + ghosts) at the start
  MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  long moved = 0;
  for (int step = 0; step < 8; ++step) {
    auto hg = host(part.gid);
    const std::set<long> before(hg.data(), hg.data() + part.owned_vertices);
    for (int a = 0; a < 2; ++a) {  // about x, then about z: every axis's cuts are crossed
      rotate(whole.x, whole.vertices(), M_PI / 16, a + 1, (a + 2) % 3);
      rotate(part.x, part.owned_vertices, M_PI / 16, a + 1, (a + 2) % 3);
    }
    mm::update_ghosts(mm::make_membrane_halo(part, MPI_COMM_WORLD), part.x, MPI_COMM_WORLD);
    mm::migrate_triangle_membrane(part, dec);
    const auto [v, t] = expect_layout_3d(part, whole, dec);
    EXPECT_EQ(total(v), n) << "step " << step;
    EXPECT_EQ(total(t), whole.triangles()) << "step " << step;
    hg = host(part.gid);
    for (long i = 0; i < part.owned_vertices; ++i) moved += !before.count(hg(i));
  }
  const long arrivals = total(moved);
  if (dec.size() > 1) EXPECT_GT(arrivals, 100);
  else EXPECT_EQ(arrivals, 0);
  // The force kernels work on the migrated layout: owned rows complete without communication.
  mm::Vec3Array fp("fp", part.vertices()), fw("fw", n);
  mm::capillary_force(part, 0.9, fp);
  mm::capillary_force(whole, 0.9, fw);
  const auto hp = host(fp), hw = host(fw);
  const auto hg = host(part.gid);
  double df = 0, fmax = 0;
  for (long i = 0; i < part.owned_vertices; ++i)
    for (int d = 0; d < 3; ++d) {
      df = std::max(df, std::abs(hp(i, d) - hw(hg(i), d)));
      fmax = std::max(fmax, std::abs(hw(hg(i), d)));
    }
  EXPECT_LT(df, 1e-12 * fmax);
  // Output order: the gathered membrane is the whole one (vertices by id, the same triangles).
  const mm::TriangleMembrane gathered = mm::gather_triangle_membrane(part, dec);
  ASSERT_EQ(gathered.vertices(), n);
  EXPECT_EQ(gathered.owned_triangles, whole.triangles());
  const auto gx = host(gathered.x), wx = host(whole.x);
  const auto gg = host(gathered.gid);
  const auto gt = host(gathered.tri), wt = host(whole.tri);
  for (long i = 0; i < n; ++i) {
    EXPECT_EQ(gg(i), i);
    for (int d = 0; d < 3; ++d) EXPECT_EQ(gx(i, d), wx(i, d)) << "vertex " << i;
  }
  std::set<std::array<long, 3>> tg, tw;
  for (long t = 0; t < gathered.triangles(); ++t) tg.insert({gt(t, 0), gt(t, 1), gt(t, 2)});
  for (long t = 0; t < whole.triangles(); ++t) tw.insert({wt(t, 0), wt(t, 1), wt(t, 2)});
  EXPECT_EQ(tg, tw);
  // Measured at 2 / 4 ranks (the even DMDA split): 5,873 / 3,347 vertices on the fullest rank
  // (owned + ghosts) at the start against 10,242 on every rank when replicated.
  if (dec.size() > 1) EXPECT_LT(most, n / dec.size() + n / 10);
  if (dec.rank() == 0)
    std::printf("3D membrane by cell ownership at %d ranks: at most %ld of %ld vertices on a rank (owned + ghosts); "
                "%ld arrivals in 8 steps, owned force rows within %.1e of the whole's\n",
                dec.size(), most, n, arrivals, df / fmax);
}

namespace {
// The W row (triangle_interpolation.hpp) of the dual cell at `centre` with half-widths `half` by
// global vertex id.
std::map<long, double> w_row_by_gid(const mm::TriangleIndex& index, const long* gid, const double* centre,
                                    const double* half) {
  std::map<long, double> row;
  for (const auto& [v, w] : mm::interpolation_row(index, centre, half)) row[gid[v]] += w;
  return row;
}
template <class X, class T>
mm::TriangleIndex host_index(const X& xv, const T& tv, const double* lower, double dx, const int* cells) {
  const auto x = host(xv);
  const auto t = host(tv);
  return mm::TriangleIndex(std::vector<double>(x.data(), x.data() + x.size()),
                           std::vector<int>(t.data(), t.data() + t.size()), lower, dx, cells);
}
}  // namespace

// 3D ghosts out to the interpolation distance (widen_ghosts, reach 2 dx): the drop's membrane
// (icosphere of 10,242 vertices, R = 0.3, 32^3 cells) split by cell ownership with one-ring ghosts,
// then widened. On every face a rank assembles (its owned nodes and the high side's through the
// ghost layer) within one cell of the membrane, the W row of the face's dual cell (half-widths
// dx / 2 and, along the face normal, w_normal_extent dx / 2 = dx) from the rank's triangles equals
// the whole membrane's, and so does the signed-distance magnitude phi (reach 2 dx) at every owned
// cell centre: the layout is enough for a rank's W rows and mass M (Ruan et al. 2021 §4.3).
TEST(MembraneOwnership, WidenedGhostsGiveTheWholeMembranesInterpolation) {
  const DropOnGrid drop;
  const double* lower = drop.lower;
  const int* cells = drop.cells;
  const double dx = drop.dx;
  const auto& dec = drop.grid.decomposition();
  const long n = static_cast<long>(drop.mesh.vertices.size());
  const mm::TriangleMembrane& whole = drop.whole;
  const mm::TriangleMembrane ring = mm::local_triangle_membrane(drop.mesh, drop.owner, dec.rank());
  const mm::TriangleMembrane wide = mm::widen_ghosts(ring, dec, 2 * dx);
  ASSERT_EQ(wide.owned_vertices, ring.owned_vertices);
  EXPECT_EQ(total(wide.owned_triangles), whole.triangles());
  const mm::TriangleIndex iw = host_index(whole.x, whole.tri, lower, dx, cells);
  const mm::TriangleIndex il = host_index(wide.x, wide.tri, lower, dx, cells);
  const mm::TriangleIndex ir = host_index(ring.x, ring.tri, lower, dx, cells);  // control: one ring only
  const auto rg = host(ring.gid);
  long ring_misses = 0;
  std::vector<long> whole_gid(n);
  for (long g = 0; g < n; ++g) whole_gid[g] = g;
  const auto wg = host(wide.gid);
  const mm::MacGeometryT<3> g = drop.grid.geometry();
  double worst_w = 0, worst_phi = 0;
  long faces = 0, ties = 0;
  auto is_fallback = [](const std::map<long, double>& row) {
    return row.size() == 3 && std::all_of(row.begin(), row.end(), [](const auto& e) { return e.second == 1.0 / 3; });
  };
  for (int k = g.owned.lo[2]; k <= g.owned.lo[2] + g.owned.n[2]; ++k)
    for (int j = g.owned.lo[1]; j <= g.owned.lo[1] + g.owned.n[1]; ++j)
      for (int i = g.owned.lo[0]; i <= g.owned.lo[0] + g.owned.n[0]; ++i) {
        const int c[3] = {i, j, k};
        double centre[3];
        const bool owned_cell = g.in_owned(i, j, k) && i < cells[0] && j < cells[1] && k < cells[2];
        if (owned_cell) {
          g.cell_centre(c, centre);
          worst_phi = std::max(worst_phi, std::abs(iw.distance(centre, 2 * dx) - il.distance(centre, 2 * dx)));
        }
        for (int d = 0; d < 3; ++d) {
          g.face_centre(d, c, centre);
          if (iw.distance(centre, dx) >= dx) continue;  // not a face the membrane can cut
          double half[3] = {0.5 * dx, 0.5 * dx, 0.5 * dx};
          half[d] *= mm::CoupledSolveOptions().w_normal_extent;
          const auto a = w_row_by_gid(iw, whole_gid.data(), centre, half);
          const auto b = w_row_by_gid(il, wg.data(), centre, half);
          ++faces;
          const auto r = w_row_by_gid(ir, rg.data(), centre, half);
          ring_misses += r != a;
          ties += is_fallback(a);  // an empty clip: the nearest triangle's vertices (ties broken by geometry)
          EXPECT_EQ(a.size(), b.size()) << "face " << d << " of node " << i << " " << j << " " << k;
          for (const auto& [v, w] : a) worst_w = std::max(worst_w, std::abs(w - (b.count(v) ? b.at(v) : 0.0)));
        }
      }
  MPI_Allreduce(MPI_IN_PLACE, &worst_w, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &worst_phi, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  long counts[3] = {ring.vertices(), wide.vertices(), 0};
  MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  counts[2] = total(faces);
  ties = total(ties);
  ring_misses = total(ring_misses);
  if (dec.size() > 1) EXPECT_GT(ring_misses, 0);  // the one ring alone does not reach every W row
  EXPECT_GT(counts[2], 1000);
  EXPECT_LT(worst_w, 1e-14);
  EXPECT_LT(worst_phi, 1e-15);
  if (dec.size() > 1) EXPECT_LT(counts[1], n);  // still not the whole membrane on any rank
  if (dec.rank() == 0)
    std::printf("3D membrane ghosts to 2 dx at %d ranks: at most %ld (one ring) / %ld (widened) of %ld vertices on a "
                "rank; %ld faces near the membrane (%ld by the nearest triangle), W rows within %.1e, phi within %.1e; "
                "%ld rows wrong from the one ring alone\n",
                dec.size(), counts[0], counts[1], n, counts[2], ties, worst_w, worst_phi, ring_misses);
}
