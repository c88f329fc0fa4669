// SPH inflow emitters (Jeske et al. 2023, Sec. 6: the water bell, Fig. 9, and the fluid chain, Fig. 10)
// at CI size. A nozzle only ever pushes liquid out: in the authors' renders both jets leave their
// nozzles cleanly. Two properties of that, each with a bound that a spraying emitter breaks:
//   * no particle near a nozzle moves against its jet (v . n > 0 inside the jet's cylinder for the first
//     NOZZLE_REACH metres downstream; a backward-pushed fresh layer shows up here first);
//   * under 0.1 % of the particles are ever behind a downward nozzle's plane by more than one particle
//     diameter ("above the nozzle": liquid that sprayed back up or rained down around it).
// Free fall also bounds every speed: no particle is faster than sqrt(u^2 + 2 g H) (jet speed u, drop H
// from the nozzle to the floor) by more than 20 %; spray from an overlapping layer reaches several
// times the jet speed. Checked every 10 steps.
//
// Measured before the emitter fix (sph_emitters.cpp, mark_nozzle_rows): chain 70 particles moving
// backwards near a nozzle at up to 22.8 m/s, 8.5 % behind the nozzle plane, max speed 33 m/s; bell 33
// backwards at up to 18 m/s, max speed 28 m/s. After: none backwards, none behind, max speed 8.7 m/s
// (chain, bound 9.7) and 8.1 m/s (bell, bound 13.3). Either half of the fix alone fails: without the
// nozzle the chain still sprays (52 backwards at 16 m/s); with it but an emitter lattice that has a
// particle on the jet axis the bell's head-on collision drives the exactly symmetric axis column back
// into the nozzle (6 backwards at 21 m/s).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>

#include "core/log.hpp"
#include "methods/sph/sph_jeske.hpp"
#include "run/deck_schema.hpp"
#include "scene.hpp"
#include "validation_support.hpp"

using namespace meniscus;

namespace {
constexpr double kNozzleReach = 0.25;  // m downstream of the disc in which v . n > 0 is asserted

struct SprayStats {
  long particles = 0, behind = 0, against = 0, near_nozzle = 0;
  double max_speed = 0, worst_against = 0, max_behind_fraction = 0;
};

// One look at the particles: counts behind downward nozzles and against the jet near any nozzle.
void look(sph::SphJeske<3>& m, SprayStats& s) {
  const auto& p = m.params();
  const double d = p.diameter();
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.particles().field(m.fields().x));
  auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.particles().field(m.fields().v));
  long counts[4] = {static_cast<long>(m.particles().size()), 0, 0, 0};
  double worst[2] = {0, 0};  // max speed, max backward speed near a nozzle
  for (size_t i = 0; i < m.particles().size(); ++i) {
    bool behind = false, against = false;
    double speed2 = 0;
    for (int c = 0; c < 3; ++c) speed2 += v(i, c) * v(i, c);
    worst[0] = std::max(worst[0], std::sqrt(speed2));
    for (const auto& em : p.emitters) {
      double u = 0;
      for (int c = 0; c < 3; ++c) u += em.velocity[c] * em.velocity[c];
      u = std::sqrt(u);
      double s_axial = 0, vn = 0, r2 = 0;
      for (int c = 0; c < 3; ++c) {
        const double n = em.velocity[c] / u;
        s_axial += (x(i, c) - em.center[c]) * n;
        vn += v(i, c) * n;
      }
      for (int c = 0; c < 3; ++c) {
        const double lateral = x(i, c) - em.center[c] - s_axial * em.velocity[c] / u;
        r2 += lateral * lateral;
      }
      if (em.velocity[1] < 0 && s_axial < -d) behind = true;
      if (s_axial > -d && s_axial < kNozzleReach && r2 < std::pow(em.radius + d, 2)) {
        counts[3]++;
        if (vn < 0) {
          against = true;
          worst[1] = std::max(worst[1], -vn);
        }
      }
    }
    counts[1] += behind ? 1 : 0;
    counts[2] += against ? 1 : 0;
  }
  MPI_Allreduce(MPI_IN_PLACE, counts, 4, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, worst, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  s.particles = counts[0];
  s.behind = std::max(s.behind, counts[1]);
  s.against = std::max(s.against, counts[2]);
  s.near_nozzle = counts[3];
  s.max_speed = std::max(s.max_speed, worst[0]);
  s.worst_against = std::max(s.worst_against, worst[1]);
  if (counts[0] > 0) s.max_behind_fraction = std::max(s.max_behind_fraction, double(counts[1]) / counts[0]);
}

SprayStats run_scene(const std::string& deck, const std::vector<std::string>& sets, int steps, int every) {
  auto d = run::load_deck(test::source_dir() + "/inputs/" + deck, sets);
  sph::SphJeske<3> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 3});
  SprayStats s;
  for (int k = 1; k <= steps; ++k) {
    m.step(m.stable_dt());
    if (k % every == 0) look(m, s);
  }
  return s;
}
}  // namespace

TEST(SphEmitters, FluidChainJetsLeaveTheirNozzlesCleanly) {
  // inputs/sph-fluid-chain.yaml at its CI size (r = 0.02), run past the jets' collision (t ~ 0.2 s).
  const auto s = run_scene("sph-fluid-chain.yaml",
                           {"sph.particle_radius=0.02", "domain.cell_size=0.08"}, 300, 10);
  const double vbound = 1.2 * std::sqrt(5.0 * 5.0 + 2 * 9.81 * 2.04);
  log::info("fluid chain: %ld particles, at most %ld behind the nozzle plane, %ld against the jet, max speed "
            "%.2f m/s (bound %.2f)", s.particles, s.behind, s.against, s.max_speed, vbound);
  EXPECT_GT(s.particles, 3000);  // the jets did run
  EXPECT_EQ(s.against, 0) << "fastest backward speed near a nozzle " << s.worst_against << " m/s";
  EXPECT_LT(s.max_behind_fraction, 1e-3);
  EXPECT_LT(s.max_speed, vbound);
  test::record_check("sph_chain_emitters", "particles behind the nozzle plane / against the jet",
                     "< 0.1 % / none", log::format("%.3f %% / %ld", 100 * s.max_behind_fraction, s.against),
                     s.max_behind_fraction < 1e-3 && s.against == 0);
}

TEST(SphEmitters, WaterBellJetsLeaveTheirNozzlesCleanly) {
  // inputs/sph-water-bell.yaml at its CI size (r = 0.03): the jets meet at t ~ 0.06 s and spread.
  const auto s = run_scene("sph-water-bell.yaml", {"sph.particle_radius=0.03", "domain.cell_size=0.12"}, 200, 10);
  const double vbound = 1.2 * std::sqrt(8.0 * 8.0 + 2 * 9.81 * 2.98);
  log::info("water bell: %ld particles, at most %ld behind the nozzle plane, %ld against the jet, max speed "
            "%.2f m/s (bound %.2f)", s.particles, s.behind, s.against, s.max_speed, vbound);
  EXPECT_GT(s.particles, 2500);
  EXPECT_EQ(s.against, 0) << "fastest backward speed near a nozzle " << s.worst_against << " m/s";
  EXPECT_LT(s.max_behind_fraction, 1e-3);
  EXPECT_LT(s.max_speed, vbound);
  test::record_check("sph_bell_emitters", "particles behind the nozzle plane / against the jet",
                     "< 0.1 % / none", log::format("%.3f %% / %ld", 100 * s.max_behind_fraction, s.against),
                     s.max_behind_fraction < 1e-3 && s.against == 0);
}
