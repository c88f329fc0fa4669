#pragma once
// The surface energy of one sample for implicit solves, smoothed at zero area:
//   g_e(M) = s (sqrt(g(M)^2 + e^2) - e),  e = eps |dA|,  g(M) = |cof(M) dA| (surface_energy.hpp),
// with s = sqrt(1 + eps^2), so that at rest and under rotations (g = |dA|) the gradient, i.e. the
// surface force, equals the unsmoothed one exactly; only stretched or shrunk samples differ.
// Why: backward Euler lets a node that only a sample's stencil reaches (so its mass is a small share
// of the sample's) shrink that sample to zero length, where |.| has a kink; the minimiser then sits on
// the kink and Newton's residual cannot converge. g_e is smooth (curvature 1/e at zero), convex in
// 2D like g.
// With phi(g) = sqrt(g^2 + e^2): grad g_e = phi'(g) grad g, Hess g_e = phi'(g) Hess g + phi''(g) grad g grad g^T,
// phi' = g/phi, phi'' = e^2/phi^3.
#include "physics/psd_projection.hpp"
#include "physics/surface_energy.hpp"

namespace meniscus::physics {

template <int Dim>
KOKKOS_INLINE_FUNCTION double area_norm(const double* a) {
  double s = 0;
  for (int d = 0; d < Dim; ++d) s += a[d] * a[d];
  return kmath::sqrt(s);
}

template <int Dim>
KOKKOS_INLINE_FUNCTION double smoothed_surface_energy(const double* M, const double* a, double eps) {
  const double g = surface_energy<Dim>(M, a), e = eps * area_norm<Dim>(a);
  return kmath::sqrt(1 + eps * eps) * (kmath::sqrt(g * g + e * e) - e);
}

template <int Dim>
KOKKOS_INLINE_FUNCTION void smoothed_surface_energy_gradient(const double* M, const double* a, double eps, double* dg) {
  const double g = surface_energy_gradient<Dim>(M, a, dg), e = eps * area_norm<Dim>(a);
  const double phi = kmath::sqrt(g * g + e * e);
  const double s = phi > 0 ? kmath::sqrt(1 + eps * eps) * g / phi : 0.0;
  for (int i = 0; i < Dim * Dim; ++i) dg[i] *= s;
}

template <int Dim>
KOKKOS_INLINE_FUNCTION void smoothed_surface_energy_hessian(const double* M, const double* a, double eps, double* H) {
  constexpr int N = Dim * Dim;
  double dg[N];
  const double g = surface_energy_gradient<Dim>(M, a, dg), e = eps * area_norm<Dim>(a);
  surface_energy_hessian<Dim>(M, a, H);
  const double phi = kmath::sqrt(g * g + e * e);
  if (!(phi > 0)) return;
  const double scale = kmath::sqrt(1 + eps * eps);
  const double s1 = scale * g / phi, s2 = scale * e * e / (phi * phi * phi);
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) H[i * N + j] = s1 * H[i * N + j] + s2 * dg[i] * dg[j];
}

// The tangents t1, t2 of a sample with area vector a (a != 0): t1 = n x e_k for the axis e_k least
// aligned with n = a / |a|, t2 = n x t1.
KOKKOS_INLINE_FUNCTION void surface_tangents(const double* a, double (*t)[3]) {
  const double an = area_norm<3>(a);
  const double n[3] = {a[0] / an, a[1] / an, a[2] / an};
  int k = 0;
  for (int d = 1; d < 3; ++d)
    if (kmath::fabs(n[d]) < kmath::fabs(n[k])) k = d;
  double e[3] = {0, 0, 0};
  e[k] = 1;
  t[0][0] = n[1] * e[2] - n[2] * e[1];
  t[0][1] = n[2] * e[0] - n[0] * e[2];
  t[0][2] = n[0] * e[1] - n[1] * e[0];
  const double tn = kmath::sqrt(t[0][0] * t[0][0] + t[0][1] * t[0][1] + t[0][2] * t[0][2]);
  for (int d = 0; d < 3; ++d) t[0][d] /= tn;
  t[1][0] = n[1] * t[0][2] - n[2] * t[0][1];
  t[1][1] = n[2] * t[0][0] - n[0] * t[0][2];
  t[1][2] = n[0] * t[0][1] - n[1] * t[0][0];
}

// K6 = Q K Q^T (see below): K6[(i,s)][(k,u)] = sum_{j,l} t_s[j] K[(i,j),(k,l)] t_u[l], index
// (i * 2 + s) * 6 + k * 2 + u.
KOKKOS_INLINE_FUNCTION void surface_hessian_in_tangents(const double* K, const double (*t)[3], double* K6) {
  // KQ[(i,j)][(k,u)] = sum_l K[(i,j),(k,l)] t_u[l]; K6[(i,s)][(k,u)] = sum_j t_s[j] KQ[(i,j)][(k,u)].
  double KQ[9 * 6];
  for (int r = 0; r < 9; ++r)
    for (int kk = 0; kk < 3; ++kk)
      for (int u = 0; u < 2; ++u) {
        double s = 0;
        for (int l = 0; l < 3; ++l) s += K[r * 9 + kk * 3 + l] * t[u][l];
        KQ[r * 6 + kk * 2 + u] = s;
      }
  for (int i = 0; i < 3; ++i)
    for (int s = 0; s < 2; ++s)
      for (int c = 0; c < 6; ++c) {
        double v = 0;
        for (int j = 0; j < 3; ++j) v += t[s][j] * KQ[(i * 3 + j) * 6 + c];
        K6[(i * 2 + s) * 6 + c] = v;
      }
}

// PSD projection of a 3D sample's Hessian K (9 x 9, index i*3 + j of M_ij) of any function of
// cof(M) dA, such as k g_e above, on the 6-dimensional space it lives in. With t1, t2 an orthonormal
// basis of the plane normal to dA, dA = |dA| t1 x t2 and cof(M)(t1 x t2) = (M t1) x (M t2), so the
// energy depends on M only through M t1 and M t2: K = Q^T K6 Q with Q (6 x 9) the rows
// Q[(i,s)][(k,j)] = delta_ik t_s[j], whose rows are orthonormal (Q Q^T = I). The eigenvectors of K
// with nonzero eigenvalue lie in Q's row space, so the projection of K is Q^T proj(K6) Q with
// K6 = Q K Q^T: the same result as project_psd<9>(K) (to round-off) for (6/9)^3 of the work of the
// Jacobi sweeps. K is kept exactly when K6 has no negative eigenvalue. Returns whether K changed.
// This form takes the sample's tangents t and K6 = Q K Q^T (surface_hessian_in_tangents), which the
// caller may have computed already (K6 is not changed).
KOKKOS_INLINE_FUNCTION bool project_surface_hessian_psd(double* K, const double (*t)[3], const double* K6_in) {
  double K6[36], KQ[9 * 6];
  for (int i = 0; i < 36; ++i) K6[i] = K6_in[i];
  // Symmetric to round-off; make it exactly so for the Jacobi sweeps.
  for (int r = 0; r < 6; ++r)
    for (int c = r + 1; c < 6; ++c) K6[r * 6 + c] = K6[c * 6 + r] = 0.5 * (K6[r * 6 + c] + K6[c * 6 + r]);
  if (!project_psd<6>(K6)) return false;
  // K = Q^T K6 Q: K[(i,j),(k,l)] = sum_{s,u} t_s[j] K6[(i,s),(k,u)] t_u[l].
  for (int i = 0; i < 3; ++i)
    for (int s = 0; s < 2; ++s)
      for (int kk = 0; kk < 3; ++kk)
        for (int l = 0; l < 3; ++l) KQ[(i * 2 + s) * 9 + kk * 3 + l] = K6[(i * 2 + s) * 6 + kk * 2] * t[0][l] + K6[(i * 2 + s) * 6 + kk * 2 + 1] * t[1][l];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int c = 0; c < 9; ++c) K[(i * 3 + j) * 9 + c] = t[0][j] * KQ[(i * 2) * 9 + c] + t[1][j] * KQ[(i * 2 + 1) * 9 + c];
  return true;
}

KOKKOS_INLINE_FUNCTION bool project_surface_hessian_psd(double* K, const double* a) {
  if (!(area_norm<3>(a) > 0)) return project_psd<9>(K);
  double t[2][3], K6[36];
  surface_tangents(a, t);
  surface_hessian_in_tangents(K, t, K6);
  return project_surface_hessian_psd(K, t, K6);
}

}  // namespace meniscus::physics
