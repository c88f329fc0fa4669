// Marangoni flow (Chen et al. 2021, Sec. 6.10: k^sigma from a particle scalar, the force grad_s k falls out of the
// surface energy): a 2D liquid layer of depth h on a no-slip floor between two side walls, whose
// surface tension rises linearly along x, k = k0 + tau (x - x_mid). The surface is dragged towards
// higher k. In the middle of a long closed layer the steady flow is the lubrication solution with
// shear stress tau at the surface, no slip at the floor and zero net flux (the return flow below):
//   u(z) = tau / (4 mu h) (3 z^2 - 2 h z),  so u(h) = tau h / (4 mu),  u(h/3) = -tau h / (12 mu),
// with the pressure gradient 3 tau / (2 h) held by a slight tilt of the surface under gravity.
// Test: the mean horizontal velocity of the particles in the middle third of the layer, in depth
// bins, against u(z) at the same depths: the top bin within 25 % of the prediction, the bottom
// half flowing back, and the mirrored gradient giving the mirrored flow.
#include <gtest/gtest.h>

#include <cmath>

#include "core/log.hpp"
#include "methods/mpm/mpm_method.hpp"
#include "scene.hpp"
#include "validation_support.hpp"

using namespace meniscus;

namespace {

constexpr double kDx = 1.0 / 64, kFloor = 6 * kDx, kDepth = 8 * kDx, kLeft = 6 * kDx, kLength = 32 * kDx;
constexpr double kViscosity = 0.15, kRho = 1, kK0 = 0.3, kGravity = 100;

struct Profile {
  std::vector<double> z, u;  // bin centre height above the floor, mean u_x
  double top_measured = 0, top_predicted = 0;
};

double lubrication_u(double tau, double z) { return tau / (4 * kViscosity * kDepth) * (3 * z * z - 2 * kDepth * z); }

// tau = dk/dx in N/m^2 (the surface shear stress).
Profile run_layer(double tau, double t_end, const std::string& series) {
  const double x_mid = kLeft + kLength / 2;
  const std::string deck = log::format(R"(
simulation: {dimension: 2, method: mpm, end_time: 100}
domain: {lower: [0, 0], upper: [%.17g, 0.375], cell_size: %.17g, walls: none}
mpm:
  gravity: [0, %g]
  surface_tension:
    enabled: true
    coefficient: %g
    samples_per_dx: 8
    marangoni: {enabled: true, slope: %.17g, reference: %.17g, min_coefficient: 0.01}
materials: [{name: liquid, model: fluid, density: %g, bulk_modulus: 2000, viscosity: %g}]
colliders:
  - {type: half-space, point: [0, %.17g], normal: [0, 1], boundary: sticky, contact_angle: 90}
  - {type: half-space, point: [%.17g, 0], normal: [1, 0], boundary: slip-attached, contact_angle: 90}
  - {type: half-space, point: [%.17g, 0], normal: [-1, 0], boundary: slip-attached, contact_angle: 90}
sources:
  - {type: box, material: liquid, lower: [%.17g, %.17g], upper: [%.17g, %.17g], particles_per_cell: 4,
     hydrostatic: true, surfactant: 0, surfactant_gradient: [1, 0]}
)",
                                       kLeft + kLength + 6 * kDx, kDx, -kGravity, kK0, tau, x_mid, kRho, kViscosity,
                                       kFloor, kLeft, kLeft + kLength, kLeft, kFloor, kLeft + kLength, kFloor + kDepth);
  auto d = test::deck_from_string(deck);
  mpm::MpmMethod<2> m(MethodContext{MPI_COMM_WORLD, d.deck.root(), 2});
  const int nbins = 4;  // two particle layers per bin
  std::vector<double> usum(nbins, 0), zsum(nbins, 0), cnt(nbins, 0);
  double t = 0;
  const double t_avg = 0.6 * t_end;
  int calls = 0;
  while (t < t_end * (1 - 1e-12)) {
    const double dt = std::min(m.stable_dt(), t_end - t);
    m.step(dt);
    t += dt;
    if (t < t_avg || ++calls % 10) continue;
    auto& set = m.particles();
    auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().x));
    auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(m.fields().v));
    for (size_t p = 0; p < set.size(); ++p) {
      if (std::fabs(x(p, 0) - x_mid) > kLength / 6) continue;
      const double z = x(p, 1) - kFloor;
      const int b = static_cast<int>(z / kDepth * nbins);
      if (b < 0 || b >= nbins) continue;
      usum[b] += v(p, 0);
      zsum[b] += z;
      cnt[b] += 1;
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, usum.data(), nbins, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, zsum.data(), nbins, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, cnt.data(), nbins, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  Profile out;
  test::SeriesCsv csv(series, "height_m,u_measured_m_s,u_lubrication_m_s");
  for (int b = 0; b < nbins; ++b) {
    if (cnt[b] == 0) continue;
    out.z.push_back(zsum[b] / cnt[b]);
    out.u.push_back(usum[b] / cnt[b]);
    csv.row(out.z.back(), out.u.back(), lubrication_u(tau, out.z.back()));
  }
  out.top_measured = out.u.back();
  out.top_predicted = lubrication_u(tau, out.z.back());
  return out;
}

}  // namespace

TEST(MarangoniValidation, LayerSurfaceFlow2D) {
  const double tau = 0.24;  // N/m^2: k from 0.24 to 0.36 N/m over the layer; u(h) = 0.05 m/s
  const double t_end = 0.5;  // viscous time 4 h^2 / (pi^2 nu) = 0.04 s; surface tilt 0.06 s
  const auto up = run_layer(tau, t_end, "marangoni_layer");
  const auto down = run_layer(-tau, t_end, "marangoni_layer_mirrored");
  const double us = tau * kDepth / (4 * kViscosity);
  for (size_t b = 0; b < up.z.size(); ++b)
    test::print_rank0("z = %.4f m: u = %+.4f m/s (mirrored %+.4f), lubrication %+.4f m/s", up.z[b], up.u[b], down.u[b],
                      lubrication_u(tau, up.z[b]));
  const double ratio = up.top_measured / up.top_predicted;
  test::print_rank0("surface u(h) = tau h / (4 mu) = %.4f m/s; top bin measured %.4f, predicted at its depth %.4f "
                    "(ratio %.3f)", us, up.top_measured, up.top_predicted, ratio);
  EXPECT_GT(up.top_measured, 0) << "the surface flows towards higher k";
  EXPECT_NEAR(ratio, 1.0, 0.25) << "Marangoni velocity against the lubrication balance";
  EXPECT_LT(up.u.front(), 0) << "the return flow near the floor";
  EXPECT_NEAR(down.top_measured, -up.top_measured, 0.1 * std::fabs(up.top_measured)) << "mirrored gradient";
  test::record_check("marangoni_layer",
                     log::format("layer with dk/dx = %.2f N/m^2, depth %.3f m, mu = %.2f Pa s: u(z) = tau/(4 mu h)(3z^2 - "
                                 "2hz), u(h) = %.4f m/s",
                                 tau, kDepth, kViscosity, us),
                     "25 % (top bin), sign of the return flow, mirrored run within 10 %",
                     log::format("top bin %.4f m/s vs %.4f (ratio %.2f); mirrored %.4f", up.top_measured, up.top_predicted,
                                 ratio, down.top_measured),
                     std::fabs(ratio - 1) <= 0.25 && up.u.front() < 0);
}
