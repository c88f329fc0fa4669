#pragma once
// The surface energy of one surface quadrature point (Chen et al. 2021, eq. 16): k g(M) with
// g(M) = |cof(M) dA|, where M = sum_i y_i grad N_i(s)^T is the deformation of the grid map at the
// sample and dA its area-weighted normal. Value, gradient dg/dM and Hessian d2g/dM2 (row-major M,
// index i*Dim + j), evaluated polynomially (no inverse). In 2D g is convex in M; in 3D the Hessian has
// an indefinite part that implicit solvers project (Chen et al. 2021, Sec. 4.3.1, Newton's method).
#include "core/kmath.hpp"

namespace meniscus::physics {

// 2D: cof(M) a = R90 M R90^T a, so g = |M t| with the tangent t = R90^T a = (a1, -a0).
// 3D: c = cof(M) a = a0 f1 x f2 + a1 f2 x f0 + a2 f0 x f1 with f_j the columns of M.
template <int Dim>
KOKKOS_INLINE_FUNCTION void cofactor_area(const double* M, const double* a, double* c) {
  if constexpr (Dim == 2) {
    const double t0 = a[1], t1 = -a[0];
    // |R90 M t| = |M t|: return M t itself (a rotation of cof(M) a).
    c[0] = M[0] * t0 + M[1] * t1;
    c[1] = M[2] * t0 + M[3] * t1;
  } else {
    auto col = [&](int j, int i) { return M[i * 3 + j]; };
    const double f[3][3] = {{col(0, 0), col(0, 1), col(0, 2)}, {col(1, 0), col(1, 1), col(1, 2)}, {col(2, 0), col(2, 1), col(2, 2)}};
    auto cross = [](const double* u, const double* v, double* w) {
      w[0] = u[1] * v[2] - u[2] * v[1];
      w[1] = u[2] * v[0] - u[0] * v[2];
      w[2] = u[0] * v[1] - u[1] * v[0];
    };
    double x12[3], x20[3], x01[3];
    cross(f[1], f[2], x12);
    cross(f[2], f[0], x20);
    cross(f[0], f[1], x01);
    for (int d = 0; d < 3; ++d) c[d] = a[0] * x12[d] + a[1] * x20[d] + a[2] * x01[d];
  }
}

template <int Dim>
KOKKOS_INLINE_FUNCTION double surface_energy(const double* M, const double* a) {
  double c[Dim];
  cofactor_area<Dim>(M, a, c);
  double s = 0;
  for (int d = 0; d < Dim; ++d) s += c[d] * c[d];
  return kmath::sqrt(s);
}

namespace detail {
// [v]x: the cross-product matrix (row-major 3x3).
KOKKOS_INLINE_FUNCTION void skew(const double* v, double* S) {
  S[0] = 0;     S[1] = -v[2]; S[2] = v[1];
  S[3] = v[2];  S[4] = 0;     S[5] = -v[0];
  S[6] = -v[1]; S[7] = v[0];  S[8] = 0;
}
// G_gamma = dc/df_gamma = sum_{beta,delta} eps(gamma,beta,delta) a_beta [f_delta]x.
KOKKOS_INLINE_FUNCTION void column_jacobian(const double* M, const double* a, int g, double* G) {
  const int b = (g + 1) % 3, d = (g + 2) % 3;  // eps(g, b, d) = +1, eps(g, d, b) = -1
  double fb[3] = {M[0 * 3 + b], M[1 * 3 + b], M[2 * 3 + b]}, fd[3] = {M[0 * 3 + d], M[1 * 3 + d], M[2 * 3 + d]};
  double Sd[9], Sb[9];
  skew(fd, Sd);
  skew(fb, Sb);
  for (int i = 0; i < 9; ++i) G[i] = a[b] * Sd[i] - a[d] * Sb[i];
}
}  // namespace detail

// dg/dM (Dim*Dim, row-major). Returns g.
template <int Dim>
KOKKOS_INLINE_FUNCTION double surface_energy_gradient(const double* M, const double* a, double* dg) {
  double c[Dim];
  cofactor_area<Dim>(M, a, c);
  double n = 0;
  for (int d = 0; d < Dim; ++d) n += c[d] * c[d];
  n = kmath::sqrt(n);
  const double inv = n > 0 ? 1.0 / n : 0.0;
  if constexpr (Dim == 2) {
    // g = |M t|: dg/dM = u_hat t^T.
    const double t[2] = {a[1], -a[0]};
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) dg[i * 2 + j] = c[i] * inv * t[j];
  } else {
    // dg/df_gamma = G_gamma^T c_hat, written into column gamma.
    for (int g = 0; g < 3; ++g) {
      double G[9];
      detail::column_jacobian(M, a, g, G);
      for (int i = 0; i < 3; ++i) {
        double s = 0;
        for (int k = 0; k < 3; ++k) s += G[k * 3 + i] * c[k] * inv;
        dg[i * 3 + g] = s;
      }
    }
  }
  return n;
}

// Footprint of a sample on a wall: the deformed element cof(M) a projected onto the wall's unit
// normal nw (pointing out of the solid into the liquid), counted where the element faces the wall,
// h(M) = max(0, -nw . cof(M) a). A solid-liquid sample stores the wetting energy k_SL h + k_LG (g - h):
// the part of its area that lies flat on the wall is wetted, the rest (the wrinkles of an underside,
// the flanks near the contact line) is liquid-gas surface (docs/theory-mpm-surface-tension.md). Writes
// dh/dM (row-major; zero where h = 0) and returns h. Linear in M in 2D, quadratic in 3D.
template <int Dim>
KOKKOS_INLINE_FUNCTION double wall_footprint_gradient(const double* M, const double* a, const double* nw, double* dh) {
  double c[Dim];
  cofactor_area<Dim>(M, a, c);
  double h = 0;
  if constexpr (Dim == 2) {
    // cofactor_area returns u = M t with t = (a1, -a0); cof(M) a = R90 u = (-u1, u0).
    h = nw[0] * c[1] - nw[1] * c[0];
    const double t[2] = {a[1], -a[0]};
    for (int j = 0; j < 2; ++j) {
      dh[0 * 2 + j] = h > 0 ? -nw[1] * t[j] : 0.0;
      dh[1 * 2 + j] = h > 0 ? nw[0] * t[j] : 0.0;
    }
  } else {
    for (int d = 0; d < 3; ++d) h -= nw[d] * c[d];
    // dh/df_gamma = -G_gamma^T nw, written into column gamma.
    for (int g = 0; g < 3; ++g) {
      double G[9];
      detail::column_jacobian(M, a, g, G);
      for (int i = 0; i < 3; ++i) {
        double s = 0;
        for (int k = 0; k < 3; ++k) s -= G[k * 3 + i] * nw[k];
        dh[i * 3 + g] = h > 0 ? s : 0.0;
      }
    }
  }
  return h > 0 ? h : 0.0;
}

// d2g/dM2 as a (Dim*Dim) x (Dim*Dim) row-major matrix: H[(i*Dim+j)*Dim*Dim + (k*Dim+l)].
template <int Dim>
KOKKOS_INLINE_FUNCTION void surface_energy_hessian(const double* M, const double* a, double* H) {
  constexpr int N = Dim * Dim;
  double c[Dim];
  cofactor_area<Dim>(M, a, c);
  double n = 0;
  for (int d = 0; d < Dim; ++d) n += c[d] * c[d];
  n = kmath::sqrt(n);
  for (int i = 0; i < N * N; ++i) H[i] = 0;
  if (!(n > 0)) return;
  double chat[Dim];
  for (int d = 0; d < Dim; ++d) chat[d] = c[d] / n;
  if constexpr (Dim == 2) {
    // (I - u_hat u_hat^T) (x) t t^T / |u|.
    const double t[2] = {a[1], -a[0]};
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j)
        for (int k = 0; k < 2; ++k)
          for (int l = 0; l < 2; ++l)
            H[(i * 2 + j) * N + (k * 2 + l)] = ((i == k ? 1.0 : 0.0) - chat[i] * chat[k]) * t[j] * t[l] / n;
  } else {
    double G[3][9];
    for (int g = 0; g < 3; ++g) detail::column_jacobian(M, a, g, G[g]);
    double P[9];
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 3; ++k) P[i * 3 + k] = ((i == k) ? 1.0 : 0.0) - chat[i] * chat[k];
    double C[9];
    detail::skew(chat, C);
    for (int g = 0; g < 3; ++g)
      for (int e = 0; e < 3; ++e) {
        // Block (column g, column e): G_g^T P G_e / |c| + sum_b eps(g, b, e) a_b [c_hat]x.
        double eps_term = 0;
        if (g != e) {
          const int b = 3 - g - e;
          eps_term = ((g + 1) % 3 == b) ? a[b] : -a[b];  // eps(g, b, e): +1 when (g, b, e) is cyclic
        }
        for (int i = 0; i < 3; ++i)
          for (int k = 0; k < 3; ++k) {
            double s = 0;
            for (int p = 0; p < 3; ++p)
              for (int q = 0; q < 3; ++q) s += G[g][p * 3 + i] * P[p * 3 + q] * G[e][q * 3 + k];
            H[(i * 3 + g) * N + (k * 3 + e)] = s / n + eps_term * C[i * 3 + k];
          }
      }
  }
}

}  // namespace meniscus::physics
