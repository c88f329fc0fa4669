// Analytic shapes: distances at points whose answer is known by hand, normals against finite
// differences of the distance, and the host-side constructors' argument checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include "geometry/shapes.hpp"
#include "test_geometry_support.hpp"

namespace g = meniscus::geometry;
using g::testing::distances_on_device;
using g::testing::normals_on_device;

namespace {

template <int Dim>
std::vector<std::array<double, Dim>> random_points(int n, double lo, double hi, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<std::array<double, Dim>> pts(n);
  for (auto& p : pts)
    for (auto& c : p) c = u(rng);
  return pts;
}

// Normalised central-difference gradient of the distance, the reference for normal().
template <int Dim>
std::array<double, Dim> fd_normal(const g::Shape<Dim>& s, const std::array<double, Dim>& x, double step) {
  std::array<double, Dim> grad{};
  double len = 0;
  for (int d = 0; d < Dim; ++d) {
    auto xp = x, xm = x;
    xp[d] += step;
    xm[d] -= step;
    grad[d] = (s.distance(xp.data()) - s.distance(xm.data())) / (2 * step);
    len += grad[d] * grad[d];
  }
  for (auto& c : grad) c /= std::sqrt(len);
  return grad;
}

template <int Dim>
void expect_normals_match_fd(const g::Shape<Dim>& s, double lo, double hi, unsigned seed) {
  const auto pts = random_points<Dim>(200, lo, hi, seed);
  const auto normals = normals_on_device<Dim>(s, pts);
  for (size_t i = 0; i < pts.size(); ++i) {
    const auto ref = fd_normal<Dim>(s, pts[i], 1e-6);
    double len = 0;
    for (int d = 0; d < Dim; ++d) {
      EXPECT_NEAR(normals[i][d], ref[d], 1e-5) << "point " << i << " axis " << d;
      len += normals[i][d] * normals[i][d];
    }
    EXPECT_NEAR(len, 1.0, 1e-12);
  }
}

}  // namespace

TEST(GeometryShapes, SphereDistanceIsExact) {
  const auto s = g::sphere<3>({1.0, -2.0, 0.5}, 2.0);
  const auto pts = random_points<3>(100, -4.0, 4.0, 1);
  const auto d = distances_on_device<3>(s, pts);
  for (size_t i = 0; i < pts.size(); ++i) {
    const double r = std::sqrt(std::pow(pts[i][0] - 1.0, 2) + std::pow(pts[i][1] + 2.0, 2) + std::pow(pts[i][2] - 0.5, 2));
    EXPECT_NEAR(d[i], r - 2.0, 1e-14);
  }
  const double centre[3] = {1.0, -2.0, 0.5};
  EXPECT_DOUBLE_EQ(s.distance(centre), -2.0);
  const double on[3] = {3.0, -2.0, 0.5};
  EXPECT_DOUBLE_EQ(s.distance(on), 0.0);
}

TEST(GeometryShapes, DiscDistanceIsExact) {
  const auto s = g::sphere<2>({0.5, 0.5}, 0.25);
  const double in[2] = {0.5, 0.6}, out[2] = {0.5 + 0.6, 0.5 + 0.8};
  EXPECT_NEAR(s.distance(in), -0.15, 1e-15);
  EXPECT_NEAR(s.distance(out), 0.75, 1e-15);
  EXPECT_TRUE(s.contains(in));
  EXPECT_FALSE(s.contains(out));
}

TEST(GeometryShapes, BoxDistanceInsideOnFacesEdgesAndCorners) {
  const auto s = g::box<3>({0.0, 0.0, 0.0}, {1.0, 2.0, 3.0});
  auto at = [&](double x, double y, double z) {
    const double p[3] = {x, y, z};
    return s.distance(p);
  };
  EXPECT_DOUBLE_EQ(at(0.5, 1.0, 1.5), -0.5);   // centre: nearest faces are x = 0 and x = 1
  EXPECT_NEAR(at(0.9, 1.0, 1.5), -0.1, 1e-15);
  EXPECT_NEAR(at(0.5, 1.9, 1.5), -0.1, 1e-15);
  EXPECT_DOUBLE_EQ(at(1.0, 1.0, 1.5), 0.0);    // on a face
  EXPECT_DOUBLE_EQ(at(0.0, 0.0, 0.0), 0.0);    // on a corner
  EXPECT_DOUBLE_EQ(at(2.0, 1.0, 1.5), 1.0);    // beyond a face
  EXPECT_DOUBLE_EQ(at(2.0, 3.0, 1.5), std::sqrt(2.0));  // beyond an edge
  EXPECT_DOUBLE_EQ(at(-1.0, -1.0, -1.0), std::sqrt(3.0));  // beyond a corner
  EXPECT_DOUBLE_EQ(at(4.0, 6.0, 15.0), std::sqrt(9.0 + 16.0 + 144.0));

  const auto s2 = g::box<2>({-1.0, 0.0}, {1.0, 4.0});
  const double c[2] = {0.0, 2.0}, corner[2] = {4.0, -4.0}, side[2] = {0.25, 5.0};
  EXPECT_DOUBLE_EQ(s2.distance(c), -1.0);
  EXPECT_DOUBLE_EQ(s2.distance(corner), 5.0);
  EXPECT_DOUBLE_EQ(s2.distance(side), 1.0);
}

TEST(GeometryShapes, HalfSpaceDistanceAndNormal) {
  const auto s = g::half_space<3>({0.0, 0.0, 1.0}, {0.0, 0.0, 2.0});  // normal is normalised
  const double above[3] = {5.0, -3.0, 3.0}, below[3] = {1.0, 1.0, 0.25};
  EXPECT_DOUBLE_EQ(s.distance(above), 2.0);
  EXPECT_DOUBLE_EQ(s.distance(below), -0.75);
  double n[3];
  s.normal(below, n);
  EXPECT_DOUBLE_EQ(n[0], 0.0);
  EXPECT_DOUBLE_EQ(n[1], 0.0);
  EXPECT_DOUBLE_EQ(n[2], 1.0);

  const auto tilted = g::half_space<2>({1.0, 1.0}, {1.0, 1.0});
  const double p[2] = {2.0, 2.0};
  EXPECT_NEAR(tilted.distance(p), std::sqrt(2.0), 1e-15);
}

TEST(GeometryShapes, EllipsoidSignIsExactAndAxisDistancesAreExact) {
  const std::array<double, 3> c{0.5, -1.0, 2.0}, r{3.0, 2.0, 1.0};
  const auto s = g::ellipsoid<3>(c, r);
  const auto pts = random_points<3>(2000, -4.0, 4.0, 7);
  const auto d = distances_on_device<3>(s, pts);
  for (size_t i = 0; i < pts.size(); ++i) {
    double level = 0;
    for (int k = 0; k < 3; ++k) level += std::pow((pts[i][k] - c[k]) / r[k], 2);
    EXPECT_EQ(d[i] < 0, level < 1) << "point " << i;
  }
  // Along a semi-axis the closest surface point is the axis end, so the distance is known exactly.
  const double px[3] = {0.5 + 4.0, -1.0, 2.0}, py[3] = {0.5, -1.0 + 2.5, 2.0}, pz[3] = {0.5, -1.0, 2.0 - 0.5};
  EXPECT_NEAR(s.distance(px), 1.0, 1e-14);
  EXPECT_NEAR(s.distance(py), 0.5, 1e-14);
  EXPECT_NEAR(s.distance(pz), -0.5, 1e-14);
  // Near the surface the approximation is first-order exact.
  const double near_surface[3] = {0.5 + 3.0 * std::cos(0.3) * 1.001, -1.0 + 2.0 * std::sin(0.3) * 1.001, 2.0};
  const double level_gap = 0.001;  // the scaled level set exceeds 1 by this much
  const double grad_x = std::cos(0.3) / 3.0, grad_y = std::sin(0.3) / 2.0;  // |grad (|y/r|)| at the surface
  EXPECT_NEAR(s.distance(near_surface), level_gap / std::hypot(grad_x, grad_y), 1e-5);
  // A circle is an ellipse with equal radii, where the distance must be exact.
  const auto circle = g::ellipsoid<2>({0.0, 0.0}, {1.5, 1.5});
  const double q[2] = {3.0, 4.0};
  EXPECT_NEAR(circle.distance(q), 3.5, 1e-14);
}

TEST(GeometryShapes, NormalsMatchFiniteDifferences) {
  expect_normals_match_fd<3>(g::sphere<3>({0.1, 0.2, 0.3}, 1.0), -2.0, 2.0, 11);
  expect_normals_match_fd<2>(g::sphere<2>({0.1, 0.2}, 1.0), -2.0, 2.0, 12);
  expect_normals_match_fd<3>(g::box<3>({-1.0, -0.5, -0.25}, {1.0, 0.5, 0.25}), -2.0, 2.0, 13);
  expect_normals_match_fd<2>(g::box<2>({-1.0, -0.5}, {1.0, 0.5}), -2.0, 2.0, 14);
  expect_normals_match_fd<3>(g::half_space<3>({0.0, 0.0, 0.0}, {1.0, -2.0, 0.5}), -2.0, 2.0, 15);
  expect_normals_match_fd<3>(g::ellipsoid<3>({0.0, 0.0, 0.0}, {1.5, 1.0, 0.5}), -2.0, 2.0, 16);
  expect_normals_match_fd<2>(g::ellipsoid<2>({0.0, 0.0}, {1.5, 0.5}), -2.0, 2.0, 17);
  expect_normals_match_fd<3>(g::complement<3>(g::box<3>({-1.0, -1.0, -1.0}, {1.0, 1.0, 1.0})), -2.0, 2.0, 18);
}

TEST(GeometryShapes, ComplementSwapsInsideAndOutside) {
  const auto container = g::complement<2>(g::box<2>({0.0, 0.0}, {1.0, 1.0}));
  const double in[2] = {0.5, 0.2}, out[2] = {1.5, 0.5};
  EXPECT_DOUBLE_EQ(container.distance(in), 0.2);  // a particle in the box is 0.2 clear of the wall
  EXPECT_DOUBLE_EQ(container.distance(out), -0.5);
  double n[2];
  container.normal(in, n);  // points into the box, away from the nearest wall (y = 0)
  EXPECT_DOUBLE_EQ(n[0], 0.0);
  EXPECT_DOUBLE_EQ(n[1], 1.0);
}

TEST(GeometryShapes, OutwardNormalsAtKnownPoints) {
  const auto b = g::box<3>({0.0, 0.0, 0.0}, {1.0, 1.0, 1.0});
  const double beyond_edge[3] = {2.0, 2.0, 0.5};
  double n[3];
  b.normal(beyond_edge, n);
  EXPECT_NEAR(n[0], std::sqrt(0.5), 1e-15);
  EXPECT_NEAR(n[1], std::sqrt(0.5), 1e-15);
  EXPECT_NEAR(n[2], 0.0, 1e-15);
  const double inside_near_top[3] = {0.5, 0.5, 0.9};
  b.normal(inside_near_top, n);
  EXPECT_DOUBLE_EQ(n[2], 1.0);

  const auto e = g::ellipsoid<3>({0.0, 0.0, 0.0}, {2.0, 1.0, 1.0});
  const double tip[3] = {2.0, 0.0, 0.0};
  e.normal(tip, n);
  EXPECT_NEAR(n[0], 1.0, 1e-15);
  const double centre[3] = {0.0, 0.0, 0.0};
  e.normal(centre, n);  // undefined there; any unit vector is acceptable
  EXPECT_NEAR(n[0] * n[0] + n[1] * n[1] + n[2] * n[2], 1.0, 1e-15);
}

TEST(GeometryShapes, BoundingBoxes) {
  std::array<double, 3> lo{}, hi{};
  ASSERT_TRUE(g::bounding_box<3>(g::sphere<3>({1.0, 2.0, 3.0}, 0.5), lo, hi));
  EXPECT_DOUBLE_EQ(lo[0], 0.5);
  EXPECT_DOUBLE_EQ(hi[2], 3.5);
  ASSERT_TRUE(g::bounding_box<3>(g::ellipsoid<3>({0.0, 0.0, 0.0}, {1.0, 2.0, 3.0}), lo, hi));
  EXPECT_DOUBLE_EQ(lo[1], -2.0);
  EXPECT_DOUBLE_EQ(hi[2], 3.0);
  EXPECT_FALSE(g::bounding_box<3>(g::half_space<3>({0.0, 0.0, 0.0}, {0.0, 0.0, 1.0}), lo, hi));
  EXPECT_FALSE(g::bounding_box<3>(g::complement<3>(g::sphere<3>({0.0, 0.0, 0.0}, 1.0)), lo, hi));
}

TEST(GeometryShapes, ConstructorsRejectBadArguments) {
  EXPECT_THROW(g::box<2>({0.0, 0.0}, {1.0, 0.0}), std::invalid_argument);
  EXPECT_THROW(g::box<3>({0.0, 0.0, 0.0}, {1.0, 1.0, NAN}), std::invalid_argument);
  EXPECT_THROW(g::sphere<3>({0.0, 0.0, 0.0}, 0.0), std::invalid_argument);
  EXPECT_THROW(g::sphere<2>({0.0, 0.0}, -1.0), std::invalid_argument);
  EXPECT_THROW(g::half_space<3>({0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}), std::invalid_argument);
  EXPECT_THROW(g::ellipsoid<2>({0.0, 0.0}, {1.0, 0.0}), std::invalid_argument);
  EXPECT_THROW(g::sampled<3>(g::SampledSdf<3>{}), std::invalid_argument);
}

TEST(GeometryShapes, SampledFieldInterpolatesAndExtendsBeyondItsLattice) {
  // A disc of radius 1 sampled on [-2, 2]^2: the 2D path of the same interpolation meshes use.
  g::SampledSdf<2> sdf;
  sdf.h = 0.05;
  sdf.origin[0] = sdf.origin[1] = -2.0;
  sdf.count[0] = sdf.count[1] = 81;
  sdf.values = Kokkos::View<double*>("disc", sdf.size());
  auto hv = Kokkos::create_mirror_view(sdf.values);
  for (int j = 0; j < 81; ++j)
    for (int i = 0; i < 81; ++i) hv(i + 81 * j) = std::hypot(-2.0 + i * sdf.h, -2.0 + j * sdf.h) - 1.0;
  Kokkos::deep_copy(sdf.values, hv);
  const auto shape = g::sampled<2>(sdf);

  auto pts = random_points<2>(2000, -3.0, 3.0, 21);
  pts.push_back({5.0, 0.0});
  pts.push_back({-3.0, 4.0});
  const auto d = distances_on_device<2>(shape, pts);
  const auto n = normals_on_device<2>(shape, pts);
  for (size_t i = 0; i < pts.size(); ++i) {
    const double r = std::hypot(pts[i][0], pts[i][1]);
    if (r < 0.2) continue;  // the cone tip at the centre is where interpolation is least accurate
    // Beyond the lattice the nearest-point estimate inherits the gradient's O(h) direction error.
    const bool beyond = std::fabs(pts[i][0]) > 2.0 || std::fabs(pts[i][1]) > 2.0;
    EXPECT_NEAR(d[i], r - 1.0, beyond ? sdf.h : 0.01) << pts[i][0] << " " << pts[i][1];
    EXPECT_GT((n[i][0] * pts[i][0] + n[i][1] * pts[i][1]) / r, 0.99) << pts[i][0] << " " << pts[i][1];
  }
  // On an axis the estimate is exact for a circle; off it, good to about h.
  EXPECT_NEAR(d[d.size() - 2], 4.0, 1e-3);
  EXPECT_NEAR(d[d.size() - 1], 4.0, sdf.h);
}

// Capped cone (the impaled droplet's solid, Xing et al. 2022 Fig. 4): hand-worked distances, the sign
// against the cone's membership test, the exact distance against a brute-force minimum over a dense
// sampling of its surface, normals against finite differences, the bounding box.
TEST(GeometryShapes, ConeDistanceIsExact) {
  // Apex at (0, 0, 1), pointing up (axis down into the solid), half aperture 45 degrees, height 1: the
  // base is the disc of radius 1 at z = 0.
  const auto c = g::cone<3>({0.0, 0.0, 1.0}, {0.0, 0.0, -2.0}, M_PI / 4, 1.0);
  const double above[3] = {0.0, 0.0, 1.5}, axis_in[3] = {0.0, 0.0, 0.5}, below[3] = {0.0, 0.0, -0.25};
  const double beside[3] = {2.0, 0.0, 0.5}, side_out[3] = {0.5 + 0.3 / std::sqrt(2.0), 0.0, 0.5 + 0.3 / std::sqrt(2.0)};
  EXPECT_NEAR(c.distance(above), 0.5, 1e-14);
  EXPECT_NEAR(c.distance(axis_in), -0.5 / std::sqrt(2.0), 1e-14);  // nearer the side than the base (0.5)
  EXPECT_NEAR(c.distance(below), 0.25, 1e-14);
  EXPECT_NEAR(c.distance(beside), std::sqrt(1.25), 1e-14);  // to the rim
  EXPECT_NEAR(c.distance(side_out), 0.3, 1e-14);             // along the side's normal
  double n[3];
  c.normal(side_out, n);
  EXPECT_NEAR(n[0], 1 / std::sqrt(2.0), 1e-12);
  EXPECT_NEAR(n[1], 0.0, 1e-12);
  EXPECT_NEAR(n[2], 1 / std::sqrt(2.0), 1e-12);
  c.normal(below, n);
  EXPECT_NEAR(n[2], -1.0, 1e-12);

  // A tilted, narrower cone (half aperture 30 degrees, height 0.8) against a dense surface sampling.
  const double alpha = M_PI / 6, height = 0.8;
  const std::array<double, 3> apex{0.1, -0.2, 0.3};
  std::array<double, 3> axis{0.3, -0.4, 1.0};
  const auto t = g::cone<3>(apex, axis, alpha, height);
  double len = std::sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
  for (auto& v : axis) v /= len;
  std::array<double, 3> e1{axis[1], -axis[0], 0.0};
  len = std::hypot(e1[0], e1[1]);
  for (auto& v : e1) v /= len;
  const std::array<double, 3> e2{axis[1] * e1[2] - axis[2] * e1[1], axis[2] * e1[0] - axis[0] * e1[2],
                                 axis[0] * e1[1] - axis[1] * e1[0]};
  const double rim = height * std::tan(alpha);
  std::vector<std::array<double, 3>> surface;
  const int nt = 300, nphi = 360;
  for (int i = 0; i <= nt; ++i)
    for (int k = 0; k < nphi; ++k) {
      const double s = static_cast<double>(i) / nt, phi = 2 * M_PI * k / nphi;
      for (int part = 0; part < 2; ++part) {  // side at fraction s of the height; base at radius s R
        const double ax = part == 0 ? s * height : height, rad = s * rim;
        std::array<double, 3> p;
        for (int d = 0; d < 3; ++d)
          p[d] = apex[d] + ax * axis[d] + rad * (std::cos(phi) * e1[d] + std::sin(phi) * e2[d]);
        surface.push_back(p);
      }
    }
  const double sample = 2 * M_PI * rim / nphi;  // coarsest sample spacing (around the rim)
  const auto pts = random_points<3>(150, -1.0, 1.5, 21);
  const auto dist = distances_on_device<3>(t, pts);
  for (size_t i = 0; i < pts.size(); ++i) {
    double best = 1e300;
    for (const auto& q : surface) {
      double r2 = 0;
      for (int d = 0; d < 3; ++d) r2 += (pts[i][d] - q[d]) * (pts[i][d] - q[d]);
      best = std::min(best, r2);
    }
    double ax = 0, rad2 = 0;
    for (int d = 0; d < 3; ++d) ax += (pts[i][d] - apex[d]) * axis[d];
    for (int d = 0; d < 3; ++d) {
      const double y = pts[i][d] - apex[d] - ax * axis[d];
      rad2 += y * y;
    }
    const bool inside = ax > 0 && ax < height && std::sqrt(rad2) < ax * std::tan(alpha);
    EXPECT_EQ(dist[i] < 0, inside) << "point " << i;
    EXPECT_LE(std::fabs(dist[i]), std::sqrt(best) + 1e-12) << "point " << i;  // never beyond the surface
    EXPECT_NEAR(std::fabs(dist[i]), std::sqrt(best), sample) << "point " << i;
  }
  expect_normals_match_fd<3>(t, -1.0, 1.5, 22);
  expect_normals_match_fd<2>(g::cone<2>({0.0, 0.5}, {0.0, -1.0}, M_PI / 3, 0.6), -1.0, 1.0, 23);

  std::array<double, 3> lo{}, hi{};
  ASSERT_TRUE(g::bounding_box<3>(c, lo, hi));
  EXPECT_NEAR(lo[0], -1.0, 1e-14);
  EXPECT_NEAR(hi[1], 1.0, 1e-14);
  EXPECT_NEAR(lo[2], 0.0, 1e-14);
  EXPECT_NEAR(hi[2], 1.0, 1e-14);
  EXPECT_THROW(g::cone<3>({0.0, 0.0, 0.0}, {0.0, 0.0, 1.0}, M_PI / 2, 1.0), std::invalid_argument);
  EXPECT_THROW(g::cone<3>({0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}, 0.5, 1.0), std::invalid_argument);
}
