// Point operators of the multiphase MPM (Yan et al. 2018): the hypoelastic Jaumann update (eq. 11)
// under uniaxial strain and rigid spin, the Tait law (eq. 18), and the anti-penetration impulse at
// one node (eqs. 21-26, with the dimensionally consistent collision force).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "grid/gimp.hpp"
#include "methods/mpm_multiphase/contact.hpp"
#include "physics/hypoelastic.hpp"
#include "physics/tait_density.hpp"

using namespace meniscus;
using mpm_multiphase::apply_contact;
using mpm_multiphase::ContactMode;

namespace {

// Uniaxial strain rate diag(r, 0, 0) for n steps: the rate is constant, so forward Euler is exact.
void check_uniaxial(bool literal, double expect_xx_per_rt, double expect_yy_per_rt) {
  const auto m = physics::HypoelasticModuli::from_young(2.6e6, 0.3);
  const double r = 0.7, dt = 1e-4;
  const int n = 1000;
  double grad[9] = {r, 0, 0, 0, 0, 0, 0, 0, 0}, s[9] = {};
  for (int i = 0; i < n; ++i) physics::jaumann_update<3>(m, grad, dt, literal, s);
  const double rt = r * n * dt;
  EXPECT_NEAR(s[0] / (expect_xx_per_rt * rt), 1.0, 1e-12);
  EXPECT_NEAR(s[4] / (expect_yy_per_rt * rt), 1.0, 1e-12);
  EXPECT_NEAR(s[8] / (expect_yy_per_rt * rt), 1.0, 1e-12);
  for (int i : {1, 2, 3, 5, 6, 7}) EXPECT_EQ(s[i], 0.0);
}

double frobenius(const double* a) {
  double s = 0;
  for (int i = 0; i < 9; ++i) s += a[i] * a[i];
  return std::sqrt(s);
}

double j2(const double* s) {
  const double p = (s[0] + s[4] + s[8]) / 3;
  double d[9];
  for (int i = 0; i < 9; ++i) d[i] = s[i] - (i % 4 == 0 ? p : 0.0);
  double t = 0;
  for (int i = 0; i < 9; ++i) t += d[i] * d[i];
  return 0.5 * t;
}

// A quarter turn of rigid spin about z at omega from sigma0 = diag(1, -1, 0) MPa.
struct SpinResult {
  double frob_error, i1_drift, j2_ratio;
};
SpinResult spin_quarter_turn(double dt) {
  const auto m = physics::HypoelasticModuli::from_young(2.6e6, 0.3);
  const double w = 10.0, T = M_PI / (2 * w);
  const int n = static_cast<int>(std::lround(T / dt));
  // u = omega z x x: du_x/dy = -w, du_y/dx = w.
  double grad[9] = {0, -w, 0, w, 0, 0, 0, 0, 0};
  double s[9] = {1e6, 0, 0, 0, -1e6, 0, 0, 0, 0};
  const double j20 = j2(s);
  for (int i = 0; i < n; ++i) physics::jaumann_update<3>(m, grad, dt, false, s);
  const double th = w * n * dt, c = std::cos(th), sn = std::sin(th);
  // R diag(1,-1,0) R^T for R the rotation by th about z.
  const double ref[9] = {1e6 * (c * c - sn * sn), 1e6 * 2 * c * sn, 0, 1e6 * 2 * c * sn, 1e6 * (sn * sn - c * c), 0, 0, 0, 0};
  double e[9];
  for (int i = 0; i < 9; ++i) e[i] = s[i] - ref[i];
  return {frobenius(e) / frobenius(ref), std::fabs(s[0] + s[4] + s[8]) / 1e6, j2(s) / j20};
}

}  // namespace

TEST(S001_Hypo, UniaxialStrainIsHookesLaw) {
  const auto m = physics::HypoelasticModuli::from_young(2.6e6, 0.3);
  check_uniaxial(false, m.bulk + 4.0 / 3.0 * m.shear, m.bulk - 2.0 / 3.0 * m.shear);
}

TEST(S001_Hypo, UniaxialStrainPaperLiteralHasBulkModulusOverThree) {
  // Yan et al. 2018 eq. (11) as printed divides the volumetric term by 3: (K/3 + 4/3 G) r t.
  const auto m = physics::HypoelasticModuli::from_young(2.6e6, 0.3);
  check_uniaxial(true, m.bulk / 3.0 + 4.0 / 3.0 * m.shear, m.bulk / 3.0 - 2.0 / 3.0 * m.shear);
}

TEST(S001_Hypo, RigidSpinObjectivity) {
  // Explicit Euler on the Jaumann rate rotates the deviator s by (1 + i 2 w dt) per step (as a complex
  // number a + i b for s = [[a, b], [b, -a]]), so J2 grows by exactly (1 + 4 w^2 dt^2) per step and
  // the trace is untouched: checked to round-off at the paper's dt = 1e-4, and the stress must equal
  // R sigma0 R^T within 5e-3 (Frobenius, relative).
  const double dt = 1e-4, w = 10.0;
  const auto r = spin_quarter_turn(dt);
  const int n = static_cast<int>(std::lround(M_PI / (2 * w) / dt));
  EXPECT_LT(r.frob_error, 5e-3);
  EXPECT_LT(r.i1_drift, 1e-12);
  EXPECT_NEAR(r.j2_ratio, std::pow(1 + 4 * w * w * dt * dt, n), 1e-12);
  // The invariant drift is first order in dt: below 2e-3 at dt = 1e-5.
  const auto fine = spin_quarter_turn(1e-5);
  EXPECT_LT(std::fabs(fine.j2_ratio - 1), 2e-3);
  EXPECT_LT(fine.frob_error, 1e-3);
}

TEST(S001_Tait, PressureFromDensity) {
  const double k = physics::tait_stiffness(1000, 28, 7);
  EXPECT_DOUBLE_EQ(k, 1000 * 28.0 * 28.0 / 7);
  EXPECT_DOUBLE_EQ(physics::tait_pressure_from_density(1000, 1000, k, 7, false), 0.0);
  EXPECT_NEAR(physics::tait_pressure_from_density(1010, 1000, k, 7, false), k * (std::pow(1.01, 7) - 1), 1e-9);
  // Linearised: dp/drho = c0^2 at rest.
  const double e = 1e-6;
  EXPECT_NEAR(physics::tait_pressure_from_density(1000 * (1 + e), 1000, k, 7, false) / (1000 * e), 28.0 * 28.0, 1e-2);
  EXPECT_LT(physics::tait_pressure_from_density(990, 1000, k, 7, false), 0.0);
  EXPECT_EQ(physics::tait_pressure_from_density(990, 1000, k, 7, true), 0.0);
}

TEST(S001_Contact, FormulaOnOneNode) {
  // m_A = 2 moving at +x into m_B = 1 at rest, A's outward normal +x (its mass gradient points away
  // from its mass, B's the other way): both normal velocities end at the centre-of-mass value 2/3.
  const double m[2] = {2, 1};
  const double grad[6] = {3, 0, 0, -5, 0, 0};
  const double beta[4] = {0, 1, 1, 0};
  double u[6] = {1, 0.5, -0.25, 0, -0.2, 0.1};
  EXPECT_EQ(apply_contact<3>(2, m, grad, u, beta, ContactMode::Pairwise), 1);
  EXPECT_NEAR(u[0], 2.0 / 3.0, 1e-15);
  EXPECT_NEAR(u[3], 2.0 / 3.0, 1e-15);
  // Tangential components untouched (free slip).
  EXPECT_EQ(u[1], 0.5);
  EXPECT_EQ(u[2], -0.25);
  EXPECT_EQ(u[4], -0.2);
  EXPECT_EQ(u[5], 0.1);
  for (int d = 0; d < 3; ++d) {
    const double p0 = d == 0 ? 2.0 : (d == 1 ? 2 * 0.5 - 0.2 : 2 * -0.25 + 0.1);
    EXPECT_NEAR(m[0] * u[d] + m[1] * u[3 + d], p0, 1e-15);
  }
  // Separating: no change.
  double s[6] = {-1, 0, 0, 0, 0, 0};
  EXPECT_EQ(apply_contact<3>(2, m, grad, s, beta, ContactMode::Pairwise), 0);
  EXPECT_EQ(s[0], -1.0);
  EXPECT_EQ(s[3], 0.0);
  // beta = 0.3 removes 30 % of the approach velocity.
  const double weak[4] = {0, 0.3, 0.3, 0};
  double w[6] = {1, 0, 0, 0, 0, 0};
  apply_contact<3>(2, m, grad, w, weak, ContactMode::Pairwise);
  EXPECT_NEAR(w[0] - w[3], 0.7, 1e-15);
  EXPECT_NEAR(2 * w[0] + w[3], 2.0, 1e-15);
  // Two groups: each_vs_rest is the pairwise form.
  double e[6] = {1, 0.5, -0.25, 0, -0.2, 0.1};
  apply_contact<3>(2, m, grad, e, beta, ContactMode::EachVsRest);
  EXPECT_NEAR(e[0], 2.0 / 3.0, 1e-15);
  EXPECT_NEAR(e[3], 2.0 / 3.0, 1e-15);
}

// contact_fill: the pair acts only where the groups' nodal volumes fill the given share of the cell. The
// same approach as FormulaOnOneNode, with volumes 0.4 + 0.45 of a cell: no impulse at fill 0.9 in either
// mode; 0.5 + 0.45 fills 0.95 and gets the full pairwise impulse; the volumes of absent groups do not count.
TEST(S001_Contact, VolumeFillGatesTheContact) {
  const double m[3] = {2, 1, 0};
  const double grad[9] = {3, 0, 0, -5, 0, 0, 0, 0, 0};
  const double beta[9] = {0, 1, 1, 1, 0, 1, 1, 1, 0};
  const double apart[3] = {0.4, 0.45, 1.0}, touching[3] = {0.5, 0.45, 0.0};
  for (auto mode : {ContactMode::Pairwise, ContactMode::EachVsRest}) {
    double u[9] = {1, 0, 0, 0, 0, 0, 0, 0, 0};
    EXPECT_EQ(apply_contact<3>(3, m, grad, u, beta, mode, apart, 0.9), 0);
    EXPECT_EQ(u[0], 1.0);
    EXPECT_EQ(u[3], 0.0);
    EXPECT_EQ(apply_contact<3>(3, m, grad, u, beta, mode, apart, 0.85), mode == ContactMode::Pairwise ? 1 : 2);
    EXPECT_NEAR(u[0], 2.0 / 3.0, 1e-15);
    double v[9] = {1, 0, 0, 0, 0, 0, 0, 0, 0};
    EXPECT_GT(apply_contact<3>(3, m, grad, v, beta, mode, touching, 0.9), 0);
    EXPECT_NEAR(v[0], 2.0 / 3.0, 1e-15);
    EXPECT_NEAR(v[3], 2.0 / 3.0, 1e-15);
  }
}

// contact_separation: the pair acts only where B's mass-weighted particle centre lies less than the
// separation beyond A's along A's outward normal (+x here). Centres 0.8 apart along x (and 5 apart along
// y, which does not count) act at 0.85; 0.9 apart do not. each_vs_rest compares with the rest's
// mass-weighted centre: a third group at 0.5 beyond A with the same mass as B's brings the rest to 0.85.
TEST(S001_Contact, SeparationGatesTheContact) {
  const double m[3] = {2, 1, 0};
  const double grad[9] = {3, 0, 0, -5, 0, 0, 0, 0, 0};
  const double beta[9] = {0, 1, 1, 1, 0, 1, 1, 1, 0};
  const double near[9] = {0.1, 0, 0, 0.9, 5, 0, 99, 99, 99}, far[9] = {0.1, 0, 0, 1.0, 0, 0, 0, 0, 0};
  for (auto mode : {ContactMode::Pairwise, ContactMode::EachVsRest}) {
    double u[9] = {1, 0, 0, 0, 0, 0, 0, 0, 0};
    EXPECT_EQ(apply_contact<3>(3, m, grad, u, beta, mode, nullptr, 0, far, 0.85), 0);
    EXPECT_EQ(u[0], 1.0);
    EXPECT_EQ(u[3], 0.0);
    EXPECT_EQ(apply_contact<3>(3, m, grad, u, beta, mode, nullptr, 0, near, 0.85), mode == ContactMode::Pairwise ? 1 : 2);
    EXPECT_NEAR(u[0], 2.0 / 3.0, 1e-15);
    EXPECT_NEAR(u[3], 2.0 / 3.0, 1e-15);
  }
  // Three groups, each_vs_rest: B 1.2 beyond A and C 0.5 beyond, equal masses: the rest at 0.85.
  const double m3[3] = {2, 1, 1};
  const double grad3[9] = {3, 0, 0, -5, 0, 0, -5, 0, 0};
  const double spread[9] = {0, 0, 0, 1.2, 0, 0, 0.5, 0, 0};
  double u[9] = {1, 0, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(apply_contact<3>(3, m3, grad3, u, beta, ContactMode::EachVsRest, nullptr, 0, spread, 0.84), 0);
  EXPECT_GT(apply_contact<3>(3, m3, grad3, u, beta, ContactMode::EachVsRest, nullptr, 0, spread, 0.86), 0);
}

// What the separation reads with the method's uniform GIMP weights (particle half-width h/4, two
// particles per cell and axis): two half-lattices, A's particles at -h/4, -3h/4, ... and B's at g + h/4,
// g + 3h/4, ..., read at every node (256 offsets per cell against the lattices) that both reach.
// Touching (g = 0) the centres lie 3h/4 apart where the node sits on the interface (equal masses) and
// 6h/7 where the lighter group carries a quarter of a particle's weight, up to 5h/4 in the limit of a
// vanishing weight. A quarter cell apart they read at least 0.93 h, a cell apart 1.5 h. So a separation
// of 0.85 h acts on touching lattices at the nodes next to their interface and not across a quarter-cell
// gap, while the paper's rule (any two masses) reaches across gaps up to 2h.
TEST(S001_Contact, TouchingLatticesReadUnderACell) {
  struct Reading {
    double lo = 1e300, hi = -1e300, hi_quarter = -1e300;  // hi_quarter: both weights >= 1/4
  };
  auto reading = [](double gap) {
    Reading r;
    for (int k = 0; k < 256; ++k)
      for (int j = -4; j <= 5; ++j) {
        const double node = k / 256.0 + j;
        double ma = 0, xa = 0, mb = 0, xb = 0;
        for (int p = 0; p < 12; ++p) {
          const double a = -0.25 - 0.5 * p, b = gap + 0.25 + 0.5 * p;
          const double wa = grid::gimp_weight(std::fabs(a - node)), wb = grid::gimp_weight(std::fabs(b - node));
          ma += wa, xa += wa * a, mb += wb, xb += wb * b;
        }
        if (!(ma > 0 && mb > 0)) continue;
        const double apart = xb / mb - xa / ma;
        r.lo = std::min(r.lo, apart);
        r.hi = std::max(r.hi, apart);
        if (std::min(ma, mb) >= 0.25) r.hi_quarter = std::max(r.hi_quarter, apart);
      }
    return r;
  };
  const Reading touching = reading(0.0), quarter = reading(0.25), cell = reading(1.0);
  EXPECT_NEAR(touching.lo, 0.75, 1e-12);
  EXPECT_NEAR(touching.hi_quarter, 6.0 / 7.0, 1e-12);
  EXPECT_LT(touching.hi, 1.25);
  EXPECT_GT(touching.hi, 1.24);
  EXPECT_GT(quarter.lo, 0.92);
  EXPECT_NEAR(cell.lo, 1.5, 1e-12);
  EXPECT_LE(reading(1.9).lo, reading(1.9).hi);  // still both reach a node: the paper's rule acts
  EXPECT_GT(reading(2.0).lo, reading(2.0).hi);  // no node reached by both
}

// A group surrounded by its own particles has a mass gradient that cancels; its floating-point residue
// (here 1e-19 kg/m at a node of 4 kg, dx = 0.02) has an arbitrary direction. Without the floor it gives a
// unit normal and an impulse against the partner; with it the residue counts as zero and no impulse
// is applied, while a resolved surface gradient (4 kg / dx) is kept unchanged.
TEST(S001_Contact, RoundOffMassGradientGivesNoNormal) {
  const double inv_dx = 1.0 / 0.02, m[2] = {4, 1};
  double grad[4] = {1e-19, -3e-20, -0.5 * m[1] * inv_dx, 0};
  const double beta[4] = {0, 1, 1, 0};
  double raw[4] = {grad[0], grad[1], grad[2], grad[3]}, u_raw[4] = {0, 0, -1, 0};
  EXPECT_EQ(apply_contact<2>(2, m, raw, u_raw, beta, ContactMode::Pairwise), 1);  // the noise acts
  EXPECT_FALSE(mpm_multiphase::floor_mass_gradient<2>(grad, m[0], inv_dx));
  EXPECT_EQ(grad[0], 0.0);
  EXPECT_EQ(grad[1], 0.0);
  EXPECT_TRUE(mpm_multiphase::floor_mass_gradient<2>(grad + 2, m[1], inv_dx));
  EXPECT_EQ(grad[2], -0.5 * m[1] * inv_dx);
  double u[4] = {0, 0, -1, 0};
  EXPECT_EQ(apply_contact<2>(2, m, grad, u, beta, ContactMode::Pairwise), 0);
  EXPECT_EQ(u[2], -1.0);
}

TEST(S001_Contact, ThreeGroupsPairwiseConservesMomentum) {
  const double m[3] = {1.3, 0.7, 2.1};
  const double grad[6] = {1, 0.2, -0.5, 1, 0.1, -1};
  const double beta[9] = {0, 1, 0.3, 1, 0, 0.3, 0.3, 0.3, 0};
  double u[6] = {0.4, -0.3, -0.8, 0.6, 0.1, 0.9};
  double p0[2] = {}, p1[2] = {};
  for (int g = 0; g < 3; ++g)
    for (int d = 0; d < 2; ++d) p0[d] += m[g] * u[2 * g + d];
  EXPECT_GT(apply_contact<2>(3, m, grad, u, beta, ContactMode::Pairwise), 0);
  for (int g = 0; g < 3; ++g)
    for (int d = 0; d < 2; ++d) p1[d] += m[g] * u[2 * g + d];
  for (int d = 0; d < 2; ++d) EXPECT_NEAR(p1[d], p0[d], 1e-15);
}
