// Film between two coaxial rings held by kinematic particles (Xing et al. 2022, sec. 6.1 and Fig. 8,
// the film catenoid). A two-layer liquid film spans two rings of radius R at separation H; the area
// constraints pull it towards the minimal surface between the rings, the catenoid
// rho(z) = a cosh(z / a) with R = a cosh(H / 2a), whose stable branch gives a / R = 0.9107 at H = 0.8 R;
// beyond H / R = 1.3255 no catenoid spans the rings and the film must rupture.
// Film: layers at radii R -+ r, rows every 2r along z (alternate rows staggered), particles every ~2r
// around; each ring is two rows of kinematic particles on both layers at and beyond z = +-H/2. Units
// and CFMs as the cube test (r = 0.025, area 1, density 600, distance 40, density constraints that only
// push apart, distance pairs all). Quasi-static: the film's velocities are zeroed after every step.
// Why area CFM 1 and not the paper's catenoid value 0.08 (docs/theory-pbd.md, "Catenoid"): at this
// particle radius epsilon^A = 0.08 removes 12 % of a fan's area per iteration against the distance
// constraints' 4.8 %, and the film's particles cluster (nearest neighbour 1.2 r after 100 iterations),
// pile up and thicken; test ClusteringAtThePapersAreaCfm measures that mechanism.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
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
};

struct FilmState {
  double H = 0;            // current ring separation
  double neck = 0;         // mid-surface radius of the bin nearest z = 0, over R
  double expected = 0;     // analytic a / R at H (0 beyond the critical separation)
  double max_dev = 0;      // max |rho_bin - a cosh(z_bin / a)| / R over the free bins
  int bins = 0;            // bins holding at least 3 particles of each layer
  int empty_middle = 0;    // film particles within r of the mid-plane (0: the film has split)
  double ring_moved = 0;   // largest |x - x_prescribed| of a kinematic particle
  double film_escape = 0;  // largest (distance from the axis - R) / R of a film particle
  double nn_mean = 0;      // film particles' mean nearest-neighbour distance, over r
  int close_pairs = 0;     // film-film pairs closer than r (clustering)
  double mid_gap = 0;      // widest azimuthal gap between film particles within 2r of the mid-plane, over r
};

struct FilmRun {
  std::vector<Particle> ps;
  std::vector<FilmState> states;  // after every step
  long final_count = 0;           // particles at the end (more than ps with film insertion)
};

// Mid-surface profile of the film (bins of width 2r over the free film between the rings).
FilmState measure(pbd::PbdXing& m, const std::vector<Particle>& ps, double R, double H, double travel, double r) {
  auto& set = m.particles();
  FilmState res;
  res.H = H;
  res.expected = H / R < 1.3255 ? catenoid_neck(H / R) : 0.0;
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().x));
  auto id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.id());
  const double s = 2 * r;
  const int nb = std::max(1, static_cast<int>(std::floor(H / s)));
  const double bw = H / nb;
  std::vector<std::array<double, 5>> bins(nb, {0, 0, 0, 0, 0});  // inner sum, n, outer sum, n, z sum
  std::vector<int> film;
  for (size_t i = 0; i < set.size(); ++i) {
    // Particles inserted into the stretched film (pbd.film_insertion_edge) have ids past the built ones:
    // film particles of no known layer, left out of the profile's bins.
    const bool inserted = id(i) >= static_cast<int64_t>(ps.size());
    const Particle added{{0, 0, 0}, 0, -1};
    const auto& p = inserted ? added : ps[id(i)];
    if (p.material) {
      const double dz = p.x[2] > 0 ? 0.5 * travel : -0.5 * travel;
      double dmax = 0;
      for (int d = 0; d < 3; ++d) dmax = std::max(dmax, std::fabs(x(i, d) - p.x[d] - (d == 2 ? dz : 0.0)));
      res.ring_moved = std::max(res.ring_moved, dmax);
      continue;
    }
    film.push_back(static_cast<int>(i));
    const double rad = std::hypot(x(i, 0), x(i, 1));
    res.film_escape = std::max(res.film_escape, (rad - R) / R);
    if (std::fabs(x(i, 2)) < r) ++res.empty_middle;
    const int b = static_cast<int>(std::floor((x(i, 2) + 0.5 * H) / bw));
    if (b < 0 || b >= nb || p.layer < 0) continue;
    bins[b][p.layer ? 2 : 0] += rad;
    bins[b][p.layer ? 3 : 1] += 1;
    bins[b][4] += x(i, 2);
  }
  // Widest gap around the axis among the film particles near the mid-plane (arc length at their mean
  // radius): a film that has torn open at the neck shows a gap much wider than the spacing 2r.
  {
    std::vector<double> ang;
    double rad_sum = 0;
    for (int i : film)
      if (std::fabs(x(i, 2)) < 2 * r) {
        ang.push_back(std::atan2(x(i, 1), x(i, 0)));
        rad_sum += std::hypot(x(i, 0), x(i, 1));
      }
    std::sort(ang.begin(), ang.end());
    double widest = ang.empty() ? 2 * M_PI : 2 * M_PI - (ang.back() - ang.front());
    for (size_t k = 1; k < ang.size(); ++k) widest = std::max(widest, ang[k] - ang[k - 1]);
    res.mid_gap = widest * (ang.empty() ? R : rad_sum / ang.size()) / r;
  }
  // Nearest neighbours among the film particles.
  double nn = 0;
  for (int i : film) {
    double best = 1e300;
    for (int j : film) {
      if (j == i) continue;
      const double d = std::sqrt(std::pow(x(i, 0) - x(j, 0), 2) + std::pow(x(i, 1) - x(j, 1), 2) +
                                 std::pow(x(i, 2) - x(j, 2), 2));
      best = std::min(best, d);
      res.close_pairs += (j > i && d < r) ? 1 : 0;
    }
    nn += best;
  }
  res.nn_mean = film.empty() ? 0.0 : nn / film.size() / r;
  const double a = res.expected * R;
  double neck_z = 1e300;
  for (int b = 0; b < nb; ++b) {
    const auto& v = bins[b];
    if (v[1] < 3 || v[3] < 3) continue;
    const double mid = 0.5 * (v[0] / v[1] + v[2] / v[3]);
    const double z = v[4] / (v[1] + v[3]);
    if (a > 0) res.max_dev = std::max(res.max_dev, std::fabs(mid - a * std::cosh(z / a)) / R);
    if (std::fabs(z) < neck_z) {
      neck_z = std::fabs(z);
      res.neck = mid / R;
    }
    ++res.bins;
  }
  return res;
}

// A two-layer film between rings of radius R at separation h0 R, `steps` quasi-static steps of
// `iterations` constraint iterations; the rings move apart at `ring_speed` (separation per second).
// `sets` overrides deck keys. `stop_on_tear`: stop after the first step in which the film has torn open
// at the neck (a gap wider than the kernel support h = 6r among the particles near the mid-plane), or
// its neck is narrower than `stop_neck` R.
// `settle` > 0: quasi-static driving, the rings move only after a step in which the neck moved less than
// `settle` R (otherwise they are held for the next step).
FilmRun run_film(double R, double h0, int iterations, int steps, double ring_speed,
                 const std::vector<std::string>& sets = {}, bool stop_on_tear = false, bool verbose = false,
                 double stop_neck = 0, double settle = 0) {
  const double r = 0.025, s = 2 * r;
  const double H0 = h0 * R;
  const int half_rows = static_cast<int>(std::lround(0.5 * H0 / s));  // free rows: -half+1 .. half-1
  FilmRun run;
  auto& ps = run.ps;
  for (int row = -half_rows - 1; row <= half_rows + 1; ++row) {
    const double z = row * s * (0.5 * H0 / (half_rows * s));  // rows spread exactly over [-H/2, H/2]
    const bool ring = std::abs(row) >= half_rows;
    for (int layer = 0; layer < 2; ++layer) {
      const double rad = R + (layer ? r : -r);
      const int n = static_cast<int>(std::lround(2 * M_PI * rad / s));
      const double shift = (row & 1) ? 0.5 : 0.0;  // stagger alternate rows (no co-circular squares)
      for (int k = 0; k < n; ++k) {
        const double th = 2 * M_PI * (k + shift) / n;
        ps.push_back({{rad * std::cos(th), rad * std::sin(th), z}, ring ? 1 : 0, layer});
      }
    }
  }
  const double dt = 1.0 / 30.0;
  const double zmax = 0.5 * (H0 + ring_speed * dt * steps) + 12 * r;
  const double box = R + 12 * r;
  char deck[1024];
  std::snprintf(deck, sizeof deck, R"(
simulation: {dimension: 3, method: pbd-xing2022, end_time: 1000}
domain: {lower: [%g, %g, %g], upper: [%g, %g, %g], cell_size: 0.05, walls: none}
pbd: {particle_radius: %g, gravity: [0, 0, 0], dt: %.17g, iterations: %d, reset_iterations: 10, xsph: 0,
      area_cfm: 1, density_cfm: 600, distance_cfm: 40, density_constraint: unilateral, distance_pairs: all}
materials: [{name: film}, {name: ring, kinematic: true}]
sources: [{type: box, material: film, lower: [0, 0, 0], upper: [0.05, 0.05, 0.05], particles_per_cell: 1}]
)",
                -box, -box, -zmax, box, box, zmax, r, dt, iterations);
  auto d = test::deck_from_string(deck, sets);
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
      // Rings: prescribed velocity, each ring moving away from the mid-plane at half the separation rate.
      if (ps[i].material) v(i, 2) = ps[i].x[2] > 0 ? 0.5 * ring_speed : -0.5 * ring_speed;
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
  double travel = 0;  // ring separation gained so far
  bool moving = true;
  for (int st = 0; st < steps; ++st) {
    if (settle > 0) {  // rings at their prescribed velocity, or held
      auto v = set.field(m.fields().v);
      auto x = set.field(m.fields().x);
      auto mat = set.material();
      const double w = moving ? 0.5 * ring_speed : 0.0;
      Kokkos::parallel_for(
          "test::ring_velocity", Kokkos::RangePolicy<>(0, set.size()), KOKKOS_LAMBDA(const int i) {
            if (mat(i) == 1) v(i, 2) = x(i, 2) > 0 ? w : -w;
          });
    }
    m.step(dt);
    if (moving) travel += ring_speed * dt;
    {  // quasi-static: the film starts every step at rest (the rings keep their prescribed velocity)
      auto v = set.field(m.fields().v);
      auto mat = set.material();
      Kokkos::parallel_for(
          "test::zero_film_velocity", Kokkos::RangePolicy<>(0, set.size()), KOKKOS_LAMBDA(const int i) {
            if (mat(i) == 0)
              for (int dd = 0; dd < 3; ++dd) v(i, dd) = 0;
          });
    }
    run.states.push_back(measure(m, ps, R, H0 + travel, travel, r));
    const auto& c = run.states.back();
    if (verbose)
      test::print_rank0("  step %d%s: H/R %.4f neck %.4f (catenoid %.4f) max deviation %.4f R, nearest neighbour %.3f r, "
                        "pairs closer than r %d, particles near the mid-plane %d, widest gap there %.2f r",
                        st + 1, moving ? "" : " (held)", c.H / R, c.neck, c.expected, c.max_dev, c.nn_mean,
                        c.close_pairs, c.empty_middle, c.mid_gap);
    if (settle > 0)
      moving = run.states.size() >= 2 && std::fabs(c.neck - run.states[run.states.size() - 2].neck) < settle;
    if (stop_on_tear && (c.mid_gap > 6 || (c.bins > 0 && c.neck < stop_neck))) break;
  }
  {
    double total = 0;
    std::string split;
    for (const auto& st : m.timers().reduce(MPI_COMM_WORLD)) {
      total += st.max_s;
      split += " " + st.name + " " + std::to_string(st.max_s);
    }
    run.final_count = m.global_particle_count();
    test::print_rank0("  %zu particles (%ld at the end), timers [s]:%s; %.2f us per particle-iteration", ps.size(),
                      run.final_count, split.c_str(),
                      1e6 * total / (static_cast<double>(ps.size()) * iterations * run.states.size()));
  }
  return run;
}

bool one_rank() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size == 1;
}

}  // namespace

TEST(PbdCatenoid, AnalyticNeckOfTheStableBranch) {
  EXPECT_NEAR(catenoid_neck(0.8), 0.9107, 5e-4);
  EXPECT_NEAR(catenoid_neck(0.5), 0.9675, 5e-4);
  EXPECT_NEAR(catenoid_neck(1.2), 0.7451, 5e-4);
  EXPECT_NEAR(catenoid_neck(1.325), 0.5524, 0.02);  // near the critical separation 1.3255
}

TEST(PbdCatenoid, StaticFilmBetweenFixedRingsIsTheCatenoid) {
  if (!one_rank()) GTEST_SKIP() << "builds its particles on one rank";
  // H = 0.8 R, R = 10 spacings; 12 quasi-static steps of 100 iterations.
  const auto run = run_film(0.5, 0.8, 100, 12, 0.0);
  const auto& c = run.states.back();
  const auto& before = run.states[run.states.size() - 3];
  test::print_rank0("PBD film between fixed rings, H = 0.8 R: neck a/R %.4f (catenoid %.4f, %+.2f %%), max profile "
                    "deviation %.4f R over %d bins, nearest neighbour %.3f r; two steps earlier neck %.4f",
                    c.neck, c.expected, 100 * (c.neck / c.expected - 1), c.max_dev, c.bins, c.nn_mean, before.neck);
  EXPECT_EQ(c.ring_moved, 0.0);  // kinematic rings stay exactly where they were put
  EXPECT_NEAR(c.neck, 0.9107, 0.03 * 0.9107);  // issue: neck within 3 %
  EXPECT_LT(c.max_dev, 0.05);                   // issue: profile within 5 % of R
  EXPECT_LT(std::fabs(c.neck - before.neck), 0.005);  // static: the neck no longer moves
  EXPECT_GE(c.bins, 6);
  EXPECT_GT(c.nn_mean, 1.6);  // the film stays a film: no clustering
  EXPECT_EQ(c.close_pairs, 0);
  EXPECT_LT(c.film_escape, 0.05);
}

TEST(PbdCatenoid, ClusteringAtThePapersAreaCfm) {
  if (!one_rank()) GTEST_SKIP() << "builds its particles on one rank";
  // The mechanism that kept the film off the catenoid: at r = 0.025 the paper's catenoid CFM 0.08
  // overpowers the distance constraints (12 % of a fan's area against 4.8 % of a distance violation
  // removed per iteration) and the film's particles cluster within 100 iterations; at CFM 1 they keep
  // their spacing (2r initially).
  const auto strong = run_film(0.5, 0.8, 100, 1, 0.0, {"pbd.area_cfm=0.08"});
  const auto soft = run_film(0.5, 0.8, 100, 1, 0.0);
  test::print_rank0("PBD film, 100 iterations: nearest neighbour %.3f r and %d pairs closer than r at area CFM 0.08, "
                    "%.3f r and %d at CFM 1",
                    strong.states[0].nn_mean, strong.states[0].close_pairs, soft.states[0].nn_mean,
                    soft.states[0].close_pairs);
  EXPECT_LT(strong.states[0].nn_mean, 1.5);
  EXPECT_GT(strong.states[0].close_pairs, 10);
  EXPECT_GT(soft.states[0].nn_mean, 1.8);
  EXPECT_EQ(soft.states[0].close_pairs, 0);
}

TEST(PbdCatenoid, LongRingsMovingApartFromTheCatenoidRuptureAtTheCriticalSeparation) {
  if (!one_rank()) GTEST_SKIP() << "builds its particles on one rank";
  // Rupture of the catenoid (Xing et al. 2022, Fig. 8): beyond H/R = 1.3255 no catenoid spans the
  // rings, and the film must break (issue: at H/R in [1.1, 1.45]). The film is built at H = 0.8 R
  // (as the static test) and the rings move apart at once by 0.01 R per step of 100 iterations, until
  // the film tears open at the neck (about 50 steps, 60-75 s on a loaded machine). Measured: neck 0.8644
  // at H/R = 1.0 (catenoid 0.8483, +1.9 %), 0.7390 at 1.2 (0.7451, -0.8 %); the neck's gap is 2.8 r at
  // H/R = 1.29, 5.9 r at 1.30 and 14.2 r at 1.31: rupture at H/R = 1.31.
  const auto run = run_film(0.5, 0.8, 100, 65, 0.15, {}, true, true);
  const FilmState* at10 = nullptr;
  const FilmState* at12 = nullptr;
  double tear = 0;
  for (const auto& st : run.states) {
    if (!at10 && st.H / 0.5 >= 1.0 - 1e-9) at10 = &st;
    if (!at12 && st.H / 0.5 >= 1.2 - 1e-9) at12 = &st;
    if (tear == 0 && st.mid_gap > 6) tear = st.H / 0.5;
  }
  ASSERT_TRUE(at10 && at12);
  test::print_rank0("PBD catenoid on rings moving apart from H = 0.8 R: neck %.4f at H/R 1.0 (catenoid %.4f), %.4f at "
                    "1.2 (%.4f); ruptures (gap at the neck wider than h) at H/R %.3f (critical 1.3255)",
                    at10->neck, at10->expected, at12->neck, at12->expected, tear);
  EXPECT_NEAR(at10->neck, at10->expected, 0.03 * at10->expected);
  EXPECT_NEAR(at12->neck, at12->expected, 0.03 * at12->expected);
  EXPECT_LT(at12->mid_gap, 3.0);  // whole at H/R = 1.2
  EXPECT_GE(tear, 1.1);            // issue's band
  EXPECT_LE(tear, 1.45);
  EXPECT_LT(run.states.back().ring_moved, 1e-12);
}

TEST(PbdCatenoid, LongRingsMovingApartFromHalfTheRadiusRuptureAtTheCriticalSeparation) {
  if (!one_rank()) GTEST_SKIP() << "builds its particles on one rank";
  // The issue's set-up: the film built at H = 0.5 R, the rings moving apart quasi-statically: by 0.01 R
  // in a step of 100 iterations, but only after a step in which the neck moved less than 0.002 R; else
  // they are held. The film must cover 1.77 times its area by the critical separation; with a fixed
  // particle count it tore at H/R = 0.92. With pbd.film_insertion_edge = 2.4 r particles are inserted
  // where the fans have stretched (docs/theory-pbd.md, "Catenoid"); 2.6 r lets the film tear at H/R = 0.8.
  // Rupture: the neck narrower than the narrowest catenoid (a/R = 0.5524 at H/R = 1.3255: no catenoid
  // with a thinner neck spans the rings, so the film collapses) or a gap at the neck wider than h.
  // Why the hold: with the rings always moving (0.005 R per step, the previous version of this test)
  // the neck lagged the catenoid more and more towards the critical point (+3.1 % at H/R 1.2, +10 % at
  // 1.3), where the film's relaxation slows down, and passed 0.5524 R only at H/R = 1.450, the band's
  // upper edge. Held, the neck keeps closing on the catenoid (at H/R 1.19: 0.7724 -> 0.7611 in five held
  // steps, catenoid 0.7521).
  // Measured (2026-11-27, 186 steps of which 100 held, 670 s of one core on a loaded machine, load
  // average 13-16): neck 0.9141 at H/R 0.80 (catenoid 0.9107), 0.8537 at 1.0 (0.8483, +0.6 %), 0.7599
  // at 1.2 (0.7451, +2.0 %); no hole (widest gap at the neck below 2 r); ruptures at H/R = 1.360
  // (neck 0.5519 R); 1134 particles at the start, 1921 at the end.
  const double a_crit = 0.5524;
  const auto run =
      run_film(0.5, 0.5, 100, 300, 0.15, {"pbd.film_insertion_edge=0.06"}, true, true, a_crit, 0.002);
  double tear = 0;
  const FilmState* at08 = nullptr;
  const FilmState* at10 = nullptr;
  const FilmState* at12 = nullptr;
  for (const auto& st : run.states) {
    if (!at08 && st.H / 0.5 >= 0.8 - 1e-9) at08 = &st;
    if (!at10 && st.H / 0.5 >= 1.0 - 1e-9) at10 = &st;
    if (!at12 && st.H / 0.5 >= 1.2 - 1e-9) at12 = &st;
    if (tear == 0 && (st.mid_gap > 6 || (st.bins > 0 && st.neck < a_crit))) tear = st.H / 0.5;
  }
  ASSERT_TRUE(at08 && at10 && at12);
  test::print_rank0("PBD film on rings moving apart quasi-statically from H = 0.5 R with film insertion: neck %.4f at "
                    "H/R %.2f (catenoid %.4f), %.4f at 1.0 (%.4f), %.4f at 1.2 (%.4f); ruptures (neck below %.4f R or "
                    "a gap wider than h) at H/R %.3f (critical 1.3255); %zu steps, %zu particles at the start, %ld at "
                    "the end",
                    at08->neck, at08->H / 0.5, at08->expected, at10->neck, at10->expected, at12->neck, at12->expected,
                    a_crit, tear, run.states.size(), run.ps.size(), run.final_count);
  EXPECT_NEAR(at08->neck, at08->expected, 0.03 * at08->expected);  // the static catenoid's bound
  EXPECT_NEAR(at10->neck, at10->expected, 0.03 * at10->expected);
  EXPECT_NEAR(at12->neck, at12->expected, 0.03 * at12->expected);
  EXPECT_LT(at12->mid_gap, 3.0);  // no hole before the critical separation
  EXPECT_GE(tear, 1.1);  // issue's band [1.1, 1.45]
  EXPECT_LE(tear, 1.45);
  EXPECT_GT(run.final_count, static_cast<long>(run.ps.size()) * 3 / 2);  // the film was refilled
  EXPECT_LT(run.states.back().ring_moved, 1e-12);
}
