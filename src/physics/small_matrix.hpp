#pragma once
// Dim x Dim matrices as row-major C arrays inside kernels (Eigen is kept for host-side algebra; these
// helpers compile for every Kokkos backend).
#include "core/kmath.hpp"

namespace meniscus::physics {

template <int Dim>
KOKKOS_INLINE_FUNCTION double det(const double* A) {
  if constexpr (Dim == 2) {
    return A[0] * A[3] - A[1] * A[2];
  } else {
    return A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) + A[2] * (A[3] * A[7] - A[4] * A[6]);
  }
}

// C = A * B^T (tb) or A * B.
template <int Dim>
KOKKOS_INLINE_FUNCTION void matmul(const double* A, const double* B, double* C) {
  for (int i = 0; i < Dim; ++i)
    for (int j = 0; j < Dim; ++j) {
      double s = 0;
      for (int k = 0; k < Dim; ++k) s += A[i * Dim + k] * B[k * Dim + j];
      C[i * Dim + j] = s;
    }
}
template <int Dim>
KOKKOS_INLINE_FUNCTION void matmul_bt(const double* A, const double* B, double* C) {
  for (int i = 0; i < Dim; ++i)
    for (int j = 0; j < Dim; ++j) {
      double s = 0;
      for (int k = 0; k < Dim; ++k) s += A[i * Dim + k] * B[j * Dim + k];
      C[i * Dim + j] = s;
    }
}
template <int Dim>
KOKKOS_INLINE_FUNCTION void matmul_at(const double* A, const double* B, double* C) {
  for (int i = 0; i < Dim; ++i)
    for (int j = 0; j < Dim; ++j) {
      double s = 0;
      for (int k = 0; k < Dim; ++k) s += A[k * Dim + i] * B[k * Dim + j];
      C[i * Dim + j] = s;
    }
}

// Cofactor matrix cof(F) = det(F) F^{-T}, evaluated polynomially (no inverse).
template <int Dim>
KOKKOS_INLINE_FUNCTION void cofactor(const double* F, double* C) {
  if constexpr (Dim == 2) {
    C[0] = F[3];
    C[1] = -F[2];
    C[2] = -F[1];
    C[3] = F[0];
  } else {
    C[0] = F[4] * F[8] - F[5] * F[7];
    C[1] = F[5] * F[6] - F[3] * F[8];
    C[2] = F[3] * F[7] - F[4] * F[6];
    C[3] = F[2] * F[7] - F[1] * F[8];
    C[4] = F[0] * F[8] - F[2] * F[6];
    C[5] = F[1] * F[6] - F[0] * F[7];
    C[6] = F[1] * F[5] - F[2] * F[4];
    C[7] = F[2] * F[3] - F[0] * F[5];
    C[8] = F[0] * F[4] - F[1] * F[3];
  }
}

}  // namespace meniscus::physics
