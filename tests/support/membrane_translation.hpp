#pragma once
// A drop translating at a uniform velocity U in zero gravity is an exact solution of the inviscid
// equations that the Ruan et al. 2021 step (semi-Lagrangian advection, Eq. 32) should keep: the
// set-up and the measures shared by the 2D and 3D membrane validation tests (single rank).
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>

#include "methods/membrane/mac_grid.hpp"

namespace meniscus::test {

// The whole scene moving at velocity u: every grid face (the solves keep the liquid's and clear
// the rest) and every membrane vertex (Polyline or TriangleMembrane).
template <int Dim, class Membrane>
void set_uniform_velocity(membrane::MacGridT<Dim>& grid, Membrane& m, const double* u) {
  auto owned = grid.field().acquire_owned();
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), owned);
  for (size_t q = 0; q < h.extent(0); ++q)
    for (int d = 0; d < Dim; ++d) h(q, membrane::MacDofs<Dim>::u + d) = u[d];
  Kokkos::deep_copy(owned, h);
  grid.field().release_owned(owned);
  grid.field().global_to_local();
  auto v = Kokkos::create_mirror_view(m.v);
  for (size_t i = 0; i < v.extent(0); ++i)
    for (int d = 0; d < Dim; ++d) v(i, d) = u[d];
  Kokkos::deep_copy(m.v, v);
}

template <int Dim>
struct DropMotion {
  double centre[Dim] = {};
  double velocity[Dim] = {};  // mean membrane vertex velocity
  double liquid[Dim] = {};    // mean velocity of the all-fluid faces, per axis
  double face_spread = 0;     // largest |u - U_d| over the all-fluid faces
  double sphericity = 0;      // largest | |x_i - centre| / R - 1 | over the vertices
};

// Centre, mean velocities and roundness of a drop membrane; u the expected uniform velocity.
template <int Dim, class Membrane>
DropMotion<Dim> drop_motion(membrane::MacGridT<Dim>& grid, Membrane& m, const double* u, double r) {
  DropMotion<Dim> out;
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.x);
  auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.v);
  const long n = m.vertices();
  for (long i = 0; i < n; ++i)
    for (int d = 0; d < Dim; ++d) {
      out.centre[d] += x(i, d) / n;
      out.velocity[d] += v(i, d) / n;
    }
  for (long i = 0; i < n; ++i) {
    double dist2 = 0;
    for (int d = 0; d < Dim; ++d) dist2 += (x(i, d) - out.centre[d]) * (x(i, d) - out.centre[d]);
    out.sphericity = std::max(out.sphericity, std::abs(std::sqrt(dist2) / r - 1));
  }
  const membrane::MacGeometryT<Dim> g = grid.geometry();
  auto local = grid.field().acquire_local(false);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), local);
  grid.field().release_local(local);
  double count[Dim] = {};
  for (long q = 0; q < g.owned.size(); ++q) {
    int c[Dim];
    g.owned.node(q, c);
    for (int d = 0; d < Dim; ++d) {
      if (g.face_type(h, d, c) != membrane::kAllFluid) continue;
      const double f = h(g.local(c), membrane::MacDofs<Dim>::u + d);
      out.liquid[d] += f;
      count[d] += 1;
      out.face_spread = std::max(out.face_spread, std::abs(f - u[d]));
    }
  }
  for (int d = 0; d < Dim; ++d) out.liquid[d] /= std::max(count[d], 1.0);
  return out;
}

}  // namespace meniscus::test
