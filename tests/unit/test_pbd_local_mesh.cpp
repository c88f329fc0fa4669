// Local meshes of Xing et al. 2022 (sec. 4.2): the angular-sort-and-flip one-ring equals the one-ring
// of the 2D Delaunay triangulation (every triangle around the centre has an empty circumcircle, and
// no empty-circumcircle triangle is missing) on random point sets; on a jittered hexagonal plane the
// interior fans are closed hexagons and neighbouring fans agree; on a Fibonacci sphere the fans
// agree up to the paper's non-manifold ratio (< 2.5 %) and their area converges to 4 pi.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <vector>

#include "methods/pbd/local_mesh.hpp"
#include "particles/neighbor_search.hpp"

using namespace meniscus;

namespace {
// Is d strictly inside the circumcircle of the counter-clockwise or clockwise triangle (a, b, c)?
bool in_circle(const double* a, const double* b, const double* c, const double* d) {
  const double adx = a[0] - d[0], ady = a[1] - d[1], bdx = b[0] - d[0], bdy = b[1] - d[1], cdx = c[0] - d[0],
               cdy = c[1] - d[1];
  const double det = (adx * adx + ady * ady) * (bdx * cdy - cdx * bdy) - (bdx * bdx + bdy * bdy) * (adx * cdy - cdx * ady) +
                     (cdx * cdx + cdy * cdy) * (adx * bdy - bdx * ady);
  const double orient = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
  return orient > 0 ? det > 1e-12 : det < -1e-12;
}

struct FanSets {
  std::vector<std::array<int64_t, 3>> triangles;  // sorted vertex ids, one entry per fan triangle
};

// Fans of points with given normals; returns every fan's triangles (centre, ring[a], ring[a+1]).
struct MeshRun {
  std::vector<int> count, flags;
  std::vector<std::vector<int>> ring;
};
MeshRun mesh_points(const std::vector<double>& p, const std::vector<double>& n, double h, bool lifted = false) {
  const int np = static_cast<int>(p.size() / 3);
  pbd::MeshInputs in;
  in.x = Kokkos::View<double**>("x", np, 3);
  in.normal = Kokkos::View<double**>("n", np, 3);
  auto xh = Kokkos::create_mirror_view(in.x);
  auto nh = Kokkos::create_mirror_view(in.normal);
  for (int i = 0; i < np; ++i)
    for (int d = 0; d < 3; ++d) {
      xh(i, d) = p[3 * i + d];
      nh(i, d) = n[3 * i + d];
    }
  Kokkos::deep_copy(in.x, xh);
  Kokkos::deep_copy(in.normal, nh);
  particles::NeighborLists lists;
  particles::build_neighbor_lists<3>(in.x, np, h, lists);
  in.offset = lists.offset;
  in.index = lists.index;
  in.label = Kokkos::View<int*>("label", np);
  in.isolated = Kokkos::View<int*>("iso", np);
  in.has_normal = Kokkos::View<int*>("has", np);
  Kokkos::deep_copy(in.label, 1);
  Kokkos::deep_copy(in.has_normal, 1);
  in.ids = Kokkos::View<int64_t*>("ids", np);
  auto ih = Kokkos::create_mirror_view(in.ids);
  for (int i = 0; i < np; ++i) ih(i) = i;
  Kokkos::deep_copy(in.ids, ih);
  in.owned = np;
  in.support = h;
  in.far_cut = 2 * h / 3;
  in.lifted_angles = lifted;
  pbd::LocalMeshes out;
  pbd::build_local_meshes(in, out);
  auto rh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out.ring);
  auto ch = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out.count);
  auto fh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out.flags);
  MeshRun r;
  for (int i = 0; i < np; ++i) {
    r.count.push_back(ch(i));
    r.flags.push_back(fh(i));
    std::vector<int> ring;
    for (int k = 0; k < ch(i); ++k) ring.push_back(rh(i, k));
    r.ring.push_back(ring);
  }
  return r;
}

std::vector<std::array<int, 3>> fan_triangles(const MeshRun& r, int i) {
  std::vector<std::array<int, 3>> t;
  const int c = r.count[i];
  const bool closed = r.flags[i] & pbd::kMeshClosed;
  for (int a = 0; a + 1 < c || (closed && a < c); ++a) t.push_back({i, r.ring[i][a], r.ring[i][(a + 1) % c]});
  return t;
}

// Non-manifold ratio (Xing et al. 2022, sec. 6.4): unique triangles that do not appear in the fans of
// all three of their vertices, over all unique triangles; counted over triangles whose three vertices
// are all in `which` (fans of every particle contribute).
double non_manifold_ratio(const MeshRun& r, const std::vector<int>& which) {
  std::set<int> in(which.begin(), which.end());
  std::map<std::array<int, 3>, int> seen;
  for (int i = 0; i < static_cast<int>(r.count.size()); ++i)
    for (auto t : fan_triangles(r, i)) {
      std::sort(t.begin(), t.end());
      ++seen[t];
    }
  long bad = 0, total = 0;
  for (const auto& [t, c] : seen) {
    if (!in.count(t[0]) || !in.count(t[1]) || !in.count(t[2])) continue;
    ++total;
    bad += c < 3 ? 1 : 0;
  }
  return total == 0 ? 0.0 : static_cast<double>(bad) / total;
}
}  // namespace

TEST(PbdLocalMesh, OneRingEqualsTheDelaunayOneRingOfRandomPointSets) {
  std::mt19937 rng(12);
  std::uniform_real_distribution<double> u(-1, 1);
  std::uniform_int_distribution<int> count(5, 40);
  long sets = 0, closed = 0, open = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const int n = count(rng);
    std::vector<double> qx, qy;
    const bool hull_case = trial % 5 == 0;  // origin on the hull: every point in the upper half plane
    while (static_cast<int>(qx.size()) < n) {
      const double x = u(rng), y = u(rng);
      if (x * x + y * y > 1 || (hull_case && y < 0.02)) continue;
      qx.push_back(x);
      qy.push_back(y);
    }
    std::vector<int64_t> gid(n);
    for (int k = 0; k < n; ++k) gid[k] = k + 1;
    int ring[pbd::kMaxRing], c = 0;
    const int flags = pbd::delaunay_one_ring(n, qx.data(), qy.data(), gid.data(), 0, ring, &c);
    ASSERT_FALSE(flags & pbd::kMeshOverflow);
    // Our triangles (origin, ring[a], ring[a+1]) as sorted pairs.
    std::set<std::pair<int, int>> ours;
    const bool is_closed = flags & pbd::kMeshClosed;
    for (int a = 0; a + 1 < c || (is_closed && a < c); ++a)
      ours.insert(std::minmax(ring[a], ring[(a + 1) % c]));
    // Brute force: (origin, a, b) is a Delaunay triangle iff no other point lies inside its circumcircle
    // (points in general position with probability one).
    std::set<std::pair<int, int>> ref;
    const double o[2] = {0, 0};
    for (int a = 0; a < n; ++a)
      for (int b = a + 1; b < n; ++b) {
        const double pa[2] = {qx[a], qy[a]}, pb[2] = {qx[b], qy[b]};
        if (std::fabs(pa[0] * pb[1] - pa[1] * pb[0]) < 1e-14) continue;
        bool empty = true;
        for (int k = 0; k < n && empty; ++k) {
          if (k == a || k == b) continue;
          const double pk[2] = {qx[k], qy[k]};
          empty = !in_circle(o, pa, pb, pk);
        }
        if (empty) ref.insert({a, b});
      }
    EXPECT_EQ(ours, ref) << "trial " << trial << " with " << n << " points" << (hull_case ? " (origin on the hull)" : "");
    if (ours != ref) break;
    // The lifted-angle test on points of the plane (3D offsets (x, y, 0)) is the same test: same ring.
    std::vector<double> lifted;
    for (int k = 0; k < n; ++k) lifted.insert(lifted.end(), {qx[k], qy[k], 0.0});
    int ring3[pbd::kMaxRing], c3 = 0;
    const int flags3 = pbd::delaunay_one_ring(n, qx.data(), qy.data(), gid.data(), 0, ring3, &c3, lifted.data());
    ASSERT_EQ(flags3, flags) << "trial " << trial;
    ASSERT_EQ(c3, c) << "trial " << trial;
    for (int k = 0; k < c; ++k) ASSERT_EQ(ring3[k], ring[k]) << "trial " << trial;
    ++sets;
    closed += is_closed ? 1 : 0;
    open += is_closed ? 0 : 1;
    if (hull_case) EXPECT_FALSE(is_closed) << "trial " << trial;
  }
  std::printf("%ld point sets: %ld closed fans, %ld open fans, all equal to the Delaunay one-ring\n", sets, closed, open);
  EXPECT_GT(closed, 1000);
  EXPECT_GT(open, 300);
}

TEST(PbdLocalMesh, JitteredHexagonalPlaneGivesClosedHexagonsThatAgree) {
  // 2000 points of a hexagonal lattice (spacing 0.2) jittered by +-0.05 x spacing, normals +z, h = 0.6.
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> jit(-0.01, 0.01);
  const double s = 0.2;
  std::vector<double> p, n;
  for (int j = 0; j < 40; ++j)
    for (int i = 0; i < 50; ++i) {
      p.insert(p.end(), {s * (i + 0.5 * (j % 2)) + jit(rng), s * std::sqrt(3.0) / 2 * j + jit(rng), 0.0});
      n.insert(n.end(), {0.0, 0.0, 1.0});
    }
  const auto r = mesh_points(p, n, 0.6);
  std::vector<int> interior;
  double ring_sum = 0;
  long open_inside = 0, open_boundary = 0;
  for (int k = 0; k < 2000; ++k) {
    const int i = k % 50, j = k / 50;
    const bool open = !(r.flags[k] & pbd::kMeshClosed);
    if (i >= 3 && i < 47 && j >= 3 && j < 37) {
      interior.push_back(k);
      ring_sum += r.count[k];
    }
    if (i == 0 || j == 0 || i == 49 || j == 39)
      open_boundary += open ? 1 : 0;
    else
      open_inside += open ? 1 : 0;
  }
  const double mean_ring = ring_sum / interior.size();
  const double ratio = non_manifold_ratio(r, interior);
  std::printf("plane: mean interior ring %.3f, non-manifold ratio %.4f, open fans on the patch boundary %ld\n", mean_ring,
              ratio, open_boundary);
  EXPECT_NEAR(mean_ring, 6.0, 0.1);
  EXPECT_LE(ratio, 0.01);
  EXPECT_EQ(open_inside, 0) << "only hull points of the patch have open fans";
  for (int corner : {0, 49, 1950, 1999}) EXPECT_FALSE(r.flags[corner] & pbd::kMeshClosed) << corner;
}

TEST(PbdLocalMesh, FibonacciSphereFansAgreeAndMeasureItsArea) {
  // N points on the unit sphere with exact normals, r = half the mean spacing, h = 6r.
  for (int N : {1000, 2000}) {
    std::vector<double> p, n;
    const double golden = M_PI * (3.0 - std::sqrt(5.0));
    for (int k = 0; k < N; ++k) {
      const double z = 1.0 - (2.0 * k + 1.0) / N, rr = std::sqrt(1 - z * z);
      p.insert(p.end(), {rr * std::cos(golden * k), rr * std::sin(golden * k), z});
      n.insert(n.end(), {rr * std::cos(golden * k), rr * std::sin(golden * k), z});
    }
    const double spacing = std::sqrt(4 * M_PI / N), h = 3 * spacing;
    const auto r = mesh_points(p, n, h);
    std::vector<int> all(N);
    for (int i = 0; i < N; ++i) all[i] = i;
    // The Delaunay test on the lifted quadrilaterals: every particle of a quadrilateral decides its
    // diagonal alike (pbd.delaunay_angles: lifted).
    const double lifted_ratio = non_manifold_ratio(mesh_points(p, n, h, true), all);
    // Area: every consistent triangle belongs to three fans, so A = (1/3) sum of fan areas.
    double area = 0;
    long closed = 0;
    for (int i = 0; i < N; ++i) {
      closed += (r.flags[i] & pbd::kMeshClosed) ? 1 : 0;
      for (const auto& t : fan_triangles(r, i)) {
        double e1[3], e2[3];
        for (int d = 0; d < 3; ++d) {
          e1[d] = p[3 * t[1] + d] - p[3 * t[0] + d];
          e2[d] = p[3 * t[2] + d] - p[3 * t[0] + d];
        }
        const double cx = e1[1] * e2[2] - e1[2] * e2[1], cy = e1[2] * e2[0] - e1[0] * e2[2], cz = e1[0] * e2[1] - e1[1] * e2[0];
        area += 0.5 * std::sqrt(cx * cx + cy * cy + cz * cz) / 3;
      }
    }
    const double ratio = non_manifold_ratio(r, all), err = area / (4 * M_PI) - 1;
    std::printf("sphere N = %d: closed fans %ld, non-manifold ratio %.4f (lifted angles %.4f), area error %.4f %%\n", N,
                closed, ratio, lifted_ratio, 100 * err);
    EXPECT_EQ(closed, N);
    EXPECT_LE(ratio, 0.025);  // the paper: below 2.5 % after the first frames
    EXPECT_LE(lifted_ratio, 0.005);  // the paper's "mostly below 0.5 %"
    EXPECT_LT(std::fabs(err), N == 1000 ? 0.01 : 0.002);
  }
}

TEST(PbdLocalMesh, CoCircularSquareLatticeNonManifoldRatio) {
  // An exact square lattice: every cell's four corners are co-circular, so each fan must pick a
  // diagonal. The global-id rule decides each final quadrilateral the same way from all four corners,
  // but ties met on the way (farther co-circular points) still leave 10.7 % of the interior triangles
  // in fewer than three fans (without the rule: 100 %). The target is 0; this bound guards the
  // current state until the tie handling is made order independent.
  std::vector<double> p, n;
  for (int j = 0; j < 30; ++j)
    for (int i = 0; i < 30; ++i) {
      p.insert(p.end(), {0.2 * i, 0.2 * j, 0.0});
      n.insert(n.end(), {0.0, 0.0, 1.0});
    }
  const auto r = mesh_points(p, n, 0.6);
  std::vector<int> interior;
  for (int k = 0; k < 900; ++k)
    if (k % 30 >= 3 && k % 30 < 27 && k / 30 >= 3 && k / 30 < 27) interior.push_back(k);
  const double ratio = non_manifold_ratio(r, interior);
  std::printf("square lattice: non-manifold ratio %.4f\n", ratio);
  EXPECT_LE(ratio, 0.11);
}

namespace {
// Two parallel jittered hexagonal layers of 20 x 20 points (spacing 0.2, h = 0.6 = 6r), the second
// `gap` above the first and shifted to the centre of a lattice triangle (no point projects onto
// another); normals along -+z with `film` (pointing away from each other) or +-z (facing each other).
// Returns the fan spokes (i, ring vertex) that join the two layers, and the mean ring size of each
// layer's interior points.
struct TwoLayers {
  long cross_spokes = 0;
  double mean_ring = 0;
};
TwoLayers mesh_two_layers(double gap, bool film) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> jit(-0.01, 0.01);
  const double s = 0.2, row = s * std::sqrt(3.0) / 2;
  const int side = 20, per_layer = side * side;
  std::vector<double> p, n;
  for (int layer = 0; layer < 2; ++layer)
    for (int j = 0; j < side; ++j)
      for (int i = 0; i < side; ++i) {
        p.insert(p.end(), {s * (i + 0.5 * (j % 2) + 0.5 * layer) + jit(rng), row * (j + layer / 3.0) + jit(rng),
                           layer * gap});
        const double up = (layer == 1) == film ? 1.0 : -1.0;
        n.insert(n.end(), {0.0, 0.0, up});
      }
  const auto r = mesh_points(p, n, 0.6);
  TwoLayers out;
  long interior = 0;
  for (int k = 0; k < 2 * per_layer; ++k) {
    for (int v : r.ring[k]) out.cross_spokes += (v / per_layer != k / per_layer) ? 1 : 0;
    const int i = k % side, j = (k % per_layer) / side;
    if (i >= 3 && i < side - 3 && j >= 3 && j < side - 3) {
      out.mean_ring += r.count[k];
      ++interior;
    }
  }
  out.mean_ring /= interior;
  return out;
}
}  // namespace

TEST(PbdLocalMesh, FilmLayersMeshApartFacingDropletsMeshTogether) {
  // Xing et al. 2022, sec. 4.3: a film is two layers of surface particles whose normals point away from
  // each other; a neighbour whose normal differs by more than 45 degrees and that lies on the other side
  // ((n_i - n_j) . (p_i - p_j) > 0) is left out of the fan, so each layer meshes as its own sheet. Two
  // volumes approaching each other face to face (normals facing) keep each other, so that they can merge.
  // Film: layers 2r apart; facing droplet faces: 3r apart.
  const auto film = mesh_two_layers(0.2, true);
  const auto drops = mesh_two_layers(0.3, false);
  std::printf("two layers: film %ld spokes between the layers, mean interior ring %.3f; facing faces %ld spokes between "
              "them\n",
              film.cross_spokes, film.mean_ring, drops.cross_spokes);
  EXPECT_EQ(film.cross_spokes, 0);
  EXPECT_NEAR(film.mean_ring, 6.0, 0.1);  // each layer alone: closed hexagons
  EXPECT_GT(drops.cross_spokes, 100);     // the faces mesh together
}
