#pragma once
// Deck keys of the MPM heat solve (Chen et al. 2021, Sec. 3.5 and 4.3.2): the `mpm.heat` section
// (ambient temperature, Robin coefficient h, boundary flux b, transfer, solver tolerance), the thermal
// keys of every material. The sources' initial temperature keys live with the other source keys
// (particles/particle_sources.cpp).
#include <Kokkos_Core.hpp>
#include <vector>

#include "core/deck.hpp"
#include "core/kmath.hpp"
#include "core/schema.hpp"
#include "physics/thermal/thermal_properties.hpp"

namespace meniscus::mpm {

// Adds `heat` to the `mpm` section.
void declare_heat_section(config::Schema& mpm);
// Adds the thermal keys to a material's schema (fluid and fixed-corotated alike).
void declare_thermal_material_keys(config::Schema& material);

// Where and from when the boundary flux b acts (Chen et al. 2021, Sec. 6.2 rotating flux, Sec. 6.10 heating
// of one side from t = 1 s; Sec. 6.9 the flame at the wick tip): a surface sample s at time t receives b
// when t >= start and s lies in the region. A POD evaluated in the heat kernels.
struct FluxRegion {
  enum Shape : int { Everywhere = 0, Box = 1, Arc = 2, Sphere = 3 };
  static constexpr int kMaxTips = 8;  // wicks (flames) a deck may hold
  int shape = Everywhere;
  double start = 0;                 // heating start time, s
  double lower[3] = {}, upper[3] = {};  // Box
  double center[3] = {};            // Arc: the rotation centre
  double tips[kMaxTips][3] = {};    // Sphere: the balls' centres (the wicks' tips, moved each step)
  int tip_count = 0;
  double radius = 0;                // Sphere
  double start_angle = 0, angular_velocity = 0, half_width = 0;  // Arc, rad, rad/s, rad (in the x-y plane)

  template <int Dim>
  KOKKOS_INLINE_FUNCTION bool contains(const double* s, double t) const {
    if (t < start) return false;
    if (shape == Box) {
      for (int d = 0; d < Dim; ++d)
        if (s[d] < lower[d] || s[d] > upper[d]) return false;
      return true;
    }
    if (shape == Arc) {
      // Angle between (s - c) and the arc's centre direction, both in the x-y plane.
      const double a = start_angle + angular_velocity * t;
      const double rx = s[0] - center[0], ry = s[1] - center[1];
      const double cosang = (rx * kmath::cos(a) + ry * kmath::sin(a)) / (kmath::sqrt(rx * rx + ry * ry) + 1e-300);
      return cosang >= kmath::cos(half_width);
    }
    if (shape == Sphere) {
      for (int k = 0; k < tip_count; ++k) {
        double r2 = 0;
        for (int d = 0; d < Dim; ++d) r2 += (s[d] - tips[k][d]) * (s[d] - tips[k][d]);
        if (r2 <= radius * radius) return true;
      }
      return false;
    }
    return true;
  }
};

struct HeatOptions {
  bool enabled = false;
  double ambient_temperature = 295;  // T-bar of the Robin term, K
  double transfer_coefficient = 0;   // h, W/(m^2 K) (W/(m K) in 2D)
  double boundary_flux = 0;          // b, W/m^2 (W/m in 2D), positive into the material
  bool conservative = false;         // thermal_transfer: conservative (G2P merges over the split group)
  double rtol = 1e-10;
  double hysteresis = 0;             // melting_hysteresis, K
  FluxRegion flux;                   // where and from when b acts
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
