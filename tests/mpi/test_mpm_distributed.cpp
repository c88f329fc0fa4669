// Explicit APIC MPM across ranks: affine fields are transferred exactly, a free-flying rotating
// elastic disc conserves mass, linear and angular momentum to round-off, and a dam break gives the
// same diagnostics on this job's ranks as on one rank.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "methods/mpm/mpm_method.hpp"
#include "run/deck_schema.hpp"
#include "core/log.hpp"
#include "scene.hpp"
#include "validation_support.hpp"

using namespace meniscus;

namespace {

double rel(double a, double b, double scale) { return std::fabs(a - b) / scale; }

using test::column;
}  // namespace

TEST(MpmMethod, AffineVelocityFieldIsTransferredExactly) {
  // No stress at J = F = I, no gravity, no walls: one step must return v = b + A x and C = A.
  const char* deck = R"(
simulation: {dimension: 2, method: mpm, end_time: 1.0}
domain: {lower: [0, 0], upper: [1, 1], cell_size: 0.05, walls: none}
mpm: {gravity: [0, 0], dt_max: 1.0e-6}
materials: [{name: w, model: fluid, density: 1000, bulk_modulus: 1.0e4}]
sources: [{type: ellipsoid, material: w, center: [0.5, 0.5], radii: [0.3, 0.2], particles_per_cell: 9,
           velocity: [0.25, -0.5], angular_velocity: 1.5, rotation_center: [0.4, 0.45]}]
)";
  auto d = test::deck_from_string(deck);
  mpm::MpmMethod<2> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 2});
  const double dt = 1e-6;
  m.step(dt);
  auto& set = m.particles();
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().x));
  auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().v));
  auto C = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().C));
  ASSERT_GT(m.global_particle_count(), 0);
  for (size_t p = 0; p < set.size(); ++p) {
    const double x0 = x(p, 0) - dt * v(p, 0), y0 = x(p, 1) - dt * v(p, 1);
    EXPECT_NEAR(v(p, 0), 0.25 - 1.5 * (y0 - 0.45), 1e-12);
    EXPECT_NEAR(v(p, 1), -0.5 + 1.5 * (x0 - 0.4), 1e-12);
    EXPECT_NEAR(C(p, 0), 0.0, 1e-10);
    EXPECT_NEAR(C(p, 1), -1.5, 1e-10);
    EXPECT_NEAR(C(p, 2), 1.5, 1e-10);
    EXPECT_NEAR(C(p, 3), 0.0, 1e-10);
  }
}

TEST(MpmMethod, RotatingDiscConservesMomentaToRoundOff) {
  auto d = run::load_deck(test::source_dir() + "/inputs/rotating-disc-2d.yaml", {});
  mpm::MpmMethod<2> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 2});
  DiagnosticRow r0;
  m.diagnostics(r0);
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  test::SeriesCsv csv("rotating_disc_np" + std::to_string(size), "step,drift_momentum_x,drift_momentum_y,drift_angular_momentum");
  DiagnosticRow r1;
  for (int s = 1; s <= 400; ++s) {
    m.step(std::min(m.stable_dt(), 2e-4));
    if (s % 10) continue;
    r1.clear();
    m.diagnostics(r1);
    const double ps = column(r0, "mass") * 0.36, L = std::fabs(column(r0, "angular_momentum_z"));
    csv.row(s, rel(column(r1, "momentum_x"), column(r0, "momentum_x"), ps) + 1e-17,
            rel(column(r1, "momentum_y"), column(r0, "momentum_y"), ps) + 1e-17,
            rel(column(r1, "angular_momentum_z"), column(r0, "angular_momentum_z"), L) + 1e-17);
  }
  const double mass = column(r0, "mass");
  ASSERT_GT(mass, 0);
  EXPECT_EQ(column(r1, "particles"), column(r0, "particles"));
  EXPECT_LT(rel(column(r1, "mass"), mass, mass), 1e-14);
  const double pscale = mass * 0.36;  // |v0| ~ 0.36 m/s
  EXPECT_LT(rel(column(r1, "momentum_x"), column(r0, "momentum_x"), pscale), 1e-10);
  EXPECT_LT(rel(column(r1, "momentum_y"), column(r0, "momentum_y"), pscale), 1e-10);
  const double L0 = column(r0, "angular_momentum_z");
  EXPECT_LT(rel(column(r1, "angular_momentum_z"), L0, std::fabs(L0)), 1e-10);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    std::printf("relative drift: mass %.2e  p_x %.2e  p_y %.2e  L_z %.2e\n",
                rel(column(r1, "mass"), mass, mass),
                rel(column(r1, "momentum_x"), column(r0, "momentum_x"), pscale),
                rel(column(r1, "momentum_y"), column(r0, "momentum_y"), pscale),
                rel(column(r1, "angular_momentum_z"), L0, std::fabs(L0)));
  const double worst = std::max({rel(column(r1, "momentum_x"), column(r0, "momentum_x"), pscale),
                                 rel(column(r1, "momentum_y"), column(r0, "momentum_y"), pscale),
                                 rel(column(r1, "angular_momentum_z"), L0, std::fabs(L0))});
  test::record_check("rotating_disc_np" + std::to_string(size),
                     "linear and angular momentum conserved (APIC, free flight, " + std::to_string(size) + (size == 1 ? " rank)" : " ranks)"),
                     "1e-10 relative after 400 steps", log::format("%.1e", worst), worst < 1e-10,
                     "rotating_disc.png");
  // The disc keeps spinning (the elastic material does not dissipate its rotation away).
  EXPECT_GT(std::fabs(L0), 0.0);
}

namespace {
// The diagnostics row of the water-and-block scene after `steps` steps on every rank and on rank 0 alone.
std::pair<DiagnosticRow, DiagnosticRow> rows_here_and_alone(int steps) {
  auto d = test::deck_from_string(test::kWaterAndBlockScene);
  auto run = [&](MPI_Comm comm) {
    mpm::MpmMethod<2> m(MethodContext{comm, d.deck.root(), 2});
    for (int s = 0; s < steps; ++s) m.step(m.stable_dt());
    DiagnosticRow row;
    m.diagnostics(row);
    return row;
  };
  return test::run_here_and_alone(MPI_COMM_WORLD, run);
}
}  // namespace

TEST(MpmMethod, DiagnosticsDoNotDependOnTheRankCount) {
  const auto [mine, ref] = rows_here_and_alone(300);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    for (size_t i = 0; i < mine.size(); ++i) {
      const auto& [name, v] = mine[i];
      if (!test::reproducible_column(name)) continue;
      const double scale = std::max({std::fabs(ref[i].second), std::fabs(v), 1e-30});
      // Momenta can be near zero: compare them against the mass-velocity scale instead.
      const double floor = name.find("momentum") != std::string::npos ? column(ref, "mass") * 1e-3 : 0.0;
      EXPECT_LE(std::fabs(v - ref[i].second), 1e-10 * std::max(scale, floor)) << name;
    }
  }
}

// At step 0 the particles are the same at every rank count, and so is the diagnostics row, bit for bit,
// in every column but the per-rank particle counts: its global sums are reproducible_sum's
// (core/reproducible_sum.hpp). With the plain parallel_reduce + MPI_Allreduce sums this failed at 2 and
// 4 ranks (mass 13.99999999999968 at 2 ranks against 13.999999999999606 on one; the 2D dam break's mass
// differed between 1 and 2 ranks by 3e-16 relative).
TEST(MpmMethod, StepZeroDiagnosticsAreTheSameBitsAtEveryRankCount) {
  const auto [mine, ref] = rows_here_and_alone(0);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) return;
  const int compared = test::expect_same_bits(mine, ref);
  EXPECT_GT(compared, 20);
}

namespace {
// A drop on a wetting floor (Young's angle 60 deg), 2D and 3D, one step: the row then holds the surface
// sampled from the step-0 particles, which are the same at every rank count.
const char* kWettingDrop2D = R"(
simulation: {dimension: 2, method: mpm, end_time: 1}
domain: {lower: [0, 0], upper: [1, 0.6], cell_size: 0.02, walls: none}
mpm: {gravity: [0, 0], surface_tension: {enabled: true, coefficient: 0.1, samples_per_dx: 8}}
materials: [{name: liquid, model: fluid, density: 10, bulk_modulus: 100, viscosity: 0.2}]
colliders: [{type: half-space, point: [0, 0.15], normal: [0, 1], boundary: slip-attached, contact_angle: 60}]
sources: [{type: sphere, material: liquid, center: [0.5, 0.201], radius: 0.15, particles_per_cell: 4}]
)";
const char* kWettingDrop3D = R"(
simulation: {dimension: 3, method: mpm, end_time: 1}
domain: {lower: [0, 0, 0], upper: [0.6, 0.6, 0.5], cell_size: 0.05, walls: none}
mpm: {gravity: [0, 0, 0], surface_tension: {enabled: true, coefficient: 0.1, samples_per_dx: 2}}
materials: [{name: liquid, model: fluid, density: 10, bulk_modulus: 100, viscosity: 0.2}]
colliders: [{type: half-space, point: [0, 0, 0.125], normal: [0, 0, 1], boundary: slip-attached, contact_angle: 60}]
sources: [{type: sphere, material: liquid, center: [0.3, 0.3, 0.2], radius: 0.15, particles_per_cell: 8}]
)";

template <int Dim>
void expect_surface_columns_same_bits(const char* deck) {
  auto d = test::deck_from_string(deck);
  auto run = [&](MPI_Comm comm) {
    mpm::MpmMethod<Dim> m(MethodContext{comm, d.deck.root(), Dim});
    m.step(m.stable_dt());
    DiagnosticRow row;
    m.diagnostics(row);
    return row;
  };
  const auto [mine, ref] = test::run_here_and_alone(MPI_COMM_WORLD, run);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) return;
  const std::string unit = Dim == 2 ? "length" : "area";
  for (const std::string& name : std::vector<std::string>{"surface_particles", "surface_" + unit, "surface_energy", "liquid_gas_" + unit,
                                 "solid_liquid_" + unit}) {
    const double a = column(mine, name), b = column(ref, name);
    EXPECT_GT(b, 0) << name;
    EXPECT_EQ(std::memcmp(&a, &b, sizeof(double)), 0)
        << name << ": " << a << " at this rank count, " << b << " on one rank";
  }
}
}  // namespace

// The surface measures of the row (contour length or area, liquid-gas and solid-liquid |dA|, surface
// energy) are exact sums over the contour's elements and the samples (mpm::surface_measures), so the
// same samples give the same bits at 1, 2 and 4 ranks. As plain parallel_reduce + MPI_Allreduce sums
// they did not: at 2 ranks surface_length 0.91666459527544053 against 0.91666459527544064 on one rank,
// liquid_gas_length 0.59049180199185802 against ...702 (2D); surface_area 0.39496766939885308 against
// ...519 (3D); every column but the sample count differed at 2 and 4 ranks.
TEST(MpmMethod, SurfaceMeasuresAreTheSameBitsAtEveryRankCount) {
  expect_surface_columns_same_bits<2>(kWettingDrop2D);
  expect_surface_columns_same_bits<3>(kWettingDrop3D);
  // Stratified placement in 3D (geometry::sample_triangles): its points are a function of each cell's contour.
  std::string stratified = kWettingDrop3D;
  const std::string key = "samples_per_dx: 2";
  stratified.replace(stratified.find(key), key.size(), key + ", placement: stratified");
  expect_surface_columns_same_bits<3>(stratified.c_str());
}
