// Explicit surface tension with resampled surface and balance particles (Chen et al. 2021, Sec. 4.3.1, explicit form):
// an ellipse of liquid with random velocities and affine fields in free flight keeps its linear and
// angular momentum to round-off at any rank count, because every node that receives a surface force
// also receives that sample's mass. The massless-sample variant (Hyde et al. 2020) loses force on
// nodes only samples reach and must drift (negative control).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "methods/mpm/mpm_method.hpp"
#include "core/log.hpp"
#include "scene.hpp"
#include "validation_support.hpp"

using namespace meniscus;

namespace {
const char* kEllipse = R"(
simulation: {dimension: 2, method: mpm, end_time: 1}
domain: {lower: [0, 0], upper: [1, 1], cell_size: 0.02, walls: none}
mpm:
  gravity: [0, 0]
  surface_tension: {enabled: true, coefficient: 0.1}
materials: [{name: liquid, model: fluid, density: 10, bulk_modulus: 100, viscosity: 0.0}]
sources: [{type: ellipsoid, material: liquid, center: [0.5, 0.5], radii: [0.2, 0.12], particles_per_cell: 4}]
)";

struct Momenta {
  double p[2], L, p_scale, L_scale;
};

// Particle-side APIC momenta (the affine part of L: m dx^2/4 (C10 - C01)), summed over ranks.
Momenta momenta(mpm::MpmMethod<2>& m) {
  auto& set = m.particles();
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().x));
  auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().v));
  auto C = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().C));
  auto mass = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().mass));
  const double D = m.decomposition().dx() * m.decomposition().dx() / 4;
  double s[6] = {0, 0, 0, 0, 0, 0};
  for (size_t q = 0; q < set.size(); ++q) {
    const double mp = mass(q, 0), rx = x(q, 0) - 0.5, ry = x(q, 1) - 0.5;
    s[0] += mp * v(q, 0);
    s[1] += mp * v(q, 1);
    s[2] += mp * (rx * v(q, 1) - ry * v(q, 0) + D * (C(q, 2) - C(q, 1)));
    s[3] += mp * std::hypot(v(q, 0), v(q, 1));
    s[4] += mp * std::hypot(rx, ry) * std::hypot(v(q, 0), v(q, 1));
  }
  MPI_Allreduce(MPI_IN_PLACE, s, 6, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return {{s[0], s[1]}, s[2], s[3], s[4]};
}

double max_drift(bool massless, int steps, const std::string& series) {
  auto d = test::deck_from_string(kEllipse, {std::string("mpm.surface_tension.massless_samples=") +
                                             (massless ? "true" : "false")});
  mpm::MpmMethod<2> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 2});
  // Random velocities and affine fields, drawn by particle id so every rank count gets the same.
  {
    auto& set = m.particles();
    auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().v));
    auto C = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().C));
    auto id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.id());
    for (size_t q = 0; q < set.size(); ++q) {
      std::mt19937_64 rng(static_cast<uint64_t>(id(q)) * 7919 + 13);
      std::uniform_real_distribution<double> u(-1, 1);
      v(q, 0) = 0.05 + 0.1 * u(rng);
      v(q, 1) = -0.03 + 0.1 * u(rng);
      for (int i = 0; i < 4; ++i) C(q, i) = 0.5 * u(rng);
    }
    Kokkos::deep_copy(set.field(m.fields().v), v);
    Kokkos::deep_copy(set.field(m.fields().C), C);
  }
  const Momenta m0 = momenta(m);
  test::SeriesCsv csv(series, "step,drift_linear,drift_angular");
  double worst = 0;
  for (int s = 1; s <= steps; ++s) {
    m.step(1e-3);
    if (s % (steps <= 50 ? 2 : 25) && s != steps) continue;
    const Momenta m1 = momenta(m);
    const double dp = std::hypot(m1.p[0] - m0.p[0], m1.p[1] - m0.p[1]) / m0.p_scale;
    const double dL = std::fabs(m1.L - m0.L) / m0.L_scale;
    csv.row(s, dp + 1e-17, dL + 1e-17);
    worst = std::max({worst, dp, dL});
  }
  DiagnosticRow row;
  m.diagnostics(row);
  EXPECT_GT(test::column(row, "surface_particles"), 50) << "the surface is sampled";
  EXPECT_EQ(test::column(row, "dropped_surface_particles"), 0);
  return worst;
}
}  // namespace

TEST(SurfaceTensionExplicit, EllipseConservesMomentaToRoundOff) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const double worst = max_drift(false, 2000, "surface_tension_conservation_np" + std::to_string(size));
  EXPECT_LT(worst, 1e-11);
  test::record_check("surface_tension_conservation_np" + std::to_string(size),
                     "linear and angular momentum of a free ellipse with surface tension (split surface/balance particles)",
                     "1e-11 relative over 2000 steps", log::format("%.1e", worst), worst < 1e-11,
                     "surface_tension_conservation.png");
}

TEST(SurfaceTensionExplicit, MasslessSamplesDrift) {
  const double worst = max_drift(true, 40, "surface_tension_massless");
  EXPECT_GT(worst, 1e-8) << "massless surface particles lose momentum (negative control)";
}
