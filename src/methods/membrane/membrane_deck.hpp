#pragma once
// Deck section `membrane` of the liquid-membrane method (Ruan et al. 2021): liquid, membrane,
// initial surface, time step and solver. Units are those of the paper (CGS; in 2D areal density
// g/cm^2 and surface tension in dyn).
#include <string>
#include <vector>

#include "core/deck.hpp"
#include "core/schema.hpp"
#include "methods/membrane/coupled_solve.hpp"
#include "methods/membrane/membrane_flow.hpp"

namespace meniscus::membrane {

struct MembraneDeck {
  FlowParameters flow;
  CoupledSolveOptions solve;
  std::string shape;  // "pool" or "drop"
  double level = 0;   // pool: height of the flat surface
  double center[3] = {0, 0, 0};
  double gravity[3] = {0, 0, 0};  // membrane.gravity as given (2 or 3 components)
  double radius = 0;
  double perturbation = 0;
  double edge_over_dx = 0.5;
  bool remesh = false;
  bool remesh_smoothing = true;  // 3D: tangential vertex smoothing in the remesher
  double thickness_over_dx = 0.5;
  double cfl = 0.5, capillary_factor = 1.0, dt_max = 2e-3;
  std::vector<Disc> bodies;  // membrane.bodies, in deck order (2D)
  std::vector<RigidBody3> bodies_3d;  // membrane.bodies in 3D
};

void declare_membrane_sections(config::Schema& root);
MembraneDeck read_membrane_deck(const config::Section& root);
// The refusals that need the domain with the membrane section: a whole number of cells, the pool
// level, the drop and every body inside the box a cell away from its walls; the 2D `angle` in 3D, a
// disc in 3D and a sphere in 2D. Throws
// InputError naming the file and key. Called by the method's constructor and by `meniscus check`.
void check_membrane_geometry(const config::Section& root);

}  // namespace meniscus::membrane
