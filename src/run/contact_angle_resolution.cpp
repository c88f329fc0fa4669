#include "run/contact_angle_resolution.hpp"

#include <cmath>

#include "core/log.hpp"

namespace meniscus::run {

SessileCap sessile_cap(double volume, double theta, int dim) {
  const double c = std::cos(theta), s = std::sin(theta);
  // Radius of curvature from the volume: 2D segment area Rc^2 (theta - sin cos), 3D cap volume
  // pi Rc^3 (2 - 3 cos + cos^3) / 3.
  const double Rc = dim == 2 ? std::sqrt(volume / (theta - s * c)) : std::cbrt(3 * volume / (M_PI * (2 - 3 * c + c * c * c)));
  return {Rc * (1 - c), Rc * s};
}

std::vector<std::string> contact_angle_resolution_warnings(const config::Section& root, int dim) {
  std::vector<std::string> out;
  if (!root.has("mpm")) return out;
  const auto st = root.section("mpm").section("surface_tension");
  if (!st.flag("enabled")) return out;
  const double dx = root.section("domain").real("cell_size"), k_lg = st.real("coefficient");
  // Wetting colliders and their angles (180 deg, the default, wets nothing).
  struct Wall {
    std::string name;
    double theta;
  };
  std::vector<Wall> walls;
  if (root.section("domain").text("walls") != "none" && st.real("wall_contact_angle") < 180)
    walls.push_back({"domain.walls", st.real("wall_contact_angle") * M_PI / 180});
  const auto colliders = root.list("colliders");
  for (size_t i = 0; i < colliders.size(); ++i) {
    double theta = M_PI;
    if (colliders[i].has("contact_angle")) theta = colliders[i].real("contact_angle") * M_PI / 180;
    if (colliders[i].has("solid_liquid_coefficient") && k_lg > 0)
      theta = std::acos(std::max(-1.0, std::min(1.0, -colliders[i].real("solid_liquid_coefficient") / k_lg)));
    if (theta < M_PI) walls.push_back({log::format("colliders[%zu]", i), theta});
  }
  const auto sources = root.list("sources");
  for (size_t j = 0; j < sources.size(); ++j) {
    const std::string type = sources[j].text("type");
    double volume = 0;
    if (type == "sphere") {
      const double r = sources[j].real("radius");
      volume = dim == 2 ? M_PI * r * r : 4.0 / 3.0 * M_PI * r * r * r;
    } else if (type == "ellipsoid") {
      const auto r = sources[j].vector("radii");
      volume = dim == 2 ? M_PI * r[0] * r[1] : 4.0 / 3.0 * M_PI * r[0] * r[1] * r[2];
    } else {
      continue;  // boxes and meshes are pools and bodies, not drops
    }
    for (const auto& w : walls) {
      if (!(w.theta > 0)) continue;
      const SessileCap cap = sessile_cap(volume, w.theta, dim);
      const double h = cap.height / dx, a = cap.contact_radius / dx;
      if (h >= kMinCapHeightCells && a >= kMinContactRadiusCells) continue;
      const double need = std::min(cap.height / kMinCapHeightCells, cap.contact_radius / kMinContactRadiusCells);
      out.push_back(log::format(
          "sources[%zu] resting on %s (contact angle %.0f deg) is a cap %.1f cells high with a contact radius of "
          "%.1f cells; below %.0f cells high or %.0f cells of radius the grid does not hold the angle (the "
          "contact line stops short of it); domain.cell_size <= %.3g resolves it",
          j, w.name.c_str(), w.theta * 180 / M_PI, h, a, kMinCapHeightCells, kMinContactRadiusCells, need));
    }
  }
  return out;
}

}  // namespace meniscus::run
