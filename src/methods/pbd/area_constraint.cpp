#include "methods/pbd/area_constraint.hpp"

namespace meniscus::pbd {

void area_lambda(const AreaSweep& s, Kokkos::View<double*> area, Kokkos::View<double*> lambda) {
  auto x = s.x;
  auto ring = s.fans.ring;
  auto count = s.fans.count;
  auto flags = s.fans.flags;
  const double cfm = s.cfm, tiny = s.tiny;
  Kokkos::parallel_for(
      "pbd::area_lambda", Kokkos::RangePolicy<>(0, s.total), KOKKOS_LAMBDA(const int i) {
        area(i) = 0;
        lambda(i) = 0;
        const int m = count(i);
        if (!(flags(i) & kMeshValid) || m < 2) return;
        double p[3], q[kMaxRing][3], gp[3], gq[kMaxRing][3];
        for (int d = 0; d < 3; ++d) p[d] = x(i, d);
        for (int k = 0; k < m; ++k)
          for (int d = 0; d < 3; ++d) q[k][d] = x(ring(i, k), d);
        const double c = fan_area_gradient(p, q, m, (flags(i) & kMeshClosed) != 0, gp, gq, tiny);
        double S = gp[0] * gp[0] + gp[1] * gp[1] + gp[2] * gp[2];
        for (int k = 0; k < m; ++k) S += gq[k][0] * gq[k][0] + gq[k][1] * gq[k][1] + gq[k][2] * gq[k][2];
        area(i) = c;
        lambda(i) = -c / (S + cfm);
      });
}

void gather_area_corrections(const AreaSweep& s, Kokkos::View<double*> lambda, Kokkos::View<double**, Kokkos::LayoutRight> dp) {
  auto x = s.x;
  auto off = s.offset, idx = s.index;
  auto ring = s.fans.ring;
  auto count = s.fans.count;
  auto flags = s.fans.flags;
  const double tiny = s.tiny;
  Kokkos::parallel_for(
      "pbd::gather_area", Kokkos::RangePolicy<>(0, s.owned), KOKKOS_LAMBDA(const int v) {
        double acc[3] = {0, 0, 0};
        // v's own fan: the centre gradient.
        if ((flags(v) & kMeshValid) && count(v) >= 2) {
          const int m = count(v);
          const bool closed = (flags(v) & kMeshClosed) != 0;
          double pv[3], g1[3], g2[3], g3[3];
          for (int d = 0; d < 3; ++d) pv[d] = x(v, d);
          const int nt = closed ? m : m - 1;
          for (int a = 0; a < nt; ++a) {
            double qa[3], qb[3];
            for (int d = 0; d < 3; ++d) {
              qa[d] = x(ring(v, a), d);
              qb[d] = x(ring(v, (a + 1) % m), d);
            }
            triangle_area_gradient(pv, qa, qb, g1, g2, g3, tiny);
            for (int d = 0; d < 3; ++d) acc[d] += lambda(v) * g1[d];
          }
        }
        // Fans of neighbours that hold v as a ring vertex.
        for (int k = off(v); k < off(v + 1); ++k) {
          const int f = idx(k);
          const int m = count(f);
          if (!(flags(f) & kMeshValid) || m < 2) continue;
          int a = -1;
          for (int r = 0; r < m; ++r)
            if (ring(f, r) == v) a = r;
          if (a < 0) continue;
          const bool closed = (flags(f) & kMeshClosed) != 0;
          double pf[3], pa[3], g1[3], g2[3], g3[3];
          for (int d = 0; d < 3; ++d) {
            pf[d] = x(f, d);
            pa[d] = x(v, d);
          }
          if (a + 1 < m || closed) {  // triangle (f, v, next): v is its second vertex
            double pn[3];
            for (int d = 0; d < 3; ++d) pn[d] = x(ring(f, (a + 1) % m), d);
            triangle_area_gradient(pf, pa, pn, g1, g2, g3, tiny);
            for (int d = 0; d < 3; ++d) acc[d] += lambda(f) * g2[d];
          }
          if (a >= 1 || closed) {  // triangle (f, prev, v): v is its third vertex
            double pp[3];
            for (int d = 0; d < 3; ++d) pp[d] = x(ring(f, (a + m - 1) % m), d);
            triangle_area_gradient(pf, pp, pa, g1, g2, g3, tiny);
            for (int d = 0; d < 3; ++d) acc[d] += lambda(f) * g3[d];
          }
        }
        for (int d = 0; d < 3; ++d) dp(v, d) += acc[d];
      });
}

}  // namespace meniscus::pbd
