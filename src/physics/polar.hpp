#pragma once
// Rotation of the sign-corrected polar decomposition F = R S with det R = +1 (Irving et al. 2004):
// the rotation that maximises tr(R^T F), defined for inverted F too. 2D is closed form; 3D goes
// through a Jacobi eigen-decomposition of F^T F and a Givens QR of F V (McAdams et al. 2011 style),
// which keeps det U = det V = +1 and lets the smallest singular value carry the sign.
#include "physics/small_matrix.hpp"

namespace meniscus::physics {

namespace detail {
// Symmetric 3x3 Jacobi: A = V diag(l) V^T; V accumulates the rotations (det V = +1).
KOKKOS_INLINE_FUNCTION void jacobi_eigen3(double* A, double* V) {
  for (int i = 0; i < 9; ++i) V[i] = (i % 4 == 0) ? 1.0 : 0.0;
  for (int sweep = 0; sweep < 12; ++sweep) {
    const double off = A[1] * A[1] + A[2] * A[2] + A[5] * A[5];
    const double diag = A[0] * A[0] + A[4] * A[4] + A[8] * A[8];
    if (off <= 1e-30 * diag || off == 0.0) break;
    for (int pq = 0; pq < 3; ++pq) {
      const int p = pq == 2 ? 1 : 0;
      const int q = pq == 0 ? 1 : 2;
      const double apq = A[p * 3 + q];
      if (kmath::fabs(apq) < 1e-300) continue;
      const double app = A[p * 3 + p], aqq = A[q * 3 + q];
      const double theta = (aqq - app) / (2.0 * apq);
      const double t = (theta >= 0 ? 1.0 : -1.0) / (kmath::fabs(theta) + kmath::sqrt(theta * theta + 1.0));
      const double c = 1.0 / kmath::sqrt(t * t + 1.0), s = t * c;
      // A <- J^T A J with J the rotation in the (p,q) plane.
      for (int k = 0; k < 3; ++k) {
        const double akp = A[k * 3 + p], akq = A[k * 3 + q];
        A[k * 3 + p] = c * akp - s * akq;
        A[k * 3 + q] = s * akp + c * akq;
      }
      for (int k = 0; k < 3; ++k) {
        const double apk = A[p * 3 + k], aqk = A[q * 3 + k];
        A[p * 3 + k] = c * apk - s * aqk;
        A[q * 3 + k] = s * apk + c * aqk;
      }
      for (int k = 0; k < 3; ++k) {
        const double vkp = V[k * 3 + p], vkq = V[k * 3 + q];
        V[k * 3 + p] = c * vkp - s * vkq;
        V[k * 3 + q] = s * vkp + c * vkq;
      }
    }
  }
}

KOKKOS_INLINE_FUNCTION void swap_columns(double* M, int a, int b) {
  for (int k = 0; k < 3; ++k) {
    const double t = M[k * 3 + a];
    M[k * 3 + a] = M[k * 3 + b];
    M[k * 3 + b] = t;
  }
}

// Givens rotation that zeroes B[row][col] against B[pivot][col]; applied as B <- G^T B, U <- U G.
KOKKOS_INLINE_FUNCTION void givens_qr_step(double* B, double* U, int pivot, int row, int col) {
  const double a = B[pivot * 3 + col], b = B[row * 3 + col];
  const double r = kmath::sqrt(a * a + b * b);
  double c = 1.0, s = 0.0;
  if (r > 1e-300) {
    c = a / r;
    s = b / r;
  }
  for (int k = 0; k < 3; ++k) {
    const double bp = B[pivot * 3 + k], br = B[row * 3 + k];
    B[pivot * 3 + k] = c * bp + s * br;
    B[row * 3 + k] = -s * bp + c * br;
  }
  for (int k = 0; k < 3; ++k) {
    const double up = U[k * 3 + pivot], ur = U[k * 3 + row];
    U[k * 3 + pivot] = c * up + s * ur;
    U[k * 3 + row] = -s * up + c * ur;
  }
}
}  // namespace detail

// F = U diag(sigma) V^T with det U = det V = +1, sigma sorted descending in magnitude except that
// sigma[Dim-1] may be negative (inversion).
KOKKOS_INLINE_FUNCTION void svd3(const double* F, double* U, double* sigma, double* V) {
  double A[9];
  matmul_at<3>(F, F, A);
  detail::jacobi_eigen3(A, V);
  double l[3] = {A[0], A[4], A[8]};
  // Sort eigenvalues descending, swapping V's columns (a swap flips det V; fix by negating).
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2 - i; ++j)
      if (l[j] < l[j + 1]) {
        const double t = l[j];
        l[j] = l[j + 1];
        l[j + 1] = t;
        detail::swap_columns(V, j, j + 1);
        for (int k = 0; k < 3; ++k) V[k * 3 + j + 1] = -V[k * 3 + j + 1];
      }
  double B[9];
  matmul<3>(F, V, B);
  for (int i = 0; i < 9; ++i) U[i] = (i % 4 == 0) ? 1.0 : 0.0;
  detail::givens_qr_step(B, U, 0, 1, 0);
  detail::givens_qr_step(B, U, 0, 2, 0);
  detail::givens_qr_step(B, U, 1, 2, 1);
  sigma[0] = B[0];
  sigma[1] = B[4];
  sigma[2] = B[8];
  // Make the first two singular values non-negative by flipping U's columns in pairs with the last.
  for (int i = 0; i < 2; ++i)
    if (sigma[i] < 0) {
      sigma[i] = -sigma[i];
      sigma[2] = -sigma[2];
      for (int k = 0; k < 3; ++k) {
        U[k * 3 + i] = -U[k * 3 + i];
        U[k * 3 + 2] = -U[k * 3 + 2];
      }
    }
}

template <int Dim>
KOKKOS_INLINE_FUNCTION void polar_rotation(const double* F, double* R) {
  if constexpr (Dim == 2) {
    const double a = F[0] + F[3], b = F[2] - F[1];
    const double r = kmath::sqrt(a * a + b * b);
    const double c = r > 1e-300 ? a / r : 1.0, s = r > 1e-300 ? b / r : 0.0;
    R[0] = c;
    R[1] = -s;
    R[2] = s;
    R[3] = c;
  } else {
    double U[9], sig[3], V[9];
    svd3(F, U, sig, V);
    matmul_bt<3>(U, V, R);
  }
}

}  // namespace meniscus::physics
