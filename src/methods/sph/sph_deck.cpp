#include "methods/sph/sph_deck.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

#include "core/error.hpp"

namespace meniscus::sph {

void declare_sph_sections(config::Schema& root) {
  auto s = std::make_shared<config::Schema>();
  s->real("particle_radius", "m", "particle radius r: diameter d = 2r is the lattice spacing of the sources, the "
          "kernel support is h = 2d = 4r").req().positive();
  s->real("mass_volume_factor", "1", "particle volume V = factor * d^Dim, mass = rest density * V "
          "(SPlisHSPlasH and the paper: 0.8; 1.0 puts a lattice exactly at rest density)").def(0.8).positive();
  s->vector("gravity", "m/s^2", "gravitational acceleration").def_dim("[0, -9.81]", "[0, -9.81, 0]");
  s->real("gravity_start", "s", "gravity acts from this time on (double droplet: zero g until 5 s)").def(0.0).nonnegative();
  s->real("dt", "s", "time step (the paper uses a fixed step; with cfl > 0 this is the largest step)").def(1e-3).positive();
  s->real("cfl", "1", "0: fixed dt; otherwise dt <= cfl * d / max|v|").def(0.0).nonnegative();
  s->choice("st_mode", {"implicit", "explicit", "none"},
            "surface tension: implicit cohesion + viscosity + adhesion solve (Jeske 2023, strongly coupled), "
            "explicit cohesion force (paper eq. 8) with explicit Weiler viscosity, or none").def("implicit");
  s->real("surface_tension", "N/m", "cohesion coefficient sigma of the paper (not the physical surface tension; "
          "gamma_eff ~ 0.05 sigma, see docs/theory-sph.md)").def(0.0).nonnegative();
  s->real("surface_tension_end", "N/m", "sigma at ramp_end (linear ramp from ramp_start; ignored when "
          "ramp_end <= ramp_start)").def(0.0).nonnegative();
  s->real("ramp_start", "s", "start of the sigma ramp").def(0.0).nonnegative();
  s->real("ramp_end", "s", "end of the sigma ramp (0: no ramp)").def(0.0).nonnegative();
  s->real("viscosity", "m^2/s", "kinematic viscosity nu (Weiler et al. 2018; mu = nu * rest density; on lattice-like particle "
                 "arrangements the scheme applies about 1.42 nu, see docs/theory-sph.md)").def(0.0).nonnegative();
  s->real("adhesion", "N/m", "adhesion coefficient sigma^b of the deck's colliders").def(0.0).nonnegative();
  s->real("wall_adhesion", "N/m", "adhesion coefficient sigma^b of the box faces").def(0.0).nonnegative();
  s->real("xsph", "1", "XSPH velocity smoothing factor (Monaghan, applied after the pressure solve; 0: off)")
      .def(0.0).min(0.0).max(1.0);
  s->real("density_tolerance", "%", "DFSPH constant-density solve: mean density error in percent of rest density")
      .def(0.01).positive();
  s->real("divergence_tolerance", "%", "DFSPH divergence solve: mean density change per step in percent").def(0.1).positive();
  s->integer("min_density_iterations", "least constant-density iterations per step").def("2").min(0);
  s->integer("max_density_iterations", "most constant-density iterations per step").def("100").min(1);
  s->integer("max_divergence_iterations", "most divergence iterations per step").def("100").min(1);
  s->flag("divergence_solve", "run the divergence-free solve (Bender & Koschier 2017)").def("true");
  s->flag("warm_start", "start each DFSPH solve from half of the previous step's stiffness, as SPlisHSPlasH does: about 17 % fewer iterations, but off by default because it changes the paper's results (the explicit zero-g cube no longer breaks up, docs/theory-sph.md)").def("false");
  s->flag("remove_outside", "delete particles that leave the domain box (open scenes with emitters)").def("true");
  s->real("st_tolerance", "1", "relative residual of the implicit surface tension + viscosity CG solve").def(1e-3).positive();
  s->integer("st_max_iterations", "most CG iterations of the implicit solve").def("100").min(1);
  s->integer("sort_every", "reorder particles by cell every this many steps (0: never)").def("20").min(0);
  auto em = particles::disc_emitter_schema();
  s->list("emitters", em, "Inflow discs (water bell, fluid chain, faucet).");
  root.section("sph", s, "Smoothed particle hydrodynamics with implicit surface tension (Jeske et al. 2023).");

  auto mat = std::make_shared<config::Schema>("A fluid phase: surface tension acts between particles of one phase.");
  mat->text("name", "material name used by sources and emitters").req();
  mat->real("density", "kg/m^3", "rest density").req().positive();
  root.list("materials", mat, "Fluid phases that sources refer to by name.");
}

double SphParams::sigma_at(double t) const {
  if (!(ramp_end > ramp_start) || t <= ramp_start) return sigma;
  if (t >= ramp_end) return sigma_end;
  return sigma + (sigma_end - sigma) * (t - ramp_start) / (ramp_end - ramp_start);
}

SphParams read_sph(const config::Section& root, int dim) {
  SphParams p;
  const auto s = root.section("sph");
  p.particle_radius = s.real("particle_radius");
  p.mass_volume_factor = s.real("mass_volume_factor");
  const auto g = s.vector("gravity");
  for (int d = 0; d < dim; ++d) p.gravity[d] = g[d];
  p.gravity_start = s.real("gravity_start");
  p.dt = s.real("dt");
  p.cfl = s.real("cfl");
  const std::string mode = s.text("st_mode");
  p.st_mode = mode == "implicit" ? SurfaceTensionMode::Implicit
                                 : (mode == "explicit" ? SurfaceTensionMode::Explicit : SurfaceTensionMode::None);
  p.sigma = s.real("surface_tension");
  p.sigma_end = s.real("surface_tension_end");
  p.ramp_start = s.real("ramp_start");
  p.ramp_end = s.real("ramp_end");
  if (p.ramp_end > 0 && p.ramp_end <= p.ramp_start)
    throw InputError(s.file(), s.key_path("ramp_end"), "ramp_end must be after ramp_start");
  p.kinematic_viscosity = s.real("viscosity");
  p.adhesion = s.real("adhesion");
  p.wall_adhesion = s.real("wall_adhesion");
  p.xsph = s.real("xsph");
  p.density_tolerance = s.real("density_tolerance") / 100.0;
  p.divergence_tolerance = s.real("divergence_tolerance") / 100.0;
  p.min_density_iterations = static_cast<int>(s.integer("min_density_iterations"));
  p.max_density_iterations = static_cast<int>(s.integer("max_density_iterations"));
  p.max_divergence_iterations = static_cast<int>(s.integer("max_divergence_iterations"));
  p.divergence_solve = s.flag("divergence_solve");
  p.warm_start = s.flag("warm_start");
  p.remove_outside = s.flag("remove_outside");
  p.st_rtol = s.real("st_tolerance");
  p.st_max_iterations = static_cast<int>(s.integer("st_max_iterations"));
  p.sort_every = s.integer("sort_every");
  for (const auto& m : root.list("materials")) {
    const std::string name = m.text("name");
    if (std::find(p.material_names.begin(), p.material_names.end(), name) != p.material_names.end())
      throw InputError(m.file(), m.key_path("name"), "material '" + name + "' is defined twice");
    p.material_names.push_back(name);
    p.rest_density.push_back(m.real("density"));
  }
  if (p.material_names.empty()) throw InputError(root.file(), "materials", "the deck defines no materials");
  p.emitters = particles::read_disc_emitters(s, dim, p.material_names);
  return p;
}

}  // namespace meniscus::sph
