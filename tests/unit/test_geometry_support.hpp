#pragma once
// Helpers shared by the geometry tests. Kernels are launched from free functions, never from a test
// body: gtest's TestBody is private, and device lambdas may not live in private member functions.
#include <Kokkos_Core.hpp>

#include <array>
#include <cmath>
#include <vector>

#include "geometry/shapes.hpp"
#include "geometry/triangle_mesh.hpp"

namespace meniscus::geometry::testing {

// Distances of `shape` at `points`, evaluated in a kernel as the solvers do.
template <int Dim>
std::vector<double> distances_on_device(const Shape<Dim>& shape, const std::vector<std::array<double, Dim>>& points) {
  const int64_t n = static_cast<int64_t>(points.size());
  Kokkos::View<double**> x("x", n, Dim);
  Kokkos::View<double*> d("d", n);
  auto hx = Kokkos::create_mirror_view(x);
  for (int64_t i = 0; i < n; ++i)
    for (int k = 0; k < Dim; ++k) hx(i, k) = points[i][k];
  Kokkos::deep_copy(x, hx);
  Kokkos::parallel_for(
      "test_distances", Kokkos::RangePolicy<Kokkos::IndexType<int64_t>>(0, n), KOKKOS_LAMBDA(const int64_t i) {
        double p[Dim];
        for (int k = 0; k < Dim; ++k) p[k] = x(i, k);
        d(i) = shape.distance(p);
      });
  auto hd = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d);
  return std::vector<double>(hd.data(), hd.data() + n);
}

// Normals of `shape` at `points`, evaluated in a kernel.
template <int Dim>
std::vector<std::array<double, Dim>> normals_on_device(const Shape<Dim>& shape,
                                                       const std::vector<std::array<double, Dim>>& points) {
  const int64_t n = static_cast<int64_t>(points.size());
  Kokkos::View<double**> x("x", n, Dim), nrm("n", n, Dim);
  auto hx = Kokkos::create_mirror_view(x);
  for (int64_t i = 0; i < n; ++i)
    for (int k = 0; k < Dim; ++k) hx(i, k) = points[i][k];
  Kokkos::deep_copy(x, hx);
  Kokkos::parallel_for(
      "test_normals", Kokkos::RangePolicy<Kokkos::IndexType<int64_t>>(0, n), KOKKOS_LAMBDA(const int64_t i) {
        double p[Dim], g[Dim];
        for (int k = 0; k < Dim; ++k) p[k] = x(i, k);
        shape.normal(p, g);
        for (int k = 0; k < Dim; ++k) nrm(i, k) = g[k];
      });
  auto hn = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), nrm);
  std::vector<std::array<double, Dim>> out(n);
  for (int64_t i = 0; i < n; ++i)
    for (int k = 0; k < Dim; ++k) out[i][k] = hn(i, k);
  return out;
}

// UV sphere: two poles and bands - 1 latitude circles of `segments` vertices (fans of thin
// triangles at the poles).
inline TriangleMesh uv_sphere(double radius, int bands, int segments) {
  TriangleMesh m;
  m.vertices.push_back({0.0, 0.0, radius});
  for (int i = 1; i < bands; ++i)
    for (int j = 0; j < segments; ++j) {
      const double th = M_PI * i / bands, ph = 2 * M_PI * j / segments;
      m.vertices.push_back({radius * std::sin(th) * std::cos(ph), radius * std::sin(th) * std::sin(ph), radius * std::cos(th)});
    }
  m.vertices.push_back({0.0, 0.0, -radius});
  const int south = static_cast<int>(m.vertices.size()) - 1;
  auto v = [&](int i, int j) { return i == 0 ? 0 : (i == bands ? south : 1 + (i - 1) * segments + j % segments); };
  for (int i = 0; i < bands; ++i)
    for (int j = 0; j < segments; ++j) {
      const int a = v(i, j), b = v(i + 1, j), c = v(i + 1, j + 1), d = v(i, j + 1);
      if (i != bands - 1) m.triangles.push_back({a, b, c});
      if (i != 0) m.triangles.push_back({a, c, d});
    }
  if (signed_volume(m) < 0) flip(m);
  return m;
}

}  // namespace meniscus::geometry::testing
