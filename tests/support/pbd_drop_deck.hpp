#pragma once
// Deck of one spherical droplet for the pbd-xing2022 tests, in the units they share: particle radius
// r = 0.025 (lattice spacing 0.05, kernel support h = 6r), the paper's constraint-force-mixing values
// (Xing et al. 2022, Table 1: area 1, density 600, distance 40; docs/theory-pbd.md for the radius),
// density constraints that only push apart, distance constraints between all neighbours, XSPH 0.02.
#include <cstdio>
#include <string>

namespace meniscus::test {

struct PbdDrop {
  double lower[3] = {-0.5, -0.5, 0}, upper[3] = {0.5, 0.5, 1};  // the box
  bool slip_walls = false;  // slip walls one cell thick, or none
  double gravity = 0;       // along z
  int iterations = 30;      // constraint iterations per step
  double center[3] = {0, 0, 0.5}, radius = 0.2;
  double velocity = 0;      // along z
  std::string colliders;    // YAML flow list of colliders; empty: none
};

inline std::string pbd_drop_deck(const PbdDrop& d) {
  char deck[1536];
  std::snprintf(deck, sizeof deck, R"(
simulation: {dimension: 3, method: pbd-xing2022, end_time: 10}
domain: {lower: [%.17g, %.17g, %.17g], upper: [%.17g, %.17g, %.17g], cell_size: 0.05, %s}
pbd: {particle_radius: 0.025, gravity: [0, 0, %.17g], iterations: %d, area_cfm: 1, density_cfm: 600, distance_cfm: 40,
      density_constraint: unilateral, distance_pairs: all, xsph: 0.02}
materials: [{name: liquid}]
%s%s%s
sources: [{type: sphere, material: liquid, center: [%.17g, %.17g, %.17g], radius: %.17g, particles_per_cell: 1,
           velocity: [0, 0, %.17g]}]
)",
                d.lower[0], d.lower[1], d.lower[2], d.upper[0], d.upper[1], d.upper[2],
                d.slip_walls ? "walls: slip, wall_cells: 1" : "walls: none", d.gravity, d.iterations,
                d.colliders.empty() ? "" : "colliders: ", d.colliders.c_str(), d.colliders.empty() ? "" : "\n",
                d.center[0], d.center[1], d.center[2], d.radius, d.velocity);
  return deck;
}

}  // namespace meniscus::test
