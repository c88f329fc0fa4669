#pragma once
// Differential of the fixed-corotated first Piola-Kirchhoff stress (Stomakhin et al. 2012):
//   dP = 2 mu (dF - dR) + lambda (cof F : dF) cof F + lambda (J - 1) d(cof F),
// with dR = R W, W skew solving W S + S W = R^T dF - dF^T R (S = R^T F symmetric), i.e.
// axial(W) = (tr S I - S)^-1 axial(R^T dF - dF^T R) in 3D and w = (R^T dF)_10 - (R^T dF)_01 over tr S
// in 2D; d(cof F) is cof(dF) in 2D and, column by column, df1 x f2 + f1 x df2 (cyclic) in 3D.
#include "physics/material.hpp"

namespace meniscus::physics {

template <int Dim>
KOKKOS_INLINE_FUNCTION void fixed_corotated_dpiola(const Material& m, const double* F, const double* dF, double* dP) {
  double R[Dim * Dim], C[Dim * Dim], S[Dim * Dim], A[Dim * Dim], dR[Dim * Dim], dC[Dim * Dim];
  polar_rotation<Dim>(F, R);
  cofactor<Dim>(F, C);
  const double J = det<Dim>(F);
  matmul_at<Dim>(R, F, S);
  matmul_at<Dim>(R, dF, A);  // R^T dF
  double W[Dim * Dim];
  if constexpr (Dim == 2) {
    const double tr = S[0] + S[3];
    const double w = kmath::fabs(tr) > 1e-300 ? (A[2] - A[1]) / tr : 0.0;
    W[0] = 0;
    W[1] = -w;
    W[2] = w;
    W[3] = 0;
    // d cof(F) = cof(dF) (cof is linear in 2D).
    cofactor<2>(dF, dC);
  } else {
    // B = A - A^T; axial(B) = (B_21, B_02, B_10).
    const double b[3] = {A[7] - A[5], A[2] - A[6], A[3] - A[1]};
    const double tr = S[0] + S[4] + S[8];
    double T[9];
    for (int i = 0; i < 9; ++i) T[i] = (i % 4 == 0 ? tr : 0.0) - S[i];
    const double dt = det<3>(T);
    double Tc[9];
    cofactor<3>(T, Tc);  // T^-1 = cof(T)^T / det T
    double w[3] = {0, 0, 0};
    if (kmath::fabs(dt) > 1e-300)
      for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k) w[i] += Tc[k * 3 + i] * b[k] / dt;
    W[0] = 0;     W[1] = -w[2]; W[2] = w[1];
    W[3] = w[2];  W[4] = 0;     W[5] = -w[0];
    W[6] = -w[1]; W[7] = w[0];  W[8] = 0;
    // Columns of cof F: f1 x f2, f2 x f0, f0 x f1; differentiate each product.
    double f[3][3], df[3][3];
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 3; ++i) {
        f[j][i] = F[i * 3 + j];
        df[j][i] = dF[i * 3 + j];
      }
    for (int j = 0; j < 3; ++j) {
      const int a = (j + 1) % 3, c = (j + 2) % 3;
      double u[3], v[3];
      kmath::cross(df[a], f[c], u);
      kmath::cross(f[a], df[c], v);
      for (int i = 0; i < 3; ++i) dC[i * 3 + j] = u[i] + v[i];
    }
  }
  matmul<Dim>(R, W, dR);
  double cdf = 0;
  for (int i = 0; i < Dim * Dim; ++i) cdf += C[i] * dF[i];
  for (int i = 0; i < Dim * Dim; ++i)
    dP[i] = 2 * m.mu * (dF[i] - dR[i]) + m.lambda * cdf * C[i] + m.lambda * (J - 1) * dC[i];
}

}  // namespace meniscus::physics
