// Implicit (backward-Euler) MPM with surface tension: the incremental potential's gradient and
// Hessian product against central finite differences, linear momentum to the Newton tolerance, and
// rank equivalence of implicit runs. Runs at 1, 2 and 4 ranks.
#include <gtest/gtest.h>
#include <petscvec.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "core/log.hpp"
#include "methods/mpm/explicit_mpm.hpp"
#include "scene.hpp"
#include "validation_support.hpp"

using namespace meniscus;

namespace {
// A fluid drop touching an elastic block, both with surface samples; gravity on; no walls.
const char* kScene2D = R"(
simulation: {dimension: 2, method: mpm-explicit, end_time: 1}
domain: {lower: [0, 0], upper: [1, 1], cell_size: 0.04, walls: none}
mpm:
  integrator: implicit
  newton: {project_hessian: false}
  surface_tension: {enabled: true, coefficient: 0.3}
materials:
  - {name: liquid, model: fluid, density: 10, bulk_modulus: 100, viscosity: 0.05}
  - {name: block, model: fixed-corotated, density: 20, youngs_modulus: 300, poisson_ratio: 0.3}
sources:
  - {type: ellipsoid, material: liquid, center: [0.45, 0.5], radii: [0.17, 0.12], particles_per_cell: 4}
  - {type: box, material: block, lower: [0.6, 0.38], upper: [0.75, 0.6], particles_per_cell: 4}
)";
const char* kScene3D = R"(
simulation: {dimension: 3, method: mpm-explicit, end_time: 1}
domain: {lower: [0, 0, 0], upper: [1, 1, 1], cell_size: 0.08, walls: none}
mpm:
  integrator: implicit
  newton: {project_hessian: false}
  surface_tension: {enabled: true, coefficient: 0.3}
materials:
  - {name: liquid, model: fluid, density: 10, bulk_modulus: 100, viscosity: 0.05}
  - {name: block, model: fixed-corotated, density: 20, youngs_modulus: 300, poisson_ratio: 0.3}
sources:
  - {type: sphere, material: liquid, center: [0.4, 0.5, 0.5], radius: 0.2, particles_per_cell: 8}
  - {type: box, material: block, lower: [0.6, 0.35, 0.35], upper: [0.8, 0.65, 0.65], particles_per_cell: 8}
)";

// Random velocities, affine fields, volume ratios and deformation gradients, drawn by particle id.
template <int Dim>
void randomize(mpm::ExplicitMPM<Dim>& m, double v_amp, double c_amp, double strain) {
  auto& set = m.particles();
  auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().v));
  auto C = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().C));
  auto J = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().J));
  auto id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.id());
  const bool solid = m.fields().F >= 0;
  auto F = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), solid ? m.deformation() : set.field(m.fields().C));
  auto mat = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.material());
  for (size_t q = 0; q < set.size(); ++q) {
    std::mt19937_64 rng(static_cast<uint64_t>(id(q)) * 7919 + 13);
    std::uniform_real_distribution<double> u(-1, 1);
    for (int d = 0; d < Dim; ++d) v(q, d) = v_amp * u(rng);
    for (int i = 0; i < Dim * Dim; ++i) C(q, i) = c_amp * u(rng);
    if (strain > 0) {
      if (solid && mat(q) == 1) {
        for (int i = 0; i < Dim * Dim; ++i) F(q, i) = (i % (Dim + 1) == 0 ? 1.0 : 0.0) + strain * u(rng);
      } else {
        J(q, 0) = 1 + strain * u(rng);
      }
    }
  }
  Kokkos::deep_copy(set.field(m.fields().v), v);
  Kokkos::deep_copy(set.field(m.fields().C), C);
  Kokkos::deep_copy(set.field(m.fields().J), J);
  if (solid) Kokkos::deep_copy(m.deformation(), F);
}

// Central differences along a random direction of the active unknowns; the smallest error over a
// few step sizes (truncation falls with h^2, round-off grows with 1/h).
template <int Dim>
void check_derivatives(const char* scene, const std::string& name) {
  auto d = test::deck_from_string(scene);
  mpm::ExplicitMPM<Dim> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), Dim});
  randomize<Dim>(m, 0.3, 1.0, 0.1);
  std::unique_ptr<mpm::IncrementalPotential<Dim>> pot;
  const double dt = 0.02;
  auto& solver = m.prepare_implicit_solve(dt, false, pot);
  Vec v, dir, g, gp, gm, Hd, fd;
  VecDuplicate(solver.velocity(), &v);
  for (Vec* w : {&dir, &g, &gp, &gm, &Hd, &fd}) VecDuplicate(v, w);
  PetscRandom rnd;
  PetscRandomCreate(PETSC_COMM_WORLD, &rnd);
  PetscRandomSetInterval(rnd, -1.0, 1.0);
  PetscRandomSetSeed(rnd, 1234);
  PetscRandomSeed(rnd);
  // Evaluation point: the predictor plus a random field (0.3 m/s), so every term is away from rest.
  VecSetRandom(v, rnd);
  VecScale(v, 0.3);
  VecAXPY(v, 1.0, solver.velocity());
  solver.project(v);
  VecSetRandom(dir, rnd);
  solver.project(dir);
  PetscRandomDestroy(&rnd);

  solver.gradient(*pot, v, g, false);
  solver.linearize(*pot, v);
  solver.hessian(*pot, dir, Hd);
  PetscScalar gd = 0, hn = 0;
  VecDot(g, dir, &gd);
  VecNorm(Hd, NORM_2, &hn);
  double best_g = 1e300, best_h = 1e300;
  for (double h : {1e-3, 3e-4, 1e-4, 3e-5, 1e-5}) {
    Vec vp, vm;
    VecDuplicate(v, &vp);
    VecDuplicate(v, &vm);
    VecWAXPY(vp, h, dir, v);
    VecWAXPY(vm, -h, dir, v);
    const double fd_e = (solver.energy(*pot, vp) - solver.energy(*pot, vm)) / (2 * h);
    best_g = std::min(best_g, std::fabs(fd_e - gd) / std::fabs(gd));
    solver.gradient(*pot, vp, gp, false);
    solver.gradient(*pot, vm, gm, false);
    VecWAXPY(fd, -1.0, gm, gp);
    VecScale(fd, 1.0 / (2 * h));
    VecAXPY(fd, -1.0, Hd);
    PetscScalar err = 0;
    VecNorm(fd, NORM_2, &err);
    best_h = std::min(best_h, err / hn);
    VecDestroy(&vp);
    VecDestroy(&vm);
  }
  std::fprintf(stderr, "%s: g.d = %.6e, |Hd| = %.6e, best errors %.2e %.2e\n", name.c_str(), gd, hn, best_g, best_h);
  for (Vec* w : {&v, &dir, &g, &gp, &gm, &Hd, &fd}) VecDestroy(w);
  DiagnosticRow row;
  m.diagnostics(row);
  EXPECT_GT(test::column(row, "surface_particles"), 20);
  EXPECT_LT(best_g, 1e-6) << "gradient vs central differences of the energy";
  EXPECT_LT(best_h, 1e-6) << "Hessian product vs central differences of the gradient";
  test::record_check(name, "incremental potential (fluid + viscosity + solid + surface): gradient and Hessian vs central FD",
                     "1e-6 relative", log::format("gradient %.1e, Hessian %.1e", best_g, best_h),
                     best_g < 1e-6 && best_h < 1e-6);
}
}  // namespace

TEST(ImplicitMPM, DerivativesMatchFiniteDifferences2D) { check_derivatives<2>(kScene2D, "implicit_derivatives_2d"); }
TEST(ImplicitMPM, DerivativesMatchFiniteDifferences3D) { check_derivatives<3>(kScene3D, "implicit_derivatives_3d"); }
