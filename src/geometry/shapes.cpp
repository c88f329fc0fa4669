#include "geometry/shapes.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace meniscus::geometry {
namespace {

template <int Dim>
void require_finite(const std::array<double, Dim>& v, const char* what) {
  for (double c : v)
    if (!std::isfinite(c)) throw std::invalid_argument(std::string(what) + " has a non-finite component");
}

}  // namespace

template <int Dim>
Shape<Dim> half_space(const std::array<double, Dim>& point, const std::array<double, Dim>& outward_normal) {
  require_finite<Dim>(point, "half-space point");
  require_finite<Dim>(outward_normal, "half-space normal");
  double len = 0;
  for (double c : outward_normal) len += c * c;
  len = std::sqrt(len);
  if (!(len > 0)) throw std::invalid_argument("half-space normal is the zero vector");
  Shape<Dim> s;
  s.kind = ShapeKind::HalfSpace;
  for (int d = 0; d < Dim; ++d) {
    s.a[d] = point[d];
    s.b[d] = outward_normal[d] / len;
  }
  return s;
}

template <int Dim>
Shape<Dim> box(const std::array<double, Dim>& lower, const std::array<double, Dim>& upper) {
  require_finite<Dim>(lower, "box lower corner");
  require_finite<Dim>(upper, "box upper corner");
  Shape<Dim> s;
  s.kind = ShapeKind::Box;
  for (int d = 0; d < Dim; ++d) {
    if (!(upper[d] > lower[d]))
      throw std::invalid_argument("box upper corner must exceed the lower corner along axis " + std::to_string(d));
    s.a[d] = lower[d];
    s.b[d] = upper[d];
  }
  return s;
}

template <int Dim>
Shape<Dim> sphere(const std::array<double, Dim>& center, double radius) {
  require_finite<Dim>(center, "sphere centre");
  if (!(radius > 0) || !std::isfinite(radius)) throw std::invalid_argument("sphere radius must be positive and finite");
  Shape<Dim> s;
  s.kind = ShapeKind::Sphere;
  for (int d = 0; d < Dim; ++d) s.a[d] = center[d];
  s.r = radius;
  return s;
}

template <int Dim>
Shape<Dim> ellipsoid(const std::array<double, Dim>& center, const std::array<double, Dim>& radii) {
  require_finite<Dim>(center, "ellipsoid centre");
  require_finite<Dim>(radii, "ellipsoid radii");
  Shape<Dim> s;
  s.kind = ShapeKind::Ellipsoid;
  for (int d = 0; d < Dim; ++d) {
    if (!(radii[d] > 0)) throw std::invalid_argument("ellipsoid radius along axis " + std::to_string(d) + " must be positive");
    s.a[d] = center[d];
    s.b[d] = radii[d];
  }
  return s;
}

template <int Dim>
Shape<Dim> sampled(const SampledSdf<Dim>& sdf) {
  for (int d = 0; d < Dim; ++d)
    if (sdf.count[d] < 2) throw std::invalid_argument("sampled distance field needs at least 2 nodes per axis");
  if (!(sdf.h > 0)) throw std::invalid_argument("sampled distance field has a non-positive spacing");
  if (static_cast<int64_t>(sdf.values.extent(0)) != sdf.size())
    throw std::invalid_argument("sampled distance field has the wrong number of values");
  Shape<Dim> s;
  s.kind = ShapeKind::Sampled;
  s.sampled = sdf;
  return s;
}

template <int Dim>
Shape<Dim> cone(const std::array<double, Dim>& apex, const std::array<double, Dim>& axis, double half_aperture,
                double height) {
  require_finite<Dim>(apex, "cone apex");
  require_finite<Dim>(axis, "cone axis");
  double len = 0;
  for (double c : axis) len += c * c;
  len = std::sqrt(len);
  if (!(len > 0)) throw std::invalid_argument("cone axis is the zero vector");
  if (!(half_aperture > 0) || !(half_aperture < 0.5 * M_PI))
    throw std::invalid_argument("cone half aperture must lie strictly between 0 and 90 degrees");
  if (!(height > 0) || !std::isfinite(height)) throw std::invalid_argument("cone height must be positive and finite");
  Shape<Dim> s;
  s.kind = ShapeKind::Cone;
  for (int d = 0; d < Dim; ++d) {
    s.a[d] = apex[d];
    s.b[d] = axis[d] / len;
  }
  s.r = height;
  s.slope = std::tan(half_aperture);
  return s;
}

template <int Dim>
Shape<Dim> complement(Shape<Dim> shape) {
  shape.inverted = !shape.inverted;
  return shape;
}

template <int Dim>
bool bounding_box(const Shape<Dim>& shape, std::array<double, Dim>& lower, std::array<double, Dim>& upper) {
  if (shape.inverted) return false;
  for (int d = 0; d < Dim; ++d) {
    switch (shape.kind) {
      case ShapeKind::HalfSpace: return false;
      case ShapeKind::Box:
        lower[d] = shape.a[d];
        upper[d] = shape.b[d];
        break;
      case ShapeKind::Sphere:
        lower[d] = shape.a[d] - shape.r;
        upper[d] = shape.a[d] + shape.r;
        break;
      case ShapeKind::Ellipsoid:
        lower[d] = shape.a[d] - shape.b[d];
        upper[d] = shape.a[d] + shape.b[d];
        break;
      case ShapeKind::Sampled:
        // Builders pad the lattice so that the field beyond it is positive: the box encloses the inside.
        lower[d] = shape.sampled.origin[d];
        upper[d] = shape.sampled.origin[d] + (shape.sampled.count[d] - 1) * shape.sampled.h;
        break;
      case ShapeKind::Cone: {
        // The apex and the base disc (radius R = slope H, centre c): along axis d the disc reaches
        // R sqrt(1 - b_d^2) either side of c.
        const double c = shape.a[d] + shape.r * shape.b[d];
        const double reach = shape.slope * shape.r * std::sqrt(std::max(0.0, 1.0 - shape.b[d] * shape.b[d]));
        lower[d] = std::min(shape.a[d], c - reach);
        upper[d] = std::max(shape.a[d], c + reach);
        break;
      }
    }
  }
  return true;
}

#define MENISCUS_INSTANTIATE_SHAPES(D)                                                                     \
  template Shape<D> half_space<D>(const std::array<double, D>&, const std::array<double, D>&);            \
  template Shape<D> box<D>(const std::array<double, D>&, const std::array<double, D>&);                   \
  template Shape<D> sphere<D>(const std::array<double, D>&, double);                                      \
  template Shape<D> ellipsoid<D>(const std::array<double, D>&, const std::array<double, D>&);             \
  template Shape<D> sampled<D>(const SampledSdf<D>&);                                                     \
  template Shape<D> cone<D>(const std::array<double, D>&, const std::array<double, D>&, double, double);  \
  template Shape<D> complement<D>(Shape<D>);                                                              \
  template bool bounding_box<D>(const Shape<D>&, std::array<double, D>&, std::array<double, D>&);

MENISCUS_INSTANTIATE_SHAPES(2)
MENISCUS_INSTANTIATE_SHAPES(3)

}  // namespace meniscus::geometry
