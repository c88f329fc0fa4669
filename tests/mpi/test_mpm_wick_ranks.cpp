// Curved wicks do not depend on the rank count: the candle letters' CI deck (three curved wicks, each
// with its own flame; inputs/candle-letters-2d-ci.yaml) for 15 steps of 0.01 s (the flames lit at 0.1 s),
// at 1, 2 and 4 ranks against one rank: the same wick particles survive the trim (ids), the three tips
// agree, and every particle's temperature agrees to the solvers' tolerances.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include "core/mpi_gather.hpp"
#include "methods/mpm/mpm_method.hpp"
#include "run/deck_schema.hpp"
#include "scene.hpp"

using namespace meniscus;

namespace {
struct IdTM {
  int64_t id;
  double T;
  int material;
};
struct WickRun {
  std::vector<IdTM> particles;
  std::vector<std::array<double, 3>> tips;
  long trimmed = 0;
};
}  // namespace

TEST(MpmWickDistributed, CurvedWicksMatchOneRank) {
  auto d = run::load_deck(test::source_dir() + "/inputs/candle-letters-2d-ci.yaml", {});
  auto run = [&](MPI_Comm comm) {
    mpm::MpmMethod<2> m(MethodContext{comm, d.deck.root(), 2});
    for (int s = 0; s < 15; ++s) m.step(0.01);
    auto& set = m.particles();
    auto id = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.id());
    auto T = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.temperature_field()));
    auto mat = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.material());
    std::vector<IdTM> mine;
    for (size_t p = 0; p < set.size(); ++p) mine.push_back({id(p), T(p, 0), mat(p)});
    WickRun r;
    r.particles = allgather_vector(comm, mine);
    std::sort(r.particles.begin(), r.particles.end(), [](const IdTM& a, const IdTM& b) { return a.id < b.id; });
    r.tips = m.wick_tips();
    r.trimmed = m.wick_particles_trimmed();
    return r;
  };
  const auto [mine, ref] = test::run_here_and_alone(MPI_COMM_WORLD, run);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) return;
  ASSERT_EQ(mine.particles.size(), ref.particles.size());
  EXPECT_EQ(mine.trimmed, ref.trimmed);
  EXPECT_GT(ref.trimmed, 0);
  double worst = 0, hottest = 0;
  long flips = 0;
  for (size_t i = 0; i < ref.particles.size(); ++i) {
    ASSERT_EQ(mine.particles[i].id, ref.particles[i].id);
    EXPECT_EQ(mine.particles[i].material, ref.particles[i].material) << "id " << ref.particles[i].id;
    worst = std::max(worst, std::fabs(mine.particles[i].T - ref.particles[i].T));
    hottest = std::max(hottest, ref.particles[i].T);
    flips += ref.particles[i].material == 1 ? 1 : 0;
  }
  ASSERT_EQ(mine.tips.size(), 3u);
  double tip_gap = 0;
  for (int k = 0; k < 3; ++k)
    for (int c = 0; c < 2; ++c) tip_gap = std::max(tip_gap, std::fabs(mine.tips[k][c] - ref.tips[k][c]));
  std::printf("curved wicks, rank equivalence: %ld wick particles trimmed, %ld liquid, hottest %.2f K, largest "
              "|T - T(1 rank)| = %.3e K, tips within %.3e m\n",
              ref.trimmed, flips, hottest, worst, tip_gap);
  EXPECT_GT(hottest, 310.0) << "the flames have heated the wax";
  EXPECT_LT(worst, 1e-6);
  EXPECT_LT(tip_gap, 1e-9) << "the tips come from particle positions, which agree to the Newton tolerance";
}
