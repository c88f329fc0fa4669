// Rigid-rigid contact of the membrane method on several ranks (body_contact.hpp): the bodies are
// replicated and every rank computes the same impulses, so two floating discs pushed into contact on
// the sigma = 0 pool (Ruan et al. 2021 2D scene, CGS units) end in the same state on the whole
// communicator as on rank 0 alone, to the solver's tolerance (MINRES rtol 1e-12).
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <vector>

#include "membrane_scenes.hpp"
#include "scene.hpp"

namespace mm = meniscus::membrane;

namespace {
// Discs R = 0.1, density 0.5, 0.1 cm apart, launched toward each other at 3 cm/s for 0.1 s: the
// bodies' centres and velocities and the number of steps with contacts.
std::vector<double> push_together(MPI_Comm comm) {
  const double dx = 0.025;
  auto p = meniscus::test::pool_parameters(0.0, dx);
  auto o = meniscus::test::pool_solve_options();
  o.rtol = 1e-12;
  mm::Disc a = meniscus::test::pool_disc(0.45, 0.4, 0.1, 0.5), b = meniscus::test::pool_disc(0.75, 0.4, 0.1, 0.5);
  a.rotates = b.rotates = true;
  a.v[0] = 3.0;
  b.v[0] = -3.0;
  b.v[1] = 0.5;  // off the line of centres: friction and spin take part
  auto sc = meniscus::test::make_pool_with_bodies(1.2, 0.8, dx, 0.4, {a, b}, p, o, comm);
  double contact_steps = 0;
  for (int n = 0; n < 50; ++n) contact_steps += sc.flow->step(2e-3).body_contacts > 0;
  std::vector<double> out;
  for (const auto& d : sc.flow->bodies()) out.insert(out.end(), {d.c[0], d.c[1], d.angle, d.v[0], d.v[1], d.omega});
  out.push_back(contact_steps);
  return out;
}
}  // namespace

// Measured at 2 and 4 ranks: the same 24 steps with contacts, states within 9.6e-12 and 1.9e-11.
TEST(MembraneBodyContactRanks, TouchingDiscsMatchOneRank) {
  const auto [here, alone] = meniscus::test::run_here_and_alone(MPI_COMM_WORLD, push_together);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) return;
  ASSERT_EQ(here.size(), alone.size());
  EXPECT_GT(alone.back(), 0) << "the discs touch";
  EXPECT_EQ(here.back(), alone.back());
  double gap = 0;
  for (size_t k = 0; k + 1 < here.size(); ++k) gap = std::max(gap, std::abs(here[k] - alone[k]));
  std::printf("touching discs: largest state difference to one rank %.3e, %g steps with contacts\n", gap, alone.back());
  EXPECT_LT(gap, 1e-9);
}
