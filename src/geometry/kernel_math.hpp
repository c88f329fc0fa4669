#pragma once
// Math that geometry kernels call. Kokkos moved its math functions from Kokkos::Experimental to
// Kokkos in 4.0; naming them once here keeps every kernel compiling against 3.4 through 4.x and for
// device back-ends, where std:: math is not guaranteed to be callable.
#include <Kokkos_Core.hpp>

namespace meniscus::geometry::kmath {

#if KOKKOS_VERSION >= 40000
using Kokkos::fabs;
using Kokkos::floor;
using Kokkos::sqrt;
#else
using Kokkos::Experimental::fabs;
using Kokkos::Experimental::floor;
using Kokkos::Experimental::sqrt;
#endif

// Larger than any distance a deck can describe, yet finite so that sums and squares stay finite.
constexpr double huge = 1e300;

KOKKOS_INLINE_FUNCTION double min(double a, double b) { return a < b ? a : b; }
KOKKOS_INLINE_FUNCTION double max(double a, double b) { return a > b ? a : b; }
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

}  // namespace meniscus::geometry::kmath
