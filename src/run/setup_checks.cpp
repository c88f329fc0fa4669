#include "run/setup_checks.hpp"

#include <stdexcept>
#include <string>

#include "core/error.hpp"
#include "geometry/sources.hpp"
#include "geometry/triangle_mesh.hpp"

namespace meniscus::run {

void check_setup_inputs(const LoadedDeck& deck) {
  const auto root = deck.deck.root();
  const int dim = deck.deck.dimension();
  const double dx = root.section("domain").real("cell_size");
  auto load_mesh = [&](const config::Section& s, const char* what) {
    if (dim != 3) throw InputError(s.file(), s.key_path("type"), std::string("mesh ") + what + " need simulation.dimension: 3");
    geometry::load_obj(s.text("file"), s.file(), s.key_path("file"));
  };
  if (root.has("sources")) {
    for (const auto& s : root.list("sources")) {
      try {
        geometry::lattice_spacing(dx, static_cast<int>(s.integer("particles_per_cell")), dim);
      } catch (const std::invalid_argument& e) {
        throw InputError(s.file(), s.key_path("particles_per_cell"), e.what());
      }
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
}

}  // namespace meniscus::run
