#pragma once
// Helpers shared by the 3D membrane tests: host copies of vertex fields and an open test sheet.
// Kernels are launched from free functions, never from a test body.
#include <Kokkos_Core.hpp>

#include <array>
#include <vector>

#include "methods/membrane/membrane_flow_3d.hpp"
#include "methods/membrane/triangle_membrane.hpp"

namespace meniscus::membrane::testing {

using Host3 = std::vector<std::array<double, 3>>;

// An open sheet z = height(x, y) over the unit square, n x n quads, each split into two triangles
// counter-clockwise seen from above (the air side).
template <class F>
geometry::TriangleMesh sheet(int n, const F& height) {
  const double lo[2] = {0, 0}, hi[2] = {1, 1};
  geometry::TriangleMesh mesh = flat_sheet(lo, hi, 0.0, n);
  for (auto& v : mesh.vertices) v[2] = height(v[0], v[1]);
  return mesh;
}

inline Host3 to_host(const Vec3Array& a) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
  Host3 out(a.extent(0));
  for (size_t i = 0; i < out.size(); ++i) out[i] = {h(i, 0), h(i, 1), h(i, 2)};
  return out;
}

inline void from_host(const Host3& in, const Vec3Array& a) {
  auto h = Kokkos::create_mirror_view(a);
  for (size_t i = 0; i < in.size(); ++i)
    for (int d = 0; d < 3; ++d) h(i, d) = in[i][d];
  Kokkos::deep_copy(a, h);
}

}  // namespace meniscus::membrane::testing
