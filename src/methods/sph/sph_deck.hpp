#pragma once
// Deck sections of the SPH method (Jeske et al. 2023): `sph` (kernel scale, DFSPH, surface
// tension, viscosity, adhesion, XSPH, emitters) and `materials` (one rest density per phase).
#include <array>
#include <string>
#include <vector>

#include "core/deck.hpp"
#include "core/schema.hpp"
#include "particles/disc_emitters.hpp"

namespace meniscus::sph {

void declare_sph_sections(config::Schema& root);

enum class SurfaceTensionMode { Implicit, Explicit, None };

// Inflow discs (particles/disc_emitters.hpp, shared with the position-based method).
using EmitterSpec = particles::DiscEmitter;

struct SphParams {
  double particle_radius = 0;   // r (m); diameter d = 2r, support h = 4r
  double mass_volume_factor = 0.8;
  std::array<double, 3> gravity{};
  double gravity_start = 0;  // s
  double dt = 1e-3, cfl = 0;    // fixed dt, or dt <= cfl d / max|v| when cfl > 0
  SurfaceTensionMode st_mode = SurfaceTensionMode::Implicit;
  double sigma = 0, sigma_end = 0, ramp_start = 0, ramp_end = 0;  // N/m, linear ramp when ramp_end > ramp_start
  double kinematic_viscosity = 0;  // m^2/s
  double adhesion = 0, wall_adhesion = 0;  // N/m (deck colliders, box faces)
  double xsph = 0;
  double density_tolerance = 1e-4, divergence_tolerance = 1e-3;  // fractions (deck: percent)
  int min_density_iterations = 2, max_density_iterations = 100, max_divergence_iterations = 100;
  bool divergence_solve = true, warm_start = false, remove_outside = true;
  double st_rtol = 1e-3;
  int st_max_iterations = 100;
  long sort_every = 20;
  std::vector<std::string> material_names;
  std::vector<double> rest_density;  // per material (phase)
  std::vector<EmitterSpec> emitters;

  double diameter() const { return 2 * particle_radius; }
  double support() const { return 4 * particle_radius; }
  // sigma at time t (the ramp of the sphere-stability experiment, Jeske et al. 2023, Sec. 4.1).
  double sigma_at(double t) const;
};

SphParams read_sph(const config::Section& root, int dim);

}  // namespace meniscus::sph
