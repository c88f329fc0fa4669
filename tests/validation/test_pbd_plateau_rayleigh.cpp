// Plateau-Rayleigh instability with position-based surface tension (Xing et al. 2022; the check is
// Rayleigh 1878): a liquid cylinder of radius R_c = 6 lattice spacings in a box periodic along its axis,
// zero gravity. Area constraints minimise the surface, so the geometric threshold of the instability
// must hold whatever the method's (non-physical) time scale: a varicose perturbation of wavelength
// L > 2 pi R_c (kR_c < 1) lowers the area and grows until the cylinder pinches into one drop per
// period; a shorter one (kR_c > 1) raises the area and decays. Wavelengths 1.5 and 0.6 times the
// circumference (kR_c = 0.66 and 1.64, the lengths rounded to whole spacings). The paper's constraint
// force mixing (area 1, density 600, distance 40), r = 0.025 as in the cube -> sphere test
// (docs/theory-pbd.md), dt = 1/30 s.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "methods/pbd/pbd_xing.hpp"
#include "scene.hpp"
#include "validation_support.hpp"
#include "varicose_cylinder.hpp"

using namespace meniscus;

namespace {
constexpr double kRadius = 0.025, kSpacing = 2 * kRadius, kCylinder = 6 * kSpacing, kEps = 0.2;

struct Run {
  std::vector<double> eps;  // amplitude after every step, the carved one first
  bool pinched = false;
  int pinch_step = -1;
  long particles = 0, fewest_at_end = 0;
};

// `spacings` lattice spacings per period, `iterations` constraint iterations per step.
Run run_cylinder(int spacings, int steps, int iterations) {
  const double length = spacings * kSpacing, k = 2 * M_PI / length, half = kCylinder * (1 + kEps) + 4 * kSpacing;
  char deck[1536];
  std::snprintf(deck, sizeof deck, R"(
simulation: {dimension: 3, method: pbd-xing2022, end_time: 100}
domain: {lower: [%g, %g, 0], upper: [%g, %g, %.17g], cell_size: 0.05, walls: none, periodic: [z]}
pbd: {particle_radius: %g, gravity: [0, 0, 0], iterations: %d, reset_iterations: 10, xsph: 0,
      area_cfm: 1, density_cfm: 600, distance_cfm: 40, density_constraint: unilateral, distance_pairs: all}
materials: [{name: liquid}]
sources: [{type: ellipsoid, material: liquid, center: [0, 0, 0], radii: [%.17g, %.17g, 100], particles_per_cell: 1}]
)",
                -half, -half, half, half, length, kRadius, iterations, kCylinder * (1 + kEps) + 1e-9,
                kCylinder * (1 + kEps) + 1e-9);
  auto d = test::deck_from_string(deck);
  pbd::PbdXing m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 3});
  test::carve_varicose(m.particles(), m.fields().x, kCylinder, kEps, k);
  Run run;
  run.particles = m.global_particle_count();
  for (int s = 0; s <= steps; ++s) {
    const auto v = test::sample_varicose(m.particles(), m.fields().x, k, length, spacings, MPI_COMM_WORLD);
    run.eps.push_back(v.amplitude);
    run.fewest_at_end = v.fewest;
    if (s % 5 == 0) test::print_rank0("  step %3d: amplitude %.4f, fewest particles in a slab %ld", s, v.amplitude, v.fewest);
    if (v.pinched) {
      run.pinched = true;
      run.pinch_step = s;
      break;
    }
    if (s < steps) m.step(m.stable_dt());
  }
  return run;
}

double krc(int spacings) { return 2 * M_PI / (spacings * kSpacing) * kCylinder; }
constexpr int kLonger = 57;   // 2.85 m = 1.51 x 2 pi R_c, kR_c = 0.661
constexpr int kShorter = 23;  // 1.15 m = 0.61 x 2 pi R_c, kR_c = 1.639

}  // namespace

// CI size: 30 steps of 30 iterations each (about 50 s of one core). Measured: the longer wavelength grows
// 0.195 -> 0.236 (x1.21, still accelerating), the shorter decays 0.195 -> 0.027 (x0.14).
TEST(PbdPlateauRayleigh, VaricoseModeGrowsBelowAndDecaysAboveKRcOne) {
  const auto grow = run_cylinder(kLonger, 30, 30);
  const auto decay = run_cylinder(kShorter, 30, 30);
  test::print_rank0("PBD Plateau-Rayleigh, 30 steps: kR_c = %.3f (%ld particles) amplitude %.3f -> %.3f; kR_c = %.3f "
                    "(%ld particles) %.3f -> %.3f",
                    krc(kLonger), grow.particles, grow.eps.front(), grow.eps.back(), krc(kShorter), decay.particles,
                    decay.eps.front(), decay.eps.back());
  EXPECT_GT(grow.eps.back(), 1.1 * grow.eps.front());
  // Exponential growth: the last ten steps add more than the ten before them.
  const size_t n = grow.eps.size();
  ASSERT_GE(n, 21u);
  EXPECT_GT(grow.eps[n - 1] - grow.eps[n - 11], grow.eps[n - 11] - grow.eps[n - 21]);
  EXPECT_LT(decay.eps.back(), 0.5 * decay.eps.front());
  EXPECT_FALSE(grow.pinched || decay.pinched);
}

// The same threshold to the end (29 min of one core on the loaded machine): the unstable cylinder
// pinches (measured at step 122, amplitude 0.87), the stable one oscillates and
// stays a cylinder.
TEST(PbdPlateauRayleigh, LongLongerCylinderPinchesShorterStays) {
  const auto longer = run_cylinder(kLonger, 200, 30);
  const auto shorter = run_cylinder(kShorter, 150, 30);
  // The short cylinder's mode is a damped standing capillary wave. Measured: the amplitude passes
  // through zero at steps 35 and 97 and swings back to 0.092 (step 60, 0.47 of the initial) and 0.046
  // (step 125). Asserted: the first swing stays under 0.6 of the initial amplitude, the second under
  // 0.75 of the first.
  double peak = 0, peak2 = 0;
  for (size_t s = 30; s < shorter.eps.size(); ++s) {
    double& p = s < 95 ? peak : peak2;
    p = std::max(p, shorter.eps[s]);
  }
  test::print_rank0("PBD Plateau-Rayleigh kR_c = %.3f: amplitude %.3f -> %.3f, pinched %d at step %d; kR_c = %.3f: "
                    "amplitude %.3f -> %.3f after %zu steps (swings back to %.3f, then %.3f), fewest particles per slab %ld",
                    krc(kLonger), longer.eps.front(), longer.eps.back(), longer.pinched ? 1 : 0, longer.pinch_step,
                    krc(kShorter), shorter.eps.front(), shorter.eps.back(), shorter.eps.size() - 1, peak, peak2,
                    shorter.fewest_at_end);
  EXPECT_TRUE(longer.pinched);
  EXPECT_FALSE(shorter.pinched);
  EXPECT_LT(peak, 0.6 * shorter.eps.front());
  EXPECT_LT(peak2, 0.75 * peak);
}
