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

// The Hessian K (9 x 9, index i*3 + j of M_ij) of k g_e(M) for a 3D sample, written on the 6
// directions it lives in. With t1, t2 an orthonormal basis of the plane normal to dA,
// dA = |dA| t1 x t2 and cof(M)(t1 x t2) = (M t1) x (M t2), so g depends on M only through the 3 x 2
// map F = [M t1, M t2] = M T: K = Q^T K6 Q with Q (6 x 9) the rows Q[(i,s)][(k,j)] = delta_ik t_s[j]
// (orthonormal: Q Q^T = I) and K6 the Hessian in F, index (i * 2 + s) * 6 + k * 2 + u. Since Q is an
// isometry, the PSD projection of K is Q^T proj(K6) Q.
//
// K6 in closed form (the approach of Smith, de Goes & Kim 2019, "Analytic eigensystems for isotropic
// distortion energies", ACM TOG 38(1), Sec. 4-5, for 3 x 3 maps; derived here for the 3 x 2 area
// map): g = rho sigma1 sigma2, rho = |dA|, is an isotropic function of F = sigma1 u1 v1^T +
// sigma2 u2 v2^T (SVD, sigma1 >= sigma2 >= 0; n = u1 x u2). In the orthonormal basis u_a v_b^T of
// 3 x 2 perturbations the Hessian of psi(g) = s (sqrt(g^2 + e^2) - e) is block diagonal: in-plane
// perturbations change g = rho det(diag(sigma) + D) exactly, out-of-plane ones (n v_b^T) through
// det(F^T F) at second order, without cross terms. With alpha = psi'(g)/g = s/phi, beta = psi''(g) =
// s e^2/phi^3, phi = sqrt(g^2 + e^2), its six eigenpairs, all times k rho^2, are
//   n v1^T:                        alpha sigma2^2
//   n v2^T:                        alpha sigma1^2
//   (u1 v2^T - u2 v1^T)/sqrt(2):   alpha sigma1 sigma2    (twist)
//   (u1 v2^T + u2 v1^T)/sqrt(2):  -alpha sigma1 sigma2    (flip: negative wherever g > 0)
//   span{u1 v1^T, u2 v2^T}:        [[beta sigma2^2, (alpha + beta) sigma1 sigma2], [., beta sigma1^2]],
//                                  determinant -alpha (alpha + 2 beta) sigma1^2 sigma2^2 <= 0: one
//                                  eigenvalue of each sign.
// The projection (Chen et al. 2021, Sec. 4.3.1) drops the flip and the block's negative pair: K6 is
// the sum of the kept rank-one terms, without an iterative eigensolver. At g = 0 (F of rank 1) the
// terms stay finite (alpha, beta -> s/e), and F = 0 gives K6 = 0 (g^2 is quartic in F).
// Writes K6 = Q K Q^T of k g_e (project: the positive part only; a term is kept where k lambda >= 0)
// for a sample with area vector a != 0 and tangents t (surface_tangents).
KOKKOS_INLINE_FUNCTION void smoothed_surface_hessian_in_tangents(const double* M, const double* a, double eps, double k,
                                                                 const double (*t)[3], bool project, double* K6) {
  for (int i = 0; i < 36; ++i) K6[i] = 0;
  double f[2][3];  // F's columns M t_s
  for (int s = 0; s < 2; ++s)
    for (int i = 0; i < 3; ++i) f[s][i] = M[i * 3] * t[s][0] + M[i * 3 + 1] * t[s][1] + M[i * 3 + 2] * t[s][2];
  double w[3] = {f[0][1] * f[1][2] - f[0][2] * f[1][1], f[0][2] * f[1][0] - f[0][0] * f[1][2],
                 f[0][0] * f[1][1] - f[0][1] * f[1][0]};
  const double gamma = area_norm<3>(w);  // sigma1 sigma2, accurate also where sigma2 << sigma1
  // V: eigenvectors of C = F^T F; sigma1^2 its larger eigenvalue.
  const double c00 = f[0][0] * f[0][0] + f[0][1] * f[0][1] + f[0][2] * f[0][2];
  const double c11 = f[1][0] * f[1][0] + f[1][1] * f[1][1] + f[1][2] * f[1][2];
  const double c01 = f[0][0] * f[1][0] + f[0][1] * f[1][1] + f[0][2] * f[1][2];
  const double h = 0.5 * (c00 - c11), r = kmath::sqrt(h * h + c01 * c01);
  const double s1sq = 0.5 * (c00 + c11) + r;
  if (!(s1sq > 0)) return;  // F = 0
  const double sig1 = kmath::sqrt(s1sq), sig2 = gamma / sig1;
  double v[2][2];
  if (h >= 0) {
    v[0][0] = h + r;
    v[0][1] = c01;
  } else {
    v[0][0] = c01;
    v[0][1] = r - h;
  }
  const double vn = kmath::sqrt(v[0][0] * v[0][0] + v[0][1] * v[0][1]);
  if (vn > 0) {
    v[0][0] /= vn;
    v[0][1] /= vn;
  } else {  // C = c I: any basis
    v[0][0] = 1;
    v[0][1] = 0;
  }
  v[1][0] = -v[0][1];  // det V = +1, so that f1 x f2 = sigma1 sigma2 u1 x u2
  v[1][1] = v[0][0];
  // U: u1 = F v1 / sigma1, n = (f1 x f2) / |f1 x f2|, u2 = n x u1 (= F v2 / sigma2).
  double u[3][3];
  for (int i = 0; i < 3; ++i) u[0][i] = f[0][i] * v[0][0] + f[1][i] * v[0][1];
  const double un = area_norm<3>(u[0]);
  for (int i = 0; i < 3; ++i) u[0][i] /= un;
  if (gamma > 0) {
    for (int i = 0; i < 3; ++i) u[2][i] = w[i] / gamma;
    u[1][0] = u[2][1] * u[0][2] - u[2][2] * u[0][1];
    u[1][1] = u[2][2] * u[0][0] - u[2][0] * u[0][2];
    u[1][2] = u[2][0] * u[0][1] - u[2][1] * u[0][0];
  } else {  // rank 1: any orthonormal pair normal to u1
    double p[2][3];
    surface_tangents(u[0], p);
    for (int i = 0; i < 3; ++i) {
      u[1][i] = p[0][i];
      u[2][i] = p[1][i];
    }
  }
  const double rho = area_norm<3>(a), e = eps * rho, g = rho * gamma;
  const double phi = kmath::sqrt(g * g + e * e);
  if (!(phi > 0)) return;
  const double sc = kmath::sqrt(1 + eps * eps), alpha = sc / phi, beta = sc * e * e / (phi * phi * phi);
  const double kr = k * rho * rho;
  // Adds kr lam (x q)(x q)^T, q = sum_m c_m u_{a_m} v_{b_m}^T, unless projecting drops it.
  auto add = [&](double lam, int nq, const int* ia, const int* ib, const double* cq) {
    const double c = kr * lam;
    if (project && c < 0) return;
    double q[6];
    for (int i = 0; i < 3; ++i)
      for (int s = 0; s < 2; ++s) {
        double x = 0;
        for (int m = 0; m < nq; ++m) x += cq[m] * u[ia[m]][i] * v[ib[m]][s];
        q[i * 2 + s] = x;
      }
    for (int p = 0; p < 6; ++p)
      for (int qq = 0; qq < 6; ++qq) K6[p * 6 + qq] += c * q[p] * q[qq];
  };
  const double rs2 = 0.70710678118654752440;
  {
    const int ia[1] = {2}, ib0[1] = {0}, ib1[1] = {1};
    const double one[1] = {1.0};
    add(alpha * sig2 * sig2, 1, ia, ib0, one);
    add(alpha * sig1 * sig1, 1, ia, ib1, one);
  }
  {
    const int ia[2] = {0, 1}, ib[2] = {1, 0};
    const double twist[2] = {rs2, -rs2}, flip[2] = {rs2, rs2};
    add(alpha * gamma, 2, ia, ib, twist);
    add(-alpha * gamma, 2, ia, ib, flip);
  }
  {
    // [[A, B], [B, C]] on (u1 v1^T, u2 v2^T), C >= A: lambda+ with eigenvector (B, lambda+ - A).
    const double A = beta * sig2 * sig2, C = beta * sig1 * sig1, B = (alpha + beta) * gamma;
    const double hb = 0.5 * (A - C), rb = kmath::sqrt(hb * hb + B * B);
    const double lp = 0.5 * (A + C) + rb;
    const double lm = lp > 0 ? -alpha * (alpha + 2 * beta) * gamma * gamma / lp : 0.0;  // det / lambda+
    double x = B, y = rb - hb;
    const double xn = kmath::sqrt(x * x + y * y);
    if (xn > 0) {
      x /= xn;
      y /= xn;
    } else {
      x = 0;
      y = 1;
    }
    const int ia[2] = {0, 1}, ib[2] = {0, 1};
    const double qp[2] = {x, y}, qm[2] = {-y, x};
    add(lp, 2, ia, ib, qp);
    add(lm, 2, ia, ib, qm);
  }
}

// K = Q^T K6 Q (see above): K[(i,j),(k,l)] = sum_{s,u} t_s[j] K6[(i,s),(k,u)] t_u[l].
KOKKOS_INLINE_FUNCTION void surface_hessian_from_tangents(const double* K6, const double (*t)[3], double* K) {
  double KQ[6 * 9];
  for (int i = 0; i < 3; ++i)
    for (int s = 0; s < 2; ++s)
      for (int kk = 0; kk < 3; ++kk)
        for (int l = 0; l < 3; ++l) KQ[(i * 2 + s) * 9 + kk * 3 + l] = K6[(i * 2 + s) * 6 + kk * 2] * t[0][l] + K6[(i * 2 + s) * 6 + kk * 2 + 1] * t[1][l];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int c = 0; c < 9; ++c) K[(i * 3 + j) * 9 + c] = t[0][j] * KQ[(i * 2) * 9 + c] + t[1][j] * KQ[(i * 2 + 1) * 9 + c];
}

}  // namespace meniscus::physics
