#include "methods/pbd/pbf_constraints.hpp"

namespace meniscus::pbd {

void sort_rows_by_id(Kokkos::View<int*> offset, Kokkos::View<int*> index, Kokkos::View<const int64_t*> id, int owned) {
  Kokkos::parallel_for(
      "pbd::sort_rows", Kokkos::RangePolicy<>(0, owned), KOKKOS_LAMBDA(const int i) {
        for (int k = offset(i) + 1; k < offset(i + 1); ++k) {
          const int v = index(k);
          const int64_t key = id(v);
          int m = k - 1;
          while (m >= offset(i) && id(index(m)) > key) {
            index(m + 1) = index(m);
            --m;
          }
          index(m + 1) = v;
        }
      });
}

void density_and_lambda(const PbfSweep& s, Kokkos::View<double*> rho, Kokkos::View<double*> lambda) {
  const kernels::CubicSpline<3> w(s.support);
  auto x = s.x;
  auto off = s.offset, idx = s.index;
  auto dens_off = s.density_off;
  const double m = s.mass, rho0 = s.rest_density, cfm = s.density_cfm;
  const bool unilateral = s.unilateral_density;
  Kokkos::parallel_for(
      "pbd::density_lambda", Kokkos::RangePolicy<>(0, s.owned), KOKKOS_LAMBDA(const int i) {
        double r = m * w.w_zero, g[3] = {0, 0, 0}, q = 0;
        for (int k = off(i); k < off(i + 1); ++k) {
          const int j = idx(k);
          double xij[3];
          for (int d = 0; d < 3; ++d) xij[d] = x(i, d) - x(j, d);
          double gw[3];
          w.gradient(xij, gw);
          r += m * w.value(kmath::sqrt(xij[0] * xij[0] + xij[1] * xij[1] + xij[2] * xij[2]));
          for (int d = 0; d < 3; ++d) g[d] += gw[d];
          q += gw[0] * gw[0] + gw[1] * gw[1] + gw[2] * gw[2];
        }
        rho(i) = r;
        const double c = r / rho0 - 1.0;
        lambda(i) = dens_off(i) || (unilateral && c < 0) ? 0.0 : density_lambda(c, g, q, m / rho0, cfm);
      });
}

void gather_corrections(const PbfSweep& s, Kokkos::View<double*> lambda, Kokkos::View<double**, Kokkos::LayoutRight> dp) {
  const kernels::CubicSpline<3> w(s.support);
  auto x = s.x;
  auto off = s.offset, idx = s.index;
  auto label = s.label;
  const double scale = s.mass / s.rest_density, d0 = s.min_distance, cfm = s.distance_cfm;
  const bool same = s.distance_same_label;
  Kokkos::parallel_for(
      "pbd::gather_corrections", Kokkos::RangePolicy<>(0, s.owned), KOKKOS_LAMBDA(const int i) {
        double a[3] = {0, 0, 0};
        const double li = lambda(i);
        for (int k = off(i); k < off(i + 1); ++k) {
          const int j = idx(k);
          double xij[3];
          for (int d = 0; d < 3; ++d) xij[d] = x(i, d) - x(j, d);
          double gw[3];
          w.gradient(xij, gw);
          const double lsum = scale * (li + lambda(j));
          for (int d = 0; d < 3; ++d) a[d] += lsum * gw[d];
          if (!same || label(i) == label(j)) {
            double c[3];
            distance_correction(xij, d0, cfm, c);
            for (int d = 0; d < 3; ++d) a[d] += c[d];
          }
        }
        for (int d = 0; d < 3; ++d) dp(i, d) = a[d];
      });
}

}  // namespace meniscus::pbd
