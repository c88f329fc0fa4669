// 3D bodies held in place along world axes, and 3D bodies that start spinning.
//
// Held (membrane.bodies[N].held; the held-body measurement of
// Vella and Mahadevan 2005 that Ruan et al. 2021 §7 compare their Cheerios with): the held velocity
// components stay 0 and the three-way solve's rows of the held axes give the force of the liquid
// and the membrane on the body. Against Archimedes: a sphere held fully under a pool at rest feels
// rho g V upward and nothing sideways, whatever its sub-cell position.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "membrane3d_scenes.hpp"
#include "membrane_scenes.hpp"
#include "methods/membrane/membrane_ruan_3d.hpp"
#include "run/deck_schema.hpp"
#include "scene.hpp"
#include "validation_support.hpp"

namespace mm = meniscus::membrane;
using meniscus::test::print_rank0;

namespace {
constexpr double kG = 980.0;  // cm/s^2, Flow3Parameters' default gravity
}

// A sphere R = 0.2 cm (3.2 cells of 1/16 cm) held along x, y and z with its centre 0.15 cm under a
// pool 0.75 cm deep (its top 0.2 cm under the surface), off the lattice in x and y, sigma = 72.8
// (the surface stays flat, so sigma does not reach the body). Three steps of 1 ms from rest:
// F_z = rho g 4/3 pi R^3 within 3 % (the cells whose centre the sphere covers stand in for it, as
// in 2D), |F_x|, |F_y| below 1e-6 of it (hydrostatic pressure gives no net horizontal push on the
// staircase either), and the body does not move.
namespace {
// F_z / (rho g 4/3 pi R^3) - 1 of the sphere above at `cells`^3 cells, after `steps` steps of 1 ms;
// the horizontal force and the body's position are checked on the way.
double held_sphere_error(int cells, int steps) {
  const double dx = 1.0 / cells, r = 0.2;
  mm::RigidBody3 body = meniscus::test::sphere3({0.5 + 0.3 / 16, 0.5 + 0.2 / 16, 0.4}, r, 3.0);
  body.rotates = false;
  body.held[0] = body.held[1] = body.held[2] = true;
  mm::Flow3Parameters p;
  p.sigma = 72.8;
  mm::CoupledSolveOptions o;
  o.rtol = 1e-10;
  auto s = meniscus::test::make_pool3(cells, 0.75, p, o, MPI_COMM_WORLD, {body});
  const double archimedes = p.rho * kG * 4.0 / 3.0 * M_PI * r * r * r;
  double error = 0;
  for (int step = 0; step < steps; ++step) {
    const auto res = s.flow->step(1e-3);
    const std::vector<double>& f = res.second.held_force;
    EXPECT_EQ(f.size(), 3u);
    if (f.size() != 3) return 1.0;
    error = f[2] / archimedes - 1;
    print_rank0("held submerged sphere, %d^3 cells (R = %.1f dx), step %d: F = (%.3e, %.3e, %.6e) dyn against rho g "
                "4/3 pi R^3 = %.6e (%.3f %%)",
                cells, r / dx, step, f[0], f[1], f[2], archimedes, 100 * error);
    EXPECT_LT(std::abs(f[0]), 1e-6 * archimedes);
    EXPECT_LT(std::abs(f[1]), 1e-6 * archimedes);
    const auto& b = s.flow->bodies()[0];
    EXPECT_EQ(b.c[0], body.c[0]);
    EXPECT_EQ(b.c[1], body.c[1]);
    EXPECT_EQ(b.c[2], body.c[2]);
  }
  return error;
}
}  // namespace

TEST(Membrane3DHeldValidation, HeldSubmergedSphereFeelsArchimedesForce) {
  EXPECT_LT(std::abs(held_sphere_error(16, 3)), 0.03);  // measured -2.57 %
}

// The same sphere at twice the resolution (R = 6.4 cells): the error falls (measured -2.57 % -> -0.37 %;
// the covered cells' volume is -0.92 % and +1.00 % of the sphere's there, so the force is not just the
// voxel volume). One step each, 8 s.
TEST(Membrane3DHeldValidation, HeldSphereForceConvergesInDx) {
  const double coarse = held_sphere_error(16, 1), fine = held_sphere_error(32, 1);
  print_rank0("held sphere: error %.3f %% (16^3) -> %.3f %% (32^3)", 100 * coarse, 100 * fine);
  EXPECT_LT(std::abs(fine), 0.6 * std::abs(coarse));
}

// Held along z only, the same sphere is free to move sideways: it stays put (no horizontal force),
// keeps its height exactly, and F_z agrees with the fully held sphere's to the solver tolerance
// (holding x and y sets aside rows that carry no force at rest).
TEST(Membrane3DHeldValidation, HeldVerticallyOnlyKeepsItsHeightAndForce) {
  const int cells = 16;
  const double dx = 1.0 / cells, r = 0.2;
  mm::Flow3Parameters p;
  p.sigma = 72.8;
  mm::CoupledSolveOptions o;
  o.rtol = 1e-10;
  double fz[2] = {0, 0};
  for (int variant = 0; variant < 2; ++variant) {
    mm::RigidBody3 body = meniscus::test::sphere3({0.5 + 0.3 * dx, 0.5 + 0.2 * dx, 0.4}, r, 3.0);
    body.rotates = false;
    body.held[2] = true;
    body.held[0] = body.held[1] = variant == 0;
    auto s = meniscus::test::make_pool3(cells, 0.75, p, o, MPI_COMM_WORLD, {body});
    const auto res = s.flow->step(1e-3);
    fz[variant] = res.second.held_force[2];
    const auto& b = s.flow->bodies()[0];
    EXPECT_EQ(b.c[2], body.c[2]);
    EXPECT_EQ(b.v[2], 0.0);
    if (variant == 1) {
      EXPECT_EQ(res.second.held_force[0], 0.0);  // not held: no reading
      EXPECT_LT(std::hypot(b.v[0], b.v[1]), 1e-6);
    }
  }
  print_rank0("held along z only: F_z %.9e dyn, held along x, y, z: %.9e dyn", fz[1], fz[0]);
  EXPECT_NEAR(fz[1], fz[0], 1e-6 * fz[0]);
}

// The deck key (membrane.bodies[N].held: xyz) on the sphere-drop CI deck's sphere moved under the
// surface: the method holds the body and reports body0_held_fz, the Archimedes force within 3 %,
// and body0_held_fx, body0_held_fy near 0.
TEST(Membrane3DHeldValidation, DeckKeyHeldReportsTheForceColumns) {
  const double r = 0.2;
  auto d = meniscus::test::deck_from_string(
      "simulation: {dimension: 3, method: membrane-ruan2021, end_time: 0.003, name: membrane-held-3d}\n"
      "domain: {lower: [0, 0, 0], upper: [1, 1, 1], cell_size: 0.0625}\n"
      "membrane: {shape: pool, level: 0.75, surface_tension: 72.8, rtol: 1.0e-10, dt_max: 1.0e-3,\n"
      "  bodies: [{shape: sphere, center: [0.51875, 0.5125, 0.4], radius: 0.2, density: 3.0, rotates: false,\n"
      "            held: xyz}]}\n");
  auto m = std::make_unique<mm::MembraneRuan3>(meniscus::MethodContext{MPI_COMM_WORLD, d.deck.root(), 3});
  const double archimedes = kG * 4.0 / 3.0 * M_PI * r * r * r;
  for (int step = 0; step < 2; ++step) {
    m->step(1e-3);
    meniscus::DiagnosticRow row;
    m->diagnostics(row);
    const double fx = meniscus::test::column(row, "body0_held_fx"), fy = meniscus::test::column(row, "body0_held_fy");
    const double fz = meniscus::test::column(row, "body0_held_fz");
    print_rank0("deck key held: xyz, step %d: body0_held_f = (%.3e, %.3e, %.6e) dyn against %.6e (%.3f %%)", step, fx,
                fy, fz, archimedes, 100 * (fz / archimedes - 1));
    EXPECT_NEAR(fz, archimedes, 0.03 * archimedes);
    EXPECT_LT(std::abs(fx), 1e-6 * archimedes);
    EXPECT_LT(std::abs(fy), 1e-6 * archimedes);
    EXPECT_EQ(meniscus::test::column(row, "body0_z"), 0.4);
  }
}

// A body given an initial spin (membrane.bodies[N].angular_velocity, the world-frame vector in 3D;
// the step's conservation of a free body's angular momentum is Membrane3dShapes.TorqueFree...).
// The deck key in 3D: angular_velocity: [0, 0, 5] on the sphere-drop CI deck's sphere with rotates:
// false (the spin is then kept whatever the liquid does): body0_wz reads 5 before and after steps
// (rotates: false returns omega* itself, not the solve's value, which is omega* only to the solver's
// tolerance: 5 + 3e-12 per step before); with rotates: true the spin of the free sphere falling in
// air is kept to the solver's tolerance until it meets the water (a sphere's inertia is isotropic, so
// omega itself is conserved).
TEST(Membrane3DSpinValidation, DeckKeySpinsTheBody) {
  for (const bool rotates : {false, true}) {
    auto d = meniscus::run::load_deck(
        meniscus::test::source_dir() + "/inputs/membrane-sphere-drop-3d-ci.yaml",
        {"membrane.bodies[0].angular_velocity=[0, 0, 5]", std::string("membrane.bodies[0].rotates=") + (rotates ? "true" : "false")});
    mm::MembraneRuan3 m(meniscus::MethodContext{MPI_COMM_WORLD, d.deck.root(), 3});
    for (int step = 0; step < 3; ++step) {
      m.step(1e-3);
      meniscus::DiagnosticRow row;
      m.diagnostics(row);
      const double wz = meniscus::test::column(row, "body0_wz");
      print_rank0("deck key angular_velocity [0, 0, 5], rotates %s, step %d: body0_w = (%.3e, %.3e, %.17g), contacts %.0f",
                  rotates ? "true" : "false", step, meniscus::test::column(row, "body0_wx"),
                  meniscus::test::column(row, "body0_wy"), wz, meniscus::test::column(row, "contact_vertices"));
      if (rotates) {
        EXPECT_NEAR(wz, 5.0, 1e-9);  // falling in air: nothing touches it (the solve's tolerance: 3e-12 per step)
        EXPECT_EQ(meniscus::test::column(row, "contact_vertices"), 0.0);
      } else {
        EXPECT_EQ(wz, 5.0);
      }
    }
  }
}
