#include "methods/mpm/surface_coefficient.hpp"

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "core/reproducible_sum.hpp"

namespace meniscus::mpm {

template <int Dim>
SurfaceCoefficientModel read_surface_coefficients(const config::Section& root, double dx, const MaterialTable& table,
                                                  const physics::ColliderSet<Dim>& colliders) {
  SurfaceCoefficientModel m;
  const auto st = root.section("mpm").section("surface_tension");
  m.liquid_gas = st.real("coefficient");
  m.solid_liquid_distance = st.real("solid_liquid_distance") * dx;
  m.wetting_width = st.real("wetting_width") * dx;

  // Per-material k_LG (soap on water: the parent's material decides, Chen et al. 2021, Sec. 6.7).
  const auto mats = root.list("materials");
  m.material_liquid_gas = Kokkos::View<double*>("material_liquid_gas", mats.size());
  auto h = Kokkos::create_mirror_view(m.material_liquid_gas);
  for (size_t i = 0; i < mats.size(); ++i) h(i) = mats[i].has("surface_tension") ? mats[i].real("surface_tension") : m.liquid_gas;
  Kokkos::deep_copy(m.material_liquid_gas, h);

  // Wetting of each collider, in the order read_colliders() builds them: the box faces first (when
  // domain.walls is not none), then the `colliders` list.
  constexpr double kDegree = M_PI / 180.0;
  const bool walls = root.section("domain").text("walls") != "none";
  const int nwalls = walls ? 2 * Dim : 0;
  const auto list = root.list("colliders");
  if (nwalls + static_cast<int>(list.size()) != colliders.count)
    throw InputError(root.file(), "colliders", "internal: collider count differs from the deck's");  // never for a valid deck
  for (int c = 0; c < nwalls; ++c) m.cos_theta[c] = std::cos(st.real("wall_contact_angle") * kDegree);
  for (size_t i = 0; i < list.size(); ++i) {
    const int c = nwalls + static_cast<int>(i);
    const auto& s = list[i];
    const bool angle = s.has("contact_angle"), absolute = s.has("solid_liquid_coefficient");
    if (angle && absolute)
      throw InputError(s.file(), s.key_path("solid_liquid_coefficient"),
                       "give either contact_angle or solid_liquid_coefficient, not both");
    m.cos_theta[c] = angle ? std::cos(s.real("contact_angle") * kDegree) : -1.0;  // default: 180 deg
    m.sl_is_absolute[c] = absolute;
    m.sl_coefficient[c] = absolute ? s.real("solid_liquid_coefficient") : 0.0;
  }

  const auto ma = st.section("marangoni");
  m.marangoni = ma.flag("enabled");
  if (m.marangoni) {
    m.temperature = ma.text("scalar") == "temperature";
    if (m.temperature && !root.section("mpm").section("heat").flag("enabled"))
      throw InputError(ma.file(), ma.key_path("scalar"), "a temperature-dependent k needs mpm.heat.enabled");
    m.slope = ma.real("slope");
    m.reference = ma.real("reference");
    m.k_min = ma.real("min_coefficient");
    m.k_max = ma.has("max_coefficient") ? ma.real("max_coefficient") : std::numeric_limits<double>::infinity();
    if (m.k_max < m.k_min)
      throw InputError(ma.file(), ma.key_path("max_coefficient"), "must not be below min_coefficient");
  }
  finish_bounds(m, static_cast<int>(mats.size()), colliders.count, m.reference, m.reference);
  return m;
}

void finish_bounds(SurfaceCoefficientModel& m, int materials, int colliders, double c_min, double c_max) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.material_liquid_gas);
  double kmax = 0;
  auto law = [&](double k0, double c) {
    if (!m.marangoni) return k0;
    const double k = k0 + m.slope * (c - m.reference);
    return std::min(std::max(k, m.k_min), m.k_max);
  };
  // The law is monotone in c, so its extremes lie at the ends of the scalar's range.
  for (int i = 0; i < std::max(materials, 1); ++i)
    for (double c : {c_min, c_max}) kmax = std::max(kmax, std::fabs(law(materials > 0 ? h(i) : m.liquid_gas, c)));
  double bound = kmax;
  for (int c = 0; c < colliders; ++c)
    bound = std::max(bound, m.sl_is_absolute[c] ? std::fabs(m.sl_coefficient[c]) : kmax * std::fabs(m.cos_theta[c]));
  m.bound = bound;
}

template <int Dim>
void assign_surface_coefficients(SurfaceSamples<Dim>& samples, const SurfaceCoefficientModel& model,
                                 const SurfaceCoefficientInputs<Dim>& in) {
  const int n = static_cast<int>(samples.size());
  samples.coefficient = Kokkos::View<double*>("surface_coefficient", n);
  samples.interface = Kokkos::View<uint8_t*>("surface_interface", n);
  samples.liquid_gas = Kokkos::View<double*>("surface_liquid_gas", n);
  samples.wall_normal = Kokkos::View<double**, Kokkos::LayoutRight>("surface_wall_normal", n, Dim);
  samples.wall_distance = Kokkos::View<double*>("surface_wall_distance", n);
  auto wphi = samples.wall_distance;
  auto k = samples.coefficient;
  auto iface = samples.interface;
  auto klg = samples.liquid_gas;
  auto wall = samples.wall_normal;
  auto s = samples.position;
  auto parent = samples.parent;
  auto material = in.material;
  auto scalar = in.scalar;
  const bool has_scalar = model.marangoni && scalar.extent(0) > 0;
  const auto colliders = in.colliders;
  const auto mdl = model;
  Kokkos::parallel_for(
      "surface::assign_coefficient", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int r) {
        const int p = parent(r);
        const double k_lg = mdl.liquid_gas_at(material(p), has_scalar ? scalar(p, 0) : mdl.reference);
        // The nearest collider within reach of the wetting ramp (up to delta_SL + b/2) gives the sample
        // its k_SL, weighted by w(phi) where the energy is summed; it counts as solid-liquid (diagnostics,
        // output) within delta_SL.
        double q[Dim];
        for (int d = 0; d < Dim; ++d) q[d] = s(r, d);
        int wet = -1;
        const double reach = mdl.wetting_ramp().upper;
        double best = reach;
        for (int c = 0; c < colliders.count; ++c) {
          const double phi = colliders.items[c].distance(q);
          if (phi <= best) {
            best = phi;
            wet = c;
          }
        }
        // A slip-attached collider holds the liquid by its velocity condition (no separation) and keeps
        // the sharp cut at delta_SL: within it, a distance far inside the ramp's flat end (w = 1, no pull).
        const bool sharp = wet >= 0 && colliders.items[wet].type == physics::BoundaryType::SlipAttached;
        if (sharp && best > mdl.solid_liquid_distance) wet = -1;
        wphi(r) = wet < 0 ? 0.0 : (sharp ? -1e300 : best);
        k(r) = wet >= 0 ? mdl.solid_liquid_at(wet, k_lg) : k_lg;
        klg(r) = k_lg;
        iface(r) = static_cast<uint8_t>(wet >= 0 && best <= mdl.solid_liquid_distance ? Interface::SolidLiquid
                                                                                       : Interface::LiquidGas);
        double n[Dim] = {};
        if (wet >= 0) {
          const auto& c = colliders.items[wet];
          double xs[Dim];
          for (int d = 0; d < Dim; ++d) xs[d] = q[d] - c.offset[d];
          c.shape.normal(xs, n);
        }
        for (int d = 0; d < Dim; ++d) wall(r, d) = n[d];
      });
}

namespace {
// Each sample's terms of surface_measures: liquid-gas |dA|, solid-liquid |dA|, energy.
template <int Dim>
struct SampleMeasureTerms {
  static constexpr int count = 3;
  Kokkos::View<double**, Kokkos::LayoutRight> area, wall;
  Kokkos::View<uint8_t*> iface;
  Kokkos::View<double*> k, klg, wphi;
  WettingRamp ramp;
  KOKKOS_INLINE_FUNCTION void operator()(const long r, double* t) const {
    double a2 = 0, h = 0;
    for (int d = 0; d < Dim; ++d) {
      a2 += area(r, d) * area(r, d);
      h -= area(r, d) * wall(r, d);
    }
    const double a = kmath::sqrt(a2);
    const bool solid = iface(r) == static_cast<uint8_t>(Interface::SolidLiquid);
    t[0] = solid ? 0.0 : a;
    t[1] = solid ? a : 0.0;
    const double wet = k(r) - klg(r);
    t[2] = klg(r) * a + (wet != 0 ? wet * ramp.weight(wphi(r)) * (h > 0 ? h : 0.0) : 0.0);
  }
};
}  // namespace

template <int Dim>
SurfaceMeasures surface_measures(MPI_Comm comm, const SurfaceSamples<Dim>& samples, const WettingRamp& ramp) {
  SurfaceMeasures m;
  m.contour = contour_measure<Dim>(comm, samples);
  SampleMeasureTerms<Dim> terms{samples.area,       samples.wall_normal, samples.interface, samples.coefficient,
                                samples.liquid_gas, samples.wall_distance, ramp};
  double t[3];
  reproducible_sum(comm, static_cast<long>(samples.size()), terms, t, "surface::sample_measures");
  m.liquid_gas = t[0];
  m.solid_liquid = t[1];
  m.energy = t[2];
  return m;
}

template <int Dim>
void seed_surface_scalar(const config::Section& root, const particles::SeededParticles& seeded,
                         particles::RealField scalar, MPI_Comm comm, double& c_min, double& c_max) {
  const auto sources = root.list("sources");
  const int ns = static_cast<int>(sources.size());
  Kokkos::View<double* [Dim + 1]> law("surfactant_law", ns);  // value at the origin, gradient
  auto h = Kokkos::create_mirror_view(law);
  for (int i = 0; i < ns; ++i) {
    h(i, 0) = sources[i].real("surfactant");
    const auto g = sources[i].vector("surfactant_gradient");
    for (int d = 0; d < Dim; ++d) h(i, 1 + d) = g[d];
  }
  Kokkos::deep_copy(law, h);
  auto x = seeded.x;
  auto src = seeded.source;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  Kokkos::parallel_reduce(
      "mpm::seed_surfactant", Kokkos::RangePolicy<>(0, x.extent(0)),
      KOKKOS_LAMBDA(const int p, double& mn, double& mx) {
        double c = law(src(p), 0);
        for (int d = 0; d < Dim; ++d) c += law(src(p), 1 + d) * x(p, d);
        scalar(p, 0) = c;
        mn = c < mn ? c : mn;
        mx = c > mx ? c : mx;
      },
      Kokkos::Min<double>(lo), Kokkos::Max<double>(hi));
  MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_DOUBLE, MPI_MIN, comm);
  MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_DOUBLE, MPI_MAX, comm);
  c_min = lo;
  c_max = hi;
}

template SurfaceCoefficientModel read_surface_coefficients<2>(const config::Section&, double, const MaterialTable&,
                                                               const physics::ColliderSet<2>&);
template SurfaceCoefficientModel read_surface_coefficients<3>(const config::Section&, double, const MaterialTable&,
                                                               const physics::ColliderSet<3>&);
template void assign_surface_coefficients<2>(SurfaceSamples<2>&, const SurfaceCoefficientModel&,
                                             const SurfaceCoefficientInputs<2>&);
template void assign_surface_coefficients<3>(SurfaceSamples<3>&, const SurfaceCoefficientModel&,
                                             const SurfaceCoefficientInputs<3>&);
template SurfaceMeasures surface_measures<2>(MPI_Comm, const SurfaceSamples<2>&, const WettingRamp&);
template SurfaceMeasures surface_measures<3>(MPI_Comm, const SurfaceSamples<3>&, const WettingRamp&);
template void seed_surface_scalar<2>(const config::Section&, const particles::SeededParticles&, particles::RealField,
                                     MPI_Comm, double&, double&);
template void seed_surface_scalar<3>(const config::Section&, const particles::SeededParticles&, particles::RealField,
                                     MPI_Comm, double&, double&);

}  // namespace meniscus::mpm
