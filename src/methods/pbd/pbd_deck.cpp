#include "methods/pbd/pbd_deck.hpp"

#include <algorithm>
#include <memory>

#include "core/error.hpp"

namespace meniscus::pbd {

void declare_pbd_sections(config::Schema& root) {
  auto s = std::make_shared<config::Schema>();
  s->real("particle_radius", "m", "particle radius r: the sources' lattice spacing is 2r, the cubic-spline support "
          "h = 6r and the distance constraint keeps particles 2r apart (Xing et al. 2022, sec. 3.4)").req().positive();
  s->real("rest_density", "kg/m^3", "rest density rho0; the particle mass is calibrated so that the densest "
          "particle of the initial configuration is exactly at rho0").def(1.0).positive();
  s->vector("gravity", "m/s^2", "gravitational acceleration (the paper's scenes use 0 to 9.8 in scene units)")
      .def_dim("[0, 0]", "[0, 0, 0]");
  s->real("dt", "s", "time step (the paper uses 1/30 s for every example)").def(1.0 / 30.0).positive();
  s->integer("iterations", "constraint-projection iterations per step (nlIter, paper Table 1: 10 to 100)")
      .def("100").min(1);
  s->integer("reset_iterations", "neighbour lists are rebuilt on the predicted positions every this many "
             "iterations (resetIter = 10 in the paper)").def("10").min(1);
  s->real("density_cfm", "1", "constraint force mixing epsilon^P of the density constraints (paper Eq. 3; "
          "600, or 180 in the splash and teapot scenes)").def(600.0).nonnegative();
  s->choice("density_constraint", {"bilateral", "unilateral"}, "density constraint C = rho/rho0 - 1 in both "
            "directions (paper Eq. 2) or only where rho > rho0 (C = max(rho/rho0 - 1, 0): it only pushes particles "
            "apart, the area constraints alone hold the surface)").def("bilateral");
  s->real("distance_cfm", "1", "constraint force mixing epsilon^D of the unilateral distance constraints "
          "(paper Eq. 10; 40)").def(40.0).nonnegative();
  s->flag("area_constraints", "area constraints on the local meshes of the surface particles: the method's surface "
          "tension (sec. 5); false leaves position-based fluids with distance constraints").def("true");
  s->real("area_cfm", "1", "constraint force mixing epsilon^A of the area constraints (Table 1: 0.08 to 5; smaller is "
          "stiffer, i.e. stronger surface tension)").def(1.0).nonnegative();
  s->real("xsph", "1", "XSPH velocity smoothing coefficient c of the viscosity step (0: off)")
      .def(0.02).min(0.0).max(1.0);
  s->flag("position_from_projection", "end a step with p = p* (standard PBF) instead of the paper's "
          "p = p + dt v with the viscosity-smoothed velocity (Algorithm 1, line 11)").def("false");
  s->choice("surface_detection", {"bins", "cones"}, "light-shading measure of the illuminated screen fraction "
            "(sec. 4.1): 18 x 36 angle bins (fast), or exact shadow cones sampled by shading_directions "
            "directions").def("bins");
  s->integer("shading_directions", "directions sampling the screen with surface_detection: cones").def("1024").min(16);
  s->real("illumination_threshold", "1", "beta: a particle whose illuminated screen fraction is at least this is "
          "a surface particle (paper: 1/9)").def(1.0 / 9.0).positive().max(1.0);
  s->choice("distance_pairs", {"same_label", "all"}, "distance constraints between neighbours of the same label "
            "(surface-surface, interior-interior: the paper, sec. 3.4) or between all neighbours (the authors' "
            "later re-implementation)").def("same_label");
  s->choice("delaunay_angles", {"tangent_plane", "lifted"}, "local meshes: the Delaunay test that decides a "
            "quadrilateral's diagonal uses the angles projected on the particle's tangent plane (the paper, sec. 4.2) "
            "or the 3D corner angles of the lifted quadrilateral, which every particle of it evaluates alike (ours: "
            "fewer non-manifold triangles; the same test on a plane)").def("tangent_plane");
  s->real("filament_ratio", "1", "filament particles (sec. 4.3; the paper's supplement is not published, "
          "reconstruction): a particle with at least 3 neighbours whose kernel-weighted neighbour covariance has "
          "eigenvalues e2 / e1 below this lies on a liquid thread and has no density constraint; 0: off")
      .def(0.1).min(0.0).max(1.0);
  s->integer("sort_every", "reorder particles by cell every this many steps (0: never)").def("20").min(0);
  s->real("film_insertion_edge", "m", "stretched films (not in the paper, which keeps the particle count fixed): "
          "after every step, in each surface particle's fan whose mean triangle area exceeds the equilateral "
          "triangle's of this edge (a film stretched beyond its spacing), a particle is inserted at the centroid of "
          "the largest triangle with no edge of 1.5 times this or more (not across a hole); 0: never. 2.4 particle radii keeps a two-layer film between separating rings "
          "whole up to the catenoid's rupture (docs/theory-pbd.md, \"Catenoid\")").def(0.0).nonnegative();
  s->flag("adhesion", "adhesion constraints to every collider (the paper's \"adhesion constraints\", sec. 3.4, whose "
          "form it does not give; ours): a particle whose centre lies between r and r + adhesion_range from a "
          "solid is pulled towards the contact distance r, C = phi - r, by -C / (1 + adhesion_cfm) along the "
          "solid's normal in every iteration").def("false");
  s->real("adhesion_cfm", "1", "constraint force mixing epsilon^W of the adhesion constraints (smaller is stickier)")
      .def(1.0).nonnegative();
  s->real("adhesion_range", "m", "reach r_a of the adhesion constraints beyond the contact distance r "
          "(0: particle_radius, so that only the liquid's contact layer is held; 2r also pulls the second layer into it and "
          "compacts the liquid, docs/theory-pbd.md)").def(0.0).nonnegative();
  s->flag("swept_collisions", "collisions test the whole path of a particle in the step, from its position at the "
          "start of the step to its predicted position, so that it cannot jump through a wall thinner than its "
          "step (a thin plate); false: only the predicted position is tested").def("true");
  s->flag("split_pairs_by_solids", "thin walls (the paper's teapot, sec. 3.4): at every rebuild, neighbour pairs "
          "whose segment passes through a collider are removed, so that liquid on the two sides of a wall thinner "
          "than the kernel support does not interact (no density, distance or area constraint, no viscosity "
          "across it); costs a sphere trace per pair of the particles within the support of a collider")
      .def("false");
  s->list("emitters", particles::disc_emitter_schema(),
          "Inflow discs (the dripping faucet, paper Fig. 15): every 2r / |velocity| seconds a layer of particles "
          "on the sources' lattice; the particles within nozzle_length of a disc keep its velocity (the liquid "
          "in the pipe)");
  s->real("nozzle_length", "m", "length of the held liquid column of each emitter (0: one kernel support, 6r)")
      .def(0.0).nonnegative();
  root.section("pbd", s, "Position-based surface tension flow (Xing et al. 2022): PBF density constraints with "
               "constraint force mixing, unilateral distance constraints, light-shading surface detection, local "
               "meshes and area constraints (docs/theory-pbd.md).");

  auto mat = std::make_shared<config::Schema>("A liquid that sources refer to by name.");
  mat->text("name", "material name used by sources").req();
  mat->flag("kinematic", "particles of this material keep their initial velocity and are not moved by the "
            "constraints (rings and supports a film hangs on); they still count in densities, surface "
            "detection and the neighbours' local meshes").def("false");
  root.list("materials", mat, "Liquids that sources refer to by name (one rest density: pbd.rest_density).");
}

PbdParams read_pbd(const config::Section& root) {
  PbdParams p;
  const auto s = root.section("pbd");
  p.particle_radius = s.real("particle_radius");
  p.rest_density = s.real("rest_density");
  const auto g = s.vector("gravity");
  for (size_t d = 0; d < g.size() && d < 3; ++d) p.gravity[d] = g[d];
  p.dt = s.real("dt");
  p.iterations = static_cast<int>(s.integer("iterations"));
  p.reset_iterations = static_cast<int>(s.integer("reset_iterations"));
  p.density_cfm = s.real("density_cfm");
  p.distance_cfm = s.real("distance_cfm");
  p.unilateral_density = s.text("density_constraint") == "unilateral";
  p.xsph = s.real("xsph");
  p.area_constraints = s.flag("area_constraints");
  p.area_cfm = s.real("area_cfm");
  p.position_from_projection = s.flag("position_from_projection");
  p.sort_every = s.integer("sort_every");
  p.film_insertion_edge = s.real("film_insertion_edge");
  p.shading_mode = s.text("surface_detection") == "cones" ? 1 : 0;
  p.shading_directions = static_cast<int>(s.integer("shading_directions"));
  p.illumination_threshold = s.real("illumination_threshold");
  p.distance_same_label = s.text("distance_pairs") == "same_label";
  p.lifted_angles = s.text("delaunay_angles") == "lifted";
  p.filament_ratio = s.real("filament_ratio");
  p.adhesion = s.flag("adhesion");
  p.adhesion_cfm = s.real("adhesion_cfm");
  p.adhesion_range = s.real("adhesion_range") > 0 ? s.real("adhesion_range") : p.particle_radius;
  p.swept_collisions = s.flag("swept_collisions");
  p.split_pairs_by_solids = s.flag("split_pairs_by_solids");
  for (const auto& m : root.list("materials")) {
    const std::string name = m.text("name");
    if (std::find(p.material_names.begin(), p.material_names.end(), name) != p.material_names.end())
      throw InputError(m.file(), m.key_path("name"), "material '" + name + "' is defined twice");
    p.material_names.push_back(name);
    p.kinematic.push_back(m.flag("kinematic") ? 1 : 0);
  }
  if (p.material_names.empty()) throw InputError(root.file(), "materials", "the deck defines no materials");
  p.emitters = particles::read_disc_emitters(s, 3, p.material_names);
  p.nozzle_length = s.real("nozzle_length") > 0 ? s.real("nozzle_length") : p.support();
  return p;
}

}  // namespace meniscus::pbd
