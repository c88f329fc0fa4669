#include "methods/mpm/mpm_deck.hpp"

#include <memory>

#include "core/error.hpp"
#include "methods/mpm/mpm_heat_deck.hpp"

namespace meniscus::mpm {

void declare_mpm_sections(config::Schema& root) {
  auto mpm = std::make_shared<config::Schema>();
  mpm->real("cfl", "1", "CFL number: dt <= cfl * dx / max(|v| + wave speed)").def(0.4).min(0.0, true).max(1.0);
  mpm->real("dt_max", "s", "largest time step").def(1e-3).positive();
  mpm->real("dt_min", "s", "smallest time step before the run stops as unstable").def(1e-9).positive();
  mpm->vector("gravity", "m/s^2", "gravitational acceleration").def_dim("[0, -9.81]", "[0, -9.81, 0]");
  mpm->integer("sort_every", "reorder particles by cell every this many steps (0: never)").def("20").min(0);
  mpm->choice("integrator", {"explicit", "implicit"},
              "grid velocity update: explicit (forces at x^n) or backward Euler (Newton on the incremental "
              "potential; no acoustic or capillary time step limit)")
      .def("explicit");
  auto newton = std::make_shared<config::Schema>();
  newton->real("tolerance", "1", "Newton stops when sqrt(sum |r_i|^2/m_i) <= tolerance * max(sqrt(sum m|v^n|^2), "
                                 "dt|g| sqrt(sum m), initial residual)")
      .def(1e-6)
      .positive();
  newton->integer("max_iterations", "Newton iterations before the step is rejected (dt halved)").def("30").min(1);
  newton->integer("max_line_search", "step halvings of the backtracking line search on the energy").def("20").min(0);
  newton->real("linear_tolerance", "1",
               "relative tolerance of each linear solve (overridden by -mpm_newton_redistribute_ksp_rtol with "
               "the assembled Hessian, by -mpm_newton_ksp_rtol with the matrix-free one)")
      .def(1e-4)
      .positive();
  newton->integer("max_linear_iterations", "iterations of each linear solve (-mpm_newton_ksp_max_it overrides)")
      .def("1000")
      .min(1);
  newton->choice("hessian", {"assembled", "matrix_free"},
                 "Newton's linear solves: the Hessian assembled as a sparse matrix with CG + symmetric SOR, "
                 "switching to algebraic multigrid (PCGAMG, SOR-smoothed) for the rest of the run when a solve "
                 "needs more than -mpm_newton_sor_max_iterations, or applied matrix-free through the particles "
                 "with CG + Jacobi; -mpm_newton_ksp_* / -mpm_newton_pc_* override either")
      .def("assembled");
  newton->flag("project_hessian",
               "Newton solves with the exact Hessian; where CG meets negative curvature it falls back to one with "
               "each quadrature point's part clamped to positive semi-definite (off: no fallback, for derivative checks)")
      .def("true");
  newton->real("surface_smoothing", "1",
               "eps of the smoothed sample energy sqrt(1+eps^2) (sqrt(|cof(M) dA|^2 + eps^2 |dA|^2) - eps |dA|): "
               "smooth where a light node shrinks a sample to nothing; the same force at rest and under rotation")
      .def(0.3)
      .positive();
  newton->real("light_node_fraction", "1",
               "grid nodes lighter than this fraction of the heaviest node keep their P2G velocity instead of "
               "being unknowns: removes the nearly massless nodes on which CG stalls at large steps; the forces "
               "they would receive are given to the other nodes as one uniform velocity shift, so linear "
               "momentum stays conserved (0: every node with mass is an unknown)")
      .def(1e-4)
      .nonnegative()
      .max(0.1);
  newton->real("kinetic_mass_floor", "1",
               "free grid nodes lighter than this fraction of the heaviest node take that mass in the kinetic "
               "term of the incremental potential (light nodes otherwise move far at large steps); the momentum "
               "this adds is removed by a uniform velocity shift. Scaled by (dt/dt_capillary)^2 at steps below "
               "the capillary limit, so that small steps match the explicit update (0: off)")
      .def(0.0)
      .nonnegative()
      .max(1.0);
  mpm->section("newton", newton,
               "Newton solver of the implicit integrator; PETSc options -mpm_newton_ksp_* and -mpm_newton_pc_* "
               "reach its KSP (CG + GAMG with the assembled Hessian, CG + Jacobi matrix-free).");
  auto st = std::make_shared<config::Schema>();
  st->flag("enabled", "add surface tension (Chen et al. 2021, explicit form) on resampled surface particles").def("false");
  st->real("coefficient", "N/m", "surface tension coefficient k (a force per unit depth in 2D)").def(0.0).nonnegative();
  st->real("samples_per_dx", "1", "expected surface samples per cell length of surface (squared per cell area in 3D)")
      .def(4.0)
      .positive();
  st->real("level_set_radius", "1", "sphere radius around each particle for the surface, in cells")
      .def_dim("0.73", "0.867")
      .positive();
  st->choice("area_weight", {"per-element", "uniform"},
             "|dA| of a sample: its element's area (the contour in one cell) over the element's sample "
             "count, at least one sample per element (the sampled area equals the contour's), or "
             "1/density (unbiased only in expectation)")
      .def("per-element");
  st->flag("massless_samples",
           "negative control (Hyde et al. 2020): surface particles carry force but no mass, which loses "
           "momentum on nodes only they reach")
      .def("false");
  st->choice("placement", {"poisson", "stratified"},
             "sample placement on each cell's contour: Poisson-distributed random points (paper), or "
             "max(1, round(density x its length (2D) or area (3D))) points at the centres of equal parts of it, "
             "the same every step (removes the random force imbalance that large implicit steps amplify)")
      .def("poisson");
  st->integer("seed", "seed of the counter-based sampling random numbers").def("20210801").min(0);
  st->real("solid_liquid_distance", "1",
           "a sample within this distance of a collider, in cells, is solid-liquid and takes the collider's "
           "k_SL (colliders[i].contact_angle, solid_liquid_coefficient)")
      .def(0.5)
      .nonnegative();
  st->real("wetting_width", "1",
           "width, in cells, of the ramp centred on solid_liquid_distance over which a sample's wetting energy "
           "fades with its distance to the wall; its slope is the adhesion that holds a contact line to the wall "
           "(0, the default: a sharp cut, no adhesion; 1 holds drops on slip floors, issue 14). Above 0, every "
           "collider but a slip-attached one is a wetting wall: it cuts the sampled surface at its own surface "
           "and holds the grid nodes within one cell of it")
      .def(0.0)
      .nonnegative();
  st->flag("contact_line_hold",
           "needs wetting_width > 0 (an input error otherwise): the wetting walls' held nodes also stop liquid "
           "leaving the wall, up to Young's vertical reaction k_LG sin(theta) per unit length of contact line "
           "(in 2D per contact point), the line measured from the liquid-gas samples within the wetting ramp; "
           "2D and 3D, explicit and implicit (implicit: where hold_mode says)")
      .def("false");
  st->choice("hold_mode", {"after_solve", "in_solve"},
             "implicit integrator with contact_line_hold only (in_solve is an input error otherwise): after_solve "
             "cuts each held node's velocity away from the wall after the Newton solve, as the explicit update "
             "does after the forces; in_solve minimises the hold's work with the incremental potential under the "
             "bound (v - v_c).n >= 0, an active set around Newton (diagnostics hold_passes, hold_released). "
             "Measured, in_solve reads no closer to Young's angle (3D within 1.2 deg, 2D within 2.7 deg of after_solve) "
             "at about 1.6 times the CPU time and 1.8-1.9 times the Newton and CG iterations on held decks "
             "(docs/theory-mpm-implicit.md)")
      .def("after_solve");
  st->real("wall_contact_angle", "deg",
           "contact angle of the box faces (domain.walls): k_SL = -k_LG cos(angle); 180 is non-wetting (k_SL = k_LG)")
      .def(180.0)
      .min(0.0)
      .max(180.0);
  auto ma = std::make_shared<config::Schema>();
  ma->flag("enabled", "k_LG depends on the parent particle's scalar c (sources[i].surfactant): "
                      "k = clamp(k0 + slope (c - reference), min_coefficient, max_coefficient)")
      .def("false");
  ma->choice("scalar", {"surfactant", "temperature"},
             "the scalar c: the advected `surfactant` of the sources, or the particle temperature of mpm.heat "
             "(k^sigma(T), Chen et al. 2021, Sec. 3.5; the cavity of Sec. 6.5 uses clamp(1 - T, 0, 1), the droplet of "
             "Sec. 6.10 min(0.09 (T - 50) + 0.5, 2))")
      .def("surfactant");
  ma->real("slope", "N/m", "dk/dc: change of k per unit of the scalar").def(0.0);
  ma->real("reference", "1", "scalar value at which k equals the material's k0").def(0.0);
  ma->real("min_coefficient", "N/m", "lower clamp of k").def(0.0);
  ma->real("max_coefficient", "N/m", "upper clamp of k (none if absent)");
  st->section("marangoni", ma, "Surface tension as a function of a particle scalar (Marangoni flows).");
  mpm->section("surface_tension", st, "Surface tension on resampled surface particles (explicit).");
  declare_heat_section(*mpm);
  root.section("mpm", mpm, "Material point method settings.");

  auto fluid = std::make_shared<config::Schema>("Weakly compressible Newtonian fluid, Tait equation of state in J.");
  fluid->text("name", "material name used by sources").req();
  fluid->text("model", "material model").req();
  fluid->real("density", "kg/m^3", "rest density").req().positive();
  fluid->real("bulk_modulus", "Pa", "bulk modulus K (sound speed sqrt(K/density))").req().positive();
  fluid->real("tait_gamma", "1", "Tait exponent gamma: p = K/gamma (J^-gamma - 1)").def(7.0).min(1.0);
  fluid->real("viscosity", "Pa*s", "dynamic viscosity").def(0.0).nonnegative();
  fluid->real("surface_tension", "N/m",
              "liquid-gas coefficient k_LG of this fluid's surface (default: mpm.surface_tension.coefficient)")
      .nonnegative();
  declare_thermal_material_keys(*fluid);
  auto elastic = std::make_shared<config::Schema>("Fixed-corotated hyperelastic solid (Stomakhin et al. 2012).");
  elastic->text("name", "material name used by sources").req();
  elastic->text("model", "material model").req();
  elastic->real("density", "kg/m^3", "rest density").req().positive();
  elastic->real("youngs_modulus", "Pa", "Young's modulus E").req().positive();
  elastic->real("poisson_ratio", "1", "Poisson ratio nu").def(0.3).min(-0.99).max(0.49);
  declare_thermal_material_keys(*elastic);
  root.variant_list("materials", "model", {{"fluid", fluid}, {"fixed-corotated", elastic}},
                    "Materials that sources refer to by name.");
}

MaterialTable read_materials(const config::Section& root) {
  MaterialTable t;
  for (const auto& m : root.list("materials")) {
    const std::string name = m.text("name");
    for (const auto& n : t.names)
      if (n == name) throw InputError(m.file(), m.key_path("name"), "material '" + name + "' is defined twice");
    t.names.push_back(name);
    if (m.text("model") == "fluid") {
      t.materials.push_back(physics::Material::fluid(m.real("density"), m.real("bulk_modulus"), m.real("tait_gamma"),
                                                     m.real("viscosity")));
    } else {
      t.materials.push_back(
          physics::Material::fixed_corotated(m.real("density"), m.real("youngs_modulus"), m.real("poisson_ratio")));
    }
  }
  if (t.names.empty()) throw InputError(root.file(), "materials", "the deck defines no materials");
  return t;
}

}  // namespace meniscus::mpm
