#pragma once
// Deck sections of the position-based surface-tension method (Xing et al. 2022, "Position-Based
// Surface Tension Flow", ACM TOG 41(6) 244): `pbd` (particle radius, time step, solver iterations,
// constraint-force-mixing values, viscosity) and `materials` (the liquid names sources refer to).
// Units: the paper reports no length unit; its CFM values are not scale-free (docs/theory-pbd.md), so
// the scenes use the paper's re-implementation units (r = 0.1, rest density 1).
#include <array>
#include <string>
#include <vector>

#include "core/deck.hpp"
#include "core/schema.hpp"
#include "particles/disc_emitters.hpp"

namespace meniscus::pbd {

void declare_pbd_sections(config::Schema& root);

struct PbdParams {
  double particle_radius = 0.1;  // r; lattice spacing 2r, kernel support h = 6r, minimum distance d0 = 2r
  double rest_density = 1.0;     // rho0
  std::array<double, 3> gravity{};
  double dt = 1.0 / 30.0;
  int iterations = 100;       // nlIter (paper Algorithm 1)
  int reset_iterations = 10;  // resetIter: neighbours (and later surface, meshes) rebuilt every this many iterations
  double density_cfm = 600;   // epsilon^P (paper Eq. 3)
  bool unilateral_density = false;  // C = max(rho/rho0 - 1, 0)
  double distance_cfm = 40;   // epsilon^D (paper Eq. 10)
  bool area_constraints = true;  // the paper's surface tension (sec. 5); false: plain PBF with distance constraints
  double area_cfm = 1.0;          // epsilon^A (paper Table 1: 0.08 to 5)
  double xsph = 0.02;         // XSPH coefficient of APPLYVISCOSITY
  bool position_from_projection = false;
  int shading_mode = 0;            // 0 bins (18 x 36), 1 exact cones (ShadingMode)
  int shading_directions = 1024;   // cones: Fibonacci directions
  double illumination_threshold = 1.0 / 9.0;  // beta
  bool distance_same_label = true;  // distance constraints only between particles of the same label (paper)  // p <- p* instead of the paper's p <- p + dt v (Algorithm 1, line 11)
  bool lifted_angles = false;  // local meshes: Delaunay test on the 3D corner angles (ours), not the projected ones
  double filament_ratio = 0.1;  // tau_f: e2/e1 of the neighbour covariance below it marks a filament (0: off)
  long sort_every = 20;
  double film_insertion_edge = 0;  // > 0: particles inserted into stretched film triangles (ours, not the paper's)
  // Solid coupling (sec. 3.4): adhesion constraints to the colliders (our form, docs/theory-pbd.md) and
  // the swept collision test that keeps particles from jumping through thin walls.
  bool adhesion = false;
  double adhesion_cfm = 1.0;    // epsilon^W
  double adhesion_range = 0.0;  // r_a beyond the contact distance r (0: r)
  bool swept_collisions = true;
  bool split_pairs_by_solids = false;  // thin walls: neighbour pairs through a collider removed at rebuilds
  std::vector<std::string> material_names;
  // Inflow discs (the faucet, paper Fig. 15); the first nozzle_length of each jet is held at the jet
  // velocity, as in a pipe.
  std::vector<particles::DiscEmitter> emitters;
  double nozzle_length = 0;
  std::vector<int> kinematic;  // per material: 1 = prescribed motion (initial velocity), not moved by constraints
  bool any_kinematic() const {
    for (int k : kinematic)
      if (k) return true;
    return false;
  }

  double diameter() const { return 2 * particle_radius; }
  double support() const { return 6 * particle_radius; }
  double min_distance() const { return 2 * particle_radius; }
};

PbdParams read_pbd(const config::Section& root);

}  // namespace meniscus::pbd
