#include "methods/pbd/filament.hpp"

#include "core/cubic_spline.hpp"

namespace meniscus::pbd {

void detect_filaments(Kokkos::View<double**, Kokkos::LayoutRight> x, Kokkos::View<int*> offset,
                      Kokkos::View<int*> index, int owned, double support, double ratio, Kokkos::View<int*> filament) {
  const kernels::CubicSpline<3> w(support);
  Kokkos::parallel_for(
      "pbd::filaments", Kokkos::RangePolicy<>(0, owned), KOKKOS_LAMBDA(const int i) {
        filament(i) = 0;
        const int n = offset(i + 1) - offset(i);
        if (ratio <= 0 || n < 3) return;
        // Offsets from x_i keep the sums well conditioned; the covariance does not depend on the origin.
        double ws = w.w_zero, m[3] = {0, 0, 0};
        for (int k = offset(i); k < offset(i + 1); ++k) {
          const int j = index(k);
          double d[3];
          for (int c = 0; c < 3; ++c) d[c] = x(j, c) - x(i, c);
          const double wj = w.value(kmath::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
          ws += wj;
          for (int c = 0; c < 3; ++c) m[c] += wj * d[c];
        }
        for (int c = 0; c < 3; ++c) m[c] /= ws;
        // Particle i itself sits at offset 0, i.e. at -m from the mean.
        double a[6] = {w.w_zero * m[0] * m[0], w.w_zero * m[1] * m[1], w.w_zero * m[2] * m[2],
                       w.w_zero * m[0] * m[1], w.w_zero * m[0] * m[2], w.w_zero * m[1] * m[2]};
        for (int k = offset(i); k < offset(i + 1); ++k) {
          const int j = index(k);
          double d[3];
          for (int c = 0; c < 3; ++c) d[c] = x(j, c) - x(i, c);
          const double wj = w.value(kmath::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
          for (int c = 0; c < 3; ++c) d[c] -= m[c];
          a[0] += wj * d[0] * d[0];
          a[1] += wj * d[1] * d[1];
          a[2] += wj * d[2] * d[2];
          a[3] += wj * d[0] * d[1];
          a[4] += wj * d[0] * d[2];
          a[5] += wj * d[1] * d[2];
        }
        double e[3];
        symmetric_eigenvalues(a, e);  // the common factor 1 / sum W does not change the ratio
        filament(i) = e[0] > 0 && e[1] < ratio * e[0] ? 1 : 0;
      });
}

}  // namespace meniscus::pbd
