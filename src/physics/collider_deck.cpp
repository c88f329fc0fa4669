#include "physics/collider_deck.hpp"

#include <cmath>
#include <memory>

#include "core/error.hpp"
#include "core/log.hpp"
#include "geometry/sampled_sdf.hpp"
#include "geometry/triangle_mesh.hpp"

namespace meniscus::physics {

void declare_colliders(config::Schema& root) {
  auto common = [](config::Schema& s) {
    s.text("type", "collider shape").req();
    s.choice("boundary", {"sticky", "slip", "slip-attached", "friction"},
             "condition on grid velocities inside the collider (slip-attached: no separation either)")
        .def("slip");
    s.real("friction", "1", "Coulomb friction coefficient (boundary: friction)").def(0.0).nonnegative();
    s.vector("velocity", "m/s", "surface velocity of the wall, which itself stays in place (a conveyor)")
        .def_dim("[0, 0]", "[0, 0, 0]");
    s.vector("translation", "m/s", "prescribed rigid translation of the shape (a gate being lifted, a paddle)")
        .def_dim("[0, 0]", "[0, 0, 0]");
    s.real("translation_start", "s", "time the translation starts; the shape rests at its deck position before")
        .def(0.0)
        .nonnegative();
    s.real("translation_end", "s", "time the translation stops; the shape rests where it got to after (omit: never stops)")
        .nonnegative();
    s.real("contact_angle", "deg",
           "MPM surface tension: Young's contact angle through the liquid, k_SL = -k_LG cos(angle) "
           "(default 180, non-wetting)")
        .min(0.0)
        .max(180.0);
    s.real("solid_liquid_coefficient", "N/m", "MPM surface tension: k_SL itself, instead of contact_angle");
    s.real("temperature", "K", "MPM heat: grid nodes inside the collider are held at this temperature (absent: insulated)")
        .positive();
  };
  auto half = std::make_shared<config::Schema>("Everything on one side of a plane (a line in 2D).");
  half->vector("point", "m", "a point on the plane").req();
  half->vector("normal", "1", "normal pointing out of the solid, into the fluid").req();
  common(*half);
  auto box = std::make_shared<config::Schema>("An axis-aligned box; inverted: true makes it a container.");
  box->vector("lower", "m", "lower corner").req();
  box->vector("upper", "m", "upper corner").req();
  box->flag("inverted", "the solid is outside the box").def("false");
  common(*box);
  auto sphere = std::make_shared<config::Schema>("A sphere (a disc in 2D).");
  sphere->vector("center", "m", "centre").req();
  sphere->real("radius", "m", "radius").req().positive();
  sphere->flag("inverted", "the solid is outside the sphere").def("false");
  common(*sphere);
  auto cone = std::make_shared<config::Schema>("A capped cone (a triangle in 2D): apex, axis into the solid, "
                                               "half aperture and height; its flat base closes it.");
  cone->vector("apex", "m", "the tip").req();
  cone->vector("axis", "1", "direction from the apex towards the base (normalised)").req();
  cone->real("half_aperture", "deg", "half the opening angle at the apex").req().positive().max(89.9);
  cone->real("height", "m", "distance from the apex to the base").req().positive();
  common(*cone);
  auto mesh = std::make_shared<config::Schema>("A watertight OBJ mesh as a signed distance field (3D only).");
  mesh->file("file", "OBJ file, relative to the deck").req();
  mesh->real("scale", "1", "scale applied to the mesh coordinates").def(1.0).positive();
  mesh->vector("translate", "m", "translation applied after scaling").def_dim("[0, 0]", "[0, 0, 0]");
  mesh->real("sdf_spacing", "m", "spacing of the sampled distance field (0: the grid's dx)").def(0.0).nonnegative();
  common(*mesh);
  root.variant_list("colliders", "type", {{"half-space", half}, {"box", box}, {"sphere", sphere}, {"cone", cone}, {"mesh", mesh}},
                    "Solid obstacles acting on grid velocities.");
}

namespace {
BoundaryType boundary_of(const std::string& s) {
  if (s == "sticky") return BoundaryType::Sticky;
  if (s == "friction") return BoundaryType::Friction;
  if (s == "slip-attached") return BoundaryType::SlipAttached;
  return BoundaryType::Slip;
}

// A collider has no periodic image, so along a periodic axis it must neither cut the axis (a plane
// whose normal has a component along it) nor reach the periodic faces (a box or sphere crossing one
// would act on one side only). Meshes are not checked (their extent is known only after sampling).
template <int Dim>
void check_periodic_conflict(const config::Section& s, const std::string& type, const grid::Decomposition<Dim>& decomp) {
  const char* axis[3] = {"x", "y", "z"};
  for (int d = 0; d < Dim; ++d) {
    if (!decomp.periodic()[d]) continue;
    const double lo = decomp.lower()[d], hi = decomp.upper()[d];
    std::string why;
    if (type == "half-space") {
      if (std::fabs(s.vector("normal")[d]) > 1e-12) why = "a half-space whose normal has a component along it";
    } else if (type == "box") {
      const double a = s.vector("lower")[d], b = s.vector("upper")[d];
      if (s.flag("inverted") ? (a >= lo || b <= hi) : (a <= lo || b >= hi)) why = "a box that reaches its faces";
    } else if (type == "sphere") {
      const double c = s.vector("center")[d], r = s.real("radius");
      if (s.flag("inverted") || c - r <= lo || c + r >= hi) why = "a sphere that reaches its faces (or an inverted one)";
    }
    if (!why.empty())
      throw InputError(s.file(), s.key_path("type"),
                       log::format("axis %s is periodic (domain.periodic), which conflicts with %s: colliders have "
                                   "no periodic images",
                                   axis[d], why.c_str()));
  }
}
}  // namespace

template <int Dim>
ColliderSet<Dim> read_colliders(const config::Section& root, const grid::Decomposition<Dim>& decomp) {
  ColliderSet<Dim> set;
  auto add = [&](const Collider<Dim>& c, const std::string& file, const std::string& key) {
    if (set.count >= ColliderSet<Dim>::kMax)
      throw InputError(file, key, "too many colliders (at most 16 including the box faces)");
    set.items[set.count++] = c;
  };
  const auto dom = root.section("domain");
  const std::string walls = dom.text("walls");
  if (walls != "none") {
    const int wall = static_cast<int>(dom.integer("wall_cells"));
    for (int d = 0; d < Dim; ++d)
      for (int side = 0; side < 2; ++side) {
        if (decomp.periodic()[d]) continue;  // a periodic axis has no faces
        std::array<double, Dim> p{}, n{};
        for (int e = 0; e < Dim; ++e) p[e] = decomp.lower()[e];
        // Each plane through its grid node, computed as the methods place nodes (lower + i dx): the
        // upper face as upper - wall dx lay a rounding error off node cells - wall (0.28 - 0.04 =
        // 0.24000000000000002 against 12 x 0.02 = 0.24), outside by 3e-17, so the conditions that act
        // on nodes at distance <= 0 held the node on the lower wall plane and not the one on the upper
        // plane: water drifted into the upper walls and piled up there.
        const int node = side == 0 ? wall : decomp.nodes()[d] - 1 - wall;
        p[d] = decomp.lower()[d] + node * decomp.dx();
        n[d] = side == 0 ? 1.0 : -1.0;
        Collider<Dim> c;
        c.shape = geometry::half_space<Dim>(p, n);
        c.type = boundary_of(walls);
        c.friction = dom.real("wall_friction");
        add(c, dom.file(), dom.key_path("walls"));
      }
  }
  for (const auto& s : root.list("colliders")) {
    auto vec = [&](const std::string& key) {
      std::array<double, Dim> a{};
      auto v = s.vector(key);
      for (int d = 0; d < Dim; ++d) a[d] = v[d];
      return a;
    };
    Collider<Dim> c;
    const std::string type = s.text("type");
    if (type == "half-space") {
      auto n = vec("normal");
      double len = 0;
      for (int d = 0; d < Dim; ++d) len += n[d] * n[d];
      if (!(len > 0)) throw InputError(s.file(), s.key_path("normal"), "normal must not be zero");
      for (int d = 0; d < Dim; ++d) n[d] /= std::sqrt(len);
      c.shape = geometry::half_space<Dim>(vec("point"), n);
    } else if (type == "box") {
      c.shape = geometry::box<Dim>(vec("lower"), vec("upper"));
      if (s.flag("inverted")) c.shape = geometry::complement<Dim>(c.shape);
    } else if (type == "sphere") {
      c.shape = geometry::sphere<Dim>(vec("center"), s.real("radius"));
      if (s.flag("inverted")) c.shape = geometry::complement<Dim>(c.shape);
    } else if (type == "cone") {
      auto axis = vec("axis");
      double len = 0;
      for (int d = 0; d < Dim; ++d) len += axis[d] * axis[d];
      if (!(len > 0)) throw InputError(s.file(), s.key_path("axis"), "axis must not be zero");
      c.shape = geometry::cone<Dim>(vec("apex"), axis, s.real("half_aperture") * M_PI / 180.0, s.real("height"));
      std::array<double, Dim> lo{}, hi{};
      geometry::bounding_box<Dim>(c.shape, lo, hi);
      for (int d = 0; d < Dim; ++d)
        if (decomp.periodic()[d] && (lo[d] <= decomp.lower()[d] || hi[d] >= decomp.upper()[d]))
          throw InputError(s.file(), s.key_path("type"),
                           "a cone that reaches the faces of a periodic axis (domain.periodic): colliders have no "
                           "periodic images");
    } else if (type == "mesh") {
      if constexpr (Dim != 3) {
        throw InputError(s.file(), s.key_path("type"), "mesh colliders need simulation.dimension: 3");
      } else {
        auto mesh = geometry::load_obj(s.text("file"), s.file(), s.key_path("file"));
        auto t = vec("translate");
        geometry::transform(mesh, s.real("scale"), {t[0], t[1], t[2]});
        const double h = s.real("sdf_spacing") > 0 ? s.real("sdf_spacing") : decomp.dx();
        c.shape = geometry::sampled<3>(geometry::sdf_from_mesh(mesh, h, 3));
      }
    }
    check_periodic_conflict<Dim>(s, type, decomp);
    c.type = boundary_of(s.text("boundary"));
    c.friction = s.real("friction");
    auto v = vec("velocity"), move = vec("translation");
    for (int d = 0; d < Dim; ++d) {
      c.velocity[d] = v[d];
      c.translation[d] = move[d];
    }
    c.move_start = s.real("translation_start");
    if (s.has("translation_end")) {
      c.move_end = s.real("translation_end");
      if (!(c.move_end > c.move_start))
        throw InputError(s.file(), s.key_path("translation_end"), "must be later than translation_start");
    }
    add(c, s.file(), s.path());
  }
  return set;
}

template ColliderSet<2> read_colliders<2>(const config::Section&, const grid::Decomposition<2>&);
template ColliderSet<3> read_colliders<3>(const config::Section&, const grid::Decomposition<3>&);

}  // namespace meniscus::physics
