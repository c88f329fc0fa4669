#include "methods/membrane/volume_correction.hpp"

#include <cmath>

#include "core/kmath.hpp"

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

}  // namespace meniscus::membrane
