#pragma once
// Projection of a small symmetric matrix onto the positive semi-definite cone: eigen-decompose with
// cyclic Jacobi rotations and clamp negative eigenvalues to zero. Newton's method needs a definite
// Hessian for CG; the 3D surface energy and the fixed-corotated solid have indefinite parts (Chen et al.
// 2021, Sec. 4.3.1). Written for kernels (no allocation, no Eigen), for N up to 9.
#include "core/kmath.hpp"

namespace meniscus::physics {

// A (N x N, row-major, symmetric) is replaced by V max(Lambda, 0) V^T. Returns whether A changed
// (false: A had no negative eigenvalue and is kept exactly).
template <int N>
KOKKOS_INLINE_FUNCTION bool project_psd(double* A) {
  double V[N * N], D[N * N];
  for (int i = 0; i < N * N; ++i) {
    D[i] = A[i];
    V[i] = (i % (N + 1) == 0) ? 1.0 : 0.0;
  }
  double scale = 0;
  for (int i = 0; i < N * N; ++i) scale += D[i] * D[i];
  if (!(scale > 0)) return false;
  for (int sweep = 0; sweep < 30; ++sweep) {
    double off = 0;
    for (int p = 0; p < N; ++p)
      for (int q = p + 1; q < N; ++q) off += D[p * N + q] * D[p * N + q];
    if (off <= 1e-32 * scale) break;
    for (int p = 0; p < N; ++p)
      for (int q = p + 1; q < N; ++q) {
        const double apq = D[p * N + q];
        if (kmath::fabs(apq) < 1e-300) continue;
        const double theta = (D[q * N + q] - D[p * N + p]) / (2.0 * apq);
        const double t = (theta >= 0 ? 1.0 : -1.0) / (kmath::fabs(theta) + kmath::sqrt(theta * theta + 1.0));
        const double c = 1.0 / kmath::sqrt(t * t + 1.0), s = t * c;
        for (int k = 0; k < N; ++k) {  // columns p, q
          const double dkp = D[k * N + p], dkq = D[k * N + q];
          D[k * N + p] = c * dkp - s * dkq;
          D[k * N + q] = s * dkp + c * dkq;
        }
        for (int k = 0; k < N; ++k) {  // rows p, q
          const double dpk = D[p * N + k], dqk = D[q * N + k];
          D[p * N + k] = c * dpk - s * dqk;
          D[q * N + k] = s * dpk + c * dqk;
        }
        for (int k = 0; k < N; ++k) {
          const double vkp = V[k * N + p], vkq = V[k * N + q];
          V[k * N + p] = c * vkp - s * vkq;
          V[k * N + q] = s * vkp + c * vkq;
        }
      }
  }
  bool negative = false;
  for (int i = 0; i < N; ++i) negative = negative || D[i * N + i] < 0;
  if (!negative) return false;  // already PSD: keep A exactly (no round-off from the reconstruction)
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      double s = 0;
      for (int k = 0; k < N; ++k) {
        const double l = D[k * N + k];
        if (l > 0) s += V[i * N + k] * l * V[j * N + k];
      }
      A[i * N + j] = s;
    }
  return true;
}

}  // namespace meniscus::physics
