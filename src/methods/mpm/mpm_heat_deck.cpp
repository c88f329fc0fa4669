#include "methods/mpm/mpm_heat_deck.hpp"

#include <cmath>
#include <memory>

#include "core/error.hpp"

namespace meniscus::mpm {

void declare_heat_section(config::Schema& mpm) {
  auto heat = std::make_shared<config::Schema>();
  heat->flag("enabled", "solve the heat equation on the grid each step (Chen et al. 2021, Sec. 4.3.2): backward "
                        "Euler, assembled matrix, CG + Jacobi or GAMG, chosen per solve (PETSc options -mpm_heat_ksp_*, "
                        "-mpm_heat_pc_*)")
      .def("false");
  heat->real("ambient_temperature", "K", "ambient temperature T-bar of the Robin term h (T - T-bar)").def(295.0).positive();
  heat->real("transfer_coefficient", "W/(m^2*K)",
             "Robin coefficient h on the surface samples (per unit length in 2D); needs mpm.surface_tension.enabled, "
             "whose samples are the quadrature points (coefficient 0 for no surface tension)")
      .def(0.0)
      .nonnegative();
  heat->real("boundary_flux", "W/m^2", "heat flux b into the material through its whole surface (surface samples)")
      .def(0.0);
  heat->real("heating_start_time", "s", "boundary_flux acts from this time on (Chen et al. 2021, Sec. 6.10: 1 s)")
      .def(0.0)
      .nonnegative();
  auto region = std::make_shared<config::Schema>();
  region->choice("shape", {"everywhere", "box", "arc", "wick-tip"},
                 "where boundary_flux acts: the whole surface; samples inside the box lower..upper; a rotating arc "
                 "(samples whose direction from center lies within width/2 of start_angle + angular_velocity t, in the "
                 "x-y plane; Sec. 6.2); or within radius of the tip of mpm.wick, moving with it (the flame, Sec. 6.9)")
      .def("everywhere");
  region->vector("lower", "m", "box: lower corner").def_dim("[-1e30, -1e30]", "[-1e30, -1e30, -1e30]");
  region->vector("upper", "m", "box: upper corner").def_dim("[1e30, 1e30]", "[1e30, 1e30, 1e30]");
  region->vector("center", "m", "arc: centre of rotation").def_dim("[0, 0]", "[0, 0, 0]");
  region->real("width", "deg", "arc: angular width").def(45.0).positive().max(360.0);
  region->real("start_angle", "deg", "arc: direction of the arc's middle at t = 0, from +x towards +y").def(0.0);
  region->real("angular_velocity", "rad/s", "arc: rotation rate (2 pi: one turn per second)").def(0.0);
  region->real("radius", "m", "wick-tip: radius of the heated ball around the wick's tip").def(0.05).positive();
  heat->section("flux_region", region, "Where boundary_flux acts (default: the whole surface).");
  heat->choice("thermal_transfer", {"paper", "conservative"},
               "grid-to-particle temperature: paper (T_p = sum N_i(x_p) T_i) or conservative (each split parent takes "
               "the mass-weighted mean over its surface and balance particles, which conserves sum m c_p T exactly "
               "when h = b = H = 0)")
      .def("paper");
  heat->real("melting_hysteresis", "K",
             "with latent_heat 0: a solid melts above T_melt + this and a liquid freezes below T_melt - this")
      .def(0.0)
      .nonnegative();
  heat->real("tolerance", "1", "relative tolerance of the heat solve (-mpm_heat_ksp_rtol overrides)")
      .def(1e-10)
      .positive()
      .max(1e-2);
  mpm.section("heat", heat, "Temperature: implicit heat solve on the grid (Chen et al. 2021, Sec. 3.5, 4.3.2).");

  auto wick = std::make_shared<config::Schema>();
  wick->flag("enabled", "the particles of `material` form a candle wick (Chen et al. 2021, Sec. 6.9): after each step "
                        "the wick particles more than trim_height above the highest other particle within trim_radius "
                        "(horizontally) of the wick are deleted, and flux_region shape wick-tip follows the wick's "
                        "highest point (+y is up). When the material is seeded by `curve` sources, each is a wick of "
                        "its own (at most 8) with its own flame at its tip (the curve's point at the largest arc "
                        "length a particle still holds), trimmed along the curve: at most trim_height of its length "
                        "beyond where it first rises above the wax top within trim_radius of the tip")
      .def("false");
  wick->text("material", "the wick's material: give it a stiff fixed-corotated solid without melting_temperature");
  wick->real("trim_height", "m", "how far the wick may stand above the wax next to it").def(0.05).positive();
  wick->real("trim_radius", "m", "horizontal radius around the wick in which the wax top is taken").def(0.05).positive();
  mpm.section("wick", wick, "Candle wick operator (Chen et al. 2021, Sec. 6.9).");
}

void declare_thermal_material_keys(config::Schema& m) {
  m.real("thermal_conductivity", "W/(m*K)", "conductivity K of the heat equation (mpm.heat)").def(0.0).nonnegative();
  m.real("heat_capacity", "J/(kg*K)", "specific heat c_p").def(1.0).positive();
  m.real("heat_source", "W/m^3", "volumetric heat source H").def(0.0);
  m.real("melting_temperature", "K", "melting point T_melt (absent: the material never changes phase)")
      .positive()
      .max(1e5);
  m.real("latent_heat", "J/kg",
         "latent heat L of melting (0: the paper, the phase flips at T_melt; > 0: particles carry a liquid fraction "
         "and the temperature stays at T_melt while L is absorbed or released)")
      .def(0.0)
      .nonnegative();
  m.text("phase_partner", "the material this one becomes at melting_temperature: a fluid for a fixed-corotated "
                          "solid and a solid for a fluid, with the same melting_temperature (mass and V0 are kept)");
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
  o.hysteresis = h.real("melting_hysteresis");
  o.flux.start = h.real("heating_start_time");
  {
    const auto r = h.section("flux_region");
    const std::string shape = r.text("shape");
    o.flux.shape = shape == "box" ? FluxRegion::Box
                   : shape == "arc" ? FluxRegion::Arc
                   : shape == "wick-tip" ? FluxRegion::Sphere
                                         : FluxRegion::Everywhere;
    const auto lo = r.vector("lower"), hi = r.vector("upper"), c = r.vector("center");
    for (size_t d = 0; d < lo.size() && d < 3; ++d) {
      o.flux.lower[d] = lo[d];
      o.flux.upper[d] = hi[d];
      o.flux.center[d] = c[d];
    }
    constexpr double kDegree = M_PI / 180.0;
    o.flux.half_width = 0.5 * r.real("width") * kDegree;
    o.flux.start_angle = r.real("start_angle") * kDegree;
    o.flux.angular_velocity = r.real("angular_velocity");
    o.flux.radius = r.real("radius");
    if (o.flux.shape == FluxRegion::Sphere && !m.section("wick").flag("enabled"))
      throw InputError(r.file(), r.key_path("shape"), "wick-tip needs mpm.wick.enabled");
  }
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

std::vector<int> read_phase_partners(const config::Section& root, bool heat_enabled) {
  const auto mats = root.list("materials");
  std::vector<int> partner(mats.size(), -1);
  for (size_t i = 0; i < mats.size(); ++i) {
    const auto& m = mats[i];
    if (!m.has("phase_partner")) continue;
    const std::string name = m.text("phase_partner");
    auto fail = [&](const std::string& why) { throw InputError(m.file(), m.key_path("phase_partner"), why); };
    if (!heat_enabled) fail("phase change needs mpm.heat.enabled");
    for (size_t j = 0; j < mats.size(); ++j)
      if (mats[j].text("name") == name) partner[i] = static_cast<int>(j);
    if (partner[i] < 0) fail("no material named '" + name + "'");
    const auto& o = mats[partner[i]];
    if (o.text("model") == m.text("model")) fail("'" + name + "' has the same model; a solid melts into a fluid");
    if (!m.has("melting_temperature") || !o.has("melting_temperature") ||
        m.real("melting_temperature") != o.real("melting_temperature"))
      fail("both materials need the same melting_temperature");
    if (m.real("latent_heat") != o.real("latent_heat")) fail("both materials need the same latent_heat");
  }
  return partner;
}

}  // namespace meniscus::mpm
