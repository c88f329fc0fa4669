#include "methods/pbd/surface_detection.hpp"

#include <math.h>

#include <algorithm>
#include <cmath>

namespace meniscus::pbd {

Kokkos::View<double* [3]> fibonacci_directions(int m) {
  Kokkos::View<double* [3]> dirs("pbd_shading_dirs", m);
  auto h = Kokkos::create_mirror_view(dirs);
  const double golden = M_PI * (3.0 - std::sqrt(5.0));
  for (int k = 0; k < m; ++k) {
    const double z = 1.0 - (2.0 * k + 1.0) / m;
    const double s = std::sqrt(std::max(0.0, 1.0 - z * z));
    h(k, 0) = s * std::cos(golden * k);
    h(k, 1) = s * std::sin(golden * k);
    h(k, 2) = z;
  }
  Kokkos::deep_copy(dirs, h);
  return dirs;
}

namespace {
// C math functions work in host and device code alike (as core/kmath.hpp notes); these three are not
// wrapped there.
KOKKOS_INLINE_FUNCTION double k_asin(double v) { return ::asin(v); }
KOKKOS_INLINE_FUNCTION double k_acos(double v) { return ::acos(v); }
KOKKOS_INLINE_FUNCTION double k_ceil(double v) { return ::ceil(v); }

// Fraction of the bins left lit (weighted by sin theta) for the shadows of row i's neighbours.
KOKKOS_INLINE_FUNCTION double lit_bins(const Kokkos::View<double**, Kokkos::LayoutRight>& x, const Kokkos::View<int*>& off,
                                       const Kokkos::View<int*>& idx, int i, double radius) {
  const double pi = 3.14159265358979323846;
  const double dth = pi / kThetaBins, dph = 2 * pi / kPhiBins;
  bool dark[kThetaBins][kPhiBins];
  for (int a = 0; a < kThetaBins; ++a)
    for (int b = 0; b < kPhiBins; ++b) dark[a][b] = false;
  for (int k = off(i); k < off(i + 1); ++k) {
    const int j = idx(k);
    double e[3], l2 = 0;
    for (int d = 0; d < 3; ++d) {
      e[d] = x(j, d) - x(i, d);
      l2 += e[d] * e[d];
    }
    const double l = kmath::sqrt(l2);
    if (!(l > 0)) continue;
    for (int d = 0; d < 3; ++d) e[d] /= l;
    const double rs = radius < 0.5 * l ? radius : 0.5 * l;
    const double alpha = k_asin(rs / l);
    const double ey = e[1] > 1 ? 1 : (e[1] < -1 ? -1 : e[1]);
    const double th = k_acos(ey);
    const double ph = kmath::atan2(e[2], e[0]);
    int t0 = static_cast<int>(kmath::floor((th - alpha) / dth)), t1 = static_cast<int>(k_ceil((th + alpha) / dth));
    t0 = t0 < 0 ? 0 : t0;
    t1 = t1 > kThetaBins ? kThetaBins : t1;
    const bool over_pole = th - alpha <= 0 || th + alpha >= pi;
    int p0 = 0, p1 = kPhiBins;
    if (!over_pole) {
      const double sa = kmath::sin(alpha) / kmath::sin(th);
      const double half = sa >= 1 ? pi : k_asin(sa);
      p0 = static_cast<int>(kmath::floor((ph - half + pi) / dph));
      p1 = static_cast<int>(k_ceil((ph + half + pi) / dph));
      if (p1 - p0 > kPhiBins) {
        p0 = 0;
        p1 = kPhiBins;
      }
    }
    for (int a = t0; a < t1; ++a)
      for (int b = p0; b < p1; ++b) dark[a][((b % kPhiBins) + kPhiBins) % kPhiBins] = true;
  }
  double lit = 0, all = 0;
  for (int a = 0; a < kThetaBins; ++a) {
    int n = 0;
    for (int b = 0; b < kPhiBins; ++b) n += dark[a][b] ? 0 : 1;
    const double wgt = kmath::sin((a + 0.5) * dth);  // bin area ~ sin(theta)
    all += kPhiBins * wgt;
    lit += n * wgt;
  }
  return lit / all;
}

KOKKOS_INLINE_FUNCTION double lit_cones(const Kokkos::View<double**, Kokkos::LayoutRight>& x, const Kokkos::View<int*>& off,
                                        const Kokkos::View<int*>& idx, int i, double radius,
                                        const Kokkos::View<double* [3]>& dirs) {
  const int m = static_cast<int>(dirs.extent(0));
  int lit = 0;
  for (int u = 0; u < m; ++u) {
    bool blocked = false;
    for (int k = off(i); k < off(i + 1) && !blocked; ++k) {
      const int j = idx(k);
      double e[3], l2 = 0;
      for (int d = 0; d < 3; ++d) {
        e[d] = x(j, d) - x(i, d);
        l2 += e[d] * e[d];
      }
      const double l = kmath::sqrt(l2);
      if (!(l > 0)) continue;
      const double rs = radius < 0.5 * l ? radius : 0.5 * l;
      // u . e_j >= cos(alpha_j) = sqrt(1 - (rs/l)^2)
      const double dot = (dirs(u, 0) * e[0] + dirs(u, 1) * e[1] + dirs(u, 2) * e[2]) / l;
      blocked = dot >= kmath::sqrt(1.0 - rs * rs / l2);
    }
    lit += blocked ? 0 : 1;
  }
  return static_cast<double>(lit) / m;
}
}  // namespace

void shade(const ShadingInputs& in, Kokkos::View<double*> illuminated, Kokkos::View<int*> surface,
           Kokkos::View<int*> isolated) {
  auto x = in.x;
  auto off = in.offset, idx = in.index;
  auto dirs = in.directions;
  const double radius = in.radius, beta = in.threshold, iso2 = in.isolation * in.isolation;
  const bool cones = in.mode == ShadingMode::Cones;
  Kokkos::parallel_for(
      "pbd::shade", Kokkos::RangePolicy<>(0, in.owned), KOKKOS_LAMBDA(const int i) {
        bool alone = true;
        for (int k = off(i); k < off(i + 1) && alone; ++k) {
          const int j = idx(k);
          double r2 = 0;
          for (int d = 0; d < 3; ++d) r2 += (x(j, d) - x(i, d)) * (x(j, d) - x(i, d));
          alone = !(r2 < iso2);
        }
        const double lit = cones ? lit_cones(x, off, idx, i, radius, dirs) : lit_bins(x, off, idx, i, radius);
        illuminated(i) = lit;
        surface(i) = lit >= beta ? 1 : 0;
        isolated(i) = alone ? 1 : 0;
      });
}

void colour_normals(Kokkos::View<double**, Kokkos::LayoutRight> x, Kokkos::View<int*> offset, Kokkos::View<int*> index, int owned,
                    double mass, Kokkos::View<double*> rho, double support, Kokkos::View<double**, Kokkos::LayoutRight> normal,
                    Kokkos::View<int*> has_normal) {
  const kernels::CubicSpline<3> w(support);
  Kokkos::parallel_for(
      "pbd::colour_normals", Kokkos::RangePolicy<>(0, owned), KOKKOS_LAMBDA(const int i) {
        double g[3] = {0, 0, 0};
        for (int k = offset(i); k < offset(i + 1); ++k) {
          const int j = index(k);
          double xij[3], gw[3];
          for (int d = 0; d < 3; ++d) xij[d] = x(i, d) - x(j, d);
          w.gradient(xij, gw);
          const double f = mass / rho(j);
          for (int d = 0; d < 3; ++d) g[d] += f * gw[d];
        }
        const double len = kmath::sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
        const bool ok = len * support >= 1e-3;
        has_normal(i) = ok ? 1 : 0;
        for (int d = 0; d < 3; ++d) normal(i, d) = ok ? -g[d] / len : 0.0;
      });
}

}  // namespace meniscus::pbd
