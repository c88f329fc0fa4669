#include "methods/mpm_multiphase/multiphase_deck.hpp"

#include <cmath>
#include <memory>

#include "core/error.hpp"
#include "physics/hypoelastic.hpp"
#include "physics/tait_density.hpp"

namespace meniscus::mpm_multiphase {

double PhaseMaterial::wave_speed() const {
  if (kind == PhaseKind::Fluid) return sound_speed;
  return std::sqrt((bulk + 4.0 / 3.0 * shear) / rest_density);
}

void declare_multiphase_sections(config::Schema& root) {
  auto s = std::make_shared<config::Schema>();
  s->real("cfl", "1", "CFL number: dt <= cfl * dx / (max wave speed + max |u|)").def(0.3).min(0.0, true).max(1.0);
  s->real("dt_max", "s", "largest time step (the paper runs every scene at 1e-4 s)").def(1e-4).positive();
  s->vector("gravity", "m/s^2", "gravitational acceleration").def_dim("[0, -9.81]", "[0, -9.81, 0]");
  s->choice("shape_function", {"gimp", "quadratic"},
            "grid shape functions: uniform GIMP with particle half-width dx/4 (Yan et al. 2018, eqs. 5-6) or "
            "quadratic B-splines")
      .def("gimp");
  s->choice("force_sharing", {"shared", "per_group", "fluids"},
            "shared: every group present at a node gets the acceleration of the summed internal force over "
            "the summed mass (Yan et al. 2018, eq. 20 read as a shared force); per_group: each group only its "
            "own force over its own mass, coupled through contact alone; fluids: the fluid groups share "
            "theirs, solid groups keep their own (fluid layers stay sharp, no gap of expanded water next to "
            "a solid; the default)")
      .def("fluids");
  s->choice("contact_mode", {"pairwise", "each_vs_rest", "none"},
            "anti-penetration between groups (eqs. 21-26): every pair (momentum-exact), each group against the "
            "others lumped (the paper's form for three or more fluids), or off")
      .def("pairwise");
  s->real("beta_fluid_solid", "1", "anti-penetration strength between a fluid and a solid group").def(1.0).min(0.0).max(1.0);
  s->real("beta_fluid_fluid", "1", "anti-penetration strength between two immiscible fluid groups").def(0.3).min(0.0).max(1.0);
  s->real("beta_solid_solid", "1", "anti-penetration strength between two solid groups").def(1.0).min(0.0).max(1.0);
  s->real("contact_fill", "1",
          "apply a pair's anti-penetration only at nodes where the two groups' nodal volumes (nodal mass over the "
          "group's rest density; the lightest species for a mixed fluid group) fill at least this fraction of a "
          "cell (a volume-overlap detection, our addition); 0 applies it wherever both groups have mass (Yan et al. "
          "2018), which reaches across a gap of up to two cells: a ball dropped onto water stops on such a gap "
          "(docs/theory-mpm-multiphase.md, Contact across a gap)")
      .def(0.0)
      .min(0.0)
      .max(1.0);
  s->real("contact_separation", "1",
          "apply a pair's anti-penetration only at nodes where the two groups' mass-weighted particle centres "
          "(over the node's stencil) lie closer than this many cells along the contact normal (a position-based "
          "detection, our addition; two touching lattices read 0.75 cells at their interface, a quarter cell apart "
          "at least 0.93); 0 applies it wherever both "
          "groups have mass (Yan et al. 2018), which reaches across a gap of up to two cells "
          "(docs/theory-mpm-multiphase.md, Contact across a gap)")
      .def(0.0)
      .min(0.0)
      .max(4.0);
  s->choice("hypoelastic_volumetric", {"standard", "paper_literal"},
            "volumetric term of the hypoelastic rate: K tr(eps_dot) I (Hooke) or the printed K tr(eps_dot) I / 3 "
            "(eq. 11, an effective bulk modulus K/3)")
      .def("standard");
  s->choice("fluid_density", {"volume", "sph"},
            "fluid density for the Tait pressure: volume = m / (V0 J) with the volume ratio J advanced by the "
            "grid velocity divergence like the solids' (standard MPM; hydrostatic pressure within 1 %, but blind "
            "to the particle packing, so voids can open in a pool and a floating body sits too deep); sph = the "
            "SPH number-density sum with support sph_support (Yan et al. 2018, eq. 17), which sees the packing "
            "(Archimedes buoyancy within 0.01; hydrostatic pressure within 2 %) and costs a neighbour search; its "
            "first layer under a free surface reads low (no pressure), and so does water next to walls with "
            "sph_wall_images: false")
      .def("volume");
  s->real("sph_support", "1", "support radius of the SPH density sum, in cells (paper: 1.25)").def(1.25).positive();
  s->real("sph_skin", "1",
          "Verlet skin of the SPH density's neighbour list, in cells: the list holds every pair within "
          "sph_support + sph_skin and is rebuilt only when some particle has moved more than half the skin since "
          "(or the particle set changed); the density is the same sum to round-off for any skin")
      .def(0.1)
      .positive();
  s->flag("sph_wall_images",
          "with fluid_density: sph, add to a fluid particle's SPH sum the mirror images of its neighbours (and of "
          "itself) across every wall and collider surface within the support, so that water resting on a wall "
          "reads its rest density (without them the first layer reads about 0.77 of it, its pressure is clamped "
          "to zero and the wall layers crowd)")
      .def("true");
  s->flag("sph_grid_average",
          "with fluid_density: sph, the Tait pressure takes each fluid particle's SPH density ratio averaged over "
          "the grid (the mass-weighted nodal mean interpolated back, as the volume density averages J), a particle "
          "reading under 0.9 of its rest density (the first layer under a free surface) counting as at rest: "
          "one pressure per particle with 8 particles per node is a pattern the grid cannot see (volumetric "
          "locking: a 2:3 ball stopped at 0.56 submerged instead of sinking to 2/3); costs a separate force pass")
      .def("true");
  s->flag("clamp_negative_pressure",
          "fluid pressure below zero (free-surface particles missing SPH neighbours) is set to zero")
      .def("true");
  s->real("diffusivity", "m^2/s",
          "k_d of D alpha/Dt = k_d laplacian(alpha) (Yan et al. 2018, eq. 27): the fluid materials that share a group "
          "are miscible species whose volume fractions diffuse (conservative weak-form operator); particle mass "
          "and rest density follow the fractions. 0: no diffusion")
      .def(0.0)
      .nonnegative();
  s->text("dissolve_solid",
          "solid material that dissolves (Noyes-Whitney, Yan et al. 2018 section 4.3); empty: no dissolution")
      .def("\"\"");
  s->text("dissolve_into", "fluid material the solid dissolves into").def("\"\"");
  s->real("saturation", "1", "saturation volume fraction C_s of the dissolved solid").def(0.5).min(0.0).max(1.0);
  s->real("dissolution_rate", "1/s", "kappa of DC/Dt = kappa (C_s - C) (eq. 29)").def(0.0).nonnegative();
  s->choice("dissolution", {"paper", "conservative"},
            "paper: eq. (32), mass-fraction weights (conserves the dissolved volume only for equal densities); "
            "conservative: volume-weighted transfer that conserves the total solid-phase volume exactly")
      .def("paper");
  s->flag("dissolution_rate_per_step",
          "apply kappa per time step instead of per second (the paper's kappa = 3e-4 dissolves visibly only so)")
      .def("false");
  s->flag("separate_fluid_from_solids",
          "move fluid particles that sit where the solids' volume (grid mass over rest density) outweighs the fluid's out along the solids' outward "
          "normal (a quarter cell per step, positions only)")
      .def("true");
  s->flag("keep_fluid_inside_solids",
          "keep the fluid particles that sources seed inside a solid (by default the solid displaces them: a fluid "
          "particle whose centre lies within half a particle spacing of a solid particle along every axis is removed "
          "at start-up); true overlays the two, e.g. to test dissolution where both groups fill the same cells")
      .def("false");
  s->real("thermal_buoyancy", "m/s^2/K",
          "beta_T of the buoyancy body force per unit mass b = beta_T (T - ambient_temperature) along +y on every "
          "particle (smoke: Yan et al. 2018, case 4; temperature is carried by the particles, set per material)")
      .def(0.0)
      .nonnegative();
  s->real("ambient_temperature", "K", "T_amb of the buoyancy force (particles at T_amb feel none)").def(293.15).positive();
  s->text("emitter_material",
          "fluid material of a floor emitter (smoke, Yan et al. 2018 case 4): a disc in the x-z plane (a segment "
          "along x in 2D) that adds a layer of particles along +y every particle spacing / emitter_speed, with "
          "velocity emitter_speed along +y and the material's temperature; empty: no emitter")
      .def("\"\"");
  s->vector("emitter_center", "m", "centre of the emitter disc").def_dim("[0, 0]", "[0, 0, 0]");
  s->real("emitter_radius", "m", "radius of the emitter disc").def(0.05).positive();
  s->real("emitter_speed", "m/s", "inflow speed u_in of the emitter, along +y").def(0.5).positive();
  s->real("thermal_diffusivity", "m^2/s",
          "k_T of DT/Dt = k_T laplacian(T) over the particles of every group (smoke, Yan et al. 2018 case 4: the "
          "species operator of eq. 27 in its conservative weak form, so sum V0 T is kept). 0: off")
      .def(0.0)
      .nonnegative();
  s->integer("sort_every",
             "reorder particles by cell every this many steps (0: never); with fluid_density: sph the sort "
             "then waits for the next rebuild of the SPH neighbour list (see sph_skin)")
      .def("20")
      .min(0);
  root.section("mpm_multiphase", s,
               "Multiphase MPM of Yan et al. 2018: material groups with their own grid velocities on one grid, "
               "SPH-density Tait fluids, hypoelastic solids, anti-penetration contact.");

  auto group_doc = "material group: the grid velocity field this material moves with (groups 0..G-1, "
                   "each used; default: one group per material, in list order)";
  auto fluid = std::make_shared<config::Schema>("Weakly compressible inviscid fluid: SPH density, Tait pressure.");
  fluid->text("name", "material name used by sources").req();
  fluid->text("model", "material model").req();
  fluid->real("density", "kg/m^3", "rest density rho_bar").req().positive();
  fluid->real("sound_speed", "m/s", "c0 of the Tait law p = rho_bar c0^2/gamma ((rho/rho_bar)^gamma - 1)").def(28.0).positive();
  fluid->real("tait_gamma", "1", "Tait exponent gamma").def(7.0).min(1.0);
  fluid->integer("group", group_doc).def("-1").min(-1).max(kMaxGroups - 1);
  fluid->real("alpha_pic", "1", "PIC share of the velocity update (paper: 0.05 for fluids)").def(0.05).min(0.0).max(1.0);
  fluid->real("temperature", "K", "temperature of the particles seeded with this material (buoyancy, see "
              "mpm_multiphase.thermal_buoyancy)").def(293.15).positive();
  fluid->flag("displaces", "at start-up, remove the particles of other fluid materials that sources seed inside this "
              "material's particles (as solids always do), e.g. a smoke ball placed in an air-filled box").def("false");
  auto solid = std::make_shared<config::Schema>("Hypoelastic solid with the Jaumann stress rate (eq. 11).");
  solid->text("name", "material name used by sources").req();
  solid->text("model", "material model").req();
  solid->real("density", "kg/m^3", "rest density").req().positive();
  solid->real("youngs_modulus", "Pa", "Young's modulus E").req().positive();
  solid->real("poisson_ratio", "1", "Poisson ratio nu (the paper's 0.5 makes K infinite)").def(0.3).min(-0.99).max(0.49);
  solid->integer("group", group_doc).def("-1").min(-1).max(kMaxGroups - 1);
  solid->real("alpha_pic", "1", "PIC share of the velocity update (paper: 1 for solids)").def(1.0).min(0.0).max(1.0);
  root.variant_list("materials", "model", {{"fluid", fluid}, {"hypoelastic", solid}},
                    "Materials that sources refer to by name.");
}

MultiphaseSettings read_multiphase_settings(const config::Section& root, int dim) {
  const auto s = root.section("mpm_multiphase");
  MultiphaseSettings o;
  o.cfl = s.real("cfl");
  o.dt_max = s.real("dt_max");
  const auto g = s.vector("gravity");
  for (int d = 0; d < dim; ++d) o.gravity[d] = g[d];
  o.gimp = s.text("shape_function") == "gimp";
  const std::string sharing = s.text("force_sharing");
  o.force_sharing = sharing == "shared" ? ForceSharing::Shared
                    : sharing == "fluids" ? ForceSharing::Fluids : ForceSharing::PerGroup;
  const std::string mode = s.text("contact_mode");
  o.contact = mode == "pairwise" ? ContactMode::Pairwise : mode == "each_vs_rest" ? ContactMode::EachVsRest : ContactMode::None;
  o.beta_fluid_solid = s.real("beta_fluid_solid");
  o.contact_fill = s.real("contact_fill");
  o.contact_separation = s.real("contact_separation");
  o.beta_fluid_fluid = s.real("beta_fluid_fluid");
  o.beta_solid_solid = s.real("beta_solid_solid");
  o.paper_literal_volumetric = s.text("hypoelastic_volumetric") == "paper_literal";
  o.sph_density = s.text("fluid_density") == "sph";
  o.sph_support = s.real("sph_support");
  o.sph_skin = s.real("sph_skin");
  o.sph_wall_images = s.flag("sph_wall_images");
  o.sph_grid_average = s.flag("sph_grid_average");
  o.clamp_negative_pressure = s.flag("clamp_negative_pressure");
  o.separate_fluid_from_solids = s.flag("separate_fluid_from_solids");
  o.keep_fluid_inside_solids = s.flag("keep_fluid_inside_solids");
  o.sort_every = s.integer("sort_every");
  o.diffusivity = s.real("diffusivity");
  o.dissolve_solid = s.text("dissolve_solid");
  o.dissolve_into = s.text("dissolve_into");
  o.saturation = s.real("saturation");
  o.dissolution_rate = s.real("dissolution_rate");
  o.dissolution_conservative = s.text("dissolution") == "conservative";
  o.dissolution_rate_per_step = s.flag("dissolution_rate_per_step");
  o.thermal_buoyancy = s.real("thermal_buoyancy");
  o.ambient_temperature = s.real("ambient_temperature");
  o.thermal_diffusivity = s.real("thermal_diffusivity");
  o.emitter_material = s.text("emitter_material");
  const auto c = s.vector("emitter_center");
  for (int d = 0; d < dim; ++d) o.emitter_center[d] = c[d];
  o.emitter_radius = s.real("emitter_radius");
  o.emitter_speed = s.real("emitter_speed");
  return o;
}

MultiphaseTable read_multiphase_materials(const config::Section& root) {
  MultiphaseTable t;
  const auto list = root.list("materials");
  if (list.empty()) throw InputError(root.file(), "materials", "the deck defines no materials");
  if (list.size() > static_cast<size_t>(kMaxGroups) * 4)
    throw InputError(root.file(), "materials", "too many materials");
  for (size_t i = 0; i < list.size(); ++i) {
    const auto& m = list[i];
    const std::string name = m.text("name");
    for (const auto& n : t.names)
      if (n == name) throw InputError(m.file(), m.key_path("name"), "material '" + name + "' is defined twice");
    t.names.push_back(name);
    PhaseMaterial p;
    p.rest_density = m.real("density");
    p.alpha_pic = m.real("alpha_pic");
    const long group = m.integer("group");
    p.group = group >= 0 ? static_cast<int>(group) : static_cast<int>(i);
    if (p.group >= kMaxGroups)
      throw InputError(m.file(), m.key_path("group"), "at most " + std::to_string(kMaxGroups) + " material groups");
    if (m.text("model") == "fluid") {
      p.kind = PhaseKind::Fluid;
      p.sound_speed = m.real("sound_speed");
      p.gamma = m.real("tait_gamma");
      p.stiffness = physics::tait_stiffness(p.rest_density, p.sound_speed, p.gamma);
      p.temperature = m.real("temperature");
      p.displaces = m.flag("displaces");
    } else {
      p.kind = PhaseKind::Solid;
      p.displaces = true;
      const auto mod = physics::HypoelasticModuli::from_young(m.real("youngs_modulus"), m.real("poisson_ratio"));
      p.bulk = mod.bulk;
      p.shear = mod.shear;
    }
    t.materials.push_back(p);
  }
  for (const auto& p : t.materials) t.groups = std::max(t.groups, p.group + 1);
  t.group_kind.assign(t.groups, PhaseKind::Fluid);
  std::vector<int> used(t.groups, 0);
  for (size_t i = 0; i < t.materials.size(); ++i) {
    const auto& p = t.materials[i];
    if (used[p.group] && t.group_kind[p.group] != p.kind)
      throw InputError(list[i].file(), list[i].key_path("group"),
                       "group " + std::to_string(p.group) + " mixes fluid and solid materials");
    used[p.group] = 1;
    t.group_kind[p.group] = p.kind;
  }
  for (int g = 0; g < t.groups; ++g)
    if (!used[g])
      throw InputError(root.file(), "materials", "material group " + std::to_string(g) + " has no material (groups are 0..G-1)");
  return t;
}

}  // namespace meniscus::mpm_multiphase
