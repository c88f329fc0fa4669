// The 3D membrane's force, lumped mass and implicit stiffness in motion: a square membrane of
// thickness h under tension sigma, fixed on its edges (a drum), vibrates in its (1, 1) mode at
// omega = c pi sqrt(2) / L with c = sqrt(sigma / (rho h)). On the n x n grid of right triangles the
// cot weights of the diagonals vanish and those of the axis edges are sigma, so K_c is sigma times
// the 5-point Laplacian and the lumped masses are rho h dx^2: the discrete frequency is
// omega_h = c (2 / dx) sqrt(2) sin(pi dx / 2). Both time integrators have a closed-form phase per
// step theta for a mode of frequency omega_h (z_{n+1} + z_{n-1} = 2 cos(theta) z_n):
//  * symplectic Euler (v += dt f / m, then x += dt v): cos theta = 1 - (omega dt)^2 / 2;
//  * the paper's implicit update (Ruan et al. 2021 Eqs. 17-18 without the liquid): x^{n+1} =
//    x^n + dt v^n, then (M + dt^2 K_c) (v^{n+1} - v^n) = dt f(x^{n+1}). With f = -K_c x this gives
//    cos theta = 1 - (omega dt)^2 / (2 (1 + (omega dt)^2)): stable at any dt, without damping
//    (the step's matrix has determinant 1).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "methods/membrane/triangle_membrane.hpp"
#include "test_membrane3d_support.hpp"

namespace mm = meniscus::membrane;
using namespace meniscus::membrane::testing;

namespace {

constexpr int kCells = 16;
constexpr double kSigma = 72.8, kRho = 1.0, kThickness = 0.01, kAmplitude = 1e-4;

struct Drum {
  mm::TriangleMembrane m;
  std::vector<double> mass;
  std::vector<char> fixed;
  double omega_h = 0, omega = 0, omega_max = 0;
};

Drum make_drum() {
  Drum d;
  d.m = mm::make_triangle_membrane(
      sheet(kCells, [](double x, double y) { return kAmplitude * std::sin(M_PI * x) * std::sin(M_PI * y); }));
  Kokkos::View<double*, mm::MemSpace> mass("mass", d.m.vertices());
  mm::lumped_vertex_areas(d.m, kRho * kThickness, mass);
  auto hm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mass);
  const Host3 x = to_host(d.m.x);
  for (long i = 0; i < d.m.vertices(); ++i) {
    d.mass.push_back(hm(i));
    d.fixed.push_back(x[i][0] < 1e-12 || x[i][0] > 1 - 1e-12 || x[i][1] < 1e-12 || x[i][1] > 1 - 1e-12);
  }
  const double c = std::sqrt(kSigma / (kRho * kThickness)), dx = 1.0 / kCells;
  d.omega = c * M_PI * std::sqrt(2.0);
  d.omega_h = c * 2 / dx * std::sqrt(2.0) * std::sin(M_PI * dx / 2);
  d.omega_max = c * 2 / dx * std::sqrt(2.0);  // the highest grid mode, (2 / dx) sqrt(2) c
  return d;
}

// Centre height after each of `steps` steps (explicit: symplectic Euler; implicit: Eq. 17).
std::vector<double> run(Drum& d, double dt, int steps, bool implicit) {
  const long n = d.m.vertices(), centre = (kCells / 2) * (kCells + 1) + kCells / 2;
  Host3 x = to_host(d.m.x), v(n, {0, 0, 0});
  mm::Vec3Array f("f", n), u("u", n), ku("ku", n);
  mm::CornerArray w("w", d.m.triangles());
  auto force = [&](const Host3& pos) {
    from_host(pos, d.m.x);
    mm::capillary_force(d.m, kSigma, f);
    return to_host(f);
  };
  // (M + dt^2 K_c) restricted to the free vertices, by conjugate gradients on the matrix-free K_c.
  auto solve = [&](const Host3& rhs) {
    mm::cotangent_weights(d.m, kSigma, w);
    auto apply = [&](const Host3& p) {
      from_host(p, u);
      mm::apply_cotangent_stiffness(d.m, w, u, ku);
      Host3 out = to_host(ku);
      for (long i = 0; i < n; ++i)
        for (int c = 0; c < 3; ++c) out[i][c] = d.fixed[i] ? 0.0 : d.mass[i] * p[i][c] + dt * dt * out[i][c];
      return out;
    };
    auto dot = [&](const Host3& a, const Host3& b) {
      double s = 0;
      for (long i = 0; i < n; ++i)
        for (int c = 0; c < 3; ++c) s += a[i][c] * b[i][c];
      return s;
    };
    Host3 sol(n, {0, 0, 0}), r = rhs;
    for (long i = 0; i < n; ++i)
      if (d.fixed[i]) r[i] = {0, 0, 0};
    Host3 p = r;
    double rr = dot(r, r);
    const double stop = 1e-26 * rr;
    for (int it = 0; it < 500 && rr > stop; ++it) {
      const Host3 ap = apply(p);
      const double alpha = rr / dot(p, ap);
      for (long i = 0; i < n; ++i)
        for (int c = 0; c < 3; ++c) {
          sol[i][c] += alpha * p[i][c];
          r[i][c] -= alpha * ap[i][c];
        }
      const double rr_new = dot(r, r);
      for (long i = 0; i < n; ++i)
        for (int c = 0; c < 3; ++c) p[i][c] = r[i][c] + rr_new / rr * p[i][c];
      rr = rr_new;
    }
    return sol;
  };
  std::vector<double> z{x[centre][2]};
  for (int s = 0; s < steps; ++s) {
    if (implicit) {
      for (long i = 0; i < n; ++i)
        for (int c = 0; c < 3; ++c) x[i][c] += dt * v[i][c];
      Host3 rhs = force(x);
      for (auto& q : rhs)
        for (auto& e : q) e *= dt;
      const Host3 dv = solve(rhs);
      for (long i = 0; i < n; ++i)
        for (int c = 0; c < 3; ++c) v[i][c] += dv[i][c];
    } else {
      const Host3 fx = force(x);
      for (long i = 0; i < n; ++i)
        for (int c = 0; c < 3; ++c) {
          if (!d.fixed[i]) v[i][c] += dt * fx[i][c] / d.mass[i];
          x[i][c] += dt * v[i][c];
        }
    }
    z.push_back(x[centre][2]);
    if (!std::isfinite(z.back()) || std::abs(z.back()) > 1e6 * kAmplitude) break;
  }
  return z;
}

// cos(theta) of a sampled single mode, z_{n+1} + z_{n-1} = 2 cos(theta) z_n, by least squares.
double measured_cos_theta(const std::vector<double>& z) {
  double num = 0, den = 0;
  for (size_t k = 1; k + 1 < z.size(); ++k) {
    num += z[k] * (z[k + 1] + z[k - 1]);
    den += 2 * z[k] * z[k];
  }
  return num / den;
}

// The amplitude A of z_n = A cos(n theta + phi) from three samples, z_n^2 - z_{n-1} z_{n+1} =
// A^2 sin^2 theta: its smallest and largest value over the run, relative to a / cos(theta / 2), the
// amplitude both schemes give from rest (their first two or the virtual previous sample equal a).
std::pair<double, double> amplitude_range(const std::vector<double>& z, double theta) {
  double lo = 1e300, hi = 0;
  for (size_t k = 1; k + 1 < z.size(); ++k) {
    const double amp = std::sqrt(z[k] * z[k] - z[k - 1] * z[k + 1]) / std::sin(theta);
    lo = std::min(lo, amp);
    hi = std::max(hi, amp);
  }
  const double expected = kAmplitude / std::cos(theta / 2);
  return {lo / expected, hi / expected};
}

double peak(const std::vector<double>& z) {
  double p = 0;
  for (double v : z) p = std::max(p, std::abs(v));
  return p;
}

}  // namespace

TEST(Membrane3dDrum, ExplicitStepsRingAtTheDrumFrequency) {
  auto d = make_drum();
  const double dt = 0.2 / d.omega_max;  // omega_max dt = 0.2, well inside explicit stability (2)
  const auto z = run(d, dt, 400, false);
  const double theta = std::acos(measured_cos_theta(z));
  const double predicted = std::acos(1 - std::pow(d.omega_h * dt, 2) / 2);
  // The time step's own phase error removed, the grid frequency against the continuum drum.
  const double omega_measured = 2 / dt * std::sin(theta / 2);
  const auto [lo, hi] = amplitude_range(z, theta);
  std::printf("drum, explicit: theta %.6e vs %.6e (%.1e); omega %.2f vs grid %.2f (%.1e) vs drum %.2f (%.2e); "
              "amplitude %.6f-%.6f of predicted\n",
              theta, predicted, theta / predicted - 1, omega_measured, d.omega_h, omega_measured / d.omega_h - 1,
              d.omega, omega_measured / d.omega - 1, lo, hi);
  EXPECT_NEAR(theta / predicted, 1, 1e-4);
  EXPECT_NEAR(omega_measured / d.omega, 1, 2e-3);  // sin(pi dx / 2) / (pi dx / 2) - 1 = -1.6e-3
  EXPECT_NEAR(lo, 1, 1e-4);
  EXPECT_NEAR(hi, 1, 1e-4);
}

TEST(Membrane3dDrum, ImplicitStiffnessIsStableFarBeyondTheExplicitLimit) {
  // omega_max dt = 6: symplectic Euler diverges (the negative control); Eq. 17 with K_c keeps the
  // amplitude and rings at its predicted phase per step.
  auto d = make_drum();
  const double dt = 6 / d.omega_max;
  auto explicit_run = make_drum();
  const auto ze = run(explicit_run, dt, 60, false);
  const auto z = run(d, dt, 60, true);
  const double wdt = d.omega_h * dt;
  const double predicted = std::acos(1 - wdt * wdt / (2 * (1 + wdt * wdt)));
  const double theta = std::acos(measured_cos_theta(z));
  const auto [lo, hi] = amplitude_range(z, theta);
  std::printf("drum at omega_max dt = 6: explicit peak %.1e a after %zu steps; implicit theta %.5f vs %.5f (%.1e), "
              "amplitude %.6f-%.6f of predicted\n",
              peak(ze) / kAmplitude, ze.size() - 1, theta, predicted, theta / predicted - 1, lo, hi);
  EXPECT_GT(peak(ze), 1e3 * kAmplitude);
  EXPECT_NEAR(theta / predicted, 1, 1e-4);
  EXPECT_NEAR(lo, 1, 1e-4);  // neither damped nor growing
  EXPECT_NEAR(hi, 1, 1e-4);
}
