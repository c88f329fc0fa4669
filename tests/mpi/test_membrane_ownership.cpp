// The distributed layout of the membrane (2D: polyline_ownership.hpp; 3D: local_triangle_membrane):
// each rank owns the vertices in its MAC cells and holds ghost copies of their one ring (2D: segment
// neighbours); after the vertices move, the
// migration hands each vertex to the rank owning its new cell (ghost positions refreshed from their
// owners through the shared vertex halo of triangle_membrane.hpp). Checked against the whole polyline
// moved on every rank: the per-rank owned counts sum to the total, each owned vertex lies in one of
// the rank's own cells (read from the DMDA box, not from the owner map), the ghosts are exactly the
// one ring's other ends, every local copy holds the whole polyline's bits, and the gathered
// polyline (global-id order) equals the whole one.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <set>

#include "methods/membrane/mac_grid.hpp"
#include "methods/membrane/polyline_ownership.hpp"
#include "methods/membrane/triangle_membrane.hpp"

namespace mm = meniscus::membrane;

namespace {

template <class V>
auto host(const V& v) {
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
}

// Asserts the layout of `lp` against `whole` (global id = index); returns this rank's owned count.
long expect_layout(const mm::LocalPolyline& lp, const mm::Polyline& whole, const meniscus::grid::Decomposition<2>& dec) {
  const auto wx = host(whole.x), wv = host(whole.v), lx = host(lp.m.x), lv = host(lp.m.v);
  const auto wk = host(whole.kind), lk = host(lp.m.kind);
  const auto ws = host(whole.seg), ls = host(lp.m.seg);
  const double dx = dec.dx();
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
    for (int d = 0; d < 2; ++d) {
      const int c = static_cast<int>(std::floor((lx(i, d) - dec.lower()[d]) / dx));
      EXPECT_GE(c, dec.owned_lo()[d]) << "vertex " << g << " axis " << d;
      EXPECT_LT(c, dec.owned_hi()[d]) << "vertex " << g << " axis " << d;
    }
  }
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

// Rotates vertices [0, count) of `m` by `angle` about (0.5, 0.5) (the same bits for a vertex
// wherever it is).
void rotate(const mm::Polyline& m, long count, double angle) {
  auto x = host(m.x);
  const double c = std::cos(angle), s = std::sin(angle);
  for (long i = 0; i < count; ++i) {
    const double rx = x(i, 0) - 0.5, ry = x(i, 1) - 0.5;
    x(i, 0) = 0.5 + (c * rx - s * ry);
    x(i, 1) = 0.5 + (s * rx + c * ry);
  }
  Kokkos::deep_copy(m.x, x);
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
  long total = 0, moved = 0, mine = expect_layout(lp, whole, dec);
  MPI_Allreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(total, whole.vertices());
  for (int step = 0; step < 8; ++step) {
    const std::set<long> before(lp.gid.begin(), lp.gid.begin() + lp.owned);
    rotate(whole, whole.vertices(), M_PI / 16);
    // Owned vertices move; the ghosts get this step's positions from their owners.
    rotate(lp.m, lp.owned, M_PI / 16);
    mm::update_ghosts(mm::make_vertex_halo(lp.gid.data(), lp.owned, lp.ghost_owner, MPI_COMM_WORLD), lp.m.x,
                      MPI_COMM_WORLD);
    mm::migrate_polyline(lp, dec);
    mine = expect_layout(lp, whole, dec);
    MPI_Allreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    EXPECT_EQ(total, whole.vertices()) << "step " << step;
    for (long i = 0; i < lp.owned; ++i) moved += !before.count(lp.gid[i]);
  }
  long arrivals = 0;
  MPI_Allreduce(&moved, &arrivals, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (dec.size() > 1) EXPECT_GT(arrivals, 20);  // migration was exercised
  else EXPECT_EQ(arrivals, 0);
  // Output order: the gathered polyline is the whole one, bit for bit, at every rank count.
  const mm::Polyline g = mm::gather_polyline(lp, MPI_COMM_WORLD);
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
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) std::printf("membrane ownership: %ld vertex arrivals at other ranks over 8 steps\n", arrivals);
}

// 3D: the membrane of inputs/membrane-drop-3d.yaml (icosphere of 10,242 vertices, R = 0.3, 32^3
// cells) split by cell ownership with local_triangle_membrane: the owned counts sum to the total,
// each owned vertex lies in one of the rank's cells, every ghost belongs to another rank's cell, and
// each rank stores about total / ranks vertices plus its ghosts instead of the whole membrane.
// (Migration in 3D is not written yet; the step still replicates the membrane.)
TEST(MembraneOwnership, TriangleVerticesBelongToTheirCells) {
  const double lower[3] = {0, 0, 0};
  const int cells[3] = {32, 32, 32};
  mm::MacGrid3 grid(MPI_COMM_WORLD, lower, cells, 1.0 / 32, "test");
  const auto& dec = grid.decomposition();
  const auto mesh = mm::make_icosphere({0.5, 0.5, 0.5}, 0.3, 5);
  const long n = static_cast<long>(mesh.vertices.size());
  std::vector<int> owner(n);
  for (long g = 0; g < n; ++g) owner[g] = mm::cell_owner(dec, mesh.vertices[g].data());
  const mm::TriangleMembrane part = mm::local_triangle_membrane(mesh, owner, dec.rank());
  const auto x = host(part.x);
  for (long i = 0; i < part.owned_vertices; ++i)
    for (int d = 0; d < 3; ++d) {
      const int c = static_cast<int>(std::floor((x(i, d) - dec.lower()[d]) * 32));
      EXPECT_GE(c, dec.owned_lo()[d]);
      EXPECT_LT(c, dec.owned_hi()[d]);
    }
  for (size_t q = 0; q < part.ghost_owner.size(); ++q) {
    const double p[3] = {x(part.owned_vertices + q, 0), x(part.owned_vertices + q, 1), x(part.owned_vertices + q, 2)};
    EXPECT_EQ(part.ghost_owner[q], mm::cell_owner(dec, p));
    EXPECT_NE(part.ghost_owner[q], dec.rank());
  }
  long total = 0, stored = part.vertices(), most = 0;
  MPI_Allreduce(&part.owned_vertices, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&stored, &most, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(total, n);
  EXPECT_EQ(n, 10242);
  // Measured at 2 / 4 ranks (the even DMDA split): 5,873 / 3,347 vertices on the fullest rank
  // (owned + ghosts) against 10,242 on every rank when replicated.
  if (dec.size() > 1) EXPECT_LT(most, n / dec.size() + n / 10);
  if (dec.rank() == 0)
    std::printf("3D membrane by cell ownership at %d ranks: at most %ld of %ld vertices on a rank (owned + ghosts)\n",
                dec.size(), most, n);
}
