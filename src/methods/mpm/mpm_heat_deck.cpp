#include "methods/mpm/mpm_heat_deck.hpp"

#include <memory>

#include "core/error.hpp"

namespace meniscus::mpm {

void declare_heat_section(config::Schema& mpm) {
  auto heat = std::make_shared<config::Schema>();
  heat->flag("enabled", "solve the heat equation on the grid each step (Chen et al. 2021, Sec. 4.3.2): backward "
                        "Euler, assembled matrix, CG + GAMG (PETSc options -mpm_heat_ksp_*, -mpm_heat_pc_*)")
      .def("false");
  heat->real("ambient_temperature", "K", "ambient temperature T-bar of the Robin term h (T - T-bar)").def(295.0).positive();
  heat->real("transfer_coefficient", "W/(m^2*K)",
             "Robin coefficient h on the surface samples (per unit length in 2D); needs mpm.surface_tension.enabled, "
             "whose samples are the quadrature points (coefficient 0 for no surface tension)")
      .def(0.0)
      .nonnegative();
  heat->real("boundary_flux", "W/m^2", "heat flux b into the material through its whole surface (surface samples)")
      .def(0.0);
  heat->choice("thermal_transfer", {"paper", "conservative"},
               "grid-to-particle temperature: paper (T_p = sum N_i(x_p) T_i) or conservative (each split parent takes "
               "the mass-weighted mean over its surface and balance particles, which conserves sum m c_p T exactly "
               "when h = b = H = 0)")
      .def("paper");
  heat->real("tolerance", "1", "relative tolerance of the heat solve (-mpm_heat_ksp_rtol overrides)")
      .def(1e-10)
      .positive()
      .max(1e-2);
  mpm.section("heat", heat, "Temperature: implicit heat solve on the grid (Chen et al. 2021, Sec. 3.5, 4.3.2).");
}

void declare_thermal_material_keys(config::Schema& m) {
  m.real("thermal_conductivity", "W/(m*K)", "conductivity K of the heat equation (mpm.heat)").def(0.0).nonnegative();
  m.real("heat_capacity", "J/(kg*K)", "specific heat c_p").def(1.0).positive();
  m.real("heat_source", "W/m^3", "volumetric heat source H").def(0.0);
  m.real("melting_temperature", "K", "melting point T_melt (absent: the material never changes phase)")
      .positive()
      .max(1e5);
  m.real("latent_heat", "J/kg", "latent heat L of melting (0: the paper, no enthalpy stall)").def(0.0).nonnegative();
}

HeatOptions read_heat_options(const config::Section& root) {
  const auto m = root.section("mpm");
  const auto h = m.section("heat");
  HeatOptions o;
  o.enabled = h.flag("enabled");
  o.ambient_temperature = h.real("ambient_temperature");
  o.transfer_coefficient = h.real("transfer_coefficient");
  o.boundary_flux = h.real("boundary_flux");
  o.conservative = h.text("thermal_transfer") == "conservative";
  o.rtol = h.real("tolerance");
  if (!o.enabled) return o;
  const auto st = m.section("surface_tension");
  if ((o.needs_surface() || o.conservative) && !st.flag("enabled"))
    throw InputError(h.file(), h.key_path(o.conservative ? "thermal_transfer" : "transfer_coefficient"),
                     "the Robin/flux terms and the conservative transfer use the surface samples: set "
                     "mpm.surface_tension.enabled (coefficient 0 for no surface tension)");
  if ((o.needs_surface() || o.conservative) && st.flag("massless_samples"))
    throw InputError(h.file(), h.key_path("transfer_coefficient"),
                     "massless surface samples give the Robin nodes no heat capacity (singular system): unset "
                     "mpm.surface_tension.massless_samples");
  return o;
}

std::vector<physics::ThermalProperties> read_thermal_materials(const config::Section& root) {
  std::vector<physics::ThermalProperties> out;
  for (const auto& m : root.list("materials")) {
    physics::ThermalProperties t;
    t.conductivity = m.real("thermal_conductivity");
    t.heat_capacity = m.real("heat_capacity");
    t.heat_source = m.real("heat_source");
    t.latent_heat = m.real("latent_heat");
    t.melts = m.has("melting_temperature");
    if (t.melts) t.melting_temperature = m.real("melting_temperature");
    out.push_back(t);
  }
  return out;
}

}  // namespace meniscus::mpm
