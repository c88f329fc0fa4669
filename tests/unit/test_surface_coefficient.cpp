// k^sigma per surface sample (methods/mpm/surface_coefficient): liquid-gas by default, solid-liquid
// within delta_SL of a collider (k_SL = -k_LG cos theta, or given), per-material k_LG, and the
// Marangoni law of the parent's scalar with its clamps; the deck keys that set them.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "methods/mpm/surface_coefficient.hpp"
#include "scene.hpp"

using namespace meniscus;

namespace {

constexpr double kDx = 0.1;

// Samples at the given positions (2D), each with its own parent particle 0..n-1.
mpm::SurfaceSamples<2> samples_at(const std::vector<std::array<double, 2>>& at) {
  const int n = static_cast<int>(at.size());
  mpm::SurfaceSamples<2> s;
  s.position = Kokkos::View<double**>("s", n, 2);
  s.area = Kokkos::View<double**>("a", n, 2);
  s.parent = particles::IndexList("p", n);
  auto p = Kokkos::create_mirror_view(s.position);
  auto a = Kokkos::create_mirror_view(s.area);
  auto par = Kokkos::create_mirror_view(s.parent);
  for (int r = 0; r < n; ++r) {
    p(r, 0) = at[r][0];
    p(r, 1) = at[r][1];
    a(r, 0) = 0;
    a(r, 1) = 0.01 * (r + 1);  // |dA| = 0.01 (r + 1)
    par(r) = r;
  }
  Kokkos::deep_copy(s.position, p);
  Kokkos::deep_copy(s.area, a);
  Kokkos::deep_copy(s.parent, par);
  return s;
}

physics::ColliderSet<2> floor_at_zero() {
  physics::ColliderSet<2> set;
  set.items[0].shape = geometry::half_space<2>({0.0, 0.0}, {0.0, 1.0});
  set.count = 1;
  return set;
}

mpm::SurfaceCoefficientInputs<2> inputs(int n, const std::vector<int>& materials = {}, const std::vector<double>& scalars = {}) {
  mpm::SurfaceCoefficientInputs<2> in;
  in.colliders = floor_at_zero();
  in.material = particles::IntField("mat", n);
  auto m = Kokkos::create_mirror_view(in.material);
  for (int i = 0; i < n; ++i) m(i) = materials.empty() ? 0 : materials[i];
  Kokkos::deep_copy(in.material, m);
  if (!scalars.empty()) {
    in.scalar = particles::RealField("c", n, 1);
    auto c = Kokkos::create_mirror_view(in.scalar);
    for (int i = 0; i < n; ++i) c(i, 0) = scalars[i];
    Kokkos::deep_copy(in.scalar, c);
  }
  return in;
}

mpm::SurfaceCoefficientModel basic_model(double k_lg) {
  mpm::SurfaceCoefficientModel m;
  m.liquid_gas = k_lg;
  m.solid_liquid_distance = 0.5 * kDx;
  m.cos_theta[0] = std::cos(M_PI / 4);  // 45 degrees
  return m;
}

template <class V>
auto host(const V& v) {
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
}

}  // namespace

TEST(SurfaceCoefficient, SamplesNearACollidersAreSolidLiquid) {
  // Just inside delta_SL = 0.05 above the floor, just outside it, inside the solid, far away.
  auto s = samples_at({{0.3, 0.049}, {0.3, 0.051}, {0.3, -0.2}, {0.3, 0.7}});
  const auto model = basic_model(2.0);
  mpm::assign_surface_coefficients<2>(s, model, inputs(4));
  auto k = host(s.coefficient);
  auto iface = host(s.interface);
  const double k_sl = -2.0 * std::cos(M_PI / 4);
  EXPECT_DOUBLE_EQ(k(0), k_sl);
  EXPECT_DOUBLE_EQ(k(1), 2.0);
  EXPECT_DOUBLE_EQ(k(2), k_sl);
  EXPECT_DOUBLE_EQ(k(3), 2.0);
  EXPECT_EQ(iface(0), static_cast<uint8_t>(mpm::Interface::SolidLiquid));
  EXPECT_EQ(iface(1), static_cast<uint8_t>(mpm::Interface::LiquidGas));
  EXPECT_EQ(iface(2), static_cast<uint8_t>(mpm::Interface::SolidLiquid));
  EXPECT_EQ(iface(3), static_cast<uint8_t>(mpm::Interface::LiquidGas));
  // Every sample carries its k_LG; wetted ones the floor's normal (0, 1), the others none: a wetted
  // sample pays k_SL for its footprint on the floor and k_LG for the rest (surface_energy.hpp).
  auto klg = host(s.liquid_gas);
  auto nw = host(s.wall_normal);
  for (int r = 0; r < 4; ++r) {
    EXPECT_DOUBLE_EQ(klg(r), 2.0) << r;
    const bool wet = iface(r) == static_cast<uint8_t>(mpm::Interface::SolidLiquid);
    EXPECT_DOUBLE_EQ(nw(r, 0), 0.0) << r;
    EXPECT_DOUBLE_EQ(nw(r, 1), wet ? 1.0 : 0.0) << r;
  }
  // Lengths by interface: |dA| = 0.01, 0.02, 0.03, 0.04.
  const auto measures = mpm::surface_measures<2>(MPI_COMM_SELF, s, model.wetting_ramp());
  EXPECT_NEAR(measures.liquid_gas, 0.06, 1e-15);
  EXPECT_NEAR(measures.solid_liquid, 0.04, 1e-15);
}

TEST(SurfaceCoefficient, AbsoluteSolidLiquidCoefficientAndPerMaterialLiquidGas) {
  auto s = samples_at({{0.3, 0.01}, {0.3, 0.5}, {0.6, 0.5}});
  auto model = basic_model(0.5);
  model.sl_is_absolute[0] = true;
  model.sl_coefficient[0] = 0.125;
  model.material_liquid_gas = Kokkos::View<double*>("k_mat", 2);
  auto km = Kokkos::create_mirror_view(model.material_liquid_gas);
  km(0) = 0.5;   // water
  km(1) = 0.01;  // soap
  Kokkos::deep_copy(model.material_liquid_gas, km);
  mpm::assign_surface_coefficients<2>(s, model, inputs(3, {0, 0, 1}));
  auto k = host(s.coefficient);
  EXPECT_DOUBLE_EQ(k(0), 0.125);
  EXPECT_DOUBLE_EQ(k(1), 0.5);
  EXPECT_DOUBLE_EQ(k(2), 0.01);
}

TEST(SurfaceCoefficient, MarangoniLawOfTheParentScalarWithClamps) {
  // k = 1 + 0.5 (c - 2) clamped to [0.2, 1.5]; the sample near the floor: k_SL = -k_LG(c) cos 45.
  auto s = samples_at({{0.3, 0.5}, {0.4, 0.5}, {0.5, 0.5}, {0.6, 0.5}, {0.7, 0.01}});
  auto model = basic_model(1.0);
  model.marangoni = true;
  model.slope = 0.5;
  model.reference = 2.0;
  model.k_min = 0.2;
  model.k_max = 1.5;
  mpm::assign_surface_coefficients<2>(s, model, inputs(5, {}, {2.0, 3.0, -10.0, 10.0, 2.5}));
  auto k = host(s.coefficient);
  EXPECT_DOUBLE_EQ(k(0), 1.0);
  EXPECT_DOUBLE_EQ(k(1), 1.5);
  EXPECT_DOUBLE_EQ(k(2), 0.2);
  EXPECT_DOUBLE_EQ(k(3), 1.5);
  EXPECT_DOUBLE_EQ(k(4), -1.25 * std::cos(M_PI / 4));
  // The capillary bound over the scalar range [-10, 10]: the largest |k| is the upper clamp.
  mpm::finish_bounds(model, 0, 1, -10.0, 10.0);
  EXPECT_DOUBLE_EQ(model.max_coefficient(), 1.5);
}

namespace {
const char* kDeck = R"(
simulation: {dimension: 2, method: mpm, end_time: 1}
domain: {lower: [0, 0], upper: [1, 1], cell_size: 0.1, walls: none}
mpm:
  surface_tension: {enabled: true, coefficient: 2.0, solid_liquid_distance: 0.25}
materials:
  - {name: water, model: fluid, density: 1, bulk_modulus: 100}
  - {name: soap, model: fluid, density: 1, bulk_modulus: 100, surface_tension: 0.05}
colliders: [{type: half-space, point: [0, 0.2], normal: [0, 1], contact_angle: 0.7853981633974483 rad}]
sources: [{type: sphere, material: water, center: [0.5, 0.5], radius: 0.2}]
)";
}

TEST(SurfaceCoefficient, DeckKeys) {
  auto d = test::deck_from_string(kDeck);
  physics::ColliderSet<2> colliders;
  colliders.count = 1;
  mpm::MaterialTable table = mpm::read_materials(d.deck.root());
  const auto m = mpm::read_surface_coefficients<2>(d.deck.root(), 0.1, table, colliders);
  EXPECT_DOUBLE_EQ(m.liquid_gas, 2.0);
  EXPECT_DOUBLE_EQ(m.solid_liquid_distance, 0.025);
  EXPECT_NEAR(m.cos_theta[0], std::sqrt(0.5), 1e-12) << "45 degrees given in radians";
  EXPECT_FALSE(m.sl_is_absolute[0]);
  auto km = host(m.material_liquid_gas);
  EXPECT_DOUBLE_EQ(km(0), 2.0);
  EXPECT_DOUBLE_EQ(km(1), 0.05);
  EXPECT_FALSE(m.marangoni);
  // Both ways of giving k_SL at once is an input error naming the key.
  auto bad = test::deck_from_string(kDeck, {"colliders[0].solid_liquid_coefficient=1.0"});
  try {
    mpm::read_surface_coefficients<2>(bad.deck.root(), 0.1, table, colliders);
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("colliders[0].solid_liquid_coefficient"), std::string::npos) << e.what();
  }
  // A collider without either is non-wetting: k_SL = k_LG.
  auto plain = test::deck_from_string(kDeck, {"colliders[0]={type: half-space, point: [0, 0.2], normal: [0, 1]}"});
  const auto p = mpm::read_surface_coefficients<2>(plain.deck.root(), 0.1, table, colliders);
  EXPECT_DOUBLE_EQ(p.solid_liquid_at(0, 2.0), 2.0);
}
