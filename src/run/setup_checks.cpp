#include "run/setup_checks.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "core/error.hpp"
#include "core/log.hpp"
#include "geometry/sources.hpp"
#include "geometry/triangle_mesh.hpp"
#include "methods/membrane/membrane_deck.hpp"

namespace meniscus::run {

void check_setup_inputs(const LoadedDeck& deck) {
  const auto root = deck.deck.root();
  const int dim = deck.deck.dimension();
  const double dx = root.section("domain").real("cell_size");
  auto load_mesh = [&](const config::Section& s, const char* what) {
    if (dim != 3) throw InputError(s.file(), s.key_path("type"), std::string("mesh ") + what + " need simulation.dimension: 3");
    geometry::load_obj(s.text("file"), s.file(), s.key_path("file"));
  };
  // Particle methods whose mass and kernel follow a particle radius r need the sources' lattice
  // spacing to be the diameter 2r; `run` refuses the mismatch while seeding, so `check` must too.
  std::string radius_section;
  if (deck.method == "sph-jeske2023") radius_section = "sph";
  if (deck.method == "pbd-xing2022") radius_section = "pbd";
  const double diameter = radius_section.empty() ? 0.0 : 2 * root.section(radius_section).real("particle_radius");
  if (root.has("sources")) {
    for (const auto& s : root.list("sources")) {
      double spacing = 0;
      try {
        spacing = geometry::lattice_spacing(dx, static_cast<int>(s.integer("particles_per_cell")), dim);
      } catch (const std::invalid_argument& e) {
        throw InputError(s.file(), s.key_path("particles_per_cell"), e.what());
      }
      if (diameter > 0 && std::fabs(spacing - diameter) > 1e-6 * diameter)
        throw InputError(s.file(), s.key_path("particles_per_cell"),
                         log::format("the lattice spacing cell_size / particles_per_cell^(1/%d) = %g m must equal the "
                                     "particle diameter 2 * %s.particle_radius = %g m",
                                     dim, spacing, radius_section.c_str(), diameter));
      const std::string type = s.text("type");
      if (type == "box") {
        const auto lo = s.vector("lower"), hi = s.vector("upper");
        for (int d = 0; d < dim; ++d)
          if (!(hi[d] > lo[d])) throw InputError(s.file(), s.key_path("upper"), "upper must exceed lower on every axis");
      } else if (type == "ellipsoid") {
        for (double r : s.vector("radii"))
          if (!(r > 0)) throw InputError(s.file(), s.key_path("radii"), "every semi-axis must be positive");
      } else if (type == "mesh") {
        load_mesh(s, "sources");
      }
    }
  }
  if (root.has("colliders"))
    for (const auto& c : root.list("colliders"))
      if (c.text("type") == "mesh") load_mesh(c, "colliders");
  // The membrane method checks its surface and bodies against the box while it is constructed.
  if (deck.method == "membrane-ruan2021") membrane::check_membrane_geometry(root);
}

}  // namespace meniscus::run
