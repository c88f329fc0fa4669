#pragma once
// Area constraints of Xing et al. 2022 (sec. 5, Eqs. 7-8): every surface particle i with a local
// mesh has C_i = sum of the areas of its fan triangles t_a = (i, k_a, k_a+1), driven towards zero and
// softened by constraint force mixing: lambda_i = -C_i / (sum_v |grad_v C_i|^2 + eps^A). The density
// and distance constraints resist, and the balance acts as surface tension.
// Triangle (a, b, c) with unit normal N = (b - a) x (c - a) / |.|: grad_a A = N x (c - b) / 2,
// grad_b A = N x (a - c) / 2, grad_c A = N x (b - a) / 2 (in the plane, perpendicular to the opposite
// edge, pointing away from it). For the fan: grad_i C = sum_a grad_t1 A(t_a), grad_{k_a} C =
// grad_t2 A(t_a) + grad_t3 A(t_{a-1}) (only the triangles that exist in an open fan).
#include <Kokkos_Core.hpp>

#include "core/kmath.hpp"
#include "methods/pbd/local_mesh.hpp"

namespace meniscus::pbd {

// Area of the triangle (a, b, c) and its gradients; zero gradients for a degenerate triangle
// (|cross| <= tiny).
KOKKOS_INLINE_FUNCTION double triangle_area_gradient(const double* a, const double* b, const double* c, double* ga,
                                                     double* gb, double* gc, double tiny = 0) {
  double e1[3], e2[3], n[3];
  for (int d = 0; d < 3; ++d) {
    e1[d] = b[d] - a[d];
    e2[d] = c[d] - a[d];
  }
  kmath::cross(e1, e2, n);
  const double len = kmath::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  for (int d = 0; d < 3; ++d) ga[d] = gb[d] = gc[d] = 0;
  if (!(len > tiny)) return 0.5 * len;
  for (int d = 0; d < 3; ++d) n[d] /= len;
  double cb[3], ac[3], ba[3];
  for (int d = 0; d < 3; ++d) {
    cb[d] = c[d] - b[d];
    ac[d] = a[d] - c[d];
    ba[d] = b[d] - a[d];
  }
  kmath::cross(n, cb, ga);
  kmath::cross(n, ac, gb);
  kmath::cross(n, ba, gc);
  for (int d = 0; d < 3; ++d) {
    ga[d] *= 0.5;
    gb[d] *= 0.5;
    gc[d] *= 0.5;
  }
  return 0.5 * len;
}

// Fan area C and gradients: centre `p`, ring positions q[k] (k < m), closed or open. grad_p and
// grad_q[k] are written. Returns C.
KOKKOS_INLINE_FUNCTION double fan_area_gradient(const double* p, const double (*q)[3], int m, bool closed,
                                                double* grad_p, double (*grad_q)[3], double tiny) {
  for (int d = 0; d < 3; ++d) grad_p[d] = 0;
  for (int k = 0; k < m; ++k)
    for (int d = 0; d < 3; ++d) grad_q[k][d] = 0;
  double c = 0;
  const int nt = closed ? m : m - 1;
  for (int a = 0; a < nt; ++a) {
    const int b = (a + 1) % m;
    double g1[3], g2[3], g3[3];
    c += triangle_area_gradient(p, q[a], q[b], g1, g2, g3, tiny);
    for (int d = 0; d < 3; ++d) {
      grad_p[d] += g1[d];
      grad_q[a][d] += g2[d];
      grad_q[b][d] += g3[d];
    }
  }
  return c;
}

struct AreaSweep {
  Kokkos::View<double**, Kokkos::LayoutRight> x;         // owned + ghost rows
  Kokkos::View<int*> offset, index;  // neighbours of the owned rows (gid order)
  LocalMeshes fans;                  // fans of owned and ghost rows (rows of x)
  int owned = 0, total = 0;
  double cfm = 1.0;
  double tiny = 0;  // degenerate-triangle threshold on |cross|
};

// C^A and lambda^A of every row with a valid fan (others 0).
void area_lambda(const AreaSweep& s, Kokkos::View<double*> area, Kokkos::View<double*> lambda);
// Adds the area corrections of every fan that contains an owned row (as centre or ring vertex) to dp.
void gather_area_corrections(const AreaSweep& s, Kokkos::View<double*> lambda, Kokkos::View<double**, Kokkos::LayoutRight> dp);

}  // namespace meniscus::pbd
