// The assembled Hessian of the implicit MPM (methods/mpm/assembled_hessian.hpp) against the
// matrix-free product it replaces: A d = H' d for a random d, H' = P H P + (I - P), with the exact and
// the PSD-projected per-point Hessians, in 2D and 3D, for a viscous fluid drop with surface samples
// touching an elastic block, falling onto a slip ground (normal-constrained nodes), with light nodes
// held (identity rows). Runs at 1, 2 and 4 ranks: ghost rows are summed across ranks.
#include <gtest/gtest.h>
#include <petscmat.h>

#include <cmath>
#include <string>

#include "core/log.hpp"
#include "methods/mpm/mpm_method.hpp"
#include "scene.hpp"
#include "validation_support.hpp"

using namespace meniscus;

namespace {
const char* kScene2D = R"(
simulation: {dimension: 2, method: mpm, end_time: 1}
domain: {lower: [0, 0], upper: [1, 1], cell_size: 0.04, walls: slip}
mpm:
  integrator: implicit
  surface_tension: {enabled: true, coefficient: 0.3}
materials:
  - {name: liquid, model: fluid, density: 10, bulk_modulus: 100, viscosity: 0.05}
  - {name: block, model: fixed-corotated, density: 20, youngs_modulus: 300, poisson_ratio: 0.3}
sources:
  - {type: ellipsoid, material: liquid, center: [0.45, 0.22], radii: [0.17, 0.12], particles_per_cell: 4, velocity: [0.2, -1]}
  - {type: box, material: block, lower: [0.6, 0.2], upper: [0.75, 0.42], particles_per_cell: 4}
)";
const char* kScene3D = R"(
simulation: {dimension: 3, method: mpm, end_time: 1}
domain: {lower: [0, 0, 0], upper: [1, 1, 1], cell_size: 0.08, walls: slip}
mpm:
  integrator: implicit
  surface_tension: {enabled: true, coefficient: 0.3}
materials:
  - {name: liquid, model: fluid, density: 10, bulk_modulus: 100, viscosity: 0.05}
  - {name: block, model: fixed-corotated, density: 20, youngs_modulus: 300, poisson_ratio: 0.3}
sources:
  - {type: sphere, material: liquid, center: [0.4, 0.4, 0.5], radius: 0.2, particles_per_cell: 8, velocity: [0, -1, 0.2]}
  - {type: box, material: block, lower: [0.6, 0.2, 0.35], upper: [0.8, 0.5, 0.65], particles_per_cell: 8}
)";

template <int Dim>
void compare(const char* scene, const std::string& name) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  auto d = test::deck_from_string(scene);
  mpm::MpmMethod<Dim> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), Dim});
  std::unique_ptr<mpm::IncrementalPotential<Dim>> pot;
  const double dt = 0.02;
  auto& solver = m.prepare_implicit_solve(dt, true, pot);
  ASSERT_TRUE(solver.assembled_hessian()) << "the assembled Hessian is the default";
  Vec v, dir, Hd, Ad;
  VecDuplicate(solver.velocity(), &v);
  for (Vec* w : {&dir, &Hd, &Ad}) VecDuplicate(v, w);
  PetscRandom rnd;
  PetscRandomCreate(PETSC_COMM_WORLD, &rnd);
  PetscRandomSetInterval(rnd, -1.0, 1.0);
  PetscRandomSetSeed(rnd, 4321);
  PetscRandomSeed(rnd);
  // Away from rest, so that pressure, viscosity, elasticity and the samples all contribute.
  VecSetRandom(v, rnd);
  VecScale(v, 0.3);
  VecAXPY(v, 1.0, solver.velocity());
  solver.project(v);
  double worst = 0;
  for (bool projected : {false, true}) {
    solver.linearize(*pot, v, projected);
    Mat A = solver.assemble_hessian(*pot);
    for (int trial = 0; trial < 2; ++trial) {
      // Trial 0: d on the free components only, so that |H d| is the particles' and the inertia's
      // part; trial 1: every component, held and constrained ones too (their rows: identity, n n^T).
      VecSetRandom(dir, rnd);
      if (trial == 0) solver.project(dir);
      solver.hessian(*pot, dir, Hd);
      MatMult(A, dir, Ad);
      PetscReal hn = 0, err = 0;
      VecNorm(Hd, NORM_2, &hn);
      VecAXPY(Ad, -1.0, Hd);
      VecNorm(Ad, NORM_2, &err);
      const double rel = err / hn;
      worst = std::max(worst, rel);
      test::print_rank0("%s (%s Hessian, %s d): |A d - H d| / |H d| = %.2e, |H d| = %.3e", name.c_str(),
                        projected ? "projected" : "exact", trial == 0 ? "free" : "full", rel, hn);
      EXPECT_LT(rel, 1e-12) << (projected ? "projected" : "exact") << " Hessian";
    }
  }
  PetscRandomDestroy(&rnd);
  for (Vec* w : {&v, &dir, &Hd, &Ad}) VecDestroy(w);
  EXPECT_EQ(solver.pattern_builds(), 1) << "one pattern for both linearisations of the step";
  DiagnosticRow row;
  m.diagnostics(row);
  EXPECT_GT(test::column(row, "surface_particles"), 20);
  test::record_check(name + "_np" + std::to_string(size),
                     "assembled implicit-MPM Hessian (fluid + viscosity + solid + surface, slip ground, held nodes) "
                     "times a random vector vs the matrix-free product",
                     "1e-12 relative", log::format("%.1e", worst), worst < 1e-12);
}
}  // namespace

TEST(ImplicitMPM, AssembledHessianMatchesProduct2D) { compare<2>(kScene2D, "implicit_assembled_hessian_2d"); }
TEST(ImplicitMPM, AssembledHessianMatchesProduct3D) { compare<3>(kScene3D, "implicit_assembled_hessian_3d"); }
// The same scene with an inviscid liquid, whose particles take the block kernel's rank-one
// pressure-only branch (the droplet decks' case).
TEST(ImplicitMPM, AssembledHessianMatchesProductInviscid3D) {
  std::string scene = kScene3D;
  const std::string viscous = "viscosity: 0.05", inviscid = "viscosity: 0";
  ASSERT_NE(scene.find(viscous), std::string::npos);
  scene.replace(scene.find(viscous), viscous.size(), inviscid);
  compare<3>(scene.c_str(), "implicit_assembled_hessian_inviscid_3d");
}
