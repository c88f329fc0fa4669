// The adhesion force of Ruan et al. 2021 (§5.2, Eq. 20: f_a = sum over the contact vertices of the
// mixed elements of J^T f_c, i.e. -sigma dA/dq) in a scene, with the deck switch membrane.adhesion
// (FlowParameters::adhesion) as its negative control. 2D, CGS as in the paper: water (rho = 1
// g/cm^2), sigma = 0.9 dyn, g = 9.8 cm/s^2.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "membrane_scenes.hpp"
#include "validation_support.hpp"

namespace mm = meniscus::membrane;
using meniscus::test::print_rank0;

namespace {

constexpr double kSigma = 0.9, kG = 9.8, kWidth = 2.0, kDx = 0.05, kLevel = 0.6;

// The vertical pull predicted by Eq. 20 for the membrane as it stands: over every edge between a
// contact vertex and a free one, sigma times the vertical component of the unit vector from the
// contact vertex to the free one (in 2D -sigma dL/dx at the contact end; summed over a body's two
// contact lines, sigma (sin psi_left + sin psi_right), psi the membrane's inclination there).
double predicted_vertical_pull(mm::MembraneFlow& flow) {
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), flow.membrane().x);
  auto seg = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), flow.membrane().seg);
  const std::vector<int>& contact = flow.contact();
  double pull = 0;
  for (long e = 0; e < flow.membrane().segments(); ++e) {
    const int i = seg(e, 0), j = seg(e, 1);
    if ((contact[i] >= 0) == (contact[j] >= 0)) continue;
    const int c = contact[i] >= 0 ? i : j, f = contact[i] >= 0 ? j : i;
    pull += kSigma * (x(f, 1) - x(c, 1)) / std::hypot(x(f, 0) - x(c, 0), x(f, 1) - x(c, 1));
  }
  return pull;
}

}  // namespace

// A disc three times denser than water (R = 0.1 cm, rho_s = 3) floats with its top below the far
// level, carried by pressure and by the membrane's pull at its two contact lines. It settles free
// (damping 8 /s to 0.5 s, normal vertex motion for a quiet rest; 40 x 20 cells of 0.05 cm), is then
// held where it is (deck key held: xy, whose solve rows return the vertical force of liquid and
// membrane on it), stepped once, then six times more with dt = 1 ms, the adhesion term alternately
// on and off.
// Checked:
//  * adhesion on: the held force carries the weight m g (Keller's balance of the settled body)
//    within 8 %;
//  * the force lost when adhesion is off equals the pull of Eq. 20 evaluated from the membrane's
//    geometry, sigma (sin psi_l + sin psi_r), within 5 %;
//  * that pull is a large part of the support (more than a third of m g): the negative control
//    shows an effect well above the tolerances.
// Measured: adhesion on 0.8981 dyn/cm (97.2 % of m g = 0.9236), off 0.4358; difference 0.4622 against
// the Eq. 20 pull 0.4605 (+0.39 %), the pull carrying 0.499 of m g (sin psi about 0.26 at each contact
// line). 4.3 s of one core (20 s wall on the loaded machine).
TEST(MembraneAdhesionValidation, HeldDenseDiscLosesTheMembranesPullWithoutAdhesion) {
  const mm::Disc d = meniscus::test::pool_disc(0.5 * kWidth, kLevel, 0.1, 3.0);
  mm::FlowParameters p = meniscus::test::pool_parameters(kSigma, kDx);
  p.settle_damping = 8.0;
  p.settle_until = 0.5;
  p.normal_motion = true;
  auto s = meniscus::test::make_pool_with_bodies(kWidth, 1.0, kDx, kLevel, {d}, p,
                                                 meniscus::test::pool_solve_options());
  double t = 0;
  while (t < p.settle_until) {
    const double dt = s.flow->stable_dt(0.5, 1.0, 2e-3);
    s.flow->step(dt);
    t += dt;
  }
  mm::Disc& b = s.flow->bodies()[0];
  const double weight = b.mass() * kG;
  print_rank0("settled at t = %.3f s: centre y %.4f cm (level %.2f), v (%.2e, %.2e) cm/s", t, b.c[1], kLevel, b.v[0],
              b.v[1]);
  b.held_x = b.held_y = true;
  b.v[0] = b.v[1] = 0;
  // One held step first: stopping the body (it still moved at 0.02 cm/s) is an impulse of its own
  // that the held force of that step carries (measured 0.11 dyn/cm against about 0.9 after it).
  print_rank0("first held step (not counted): F_y %.5f dyn/cm", s.flow->step(1e-3).second.held_force[1]);
  double on = 0, off = 0, pull = 0;
  int n_on = 0, n_off = 0;
  for (int k = 0; k < 6; ++k) {
    const bool adhesion = k % 2 == 0;
    s.flow->set_adhesion(adhesion);
    const auto r = s.flow->step(1e-3);
    const double fy = r.second.held_force[1], predicted = predicted_vertical_pull(*s.flow);
    print_rank0("adhesion %s: held F_y %.5f dyn/cm (m g %.5f), Eq. 20 pull of the membrane %.5f, %ld contact vertices",
                adhesion ? "on " : "off", fy, weight, predicted, r.contact_vertices);
    (adhesion ? on : off) += fy;
    ++(adhesion ? n_on : n_off);
    pull += predicted;
  }
  on /= n_on;
  off /= n_off;
  pull /= n_on + n_off;
  print_rank0("mean held F_y: adhesion on %.5f (%.2f %% of m g), off %.5f; difference %.5f against the Eq. 20 pull %.5f "
              "(%.2f %%); pull / m g = %.3f",
              on, 100 * on / weight, off, on - off, pull, 100 * ((on - off) / pull - 1), pull / weight);
  EXPECT_NEAR(on, weight, 0.08 * weight);
  EXPECT_NEAR(on - off, pull, 0.05 * pull);
  EXPECT_GT(pull, weight / 3);
}
