#include "methods/membrane/polyline.hpp"

#include <cmath>

#include "core/kmath.hpp"

namespace meniscus::membrane {

Polyline make_polyline(const std::vector<double>& xy, bool closed) {
  const long n = static_cast<long>(xy.size() / 2);
  const long s = closed ? n : n - 1;
  Polyline m;
  m.x = VertexArray("membrane_x", n, 2);
  m.v = VertexArray("membrane_v", n, 2);
  m.seg = SegmentArray("membrane_segments", s, 2);
  m.kind = Kokkos::View<int*, MemSpace>("membrane_kind", n);
  auto hx = Kokkos::create_mirror_view(m.x);
  auto hs = Kokkos::create_mirror_view(m.seg);
  for (long i = 0; i < n; ++i) {
    hx(i, 0) = xy[2 * i];
    hx(i, 1) = xy[2 * i + 1];
  }
  for (long e = 0; e < s; ++e) {
    hs(e, 0) = static_cast<int>(e);
    hs(e, 1) = static_cast<int>((e + 1) % n);
  }
  Kokkos::deep_copy(m.x, hx);
  Kokkos::deep_copy(m.seg, hs);
  return m;
}

Polyline make_circle(double cx, double cy, double r, int n, double eps) {
  std::vector<double> xy(2 * n);
  for (int i = 0; i < n; ++i) {
    const double t = 2 * M_PI * i / n;
    const double rr = r * (1 + eps * std::cos(2 * t));
    xy[2 * i] = cx + rr * std::cos(t);
    xy[2 * i + 1] = cy + rr * std::sin(t);
  }
  return make_polyline(xy, true);
}

void capillary_force(const Polyline& m, double sigma, const VertexArray& f) {
  Kokkos::deep_copy(f, 0.0);
  auto x = m.x;
  auto seg = m.seg;
  // -d/dx_i (sigma |x_j - x_i|) = sigma (x_j - x_i) / L: each segment pulls its ends together,
  // equal and opposite along the segment, so sum f = 0 and sum x cross f = 0 hold per segment.
  Kokkos::parallel_for(
      "membrane_capillary_force", m.segments(), KOKKOS_LAMBDA(const long e) {
        const int i = seg(e, 0), j = seg(e, 1);
        const double dx = x(j, 0) - x(i, 0), dy = x(j, 1) - x(i, 1);
        const double len = kmath::sqrt(dx * dx + dy * dy);
        const double fx = sigma * dx / len, fy = sigma * dy / len;
        Kokkos::atomic_add(&f(i, 0), fx);
        Kokkos::atomic_add(&f(i, 1), fy);
        Kokkos::atomic_add(&f(j, 0), -fx);
        Kokkos::atomic_add(&f(j, 1), -fy);
      });
}

double total_length(const Polyline& m) {
  auto x = m.x;
  auto seg = m.seg;
  double sum = 0;
  Kokkos::parallel_reduce(
      "membrane_length", m.segments(),
      KOKKOS_LAMBDA(const long e, double& acc) {
        const int i = seg(e, 0), j = seg(e, 1);
        const double dx = x(j, 0) - x(i, 0), dy = x(j, 1) - x(i, 1);
        acc += kmath::sqrt(dx * dx + dy * dy);
      },
      sum);
  return sum;
}

void vertex_masses(const Polyline& m, double rho, double h, const Kokkos::View<double*, MemSpace>& mass) {
  Kokkos::deep_copy(mass, 0.0);
  auto x = m.x;
  auto seg = m.seg;
  const double rh = rho * h;
  Kokkos::parallel_for(
      "membrane_masses", m.segments(), KOKKOS_LAMBDA(const long e) {
        const int i = seg(e, 0), j = seg(e, 1);
        const double dx = x(j, 0) - x(i, 0), dy = x(j, 1) - x(i, 1);
        const double half = 0.5 * rh * kmath::sqrt(dx * dx + dy * dy);
        Kokkos::atomic_add(&mass(i), half);
        Kokkos::atomic_add(&mass(j), half);
      });
}

void stiffness_weights(const Polyline& m, double sigma, const Kokkos::View<double*, MemSpace>& w) {
  auto x = m.x;
  auto seg = m.seg;
  Kokkos::parallel_for(
      "membrane_stiffness_weights", m.segments(), KOKKOS_LAMBDA(const long e) {
        const int i = seg(e, 0), j = seg(e, 1);
        const double dx = x(j, 0) - x(i, 0), dy = x(j, 1) - x(i, 1);
        w(e) = sigma / kmath::sqrt(dx * dx + dy * dy);
      });
}

double enclosed_area(const Polyline& m, bool closed, double ybase) {
  auto x = m.x;
  auto seg = m.seg;
  double sum = 0;
  // Closed: shoelace. Open: trapezoids down to ybase, positive for a surface above ybase drawn
  // left to right (so both give the liquid area).
  Kokkos::parallel_reduce(
      "membrane_area", m.segments(),
      KOKKOS_LAMBDA(const long e, double& acc) {
        const int i = seg(e, 0), j = seg(e, 1);
        if (closed) acc += 0.5 * (x(i, 0) * x(j, 1) - x(j, 0) * x(i, 1));
        else acc += 0.5 * (x(j, 0) - x(i, 0)) * (x(i, 1) + x(j, 1) - 2 * ybase);
      },
      sum);
  return sum;
}

}  // namespace meniscus::membrane
