#include "particles/particle_sources.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/log.hpp"
#include "geometry/curve.hpp"
#include "geometry/sampled_sdf.hpp"
#include "geometry/shapes.hpp"
#include "geometry/shell.hpp"
#include "geometry/sources.hpp"
#include "geometry/triangle_mesh.hpp"
#include "grid/domain_deck.hpp"

namespace meniscus::particles {

void declare_sources(config::Schema& root) {
  auto common = [](config::Schema& s) {
    s.text("material", "name of a material in `materials`").req();
    s.integer("particles_per_cell", "particles per grid cell (a perfect square in 2D, cube in 3D)").def("4").min(1);
    s.vector("velocity", "m/s", "initial velocity").def_dim("[0, 0]", "[0, 0, 0]");
    s.real("angular_velocity", "1/s", "initial rigid rotation rate about the z axis through rotation_center").def(0.0);
    s.vector("rotation_center", "m", "centre of the initial rotation").def_dim("[0, 0]", "[0, 0, 0]");
    s.text("type", "source kind").req();
    s.flag("hydrostatic", "start a fluid at the hydrostatic pressure of its own weight (depth from the top of the "
                          "source's bounding box along gravity), as a column held at rest before release").def("false");
    s.real("surfactant", "1", "MPM Marangoni scalar c of the particles at the origin (mpm.surface_tension.marangoni)")
        .def(0.0);
    s.vector("surfactant_gradient", "1/m", "gradient of that scalar: c(x) = surfactant + surfactant_gradient . x")
        .def_dim("[0, 0]", "[0, 0, 0]");
    s.real("temperature", "K", "MPM initial temperature at the origin (mpm.heat): T(x) = temperature + "
                               "temperature_gradient . x")
        .def(295.0)
        .positive();
    s.vector("temperature_gradient", "K/m", "gradient of the initial temperature").def_dim("[0, 0]", "[0, 0, 0]");
  };
  auto box = std::make_shared<config::Schema>("An axis-aligned box.");
  box->vector("lower", "m", "lower corner").req();
  box->vector("upper", "m", "upper corner").req();
  common(*box);
  auto sphere = std::make_shared<config::Schema>("A sphere (a disc in 2D).");
  sphere->vector("center", "m", "centre").req();
  sphere->real("radius", "m", "radius").req().positive();
  common(*sphere);
  auto ellipsoid = std::make_shared<config::Schema>("An axis-aligned ellipsoid (an ellipse in 2D).");
  ellipsoid->vector("center", "m", "centre").req();
  ellipsoid->vector("radii", "m", "semi-axes").req();
  common(*ellipsoid);
  auto mesh = std::make_shared<config::Schema>("The inside of a watertight triangle mesh (Wavefront OBJ, 3D only).");
  mesh->file("file", "OBJ file, relative to the deck").req();
  mesh->real("scale", "1", "scale applied to the mesh coordinates").def(1.0).positive();
  mesh->vector("translate", "m", "translation applied after scaling").def_dim("[0, 0]", "[0, 0, 0]");
  common(*mesh);
  auto curve = std::make_shared<config::Schema>(
      "Particles along a cubic Bezier curve from `start` to `end` (a candle wick; Chen et al. 2021, Sec. 6.9, "
      "sample points on cubic splines), at the lattice spacing h = cell_size / particles_per_cell^(1/dim) along "
      "it, in rows at spacing h across it.");
  curve->vector("start", "m", "first point of the curve (the wick's foot)").req();
  curve->vector("control_1", "m", "first Bezier control point (the tangent at start points at it)").req();
  curve->vector("control_2", "m", "second Bezier control point (the tangent at end comes from it)").req();
  curve->vector("end", "m", "last point of the curve (the wick's tip)").req();
  curve->real("thickness", "m", "width across the curve; round(thickness / h) rows (at least one)").def(0.0).nonnegative();
  curve->flag("carve", "remove the particles of the other (non-curve) sources within the curve's band (half of "
                       "rows x h from the curve), so that a wick runs through its candle instead of overlapping it")
      .def("true");
  common(*curve);
  auto shell = std::make_shared<config::Schema>(
      "A thin shell (3D only): `layers` copies, at spacing h = cell_size / particles_per_cell^(1/3) along the "
      "normal, of the surface of revolution about the z axis through `center` swept by the segment from "
      "(radius_start, z_start) to (radius_end, z_end): a cylinder, a flat disc or annulus, a cone frustum. Rows "
      "every ~h along the segment (both ends included), points every ~h around each row, alternate rows "
      "staggered by half a spacing. A liquid film (two layers) or the ring that holds one (Xing et al. 2022, "
      "Figs. 8 and 14). Each particle stands for h^3, as a lattice particle.");
  shell->vector("center", "m", "a point on the axis of revolution (parallel to z); heights are measured from it").req();
  shell->real("radius_start", "m", "distance from the axis of the profile's first end").req().nonnegative();
  shell->real("z_start", "m", "height of the profile's first end above `center`").req();
  shell->real("radius_end", "m", "distance from the axis of the profile's last end").req().nonnegative();
  shell->real("z_end", "m", "height of the profile's last end above `center`").req();
  shell->integer("layers", "copies of the surface along its normal, centred on it, h apart (2: a film)").def("2").min(1);
  shell->flag("stagger_first_row", "turn the first row (and every other one after it) by half a spacing, to "
                                   "continue the staggering of an adjacent shell").def("false");
  common(*shell);
  root.variant_list("sources", "type",
                    {{"box", box}, {"sphere", sphere}, {"ellipsoid", ellipsoid}, {"mesh", mesh}, {"curve", curve},
                     {"shell", shell}},
                    "Regions filled with particles at start.");
}

namespace {

// Where a rank seeds: the grid's box (lower .. lower + cells dx), its spacing and periodic axes, and
// the half-open box of points this rank keeps.
template <int Dim>
struct SeedFrame {
  double dx = 0;
  std::array<double, Dim> lower{}, upper{}, owned_lower{}, owned_upper{};
  std::array<bool, Dim> periodic{};
};

// One source's seeds on this rank, with what the fill needs.
template <int Dim>
struct Part {
  geometry::Seeds<Dim> seeds;
  int material;
  double spacing, cell_volume;
  std::array<double, Dim> v0, c0;
  double omega;
  int64_t offset;
  std::array<double, Dim> lo, hi;
  bool hydrostatic;
  // Curve sources that carve: the curve through their stations, and the half-width of their band.
  std::vector<std::array<double, 3>> carve_line;
  double carve_radius = 0;
};

// Every source's seeds in frame.owned_lower .. owned_upper, carving applied. `only`, when given,
// names the sources to seed (the others get no seeds, and carve nothing).
template <int Dim>
std::vector<Part<Dim>> seed_parts(const config::Section& root, const SeedFrame<Dim>& frame,
                                  const std::vector<std::string>& material_names, const std::vector<bool>* only) {
  const auto sources = root.list("sources");
  if (sources.empty()) throw InputError(root.file(), "sources", "the deck has no particle sources");
  const double dx = frame.dx;
  const std::array<double, Dim> olo = frame.owned_lower, ohi = frame.owned_upper;
  std::vector<Part<Dim>> parts;
  int64_t offset = 0;
  // Sources given as explicit points (curves, shells): every rank makes the same list and keeps the
  // points in its box; a point's index in the list is its id within the source. lo/hi get the points'
  // bounding box grown by half a spacing (the particles' cells).
  auto owned_samples = [&](const std::vector<std::array<double, 3>>& pts, std::array<double, Dim>& lo,
                           std::array<double, Dim>& hi, double spacing) {
    for (int d = 0; d < Dim; ++d) {
      lo[d] = 1e300;
      hi[d] = -1e300;
    }
    std::vector<size_t> owned;
    for (size_t i = 0; i < pts.size(); ++i) {
      bool in = true;
      for (int d = 0; d < Dim; ++d) {
        lo[d] = std::min(lo[d], pts[i][d]);
        hi[d] = std::max(hi[d], pts[i][d]);
        in = in && pts[i][d] >= olo[d] && pts[i][d] < ohi[d];
      }
      if (in) owned.push_back(i);
    }
    for (int d = 0; d < Dim; ++d) {
      lo[d] -= 0.5 * spacing;
      hi[d] += 0.5 * spacing;
    }
    geometry::Seeds<Dim> seeds;
    seeds.x = Kokkos::View<double**, Kokkos::LayoutRight>("sample_seeds", owned.size(), Dim);
    seeds.lattice_index = Kokkos::View<int64_t*>("sample_seed_index", owned.size());
    auto hx = Kokkos::create_mirror_view(seeds.x);
    auto hi_index = Kokkos::create_mirror_view(seeds.lattice_index);
    for (size_t k = 0; k < owned.size(); ++k) {
      for (int d = 0; d < Dim; ++d) hx(k, d) = pts[owned[k]][d];
      hi_index(k) = static_cast<int64_t>(owned[k]);
    }
    Kokkos::deep_copy(seeds.x, hx);
    Kokkos::deep_copy(seeds.lattice_index, hi_index);
    return seeds;
  };
  for (const auto& s : sources) {
    if (only && !(*only)[parts.size()]) {
      parts.emplace_back();
      continue;
    }
    const std::string type = s.text("type");
    const std::string mat = s.text("material");
    auto it = std::find(material_names.begin(), material_names.end(), mat);
    if (it == material_names.end())
      throw InputError(s.file(), s.key_path("material"), "no material named '" + mat + "' in `materials`");
    double spacing = 0;
    try {
      spacing = geometry::lattice_spacing(dx, static_cast<int>(s.integer("particles_per_cell")), Dim);
    } catch (const std::invalid_argument& e) {
      throw InputError(s.file(), s.key_path("particles_per_cell"), e.what());
    }
    geometry::Shape<Dim> shape;
    std::array<double, Dim> lo{}, hi{};
    auto vec = [&](const std::string& key) {
      std::array<double, Dim> a{};
      auto v = s.vector(key);
      for (int d = 0; d < Dim; ++d) a[d] = v[d];
      return a;
    };
    if (type == "box") {
      lo = vec("lower");
      hi = vec("upper");
      for (int d = 0; d < Dim; ++d)
        if (!(hi[d] > lo[d])) throw InputError(s.file(), s.key_path("upper"), "upper must exceed lower on every axis");
      shape = geometry::box<Dim>(lo, hi);
    } else if (type == "sphere") {
      shape = geometry::sphere<Dim>(vec("center"), s.real("radius"));
    } else if (type == "ellipsoid") {
      auto r = vec("radii");
      for (int d = 0; d < Dim; ++d)
        if (!(r[d] > 0)) throw InputError(s.file(), s.key_path("radii"), "every semi-axis must be positive");
      shape = geometry::ellipsoid<Dim>(vec("center"), r);
    } else if (type == "mesh") {
      if constexpr (Dim != 3) {
        throw InputError(s.file(), s.key_path("type"), "mesh sources need simulation.dimension: 3");
      } else {
        auto mesh = geometry::load_obj(s.text("file"), s.file(), s.key_path("file"));
        auto t = vec("translate");
        geometry::transform(mesh, s.real("scale"), {t[0], t[1], t[2]});
        shape = geometry::sampled<3>(geometry::sdf_from_mesh(mesh, spacing, 2));
      }
    }
    geometry::Seeds<Dim> sample_seeds;
    std::vector<std::array<double, 3>> carve_line;
    double carve_radius = 0;
    int64_t curve_count = 0;
    double cell_volume = std::pow(spacing, Dim);
    if (type == "curve") {
      std::vector<double> control;
      for (const char* key : {"start", "control_1", "control_2", "end"})
        for (double c : s.vector(key)) control.push_back(c);
      try {
        const geometry::Curve c(control, Dim, geometry::Curve::Form::Bezier);
        const auto samples = geometry::sample_curve(c, spacing, s.real("thickness"));
        curve_count = static_cast<int64_t>(samples.x.size());
        if (s.flag("carve")) {
          carve_radius = 0.5 * samples.rows * spacing;
          carve_line.push_back(c.point_at(0));
          for (int i = 0; i < samples.stations; ++i) carve_line.push_back(c.point_at((i + 0.5) * c.length() / samples.stations));
          carve_line.push_back(c.point_at(c.length()));
        }
        cell_volume = samples.volume;
        sample_seeds = owned_samples(samples.x, lo, hi, spacing);
      } catch (const std::invalid_argument& e) {
        throw InputError(s.file(), s.key_path("end"), e.what());
      }
    }
    if (type == "shell") {
      if constexpr (Dim != 3) {
        throw InputError(s.file(), s.key_path("type"), "shell sources need simulation.dimension: 3");
      } else {
        geometry::ShellSpec spec;
        spec.center = vec("center");
        spec.rho0 = s.real("radius_start");
        spec.z0 = s.real("z_start");
        spec.rho1 = s.real("radius_end");
        spec.z1 = s.real("z_end");
        spec.layers = static_cast<int>(s.integer("layers"));
        spec.spacing = spacing;
        spec.shift_first_row = s.flag("stagger_first_row");
        try {
          const auto samples = geometry::sample_shell(spec);
          curve_count = static_cast<int64_t>(samples.x.size());
          sample_seeds = owned_samples(samples.x, lo, hi, spacing);
        } catch (const std::invalid_argument& e) {
          throw InputError(s.file(), s.key_path("layers"), e.what());
        }
      }
    }
    const bool sampled = type == "curve" || type == "shell";
    if (type != "box" && !sampled && !geometry::bounding_box<Dim>(shape, lo, hi))
      throw InputError(s.file(), s.key_path("type"), "source has no bounded extent");
    for (int d = 0; d < Dim; ++d) {
      // Along a periodic axis a source is cut at the box (a cylinder along the axis is an ellipsoid
      // with a long semi-axis there); the lattice then starts at the box face, so it continues
      // seamlessly through the periodic faces when the box length is a multiple of the spacing.
      if (frame.periodic[d]) {
        lo[d] = std::max(lo[d], frame.lower[d]);
        hi[d] = std::min(hi[d], frame.upper[d]);
        if (!(hi[d] > lo[d])) throw InputError(s.file(), s.path(), "source lies outside the domain");
        continue;
      }
      if (lo[d] < frame.lower[d] || hi[d] > frame.upper[d])
        throw InputError(s.file(), s.path(), "source extends outside the domain");
    }
    Part<Dim> p;
    p.seeds = sampled ? sample_seeds : geometry::seed_lattice<Dim>(shape, lo, hi, spacing, olo, ohi);
    p.material = static_cast<int>(it - material_names.begin());
    p.spacing = spacing;
    p.cell_volume = cell_volume;
    p.v0 = vec("velocity");
    p.c0 = vec("rotation_center");
    p.omega = s.real("angular_velocity");
    p.offset = offset;
    p.lo = lo;
    p.hi = hi;
    p.hydrostatic = s.flag("hydrostatic");
    p.carve_line = carve_line;
    p.carve_radius = carve_radius;
    parts.push_back(p);
    int64_t lattice = 1;
    for (int d = 0; d < Dim; ++d) lattice *= static_cast<int64_t>(std::ceil((hi[d] - lo[d]) / spacing - 1e-9));
    offset += sampled ? curve_count : lattice;
  }

  // A carving curve (a wick inside a candle) removes the other, non-curve sources' particles within its
  // band, so that the wick's particles do not sit on top of the wax's. Ids keep their lattice index.
  for (const auto& c : parts) {
    if (c.carve_line.empty()) continue;
    for (auto& q : parts) {
      if (!q.carve_line.empty() || q.seeds.x.extent(0) == 0 || &q == &c) continue;
      auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), q.seeds.x);
      auto hl = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), q.seeds.lattice_index);
      std::vector<size_t> kept;
      for (size_t i = 0; i < hx.extent(0); ++i) {
        double best = 1e300;
        for (size_t k = 1; k < c.carve_line.size(); ++k) {
          double ee = 0, er = 0, rr = 0;
          for (int d = 0; d < Dim; ++d) {
            const double e = c.carve_line[k][d] - c.carve_line[k - 1][d], r = hx(i, d) - c.carve_line[k - 1][d];
            ee += e * e;
            er += e * r;
            rr += r * r;
          }
          const double f = ee > 0 ? std::clamp(er / ee, 0.0, 1.0) : 0.0;
          best = std::min(best, rr - 2 * f * er + f * f * ee);
        }
        if (best >= c.carve_radius * c.carve_radius) kept.push_back(i);
      }
      if (kept.size() == hx.extent(0)) continue;
      geometry::Seeds<Dim> left;
      left.x = Kokkos::View<double**, Kokkos::LayoutRight>("carved_seeds", kept.size(), Dim);
      left.lattice_index = Kokkos::View<int64_t*>("carved_seed_index", kept.size());
      auto lx = Kokkos::create_mirror_view(left.x);
      auto ll = Kokkos::create_mirror_view(left.lattice_index);
      for (size_t k = 0; k < kept.size(); ++k) {
        for (int d = 0; d < Dim; ++d) lx(k, d) = hx(kept[k], d);
        ll(k) = hl(kept[k]);
      }
      Kokkos::deep_copy(left.x, lx);
      Kokkos::deep_copy(left.lattice_index, ll);
      q.seeds = left;
    }
  }
  return parts;
}

}  // namespace

template <int Dim>
SeededParticles seed_sources(const config::Section& root, const grid::Decomposition<Dim>& decomp,
                             const std::vector<std::string>& material_names, bool positions_only) {
  SeedFrame<Dim> frame;
  frame.dx = decomp.dx();
  double owned_lo[Dim], owned_hi[Dim];
  decomp.region(decomp.rank(), owned_lo, owned_hi);
  for (int d = 0; d < Dim; ++d) {
    frame.owned_lower[d] = std::max(owned_lo[d], -1e300);
    frame.owned_upper[d] = std::min(owned_hi[d], 1e300);
  }
  frame.lower = decomp.lower();
  frame.upper = decomp.upper();
  frame.periodic = decomp.periodic();
  auto parts = seed_parts<Dim>(root, frame, material_names, nullptr);

  size_t total = 0;
  for (const auto& p : parts) total += p.seeds.x.extent(0);
  SeededParticles out;
  if (positions_only && parts.size() == 1) {
    // One source: its lattice positions are the result (no copy).
    out.x = parts[0].seeds.x;
    return out;
  }
  const bool all = !positions_only;
  out.x = Kokkos::View<double**, Kokkos::LayoutRight, MemSpace>("seed_x", total, Dim);
  if (all) {
    out.v = Kokkos::View<double**, Kokkos::LayoutRight, MemSpace>("seed_v", total, Dim);
    out.volume = Kokkos::View<double*, MemSpace>("seed_volume", total);
    out.omega = Kokkos::View<double*, MemSpace>("seed_omega", total);
    out.id = IdField("seed_id", total);
    out.material = IntField("seed_material", total);
    out.source = IntField("seed_source", total);
  }
  size_t base = 0;
  int source_index = 0;
  for (auto& p : parts) {
    out.source_lower.emplace_back(p.lo.begin(), p.lo.end());
    out.source_upper.emplace_back(p.hi.begin(), p.hi.end());
    out.hydrostatic.push_back(p.hydrostatic);
    auto src = out.source;
    const int si = source_index++;
    const size_t n = p.seeds.x.extent(0);
    auto sx = p.seeds.x;
    auto sl = p.seeds.lattice_index;
    auto x = out.x, v = out.v;
    auto vol = out.volume, om = out.omega;
    auto id = out.id;
    auto mat = out.material;
    double v0[Dim], c0[Dim];
    for (int d = 0; d < Dim; ++d) {
      v0[d] = p.v0[d];
      c0[d] = p.c0[d];
    }
    const double omega = p.omega, cell = p.cell_volume;
    const int material = p.material;
    const int64_t off = p.offset;
    Kokkos::parallel_for(
        "sources::fill", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int i) {
          const size_t q = base + i;
          for (int d = 0; d < Dim; ++d) x(q, d) = sx(i, d);
          if (!all) return;
          for (int d = 0; d < Dim; ++d) v(q, d) = v0[d];
          // Rigid rotation about z: v += omega e_z x (x - c).
          v(q, 0) += -omega * (sx(i, 1) - c0[1]);
          v(q, 1) += omega * (sx(i, 0) - c0[0]);
          vol(q) = cell;
          om(q) = omega;
          id(q) = off + sl(i);
          mat(q) = material;
          src(q) = si;
        });
    base += n;
    p.seeds = geometry::Seeds<Dim>();  // released as soon as it is copied
  }
  return out;
}

void require_lattice_spacing(const SeededParticles& seeded, int dim, double diameter, const std::string& radius_key,
                             const std::string& file, MPI_Comm comm) {
  const double cell = std::pow(diameter, dim);
  double vmin = 1e300, vmax = 0;
  auto vol = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), seeded.volume);
  for (size_t i = 0; i < vol.extent(0); ++i) {
    vmin = std::min(vmin, vol(i));
    vmax = std::max(vmax, vol(i));
  }
  MPI_Allreduce(MPI_IN_PLACE, &vmin, 1, MPI_DOUBLE, MPI_MIN, comm);
  MPI_Allreduce(MPI_IN_PLACE, &vmax, 1, MPI_DOUBLE, MPI_MAX, comm);
  if (vmax > 0 && (std::fabs(vmin - cell) > 1e-6 * cell || std::fabs(vmax - cell) > 1e-6 * cell))
    throw InputError(file, "sources",
                     log::format("the sources' lattice spacing (cell_size / particles_per_cell^(1/%d)) must equal "
                                 "the particle diameter 2 * %s = %g m",
                                 dim, radius_key.c_str(), diameter));
}

template <int Dim>
std::vector<Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace>> seed_positions_by_source(
    const config::Section& root, const std::vector<std::string>& material_names, const std::vector<bool>& only) {
  const auto spec = grid::read_domain<Dim>(root, 1, 1);
  SeedFrame<Dim> frame;
  frame.dx = spec.dx;
  frame.periodic = spec.periodic;
  for (int d = 0; d < Dim; ++d) {
    // The grid's box as grid::Decomposition makes it (a whole number of cells), all of it owned.
    const double cells = std::max(1.0, std::round((spec.upper[d] - spec.lower[d]) / spec.dx));
    frame.lower[d] = spec.lower[d];
    frame.upper[d] = spec.lower[d] + cells * spec.dx;
    frame.owned_lower[d] = frame.periodic[d] ? frame.lower[d] : -1e300;
    frame.owned_upper[d] = frame.periodic[d] ? frame.upper[d] : 1e300;
  }
  auto parts = seed_parts<Dim>(root, frame, material_names, &only);
  std::vector<Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace>> out;
  for (auto& p : parts) {
    out.push_back(Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.seeds.x));
    p.seeds = geometry::Seeds<Dim>();
  }
  return out;
}

template SeededParticles seed_sources<2>(const config::Section&, const grid::Decomposition<2>&,
                                         const std::vector<std::string>&, bool);
template SeededParticles seed_sources<3>(const config::Section&, const grid::Decomposition<3>&,
                                         const std::vector<std::string>&, bool);

template std::vector<Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace>> seed_positions_by_source<2>(
    const config::Section&, const std::vector<std::string>&, const std::vector<bool>&);
template std::vector<Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace>> seed_positions_by_source<3>(
    const config::Section&, const std::vector<std::string>&, const std::vector<bool>&);

}  // namespace meniscus::particles
