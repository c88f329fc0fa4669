// Non-manifold statistics of the local meshes (Xing et al. 2022, sec. 6.4 and Fig. 16) on the
// droplet collision (Fig. 10): two cubic droplets meet head-on in zero gravity and merge. Every
// surface particle meshes its one-ring independently and the fans are never stitched; the paper
// counts "the duplication of each triangle": on a manifold mesh a triangle belongs to the local mesh
// of each of its three vertices, so a triangle (as an unordered vertex triple) found in fewer than
// three fans is non-manifold. Paper: except for the first few frames (the initial cubic lattice is
// full of co-circular quadruples) the ratio of non-manifold triangles to all triangles stays below
// 2.5 %, below 0.5 % in most frames, and the non-manifold triangles are scattered over the surface
// (we read "randomly distributed" as: no particle belongs to more than 3 of them).
// With the paper's test (2D Delaunay on each particle's tangent plane) the four particles of a nearly
// co-circular quadrilateral project it on four different planes and disagree about its diagonal: on
// 2 x 16^3 the median stayed at 0.68 % with up to 8 non-manifold triangles on one particle. The scenes
// use pbd.delaunay_angles: lifted (the 3D corner angles decide, the same number for all four), which
// meets the paper's numbers at the paper's size (Long test).
// Scene as inputs/pbd-colliding-droplets(-ci).yaml: two cubes at r = 0.025 (the other PBD scenes' units
// and CFMs, area CFM 1), closing at 1 m/s (20 spacings per second), 100 iterations per step of 1/30 s,
// 20 frames; the statistics over frames 6-20. CI: 2 x 6^3; Long: 2 x 16 x 17 x 17.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "methods/pbd/pbd_xing.hpp"
#include "scene.hpp"
#include "validation_support.hpp"

using namespace meniscus;

namespace {

// Two cubes of n^3 particles (spacing 2r = 0.05) whose nearest particles are 3 spacings apart, closing
// at 1 m/s (they meet within 3 frames).
std::string collision_deck(int n, int m) {
  const double s = 0.05, half = 0.5 * n * s, side = 0.5 * m * s, gap = 0.05;
  const double lx = 2 * half + gap + 0.3, ly = side + 0.25;
  char deck[1536];
  std::snprintf(deck, sizeof deck, R"(
simulation: {dimension: 3, method: pbd-xing2022, end_time: 1}
domain: {lower: [%g, %g, %g], upper: [%g, %g, %g], cell_size: 0.05, walls: none}
pbd: {particle_radius: 0.025, gravity: [0, 0, 0], dt: 0.0333333333333, iterations: 100, area_cfm: 1.0,
      density_cfm: 600, distance_cfm: 40, density_constraint: unilateral, distance_pairs: all, xsph: 0.02}
materials: [{name: liquid}]
sources:
  - {type: box, material: liquid, lower: [%g, %g, %g], upper: [%g, %g, %g], particles_per_cell: 1, velocity: [0.5, 0, 0]}
  - {type: box, material: liquid, lower: [%g, %g, %g], upper: [%g, %g, %g], particles_per_cell: 1, velocity: [-0.5, 0, 0]}
)",
                -lx, -ly, -ly, lx, ly, ly, -gap - 2 * half, -side, -side, -gap, side, side, gap, -side, -side,
                gap + 2 * half, side, side);
  return deck;
}

struct FrameStats {
  long triangles = 0, non_manifold = 0;
  int worst_particle = 0;  // most non-manifold triangles sharing one particle
  double ratio() const { return triangles ? static_cast<double>(non_manifold) / triangles : 0.0; }
};

// Fans rebuilt on the current positions (one rank: rows are particles, no ghost rows).
FrameStats non_manifold_stats(pbd::PbdXing& m) {
  auto& set = m.particles();
  Kokkos::deep_copy(set.field(m.fields().ps), set.field(m.fields().x));
  m.rebuild();
  m.classify_surface();
  m.build_meshes();
  const auto& fans = m.meshes();
  auto ring = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fans.ring);
  auto count = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fans.count);
  auto flags = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fans.flags);
  std::map<std::array<int, 3>, int> seen;  // unordered triple -> number of fans holding it
  for (int i = 0; i < static_cast<int>(count.extent(0)); ++i) {
    if (!(flags(i) & pbd::kMeshValid)) continue;
    const int c = count(i);
    const bool closed = flags(i) & pbd::kMeshClosed;
    for (int a = 0; a + 1 < c || (closed && a < c); ++a) {
      std::array<int, 3> t{i, ring(i, a), ring(i, (a + 1) % c)};
      std::sort(t.begin(), t.end());
      ++seen[t];
    }
  }
  FrameStats f;
  std::vector<int> per_particle(count.extent(0), 0);
  for (const auto& [t, c] : seen) {
    ++f.triangles;
    if (c >= 3) continue;
    ++f.non_manifold;
    for (int v : t) ++per_particle[v];
  }
  for (int n : per_particle) f.worst_particle = std::max(f.worst_particle, n);
  return f;
}

struct CollisionStats {
  double worst_ratio = 0, median = 0, center_x = 0;
  int worst_particle = 0;
  std::vector<FrameStats> frames;  // every frame, from frame 1
};

CollisionStats collide(int n, int side, int frames, int skip, const std::vector<std::string>& sets = {}) {
  auto d = test::deck_from_string(collision_deck(n, side), sets);
  pbd::PbdXing m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 3});
  std::vector<double> ratios;
  CollisionStats c;
  for (int f = 1; f <= frames; ++f) {
    m.step(m.stable_dt());
    const auto s = non_manifold_stats(m);
    test::print_rank0("  frame %d: %ld triangles, %ld non-manifold (%.2f %%), at most %d on one particle", f, s.triangles,
                      s.non_manifold, 100 * s.ratio(), s.worst_particle);
    EXPECT_GT(s.triangles, 100);
    c.frames.push_back(s);
    if (f <= skip) continue;
    ratios.push_back(s.ratio());
    c.worst_ratio = std::max(c.worst_ratio, s.ratio());
    c.worst_particle = std::max(c.worst_particle, s.worst_particle);
  }
  std::sort(ratios.begin(), ratios.end());
  c.median = 0.5 * (ratios[(ratios.size() - 1) / 2] + ratios[ratios.size() / 2]);
  DiagnosticRow row;
  m.diagnostics(row);
  c.center_x = test::column(row, "center_x");
  test::print_rank0("PBD colliding droplets, 2 x %d x %d x %d%s, frames %d-%d: non-manifold ratio max %.2f %%, median "
                    "%.2f %%, at most %d non-manifold triangles on one particle (paper: < 2.5 %%, mostly < 0.5 %%, <= 3)",
                    n, side, side, sets.empty() ? "" : (" " + sets[0]).c_str(), skip + 1, frames, 100 * c.worst_ratio,
                    100 * c.median, c.worst_particle);
  return c;
}

bool one_rank() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size == 1;
}

}  // namespace

TEST(PbdCollidingDroplets, NonManifoldTrianglesAreRareAndScattered) {
  if (!one_rank()) GTEST_SKIP() << "reads the fans of one rank's rows";
  // Two 6^3 cubes, Delaunay test on the lifted quadrilaterals (the scene decks' setting), about 30 s.
  // Measured (frames 6-20): max 2.09 %, median 0.00 %, at most 5 non-manifold triangles on one particle
  // (frame 8); with the tangent-plane test (the paper's): 6.6 %, 3.7 %, 9.
  const auto c = collide(6, 6, 20, 5, {"pbd.delaunay_angles=lifted"});
  EXPECT_LT(c.worst_ratio, 0.025);  // paper: below 2.5 % after the first frames
  EXPECT_LT(c.median, 0.005);       // paper: below 0.5 % in most frames
  EXPECT_LE(c.worst_particle, 6);   // the paper's 3 holds at its size (Long test), not on these small drops
  EXPECT_LT(std::fabs(c.center_x), 1e-3);  // a head-on collision stays centred
}

TEST(PbdCollidingDroplets, LongPaperSizeNonManifoldRatios) {
  if (!one_rank()) GTEST_SKIP() << "reads the fans of one rank's rows";
  // The paper's colliding-droplets scene (Xing et al. 2022, sec. 6): two cubes of 16 x 17 x 17
  // particles (9248; the paper's has 9262), Delaunay
  // test on the lifted quadrilaterals. Measured (2026-11-27, 493-767 s of one core on a loaded
  // machine): frame 1-5 (the cubes meet and merge) 4.9 %, 3.0 %, 3.3 %, 2.4 %, 0.6 %; frame 6:
  // 0.18 % (10 triangles, at most 5 on one particle: two neighbouring quadrilaterals); frames 7-20: none.
  // Frames 6-20: max 0.18 %, median 0 %. With the tangent-plane test (the paper's) on 2 x 16^3 the
  // earlier code measured max 1.39 %, median 0.68 %, at most 8 on one particle.
  const auto c = collide(16, 17, 20, 5, {"pbd.delaunay_angles=lifted"});
  EXPECT_LT(c.worst_ratio, 0.025);  // paper: below 2.5 % after the first frames
  EXPECT_LT(c.median, 0.005);       // paper: below 0.5 % in most frames
  // Scattered: no particle in more than 3 non-manifold triangles (one isolated disagreement about a
  // quadrilateral's diagonal) from frame 7 on; frame 6, the last of the merger, has 5.
  ASSERT_EQ(c.frames.size(), 20u);
  for (size_t f = 6; f < c.frames.size(); ++f) EXPECT_LE(c.frames[f].worst_particle, 3) << "frame " << f + 1;
  EXPECT_LE(c.frames[5].worst_particle, 5);
}
