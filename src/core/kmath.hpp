#pragma once
// Math callable from Kokkos kernels on every backend. Kokkos 3.4 keeps its math functions in
// Kokkos::Experimental and 4.x in Kokkos::; the C library functions work in host and CUDA/HIP
// device code alike, so kernels use these wrappers.
#include <Kokkos_Core.hpp>
#include <math.h>

namespace meniscus::kmath {
KOKKOS_INLINE_FUNCTION double floor(double x) { return ::floor(x); }
KOKKOS_INLINE_FUNCTION double sqrt(double x) { return ::sqrt(x); }
KOKKOS_INLINE_FUNCTION double fabs(double x) { return ::fabs(x); }
KOKKOS_INLINE_FUNCTION double pow(double x, double y) { return ::pow(x, y); }
KOKKOS_INLINE_FUNCTION double atan2(double y, double x) { return ::atan2(y, x); }
KOKKOS_INLINE_FUNCTION double cos(double x) { return ::cos(x); }
KOKKOS_INLINE_FUNCTION double sin(double x) { return ::sin(x); }
KOKKOS_INLINE_FUNCTION bool isfinite(double x) { return ::isfinite(x); }
template <class T>
KOKKOS_INLINE_FUNCTION T min(T a, T b) { return a < b ? a : b; }
template <class T>
KOKKOS_INLINE_FUNCTION T max(T a, T b) { return a > b ? a : b; }
}  // namespace meniscus::kmath
