#pragma once
// Deck sections of the multiphase MPM (`mpm-multiphase`, Yan et al. 2018): `mpm_multiphase` (time
// stepping, transfers, coupling) and `materials` (weakly compressible fluids and hypoelastic solids,
// each in a material group with its own grid velocity field).
#include <string>
#include <vector>

#include "core/deck.hpp"
#include "core/schema.hpp"
#include "methods/mpm_multiphase/contact.hpp"

namespace meniscus::mpm_multiphase {

enum class PhaseKind : int { Fluid = 0, Solid = 1 };
enum class ForceSharing { Shared, PerGroup, Fluids };

// One material as the kernels see it (copied to the device in a table indexed by material id).
struct PhaseMaterial {
  PhaseKind kind = PhaseKind::Fluid;
  int group = 0;
  double rest_density = 1000;  // kg/m^3
  double alpha_pic = 0.05;     // PIC share of the G2P velocity blend
  // Fluid: Tait law p = stiffness ((rho/rest)^gamma - 1), stiffness = rest c0^2 / gamma.
  double sound_speed = 0, gamma = 7, stiffness = 0;
  // Solid: hypoelastic moduli.
  double bulk = 0, shear = 0;
  double temperature = 293.15;  // K, of the particles seeded with this material (smoke buoyancy)
  bool displaces = false;       // at start-up, removes the particles of other fluids seeded inside it (solids: always)
  double wave_speed() const;  // c0 (fluid) or sqrt((K + 4/3 G)/rho) (solid)
};

struct MultiphaseSettings {
  double cfl = 0.3, dt_max = 1e-4;
  double gravity[3] = {0, -9.81, 0};
  bool gimp = true;             // shape functions: uniform GIMP (paper) or quadratic B-splines
  // force_sharing: every group present at a node shares the summed force (shared), each group keeps its
  // own (per_group), or the fluid groups share theirs and solid groups keep their own (fluids).
  ForceSharing force_sharing = ForceSharing::Fluids;
  ContactMode contact = ContactMode::Pairwise;
  double beta_fluid_solid = 1.0, beta_fluid_fluid = 0.3, beta_solid_solid = 1.0;
  // Volume-overlap contact detection (ours): a pair's anti-penetration acts at a node only where the two
  // groups' nodal volumes fill at least this fraction of a cell (0: wherever both have mass, the paper).
  double contact_fill = 0;
  // Position-based contact detection (ours): a pair's anti-penetration acts at a node only where the
  // groups' mass-weighted particle centres there lie closer than this many cells along the normal (0: off).
  double contact_separation = 0;
  bool paper_literal_volumetric = false;
  // Fluid density: the particle's tracked volume ratio (rho = m / (V0 J), J advanced by the grid
  // velocity divergence) or the SPH number-density sum of the paper (eq. 17).
  bool sph_density = false;
  double sph_support = 1.25;  // SPH support radius in cells
  double sph_skin = 0.1;  // Verlet skin of the SPH neighbour list, in cells
  bool sph_wall_images = true;  // mirror images of the SPH sum across walls and colliders (the deck default)
  bool sph_grid_average = true;  // pressure from the grid-averaged SPH density ratio (the deck default)
  bool clamp_negative_pressure = true;
  bool separate_fluid_from_solids = true;
  bool keep_fluid_inside_solids = false;  // false: solids displace the fluid particles seeded inside them
  long sort_every = 20;
  // Miscible species (eq. 27): the fluid materials of one group are species whose volume fractions
  // diffuse with this coefficient (m^2/s; 0 switches diffusion off).
  double diffusivity = 0;
  // Dissolution (Noyes-Whitney, eqs. 29-32): solid material `dissolve_solid` into fluid material
  // `dissolve_into` (names resolved against the material table; empty: off).
  std::string dissolve_solid, dissolve_into;
  double saturation = 0.5, dissolution_rate = 0;  // C_s and kappa (1/s, or 1/step)
  bool dissolution_conservative = false, dissolution_rate_per_step = false;
  // Temperature-driven buoyancy (smoke, Yan et al. 2018 section 5 case 4; the paper names the effect
  // but not the model): body force per unit mass b = beta_T (T - T_amb) along +y.
  double thermal_buoyancy = 0, ambient_temperature = 293.15;  // m/s^2/K, K
  double thermal_diffusivity = 0;  // k_T (m^2/s) of the particle temperature, across groups; 0: off
  // Floor emitter of the smoke scene: material name (empty: none), disc centre and radius, inflow speed
  // along +y.
  std::string emitter_material;
  double emitter_center[3] = {0, 0, 0}, emitter_radius = 0.05, emitter_speed = 0.5;
};

struct MultiphaseTable {
  std::vector<std::string> names;
  std::vector<PhaseMaterial> materials;
  int groups = 0;
  std::vector<PhaseKind> group_kind;
};

void declare_multiphase_sections(config::Schema& root);
MultiphaseSettings read_multiphase_settings(const config::Section& root, int dim);
MultiphaseTable read_multiphase_materials(const config::Section& root);

}  // namespace meniscus::mpm_multiphase
