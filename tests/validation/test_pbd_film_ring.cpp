// Film on a ring (Xing et al. 2022, sec. 6.1 and Fig. 14): a flat two-layer liquid film whose rim is held
// by a fixed ring oscillates in zero gravity; the paper's constraint method keeps it stable where an
// explicit surface-tension force blows up. Scene inputs/pbd-film-on-ring(-ci).yaml: film of radius 0.5
// (layers at z = -+r, r = 0.025), ring of kinematic particles at radii 0.55-0.6, the film thrown upwards
// at 0.1 m/s; area CFM 1, density 600 (unilateral), distance 40 (all pairs), dt 1/30.
// The flat disc is the minimal surface spanning a planar ring, so the area constraints must pull the
// bulged film back through the plane, and the oscillation must not grow (Xing et al. 2022, Fig. 14: the
// constraint method is stable); the film must stay a film: whole (closed fans away from the ring), two
// layers one diameter apart, on the ring's axis.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "methods/pbd/pbd_xing.hpp"
#include "scene.hpp"
#include "validation_support.hpp"

using namespace meniscus;

namespace {

struct FilmShape {
  double centre = 0;     // mid-surface height of the film within 0.15 of the axis
  double thickness = 0;  // mean z of the upper layer minus the lower one there, over r
  double max_height = 0; // largest |z| of a film particle
  double max_radius = 0; // largest distance of a film particle from the axis
  long open_fans = 0;    // film particles within 0.45 of the axis whose fan is open or missing (holes)
  long film = 0;         // film particles
  bool finite = true;
};

FilmShape film_shape(pbd::PbdXing& m, const std::map<int64_t, int>& layer, double r) {
  auto& set = m.particles();
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().x));
  auto id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.id());
  auto mat = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.material());
  FilmShape f;
  double sum[2] = {0, 0}, cnt[2] = {0, 0};
  for (size_t i = 0; i < set.size(); ++i) {
    if (mat(i) != 0) continue;
    ++f.film;
    const double rad = std::hypot(x(i, 0), x(i, 1));
    f.finite = f.finite && std::isfinite(x(i, 0) + x(i, 1) + x(i, 2));
    f.max_height = std::max(f.max_height, std::fabs(x(i, 2)));
    f.max_radius = std::max(f.max_radius, rad);
    if (rad < 0.15) {
      const int l = layer.at(id(i));
      sum[l] += x(i, 2);
      cnt[l] += 1;
    }
  }
  double g[5] = {sum[0], cnt[0], sum[1], cnt[1], static_cast<double>(f.film)};
  MPI_Allreduce(MPI_IN_PLACE, g, 5, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  f.film = static_cast<long>(g[4]);
  f.centre = 0.5 * (g[0] / g[1] + g[2] / g[3]);
  f.thickness = (g[2] / g[3] - g[0] / g[1]) / r;
  MPI_Allreduce(MPI_IN_PLACE, &f.max_height, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &f.max_radius, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  // Holes: the fans of the last rebuild (owned rows of the step's final iterate).
  auto xt = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.total_positions());
  auto flags = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.meshes().flags);
  for (int i = 0; i < m.owned(); ++i)
    if (std::hypot(xt(i, 0), xt(i, 1)) < 0.45 &&  // film (the ring is at 0.55-0.6)
        !((flags(i) & pbd::kMeshValid) && (flags(i) & pbd::kMeshClosed)))
      ++f.open_fans;
  MPI_Allreduce(MPI_IN_PLACE, &f.open_fans, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  int ok = f.finite ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  f.finite = ok == 1;
  return f;
}

struct Oscillation {
  std::vector<FilmShape> steps;
  std::vector<double> swings;  // |centre| at its successive extremes (turning points)
  std::vector<int> swing_steps;  // the steps of those extremes
  long particles = 0;
};

Oscillation oscillate(const std::string& deck, int steps, const std::vector<std::string>& sets = {}) {
  auto d = run::load_deck(test::source_dir() + "/inputs/" + deck, sets);
  pbd::PbdXing m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 3});
  const double r = 0.025;
  std::map<int64_t, int> layer;  // by the seeded height: 0 lower (z = -r), 1 upper (z = +r)
  {
    auto& set = m.particles();
    auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().x));
    auto id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.id());
    std::vector<int64_t> mine;
    for (size_t i = 0; i < set.size(); ++i)
      if (x(i, 2) > 0) mine.push_back(id(i));
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = static_cast<int>(mine.size());
    std::vector<int> counts(size), displs(size, 0);
    MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
    for (int k = 1; k < size; ++k) displs[k] = displs[k - 1] + counts[k - 1];
    std::vector<int64_t> upper(static_cast<size_t>(displs[size - 1] + counts[size - 1]));
    MPI_Allgatherv(mine.data(), n, MPI_INT64_T, upper.data(), counts.data(), displs.data(), MPI_INT64_T,
                   MPI_COMM_WORLD);
    const long total = m.global_particle_count();
    for (long k = 0; k < total; ++k) layer[k] = 0;
    for (int64_t k : upper) layer[k] = 1;
  }
  Oscillation o;
  o.particles = m.global_particle_count();
  for (int s = 1; s <= steps; ++s) {
    m.step(m.stable_dt());
    o.steps.push_back(film_shape(m, layer, r));
    const auto& f = o.steps.back();
    test::print_rank0("  step %d: centre %.5f, thickness %.3f r, max |z| %.4f, max radius %.4f, open fans %ld", s,
                      f.centre, f.thickness, f.max_height, f.max_radius, f.open_fans);
  }
  for (size_t k = 1; k + 1 < o.steps.size(); ++k) {
    const double a = o.steps[k - 1].centre, b = o.steps[k].centre, c = o.steps[k + 1].centre;
    if ((b - a) * (c - b) < 0) {
      o.swings.push_back(std::fabs(b));
      o.swing_steps.push_back(static_cast<int>(k) + 1);
    }
  }
  return o;
}

bool crosses_the_plane(const Oscillation& o) {
  for (const auto& f : o.steps)
    if (f.centre < 0) return true;
  return false;
}

void expect_whole_film(const Oscillation& o, double max_thickness_change) {
  for (size_t k = 0; k < o.steps.size(); ++k) {
    const auto& f = o.steps[k];
    EXPECT_TRUE(f.finite) << "step " << k + 1;
    EXPECT_EQ(f.open_fans, 0) << "step " << k + 1;                                // no hole in the film
    EXPECT_NEAR(f.thickness, 2.0, max_thickness_change) << "step " << k + 1;     // two layers, 2r apart
    EXPECT_LT(f.max_radius, 0.55) << "step " << k + 1;                           // inside its ring
  }
}

}  // namespace

TEST(PbdFilmOnRing, OscillationDecaysAndTheFilmStaysWhole) {
  // CI deck (50 iterations per step), 30 steps: the film rises, turns at step 7 and swings through the
  // plane to the other side (second turning point at step 21). Measured (2026-11-27): swings 0.0192 and
  // 0.0128 (ratio 0.67), thickness 1.990-2.039 r, no open fan, film radius at most 0.510; 38 s of one
  // core on a loaded machine.
  const auto o = oscillate("pbd-film-on-ring-ci.yaml", 30, {"simulation.end_time=100"});
  test::print_rank0("PBD film on a ring, %ld particles, 30 steps of 50 iterations: %zu turning points, first swing %.5f, "
                    "second %.5f", o.particles, o.swings.size(), o.swings.empty() ? 0.0 : o.swings[0],
                    o.swings.size() > 1 ? o.swings[1] : 0.0);
  ASSERT_GE(o.swings.size(), 2u);
  EXPECT_TRUE(crosses_the_plane(o));  // the area constraints pull the film back through the flat state
  EXPECT_LE(o.swings[1], 1.1 * o.swings[0]);  // no growth beyond 10 % (stable; Fig. 14)
  EXPECT_GT(o.swings[0], 0.5 * 0.1 / 30.0);   // it did rise (half a step of its initial 0.1 m/s at least)
  expect_whole_film(o, 0.1);
}

TEST(PbdFilmOnRing, LongThreeHundredFramesComeToRestFlat) {
  // The full deck (100 iterations per step), 300 frames (Xing et al. 2022, sec. 6, film on a ring).
  // Measured (2026-11-27, 696 s of one
  // core on a loaded machine): turning points every 10 steps (steps 5, 15, 25, ...), swings 0.01237,
  // 0.00734, 0.00449, 0.00273, 0.00166, 0.00100, ...: a constant ratio 0.59-0.61 per half period, i.e.
  // a linear damped oscillation of the flat film; at rest from about step 130 (the centre then moves by
  // less than 1e-6, round-off of the constraint sweep), flat at the end (max |z| = r: the layers in
  // their planes), thickness 1.997-2.019 r, no open fan. Asserted: no swing above the noise floor (a
  // thousandth of the first) grows by more than 10 %, half periods within one step of the
  // first, the film at rest and flat at the end, whole throughout.
  const auto o = oscillate("pbd-film-on-ring.yaml", 300, {"simulation.end_time=100"});
  test::print_rank0("PBD film on a ring, %ld particles, 300 steps of 100 iterations: %zu turning points, swings %.5f "
                    "(first) ... %.3g (last), final centre %.3g, final max |z| %.5f",
                    o.particles, o.swings.size(), o.swings.empty() ? 0.0 : o.swings.front(),
                    o.swings.empty() ? 0.0 : o.swings.back(), o.steps.back().centre, o.steps.back().max_height);
  ASSERT_GE(o.swings.size(), 3u);
  EXPECT_TRUE(crosses_the_plane(o));
  const double floor = 1e-3 * o.swings.front();
  int above = 0;
  for (size_t k = 1; k < o.swings.size() && o.swings[k] > floor; ++k, ++above)
    EXPECT_LE(o.swings[k], 1.1 * o.swings[k - 1]) << "swing " << k;
  EXPECT_GE(above, 6);  // a damped oscillation, not a single overshoot
  for (size_t k = 1; k < o.swing_steps.size() && k <= static_cast<size_t>(above); ++k)
    EXPECT_NEAR(o.swing_steps[k] - o.swing_steps[k - 1], o.swing_steps[1] - o.swing_steps[0], 1) << "half period " << k;
  EXPECT_LT(std::fabs(o.steps.back().centre), floor);         // at rest
  EXPECT_LT(o.steps.back().max_height, 1.05 * 0.025);         // flat: the layers at z = -+r
  expect_whole_film(o, 0.1);
}
