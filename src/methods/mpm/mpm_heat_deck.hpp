#pragma once
// Deck keys of the MPM heat solve (Chen et al. 2021, Sec. 3.5 and 4.3.2): the `mpm.heat` section
// (ambient temperature, Robin coefficient h, boundary flux b, transfer, solver tolerance), the thermal
// keys of every material. The sources' initial temperature keys live with the other source keys
// (particles/particle_sources.cpp).
#include <vector>

#include "core/deck.hpp"
#include "core/schema.hpp"
#include "physics/thermal/thermal_properties.hpp"

namespace meniscus::mpm {

// Adds `heat` to the `mpm` section.
void declare_heat_section(config::Schema& mpm);
// Adds the thermal keys to a material's schema (fluid and fixed-corotated alike).
void declare_thermal_material_keys(config::Schema& material);

struct HeatOptions {
  bool enabled = false;
  double ambient_temperature = 295;  // T-bar of the Robin term, K
  double transfer_coefficient = 0;   // h, W/(m^2 K) (W/(m K) in 2D)
  double boundary_flux = 0;          // b, W/m^2 (W/m in 2D), positive into the material
  bool conservative = false;         // thermal_transfer: conservative (G2P merges over the split group)
  double rtol = 1e-10;
  double hysteresis = 0;             // melting_hysteresis, K
  bool needs_surface() const { return transfer_coefficient != 0 || boundary_flux != 0; }
};

// Reads mpm.heat and checks it against the rest of the deck (surface samples exist when h or b is
// set). Throws InputError (exit 2) naming the key.
HeatOptions read_heat_options(const config::Section& root);
// One entry per material, in material-id order.
std::vector<physics::ThermalProperties> read_thermal_materials(const config::Section& root);
// Material id -> the id of its phase_partner, or -1 (checked: opposite model, same T_melt and L).
std::vector<int> read_phase_partners(const config::Section& root, bool heat_enabled);

}  // namespace meniscus::mpm
