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
// Larger than any distance a deck can describe, yet finite so that sums and squares stay finite.
constexpr double huge = 1e300;

KOKKOS_INLINE_FUNCTION double clamp(double v, double lo, double hi) { return v < lo ? lo : (v > hi ? hi : v); }
KOKKOS_INLINE_FUNCTION double sign_of(double v) { return v < 0 ? -1.0 : 1.0; }

template <int Dim>
KOKKOS_INLINE_FUNCTION double dot(const double a[Dim], const double b[Dim]) {
  double s = 0;
  for (int d = 0; d < Dim; ++d) s += a[d] * b[d];
  return s;
}

template <int Dim>
KOKKOS_INLINE_FUNCTION double norm(const double a[Dim]) { return sqrt(dot<Dim>(a, a)); }

// Scales `v` to unit length; a zero vector (a point where the gradient vanishes, e.g. a sphere's
// centre) becomes the first axis so that callers always receive a usable direction.
template <int Dim>
KOKKOS_INLINE_FUNCTION void normalize(double v[Dim]) {
  const double len = norm<Dim>(v);
  if (len > 0) {
    for (int d = 0; d < Dim; ++d) v[d] /= len;
  } else {
    for (int d = 0; d < Dim; ++d) v[d] = d == 0 ? 1.0 : 0.0;
  }
}

KOKKOS_INLINE_FUNCTION void cross(const double a[3], const double b[3], double out[3]) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

}  // namespace meniscus::kmath
