#pragma once
// Thermal properties of one material (Chen et al. 2021, Sec. 3.5 and 4.3.2): conductivity K and heat
// capacity c_p of the heat equation rho c_p dT/dt = div(K grad T) + H, a volumetric source H, and the
// melting point with an optional latent heat for phase change. One POD per material, copied to the
// device in a table indexed by the particle's material id, like physics::Material.
namespace meniscus::physics {

struct ThermalProperties {
  double conductivity = 0;    // K, W/(m K)
  double heat_capacity = 1;   // c_p, J/(kg K) (the paper writes J/K; it is a specific heat)
  double heat_source = 0;     // H, W/m^3 (per unit current volume)
  double melting_temperature = 0;  // T_melt, K (used only when melts)
  double latent_heat = 0;     // L, J/kg (0: the paper, no enthalpy stall)
  bool melts = false;         // the material declared a melting_temperature
};

}  // namespace meniscus::physics
