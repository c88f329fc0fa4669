// Light-shading surface detection of Xing et al. 2022 (sec. 4.1, after Shibata et al. 2015) and the
// colour-field normals (Eqs. 5-6) on lattice configurations (spacing 2r = 0.2, h = 6r): the illuminated
// fractions of an interior particle, the layers under a flat face, a face, an edge, a corner and a
// two-layer film against exact-cone reference values; a lattice sphere's outer shell is the surface
// and nothing deeper than two spacings is; a film's two layers are both surface; normals point out.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "methods/pbd/pbf_constraints.hpp"
#include "methods/pbd/surface_detection.hpp"
#include "particles/neighbor_search.hpp"

using namespace meniscus;

namespace {
constexpr double kR = 0.1, kH = 0.6;

struct Shaded {
  std::vector<double> lit;
  std::vector<int> surface, isolated;
  std::vector<double> normal;  // n x 3
  std::vector<int> has_normal;
};

Shaded shade_points(const std::vector<double>& p, pbd::ShadingMode mode, int directions = 6000) {
  const int n = static_cast<int>(p.size() / 3);
  Kokkos::View<double**> x("x", n, 3);
  auto xh = Kokkos::create_mirror_view(x);
  for (int i = 0; i < n; ++i)
    for (int d = 0; d < 3; ++d) xh(i, d) = p[3 * i + d];
  Kokkos::deep_copy(x, xh);
  particles::NeighborLists lists;
  particles::build_neighbor_lists<3>(x, n, kH, lists);
  pbd::ShadingInputs in;
  in.x = x;
  in.offset = lists.offset;
  in.index = lists.index;
  in.owned = n;
  in.radius = kR;
  in.mode = mode;
  if (mode == pbd::ShadingMode::Cones) in.directions = pbd::fibonacci_directions(directions);
  Kokkos::View<double*> lit("lit", n);
  Kokkos::View<int*> surf("surf", n), iso("iso", n), has("has", n);
  pbd::shade(in, lit, surf, iso);
  // Normals need densities: the calibrated mass of the paper's units.
  pbd::PbfSweep s;
  s.x = x;
  s.offset = lists.offset;
  s.index = lists.index;
  s.label = Kokkos::View<int*>("label", n);
  s.density_off = Kokkos::View<int*>("off", n);
  s.owned = n;
  s.mass = 0.0079857;
  s.support = kH;
  Kokkos::View<double*> rho("rho", n), lambda("lambda", n);
  pbd::density_and_lambda(s, rho, lambda);
  Kokkos::View<double**> nrm("n", n, 3);
  pbd::colour_normals(x, lists.offset, lists.index, n, s.mass, rho, kH, nrm, has);
  Shaded out;
  auto lh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), lit);
  auto sh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), surf);
  auto ih = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), iso);
  auto nh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), nrm);
  auto hh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), has);
  for (int i = 0; i < n; ++i) {
    out.lit.push_back(lh(i));
    out.surface.push_back(sh(i));
    out.isolated.push_back(ih(i));
    out.has_normal.push_back(hh(i));
    for (int d = 0; d < 3; ++d) out.normal.push_back(nh(i, d));
  }
  return out;
}

// Lattice block a x b x c (spacing 2r), point (i, j, k) at index (k b + j) a + i.
std::vector<double> block(int a, int b, int c) {
  std::vector<double> p;
  for (int k = 0; k < c; ++k)
    for (int j = 0; j < b; ++j)
      for (int i = 0; i < a; ++i) p.insert(p.end(), {2 * kR * i, 2 * kR * j, 2 * kR * k});
  return p;
}
}  // namespace

TEST(PbdSurfaceDetection, LatticeConfigurationsMatchExactConeValues) {
  // 7^3 block: every probe below has its full support inside the block except across its own faces.
  const auto p = block(7, 7, 7);
  auto at = [](int i, int j, int k) { return (k * 7 + j) * 7 + i; };
  struct Probe {
    const char* name;
    int index;
    double lit;  // exact cones (M = 6000) on the ideal configuration
    int surface;
  };
  const Probe probes[] = {{"interior", at(3, 3, 3), 0.0, 0},        {"third layer", at(3, 3, 4), 0.0, 0},
                          {"second layer", at(3, 3, 5), 0.0175, 0}, {"flat face", at(3, 3, 6), 0.311, 1},
                          {"edge", at(3, 6, 6), 0.527, 1},          {"corner", at(6, 6, 6), 0.682, 1}};
  const auto cones = shade_points(p, pbd::ShadingMode::Cones);
  const auto bins = shade_points(p, pbd::ShadingMode::Bins);
  for (const auto& pr : probes) {
    EXPECT_NEAR(cones.lit[pr.index], pr.lit, 0.03) << pr.name;
    EXPECT_EQ(cones.surface[pr.index], pr.surface) << pr.name << " (cones)";
    EXPECT_EQ(bins.surface[pr.index], pr.surface) << pr.name << " (bins, lit " << bins.lit[pr.index] << ")";
    EXPECT_EQ(cones.isolated[pr.index], 0);
  }
}

TEST(PbdSurfaceDetection, BothLayersOfAThinFilmAreSurface) {
  // Two layers of 15 x 15 (the paper represents films by two surface layers, sec. 4.3).
  const auto p = block(15, 15, 2);
  for (auto mode : {pbd::ShadingMode::Bins, pbd::ShadingMode::Cones}) {
    const auto s = shade_points(p, mode);
    long surface = 0;
    for (size_t i = 0; i < s.surface.size(); ++i) surface += s.surface[i];
    EXPECT_EQ(surface, 450) << "every particle of a two-layer film is on its surface";
    if (mode == pbd::ShadingMode::Cones) {
      EXPECT_NEAR(s.lit[7 * 15 + 7], 0.328, 0.03);        // bottom layer centre
      EXPECT_NEAR(s.lit[225 + 7 * 15 + 7], 0.328, 0.03);  // top layer centre
    }
    // Normals of the centre particles point away from the other layer.
    EXPECT_LT(s.normal[3 * (7 * 15 + 7) + 2], -0.99);
    EXPECT_GT(s.normal[3 * (225 + 7 * 15 + 7) + 2], 0.99);
  }
}

TEST(PbdSurfaceDetection, LatticeSphereSurfaceIsItsOuterShell) {
  // Lattice points within radius 1.0 = 5 spacings of a lattice through the centre (515 points). The outer shell: points with a
  // face-neighbouring lattice site outside the sphere.
  const double R = 1.0, s = 2 * kR;
  std::vector<double> p;
  std::vector<int> shell;
  auto inside = [&](int a, int b, int c) { return (a * a + b * b + c * c) * s * s <= R * R * (1 + 1e-12); };
  for (int a = -5; a <= 5; ++a)
    for (int b = -5; b <= 5; ++b)
      for (int c = -5; c <= 5; ++c)
        if (inside(a, b, c)) {
          p.insert(p.end(), {a * s, b * s, c * s});
          shell.push_back(!inside(a + 1, b, c) || !inside(a - 1, b, c) || !inside(a, b + 1, c) ||
                          !inside(a, b - 1, c) || !inside(a, b, c + 1) || !inside(a, b, c - 1));
        }
  ASSERT_EQ(p.size() / 3, 515u);
  for (auto mode : {pbd::ShadingMode::Bins, pbd::ShadingMode::Cones}) {
    const auto sh = shade_points(p, mode, 1024);
    long shell_n = 0, shell_hit = 0, deep_n = 0, deep_hit = 0;
    double angle_sum = 0, angle_max = 0;
    for (size_t i = 0; i < shell.size(); ++i) {
      const double r = std::sqrt(p[3 * i] * p[3 * i] + p[3 * i + 1] * p[3 * i + 1] + p[3 * i + 2] * p[3 * i + 2]);
      if (shell[i]) {
        ++shell_n;
        shell_hit += sh.surface[i];
        ASSERT_TRUE(sh.has_normal[i]);
        double c = 0;
        for (int d = 0; d < 3; ++d) c += sh.normal[3 * i + d] * p[3 * i + d] / r;
        const double ang = std::acos(std::min(1.0, c)) * 180 / M_PI;
        angle_sum += ang;
        angle_max = std::max(angle_max, ang);
      }
      if (R - r > 2 * s) {
        ++deep_n;
        deep_hit += sh.surface[i];
      }
    }
    const double mean_angle = angle_sum / shell_n;
    std::printf("%s: shell %ld/%ld surface, deeper than 2 spacings %ld/%ld surface, normals vs radial: mean %.2f deg, max %.2f deg\n",
                mode == pbd::ShadingMode::Bins ? "bins" : "cones", shell_hit, shell_n, deep_hit, deep_n, mean_angle, angle_max);
    EXPECT_GE(shell_hit, 0.98 * shell_n);
    EXPECT_LE(deep_hit, 0.02 * deep_n);
    EXPECT_LT(mean_angle, 10.0);
  }
}

TEST(PbdSurfaceDetection, ALoneParticleIsIsolatedAndLit) {
  const std::vector<double> p = {0, 0, 0, 0.55, 0, 0};  // neighbours (0.55 < h) but further than 4r apart
  const auto s = shade_points(p, pbd::ShadingMode::Bins);
  EXPECT_EQ(s.isolated[0], 1);
  EXPECT_EQ(s.surface[0], 1);
  EXPECT_GT(s.lit[0], 0.9);
}
