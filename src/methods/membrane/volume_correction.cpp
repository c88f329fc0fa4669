#include "methods/membrane/volume_correction.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "core/kmath.hpp"
#include "core/reproducible_sum.hpp"

namespace meniscus::membrane {

void area_gradient(const Polyline& m, bool closed, double ybase, const VertexArray& grad) {
  Kokkos::deep_copy(grad, 0.0);
  auto x = m.x;
  auto seg = m.seg;
  Kokkos::parallel_for(
      "membrane_area_gradient", m.segments(), KOKKOS_LAMBDA(const long e) {
        const int i = seg(e, 0), j = seg(e, 1);
        if (closed) {
          // A_e = (x_i y_j - x_j y_i) / 2
          Kokkos::atomic_add(&grad(i, 0), 0.5 * x(j, 1));
          Kokkos::atomic_add(&grad(i, 1), -0.5 * x(j, 0));
          Kokkos::atomic_add(&grad(j, 0), -0.5 * x(i, 1));
          Kokkos::atomic_add(&grad(j, 1), 0.5 * x(i, 0));
        } else {
          // A_e = (x_j - x_i)(y_i + y_j - 2 ybase) / 2
          const double h = 0.5 * (x(i, 1) + x(j, 1) - 2 * ybase), w = 0.5 * (x(j, 0) - x(i, 0));
          Kokkos::atomic_add(&grad(i, 0), -h);
          Kokkos::atomic_add(&grad(j, 0), h);
          Kokkos::atomic_add(&grad(i, 1), w);
          Kokkos::atomic_add(&grad(j, 1), w);
        }
      });
}

double preserve_enclosed_area(const Polyline& m, bool closed, double ybase, double dt, double target,
                              const VertexArray& vdag) {
  const long n = m.vertices();
  auto x = m.x;
  auto seg = m.seg;
  auto kind = m.kind;
  // Direction d_i = N_i(x^n) / l_i on free components, l_i the half lengths of the incident segments.
  VertexArray dir("membrane_area_direction", n, 2);
  area_gradient(m, closed, ybase, dir);
  Kokkos::View<double*, MemSpace> dual("membrane_dual_length", n);
  Kokkos::parallel_for(
      "membrane_dual_length", m.segments(), KOKKOS_LAMBDA(const long e) {
        const int i = seg(e, 0), j = seg(e, 1);
        const double half = 0.5 * kmath::sqrt((x(j, 0) - x(i, 0)) * (x(j, 0) - x(i, 0)) +
                                              (x(j, 1) - x(i, 1)) * (x(j, 1) - x(i, 1)));
        Kokkos::atomic_add(&dual(i), half);
        Kokkos::atomic_add(&dual(j), half);
      });
  // Predicted positions y = x + dt vdag and the scaled direction e = dt d.
  VertexArray y("membrane_predicted", n, 2), e("membrane_step_direction", n, 2);
  Kokkos::parallel_for(
      "membrane_predict", n, KOKKOS_LAMBDA(const long i) {
        for (int d = 0; d < 2; ++d) {
          const bool fixed = (kind(i) == kWallX && d == 0) || (kind(i) == kWallY && d == 1) || kind(i) == kContact;
          const double di = fixed || dual(i) <= 0 ? 0.0 : dir(i, d) / dual(i);
          dir(i, d) = di;
          y(i, d) = x(i, d) + dt * vdag(i, d);
          e(i, d) = dt * di;
        }
      });
  // A(y + mu e) = A(y) + mu N(y).e + mu^2 A(e): the area is quadratic in the positions, and the
  // quadratic part of the open form is the area of e above the line y = 0.
  const Polyline py{y, vdag, seg, kind}, pe{e, vdag, seg, kind};
  VertexArray ny("membrane_area_gradient_predicted", n, 2);
  area_gradient(py, closed, ybase, ny);
  double f1 = 0;
  Kokkos::parallel_reduce(
      "membrane_area_rate", n,
      KOKKOS_LAMBDA(const long i, double& acc) { acc += ny(i, 0) * e(i, 0) + ny(i, 1) * e(i, 1); }, f1);
  const double f0 = enclosed_area(py, closed, ybase) - target;
  const double f2 = enclosed_area(pe, closed, 0.0);
  if (f1 == 0) return 0.0;
  // Root of f0 + f1 mu + f2 mu^2 nearest zero, in the cancellation-free form.
  const double disc = f1 * f1 - 4 * f0 * f2;
  const double mu = disc >= 0 ? -2 * f0 / (f1 + std::copysign(std::sqrt(disc), f1)) : -f0 / f1;
  Kokkos::parallel_for(
      "membrane_area_correction", n, KOKKOS_LAMBDA(const long i) {
        vdag(i, 0) += mu * dir(i, 0);
        vdag(i, 1) += mu * dir(i, 1);
      });
  return mu;
}


namespace {

// Host copy of an n x 3 field as 3 per vertex.
std::vector<double> host3(const Vec3Array& a) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
  return std::vector<double>(h.data(), h.data() + 3 * h.extent(0));
}

// The exact-order sum of a host vector's entries over every rank (reproducible_sum.hpp).
double reproducible_total(const std::vector<double>& terms, MPI_Comm comm) {
  Kokkos::View<double*> view("membrane3_volume_terms", terms.size());
  Kokkos::deep_copy(view, Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(terms.data(), terms.size()));
  double sum = 0;
  reproducible_sum(comm, static_cast<long>(terms.size()), ViewTerms{view}, &sum, "membrane3_volume_sum");
  return sum;
}

void corners(const std::vector<double>& x, const int* t, double p[3][3]) {
  for (int a = 0; a < 3; ++a)
    for (int d = 0; d < 3; ++d) p[a][d] = x[3 * t[a] + d];
}

double volume_of(const std::vector<double>& x, const std::vector<int>& tri, long owned_triangles, bool closed,
                 double zbase, MPI_Comm comm) {
  std::vector<double> terms(owned_triangles);
  for (long t = 0; t < owned_triangles; ++t) {
    double p[3][3];
    corners(x, &tri[3 * t], p);
    terms[t] = triangle_volume(p, closed, zbase);
  }
  return reproducible_total(terms, comm);
}

}  // namespace

double reproducible_enclosed_volume(const TriangleMembrane& m, bool closed, double zbase, MPI_Comm comm) {
  auto ht = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.tri);
  const std::vector<int> tri(ht.data(), ht.data() + 3 * ht.extent(0));
  return volume_of(host3(m.x), tri, m.owned_triangles, closed, zbase, comm);
}

double advect_preserving_volume(TriangleMembrane& m, const MembraneHalo& halo, const std::vector<double>& v,
                                const std::vector<int>& held, double dt, int iterations, bool closed, double zbase,
                                double target, MPI_Comm comm) {
  const long owned = m.owned_vertices;
  std::vector<double> x = host3(m.x);
  auto refresh = [&] {
    auto hx = Kokkos::create_mirror_view(m.x);
    std::copy(x.begin(), x.end(), hx.data());
    Kokkos::deep_copy(m.x, hx);
    update_ghosts(halo, m.x, comm);
    x = host3(m.x);
  };
  for (long q = 0; q < 3 * owned; ++q) x[q] += dt * v[q];
  refresh();
  auto ht = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.tri);
  const std::vector<int> tri(ht.data(), ht.data() + 3 * ht.extent(0));
  double volume = volume_of(x, tri, m.owned_triangles, closed, zbase, comm);
  if (iterations <= 0) return volume;
  // Each owned vertex's one ring (corner a of triangle t), in the order of the triangles' global
  // vertex ids: the same order whatever the local numbering.
  auto hg = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.gid);
  std::vector<std::array<long, 5>> ring;  // vertex, global ids of the triangle's corners, (t, a)
  for (long t = 0; t < m.triangles(); ++t)
    for (int a = 0; a < 3; ++a)
      if (tri[3 * t + a] < owned)
        ring.push_back({tri[3 * t + a], hg(tri[3 * t]), hg(tri[3 * t + 1]), hg(tri[3 * t + 2]), 3 * t + a});
  std::sort(ring.begin(), ring.end());
  std::vector<double> grad(3 * owned), norm2(3 * owned);
  for (int it = 0; it < iterations; ++it) {
    std::fill(grad.begin(), grad.end(), 0.0);
    for (const auto& r : ring) {
      double p[3][3], g[3][3];
      corners(x, &tri[r[4] - r[4] % 3], p);
      triangle_volume_gradient(p, closed, zbase, g);
      for (int d = 0; d < 3; ++d) grad[3 * r[0] + d] += g[r[4] % 3][d];
    }
    for (long i = 0; i < owned; ++i)
      for (int d = 0; d < 3; ++d) {
        if (held[i] & (1 << d)) grad[3 * i + d] = 0;
        norm2[3 * i + d] = grad[3 * i + d] * grad[3 * i + d];
      }
    const double gg = reproducible_total(norm2, comm);
    if (gg == 0) break;
    const double lambda = (target - volume) / gg;
    for (long q = 0; q < 3 * owned; ++q) x[q] += lambda * grad[q];
    refresh();
    volume = volume_of(x, tri, m.owned_triangles, closed, zbase, comm);
  }
  return volume;
}

}  // namespace meniscus::membrane
