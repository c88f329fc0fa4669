// Film between two coaxial rings held by kinematic particles (Xing et al. 2022, sec. 6.1 and Fig. 8,
// the film catenoid, here with fixed rings). A two-layer liquid film spans two rings of radius R at
// separation H = 0.8 R; starting as a cylinder, the area constraints pull it towards the minimal
// surface between the rings, the catenoid rho(z) = a cosh(z / a) with R = a cosh(H / 2a), whose
// stable branch gives a / R = 0.9107 at H = 0.8 R.
// Film: layers at radii R -+ r, rows every 2r along z (alternate rows staggered), particles every ~2r
// around; each ring is two rows of kinematic particles on both layers at and beyond z = +-H/2. Units
// and CFMs as the cube test (r = 0.025, density 600, distance 40, density constraints that only push
// apart, distance pairs all) with the paper's catenoid area CFM 0.08 (Table 1).
// Status (docs/theory-pbd.md, "Catenoid"): the static profile is NOT met. The neck passes near the
// catenoid's (0.946 R after 200 iterations) but the film does not stay there: its particles drift
// towards the rings, it thickens to 3-5 r and bulges back to about R. What is checked here is the
// kinematic-particle mechanism the catenoid needs, with the measured neck printed.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "methods/pbd/pbd_xing.hpp"
#include "scene.hpp"
#include "validation_support.hpp"

using namespace meniscus;

namespace {

// Stable-branch neck radius a/R of the catenoid through two rings of radius 1 at separation h:
// 1 = a cosh(h / 2a), the larger root.
double catenoid_neck(double h) {
  // f(a) = a cosh(h / 2a) falls from cosh(h/2) at a = 1 to its minimum at the critical neck: scan down
  // from 1 to the first a with f(a) <= 1, then bisect.
  auto f = [h](double a) { return a * std::cosh(h / (2 * a)); };
  const double step = 1e-3;
  double a = 1.0;
  while (a > 0.05 && f(a) > 1.0) a -= step;
  double lo = a, hi = a + step;
  for (int it = 0; it < 100; ++it) {
    const double mid = 0.5 * (lo + hi);
    if (f(mid) > 1.0) hi = mid;
    else lo = mid;
  }
  return 0.5 * (lo + hi);
}

struct Particle {
  double x[3];
  int material;  // 0 film, 1 ring
  int layer;     // 0 inner, 1 outer
  int row;       // z row index
};

struct CatenoidResult {
  double neck = 0;         // measured a / R
  double expected = 0;     // analytic a / R
  double max_dev = 0;      // max |rho_row - a cosh(z_row / a)| / R over the free rows
  int rows = 0;
  double ring_moved = 0;   // largest displacement of a kinematic particle
  double film_moved = 0;   // largest displacement of a film particle
  double film_escape = 0;  // largest (distance from the axis - R) / R of a film particle
};

CatenoidResult measure(pbd::PbdXing& m, const std::vector<Particle>& ps, double R, double H, double r);

CatenoidResult relax_catenoid(double ring_radius, double separation_over_r, int iterations) {
  const double r = 0.025, s = 2 * r, R = ring_radius;
  const double H = separation_over_r * R;
  const int half_rows = static_cast<int>(std::lround(0.5 * H / s));  // free rows: -half+1 .. half-1
  std::vector<Particle> ps;
  for (int row = -half_rows - 1; row <= half_rows + 1; ++row) {
    const double z = row * s * (0.5 * H / (half_rows * s));  // rows spread exactly over [-H/2, H/2]
    const bool ring = std::abs(row) >= half_rows;
    for (int layer = 0; layer < 2; ++layer) {
      const double rad = R + (layer ? r : -r);
      const int n = static_cast<int>(std::lround(2 * M_PI * rad / s));
      const double shift = (row & 1) ? 0.5 : 0.0;  // stagger alternate rows (no co-circular squares)
      for (int k = 0; k < n; ++k) {
        const double th = 2 * M_PI * (k + shift) / n;
        ps.push_back({{rad * std::cos(th), rad * std::sin(th), z}, ring ? 1 : 0, layer, row});
      }
    }
  }
  const double box = R + 12 * r;
  char deck[1024];
  std::snprintf(deck, sizeof deck, R"(
simulation: {dimension: 3, method: pbd-xing2022, end_time: 1}
domain: {lower: [%g, %g, %g], upper: [%g, %g, %g], cell_size: 0.05, walls: none}
pbd: {particle_radius: %g, gravity: [0, 0, 0], iterations: %d, reset_iterations: 10, xsph: 0,
      area_cfm: 0.08, density_cfm: 600, distance_cfm: 40, density_constraint: unilateral, distance_pairs: all}
materials: [{name: film}, {name: ring, kinematic: true}]
sources: [{type: box, material: film, lower: [0, 0, 0], upper: [0.05, 0.05, 0.05], particles_per_cell: 1}]
)",
                -box, -box, -box, box, box, box, r, iterations);
  auto d = test::deck_from_string(deck);
  pbd::PbdXing m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 3});
  auto& set = m.particles();
  set.resize(ps.size());
  {
    auto x = Kokkos::create_mirror_view(set.field(m.fields().x));
    auto v = Kokkos::create_mirror_view(set.field(m.fields().v));
    auto p = Kokkos::create_mirror_view(set.field(m.fields().ps));
    auto id = Kokkos::create_mirror_view(set.id());
    auto mat = Kokkos::create_mirror_view(set.material());
    for (size_t i = 0; i < ps.size(); ++i) {
      for (int dd = 0; dd < 3; ++dd) {
        x(i, dd) = p(i, dd) = ps[i].x[dd];
        v(i, dd) = 0;
      }
      id(i) = static_cast<int64_t>(i);
      mat(i) = ps[i].material;
    }
    Kokkos::deep_copy(set.field(m.fields().x), x);
    Kokkos::deep_copy(set.field(m.fields().v), v);
    Kokkos::deep_copy(set.field(m.fields().ps), p);
    Kokkos::deep_copy(set.id(), id);
    Kokkos::deep_copy(set.material(), mat);
  }
  m.redistribute_particles();
  m.calibrate_mass();
  m.step(m.stable_dt());  // one quasi-static step of `iterations` constraint iterations
  const CatenoidResult res = measure(m, ps, R, H, r);
  {
    test::print_rank0("PBD film between fixed rings R = %g, H = %.2f R, %zu particles, %d iterations: neck a/R %.4f "
                      "(catenoid %.4f, %+.2f %%), max profile deviation %.4f R over %d bins",
                      R, H / R, ps.size(), iterations, res.neck, res.expected,
                      100 * (res.neck / res.expected - 1), res.max_dev, res.rows);
    // Stage timers (paper Table 1 categories) and the cost per particle and iteration.
    double total = 0;
    std::string split;
    for (const auto& st : m.timers().reduce(MPI_COMM_WORLD)) {
      total += st.max_s;
      split += " " + st.name + " " + std::to_string(st.max_s);
    }
    test::print_rank0("  timers [s]:%s; %.2f us per particle-iteration", split.c_str(),
                      1e6 * total / (static_cast<double>(ps.size()) * iterations));
  }
  return res;
}

CatenoidResult measure(pbd::PbdXing& m, const std::vector<Particle>& ps, double R, double H, double r) {
  auto& set = m.particles();
  CatenoidResult res;
  res.expected = catenoid_neck(H / R);
  res.expected = catenoid_neck(H / R);
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().x));
  auto id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.id());
  // Bins of width 2r in z over the free film: mean radius of each layer, mid-surface = their mean.
  const double s = 2 * r;
  const int nb = static_cast<int>(std::floor(H / s));
  std::vector<std::array<double, 5>> bins(nb, {0, 0, 0, 0, 0});  // inner sum, n, outer sum, n, z sum
  for (size_t i = 0; i < set.size(); ++i) {
    const auto& p = ps[id(i)];
    double dmax = 0;
    for (int d = 0; d < 3; ++d) dmax = std::max(dmax, std::fabs(x(i, d) - p.x[d]));
    if (p.material) {
      res.ring_moved = std::max(res.ring_moved, dmax);
      continue;
    }
    res.film_moved = std::max(res.film_moved, dmax);
    res.film_escape = std::max(res.film_escape, (std::hypot(x(i, 0), x(i, 1)) - R) / R);
    const int b = static_cast<int>(std::floor((x(i, 2) + 0.5 * H) / s));
    if (b < 0 || b >= nb) continue;
    const double rad = std::hypot(x(i, 0), x(i, 1));
    bins[b][p.layer ? 2 : 0] += rad;
    bins[b][p.layer ? 3 : 1] += 1;
    bins[b][4] += x(i, 2);
  }
  const double a = res.expected * R;
  double neck_z = 1e300;
  for (int b = 0; b < nb; ++b) {
    const auto& v = bins[b];
    if (v[1] < 3 || v[3] < 3) continue;
    const double mid = 0.5 * (v[0] / v[1] + v[2] / v[3]);
    const double z = v[4] / (v[1] + v[3]);
    const double dev = std::fabs(mid - a * std::cosh(z / a)) / R;
    res.max_dev = std::max(res.max_dev, dev);
    if (std::fabs(z) < neck_z) {
      neck_z = std::fabs(z);
      res.neck = mid / R;
    }
    test::print_rank0("  z/R %+.4f mid-surface radius / R %.4f (catenoid %.4f), layer gap %.3f r, %g particles",
                        z / R, mid / R, a * std::cosh(z / a) / R, (v[2] / v[3] - v[0] / v[1]) / r, v[1] + v[3]);
    ++res.rows;
  }
  return res;
}

}  // namespace

TEST(PbdCatenoid, AnalyticNeckOfTheStableBranch) {
  EXPECT_NEAR(catenoid_neck(0.8), 0.9107, 5e-4);
  EXPECT_NEAR(catenoid_neck(0.5), 0.9675, 5e-4);
  EXPECT_NEAR(catenoid_neck(1.2), 0.7451, 5e-4);
}

TEST(PbdCatenoid, KinematicRingsStayPutWhileTheFilmContracts) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > 1) GTEST_SKIP() << "builds its particles on one rank";
  const auto c = relax_catenoid(0.5, 0.8, 200);
  // Rings: exactly where they were put (prescribed p* = p + dt v with v = 0, restored after every sweep).
  EXPECT_EQ(c.ring_moved, 0.0);
  // Film: it moved, it contracted towards the catenoid (cylinder: neck = R), and nothing escaped.
  EXPECT_GT(c.film_moved, 0.1 * 0.025);
  EXPECT_LT(c.neck, 0.98);
  EXPECT_GT(c.neck, 0.97 * c.expected);
  EXPECT_TRUE(std::isfinite(c.neck));
  EXPECT_LT(c.film_escape, 0.25);  // farthest film particle from the axis beyond R, in units of R
}
