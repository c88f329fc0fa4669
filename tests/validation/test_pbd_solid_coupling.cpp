// Solid coupling of pbd-xing2022 (Xing et al. 2022, sec. 3.4): adhesion constraints and thin walls.
//  - Adhesion (the paper names "adhesion constraints" without their form; ours, methods/pbd/solid_coupling.hpp:
//    C = phi - r in the shell r <= phi < 2r, CFM epsilon^W). Wetting trend: a droplet of
//    radius 4 spacings (280 particles, r = 0.025) set on a floor under gravity 1 spreads the more the
//    smaller epsilon^W is. The paper gives no model to compare with, so no Young angle is asserted: the
//    test asserts the order over epsilon^W in {off, 300, 100, 30} of the contact footprint (particles
//    whose centre lies within 1.5 r of the floor: at least 5 more at each step down) and of the height
//    of the centre of mass (at least 0.003 lower), and the colour-field volume within 3 %.
//    Measured (2026-11-27, 45 steps of 30 iterations): footprint 64 / 73 / 92 / 120 particles, centre
//    0.1077 / 0.1023 / 0.0898 / 0.0773, colour volume 1.001 / 1.005 / 1.006 / 0.993; epsilon^W 3000 gives
//    62 (no measurable effect), 10 and below a two-layer puddle (124 in contact, centre 0.076), which
//    is as far as 280 particles spread. With a shell of 2r the second layer is pulled into
//    the first and the liquid compacts (colour volume 0.58-0.74 for epsilon^W 10 to 0.1).
//  - Thin wall: a droplet (radius 3 spacings) thrown at 4 PU/s at a plate 0.4 r thick moves 5.3 r per
//    step, so testing only the predicted position pushes particles out of the plate's far face. With
//    the swept test no particle is ever below the plate, with or without adhesion; without it (the
//    control) 136 of them are. The test takes about 6 s of one core.
//  - Neighbour pairs through a thin wall (the paper's teapot; pbd.split_pairs_by_solids): two slabs on the
//    two sides of the plate, closer than the support through it, are no neighbours and share no fan.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "methods/pbd/pbd_xing.hpp"
#include "pbd_drop_deck.hpp"
#include "pbd_shape_metrics.hpp"
#include "scene.hpp"
#include "validation_support.hpp"

using namespace meniscus;

namespace {
// A drop of radius 4 spacings resting on a floor (a half-space collider) under gravity 1.
std::string sessile_deck() {
  test::PbdDrop d;
  d.lower[2] = -0.1;
  d.upper[2] = 0.6;
  d.gravity = -1;
  d.center[2] = 0.225;
  d.radius = 0.2;
  d.colliders = "[{type: half-space, point: [0, 0, 0], normal: [0, 0, 1], boundary: slip}]";
  return test::pbd_drop_deck(d);
}

struct Contact {
  double footprint = 0;  // particles with their centre within 1.5 r of the floor z = 0
  double centre_z = 0;
  double spread = 0;     // largest horizontal distance of a footprint particle from the axis
  double colour_volume = 0;
};

Contact contact(pbd::PbdXing& m) {
  Contact c;
  const double r = m.params().particle_radius;
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.particles().field(m.fields().x));
  double s[3] = {0, 0, 0}, spread = 0;
  for (size_t i = 0; i < m.particles().size(); ++i) {
    s[0] += 1;
    s[1] += x(i, 2);
    if (x(i, 2) < 1.5 * r) {
      s[2] += 1;
      spread = std::max(spread, std::hypot(x(i, 0), x(i, 1)));
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, s, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &spread, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  c.footprint = s[2];
  c.centre_z = s[1] / s[0];
  c.spread = spread;
  c.colour_volume = test::colour_volume(m, 0.5 * r);
  return c;
}
}  // namespace

TEST(PbdSolidCoupling, AdhesionSpreadsTheDropletMoreTheSmallerItsCfm) {
  const std::vector<std::string> cases = {"off", "300", "100", "30"};
  std::vector<Contact> res;
  for (const auto& eps : cases) {
    std::vector<std::string> sets;
    if (eps != "off") sets = {"pbd.adhesion=true", "pbd.adhesion_cfm=" + eps};
    auto d = test::deck_from_string(sessile_deck(), sets);
    pbd::PbdXing m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 3});
    const double v0 = test::colour_volume(m, 0.0125);
    for (int s = 0; s < 45; ++s) m.step(m.stable_dt());
    auto c = contact(m);
    c.colour_volume /= v0;
    test::print_rank0("PBD sessile droplet (%g particles), adhesion_cfm %s, 1.5 s: footprint %g particles, spread %.4f, "
                      "centre height %.4f, colour volume %.4f x initial",
                      static_cast<double>(m.global_particle_count()), eps.c_str(), c.footprint, c.spread, c.centre_z,
                      c.colour_volume);
    res.push_back(c);
  }
  for (size_t k = 1; k < res.size(); ++k) {
    EXPECT_GE(res[k].footprint, res[k - 1].footprint + 5) << "adhesion_cfm " << cases[k];
    EXPECT_LT(res[k].centre_z, res[k - 1].centre_z - 0.003) << "adhesion_cfm " << cases[k];
  }
  for (const auto& c : res) EXPECT_NEAR(c.colour_volume, 1.0, 0.03);
}

namespace {
// A plate 0.01 thick (0.4 r) across the whole box at z = 0.3; the droplet (radius 0.15, 3 spacings) comes
// down at 4 PU/s: 0.133 = 5.3 r per step of 1/30 s, in zero gravity.
std::string plate_deck() {
  test::PbdDrop d;
  d.upper[2] = 0.8;
  d.slip_walls = true;
  d.center[2] = 0.5;
  d.radius = 0.15;
  d.velocity = -4;
  d.colliders = "[{type: box, lower: [-0.7, -0.7, 0.3], upper: [0.7, 0.7, 0.31], boundary: slip}]";
  return test::pbd_drop_deck(d);
}

// Largest number of particles below the plate (z < 0.3) over 20 steps, and the lowest centre height.
std::pair<double, double> below_plate(const std::vector<std::string>& sets) {
  auto d = test::deck_from_string(plate_deck(), sets);
  pbd::PbdXing m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 3});
  double worst = 0, zmin = 1e9;
  for (int s = 0; s < 20; ++s) {
    m.step(m.stable_dt());
    auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.particles().field(m.fields().x));
    double below = 0;
    for (size_t i = 0; i < m.particles().size(); ++i)
      if (x(i, 2) < 0.3) below += 1;
    MPI_Allreduce(MPI_IN_PLACE, &below, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    DiagnosticRow row;
    m.diagnostics(row);
    worst = std::max(worst, below);
    zmin = std::min(zmin, test::column(row, "center_z"));
  }
  return {worst, zmin};
}
}  // namespace

TEST(PbdSolidCoupling, ThinPlateIsNotCrossedWithTheSweptTest) {
  const auto swept = below_plate({});
  const auto sticky = below_plate({"pbd.adhesion=true", "pbd.adhesion_cfm=0.1"});
  const auto control = below_plate({"pbd.swept_collisions=false"});
  test::print_rank0("PBD droplet at 4 PU/s on a plate 0.4 r thick, 20 steps: particles below the plate at most %g "
                    "(lowest centre %.4f) with the swept test, %g (%.4f) with adhesion 0.1 as well, %g (%.4f) when only "
                    "the predicted position is tested",
                    swept.first, swept.second, sticky.first, sticky.second, control.first, control.second);
  EXPECT_EQ(swept.first, 0);
  EXPECT_EQ(sticky.first, 0);
  EXPECT_GT(swept.second, 0.31);  // the centre stays above the plate
  EXPECT_GT(control.first, 10);   // the control: the plate leaks without the swept test
}

namespace {
// Two slabs of liquid (6 x 6 x 2 particles, r = 0.025) at rest on the two sides of a plate 0.4 r thick
// (z in [0.3, 0.31]), their nearest layers 1.4 r from its faces: particles across the plate are closer
// than the kernel support h = 6r, so without the split they are neighbours.
const std::string kTwoSides = R"(
simulation: {dimension: 3, method: pbd-xing2022, end_time: 10}
domain: {lower: [-0.4, -0.4, 0], upper: [0.4, 0.4, 0.6], cell_size: 0.05, walls: none}
pbd: {particle_radius: 0.025, gravity: [0, 0, 0], iterations: 20, area_cfm: 1, density_cfm: 600, distance_cfm: 40,
      density_constraint: unilateral, distance_pairs: all, xsph: 0.02}
materials: [{name: liquid}]
colliders: [{type: box, lower: [-0.7, -0.7, 0.3], upper: [0.7, 0.7, 0.31], boundary: slip}]
sources:
  - {type: box, material: liquid, lower: [-0.15, -0.15, 0.19], upper: [0.15, 0.15, 0.29], particles_per_cell: 1}
  - {type: box, material: liquid, lower: [-0.15, -0.15, 0.32], upper: [0.15, 0.15, 0.42], particles_per_cell: 1}
)";

struct Across {
  long below = 0, above = 0;  // owned particles on each side of the plate
  long pairs = 0;             // neighbour pairs (owned rows) with one end on each side
  long spokes = 0;            // fan spokes (owned fans) through the plate
};

// After one step of 20 iterations (the lists and fans of its last rebuild, the positions of its last sweep).
Across across_the_plate(const std::vector<std::string>& sets) {
  auto d = test::deck_from_string(kTwoSides, sets);
  pbd::PbdXing m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 3});
  m.step(m.stable_dt());
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.total_positions());
  auto off = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.neighbor_lists().offset);
  auto idx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.neighbor_lists().index);
  auto ring = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.meshes().ring);
  auto count = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.meshes().count);
  auto below = [&](int i) { return x(i, 2) < 0.3; };
  long c[4] = {0, 0, 0, 0};
  for (int i = 0; i < m.owned(); ++i) {
    ++c[below(i) ? 0 : 1];
    for (int k = off(i); k < off(i + 1); ++k) c[2] += below(i) != below(idx(k)) ? 1 : 0;
    for (int k = 0; k < count(i); ++k) c[3] += below(i) != below(ring(i, k)) ? 1 : 0;
  }
  MPI_Allreduce(MPI_IN_PLACE, c, 4, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  return {c[0], c[1], c[2], c[3]};
}
}  // namespace

TEST(PbdSolidCoupling, ThinPlateSplitsTheNeighbourPairsThroughIt) {
  // Xing et al. 2022, sec. 3.4 (the teapot): neighbour pairs on opposite sides of a thin wall are
  // removed (pbd.split_pairs_by_solids), so no density, distance or area constraint acts through it.
  const auto split = across_the_plate({"pbd.split_pairs_by_solids=true"});
  const auto control = across_the_plate({});
  test::print_rank0("PBD slabs on both sides of a plate 0.4 r thick: %ld below, %ld above; neighbour pairs through the "
                    "plate %ld with the split, %ld without; fan spokes through it %ld and %ld",
                    split.below, split.above, split.pairs, control.pairs, split.spokes, control.spokes);
  EXPECT_EQ(split.below, 72);
  EXPECT_EQ(split.above, 72);
  EXPECT_EQ(split.pairs, 0);
  EXPECT_EQ(split.spokes, 0);
  EXPECT_GT(control.pairs, 500);  // the control: without the split the slabs see each other through the plate
}
