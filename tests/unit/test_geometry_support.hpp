#pragma once
// Helpers shared by the geometry tests. Kernels are launched from free functions, never from a test
// body: gtest's TestBody is private, and device lambdas may not live in private member functions.
#include <Kokkos_Core.hpp>

#include <array>
#include <vector>

#include "geometry/shapes.hpp"

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

}  // namespace meniscus::geometry::testing
