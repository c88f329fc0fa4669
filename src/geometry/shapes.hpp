#pragma once
// Analytic shapes as signed distance functions (negative inside). A Shape is a small value type that
// kernels capture by copy: one struct for every kind, a switch instead of virtual calls, so the same
// code runs on host and device back-ends.
#include <Kokkos_Core.hpp>

#include <array>

#include "core/kmath.hpp"
#include "geometry/sampled_sdf.hpp"

namespace meniscus::geometry {

enum class ShapeKind { HalfSpace, Box, Sphere, Ellipsoid, Sampled, Cone };

template <int Dim>
struct Shape {
  static_assert(Dim == 2 || Dim == 3, "shapes exist in 2D and 3D");

  ShapeKind kind = ShapeKind::HalfSpace;
  // HalfSpace: a = point on the boundary, b = unit outward normal.
  // Box:       a = lower corner, b = upper corner.
  // Sphere:    a = centre, r = radius (a disc in 2D).
  // Ellipsoid: a = centre, b = semi-axes along the coordinate axes.
  // Cone:      a = apex, b = unit axis from the apex into the solid, r = height (apex to the flat base),
  //            slope = base radius / height = tan(half aperture); a triangle in 2D.
  double a[Dim] = {};
  double b[Dim] = {};
  double r = 0;
  double slope = 0;
  // Swaps inside and outside: a box with inverted = true is the region outside it, which is how a
  // container's walls are described.
  bool inverted = false;
  SampledSdf<Dim> sampled;  // Sampled only

  KOKKOS_INLINE_FUNCTION double distance(const double x[Dim]) const {
    double d = 0;
    switch (kind) {
      case ShapeKind::HalfSpace: d = half_space_distance(x); break;
      case ShapeKind::Box: d = box_distance(x); break;
      case ShapeKind::Sphere: d = sphere_distance(x); break;
      case ShapeKind::Ellipsoid: d = ellipsoid_distance(x); break;
      case ShapeKind::Sampled: d = sampled.distance(x); break;
      case ShapeKind::Cone: d = cone_distance(x, nullptr); break;
    }
    return inverted ? -d : d;
  }

  KOKKOS_INLINE_FUNCTION bool contains(const double x[Dim]) const { return distance(x) < 0; }

  // Unit outward normal: the normalised gradient of distance(). Where the gradient is undefined (a
  // sphere's centre, a box's medial planes) one of the one-sided gradients is returned.
  KOKKOS_INLINE_FUNCTION void normal(const double x[Dim], double n[Dim]) const {
    for (int d = 0; d < Dim; ++d) n[d] = 0;
    switch (kind) {
      case ShapeKind::HalfSpace:
        for (int d = 0; d < Dim; ++d) n[d] = b[d];
        break;
      case ShapeKind::Box: box_gradient(x, n); break;
      case ShapeKind::Sphere:
        for (int d = 0; d < Dim; ++d) n[d] = x[d] - a[d];
        break;
      case ShapeKind::Ellipsoid: ellipsoid_gradient(x, n); break;
      case ShapeKind::Sampled: sampled.normal(x, n); break;
      case ShapeKind::Cone: cone_distance(x, n); break;
    }
    kmath::normalize<Dim>(n);
    if (inverted)
      for (int d = 0; d < Dim; ++d) n[d] = -n[d];
  }

  KOKKOS_INLINE_FUNCTION double half_space_distance(const double x[Dim]) const {
    double s = 0;
    for (int d = 0; d < Dim; ++d) s += (x[d] - a[d]) * b[d];
    return s;
  }

  KOKKOS_INLINE_FUNCTION double sphere_distance(const double x[Dim]) const {
    double y[Dim];
    for (int d = 0; d < Dim; ++d) y[d] = x[d] - a[d];
    return kmath::norm<Dim>(y) - r;
  }

  // Per axis, how far x lies beyond the box's slab (negative: inside the slab). Outside the box the
  // distance is the length of the positive parts; inside, the nearest face is the largest excess.
  KOKKOS_INLINE_FUNCTION double box_distance(const double x[Dim]) const {
    double outside = 0, inside = -kmath::huge;
    for (int d = 0; d < Dim; ++d) {
      const double q = box_excess(x, d);
      if (q > 0) outside += q * q;
      inside = kmath::max(inside, q);
    }
    return outside > 0 ? kmath::sqrt(outside) : kmath::min(inside, 0.0);
  }

  KOKKOS_INLINE_FUNCTION double box_excess(const double x[Dim], int d) const {
    return kmath::fabs(x[d] - 0.5 * (a[d] + b[d])) - 0.5 * (b[d] - a[d]);
  }

  KOKKOS_INLINE_FUNCTION void box_gradient(const double x[Dim], double n[Dim]) const {
    bool outside = false;
    int nearest = 0;
    double best = -kmath::huge;
    for (int d = 0; d < Dim; ++d) {
      const double q = box_excess(x, d);
      const double side = kmath::sign_of(x[d] - 0.5 * (a[d] + b[d]));
      n[d] = q > 0 ? side * q : 0.0;
      outside = outside || q > 0;
      if (q > best) {
        best = q;
        nearest = d;
      }
    }
    if (!outside)
      for (int d = 0; d < Dim; ++d) n[d] = d == nearest ? kmath::sign_of(x[d] - 0.5 * (a[d] + b[d])) : 0.0;
  }

  // A capped cone is the solid of revolution of the triangle apex (0, 0), rim (R, H), base centre
  // (0, H) in the (radial, axial) half-plane, R = slope H. The exact signed distance is the distance to
  // the nearer of its two boundary segments (the slanted side and the base radius; the axis is inside),
  // negative inside. With n != nullptr the gradient is written too: from the nearest boundary point
  // outwards, mapped back from the half-plane (on the axis any radial direction serves).
  KOKKOS_INLINE_FUNCTION double cone_distance(const double x[Dim], double* n) const {
    double y[Dim], axial = 0;
    for (int d = 0; d < Dim; ++d) axial += (x[d] - a[d]) * b[d];
    double radial = 0;
    for (int d = 0; d < Dim; ++d) {
      y[d] = x[d] - a[d] - axial * b[d];
      radial += y[d] * y[d];
    }
    radial = kmath::sqrt(radial);
    const double height = r, rim = slope * r;
    // Side: the segment from the apex to the rim, parameter t in [0, 1].
    const double len2 = rim * rim + height * height;
    const double t = kmath::min(1.0, kmath::max(0.0, (radial * rim + axial * height) / len2));
    const double sr = radial - t * rim, sz = axial - t * height;
    // Base: the segment from the base centre to the rim.
    const double br = radial - kmath::min(rim, radial), bz = axial - height;
    const double side2 = sr * sr + sz * sz, base2 = br * br + bz * bz;
    const bool inside = axial > 0 && axial < height && radial < slope * axial;
    double gr = 0, gz = 0;  // outward gradient in the half-plane
    double dist = 0;
    if (side2 <= base2) {
      dist = kmath::sqrt(side2);
      if (dist > 1e-14) {
        gr = sr / dist;
        gz = sz / dist;
      } else {  // on the side: its outward normal
        gr = height / kmath::sqrt(len2);
        gz = -rim / kmath::sqrt(len2);
      }
    } else {
      dist = kmath::sqrt(base2);
      if (dist > 1e-14) {
        gr = br / dist;
        gz = bz / dist;
      } else {
        gz = 1.0;
      }
    }
    if (inside) {
      gr = -gr;
      gz = -gz;
    }
    if (n != nullptr) {
      for (int d = 0; d < Dim; ++d) n[d] = gz * b[d];
      if (radial > 1e-14) {
        for (int d = 0; d < Dim; ++d) n[d] += gr * y[d] / radial;
      } else {  // on the axis: any direction normal to it
        const int e = kmath::fabs(b[0]) < 0.9 ? 0 : 1;
        double u[Dim];
        for (int d = 0; d < Dim; ++d) u[d] = (d == e ? 1.0 : 0.0) - b[e] * b[d];
        kmath::normalize<Dim>(u);
        for (int d = 0; d < Dim; ++d) n[d] += gr * u[d];
      }
    }
    return inside ? -dist : dist;
  }

  // Exact ellipsoid distance needs a root solve per point; the scaled level set
  // k0 * (k0 - 1) / k1, with k0 = |y / b| and k1 = |y / b^2|, has the exact sign and zero set, is exact
  // for spheres and matches the true distance to first order at the surface, which is what contact
  // and seeding use.
  KOKKOS_INLINE_FUNCTION void ellipsoid_terms(const double x[Dim], double& k0, double& k1) const {
    double s0 = 0, s1 = 0;
    for (int d = 0; d < Dim; ++d) {
      const double y = x[d] - a[d];
      s0 += (y / b[d]) * (y / b[d]);
      s1 += (y / (b[d] * b[d])) * (y / (b[d] * b[d]));
    }
    k0 = kmath::sqrt(s0);
    k1 = kmath::sqrt(s1);
  }

  KOKKOS_INLINE_FUNCTION double ellipsoid_distance(const double x[Dim]) const {
    double k0, k1;
    ellipsoid_terms(x, k0, k1);
    if (k1 == 0) {
      double smallest = b[0];
      for (int d = 1; d < Dim; ++d) smallest = kmath::min(smallest, b[d]);
      return -smallest;
    }
    return k0 * (k0 - 1.0) / k1;
  }

  KOKKOS_INLINE_FUNCTION void ellipsoid_gradient(const double x[Dim], double n[Dim]) const {
    double k0, k1;
    ellipsoid_terms(x, k0, k1);
    if (k1 == 0) {
      for (int d = 0; d < Dim; ++d) n[d] = 0;
      return;
    }
    for (int d = 0; d < Dim; ++d) {
      const double y = x[d] - a[d];
      const double b2 = b[d] * b[d];
      const double dk0 = y / b2 / k0;
      const double dk1 = y / (b2 * b2) / k1;
      n[d] = ((2.0 * k0 - 1.0) * dk0 * k1 - k0 * (k0 - 1.0) * dk1) / (k1 * k1);
    }
  }
};

// Host-side constructors. They validate their arguments and throw std::invalid_argument naming the
// offending value; the deck layer turns that into an InputError with the key path.
template <int Dim>
Shape<Dim> half_space(const std::array<double, Dim>& point, const std::array<double, Dim>& outward_normal);
template <int Dim>
Shape<Dim> box(const std::array<double, Dim>& lower, const std::array<double, Dim>& upper);
template <int Dim>
Shape<Dim> sphere(const std::array<double, Dim>& center, double radius);
template <int Dim>
Shape<Dim> ellipsoid(const std::array<double, Dim>& center, const std::array<double, Dim>& radii);
template <int Dim>
Shape<Dim> sampled(const SampledSdf<Dim>& sdf);
// A capped cone: apex, axis from the apex towards the flat base (normalised here), half aperture in
// radians (0 to pi/2 exclusive) and height.
template <int Dim>
Shape<Dim> cone(const std::array<double, Dim>& apex, const std::array<double, Dim>& axis, double half_aperture,
                double height);
// The same shape with inside and outside swapped.
template <int Dim>
Shape<Dim> complement(Shape<Dim> shape);

// Axis-aligned box enclosing the inside of `shape`; false when the inside is unbounded (half-spaces
// and inverted shapes), in which case lower/upper are left unchanged.
template <int Dim>
bool bounding_box(const Shape<Dim>& shape, std::array<double, Dim>& lower, std::array<double, Dim>& upper);

}  // namespace meniscus::geometry
