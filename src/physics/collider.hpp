#pragma once
// Colliders act on grid velocities at nodes inside their shape: sticky (move with the collider),
// slip (the normal approach is removed, separation is free), slip-attached (the normal velocity is
// removed both ways: liquid slides along the wall but cannot peel off it, which wetting floors need,
// since nothing else holds a contact line down against the pull of the liquid-gas surface) or Coulomb
// friction (Stomakhin et al. 2013). The set is a fixed-size value so kernels capture it by copy on every backend.
#include "core/kmath.hpp"
#include "geometry/shapes.hpp"

namespace meniscus::physics {

enum class BoundaryType : int { Sticky = 0, Slip = 1, Friction = 2, SlipAttached = 3 };

template <int Dim>
struct Collider {
  geometry::Shape<Dim> shape;
  BoundaryType type = BoundaryType::Slip;
  double friction = 0;  // Coulomb coefficient (Friction only)
  double velocity[Dim] = {};

  // Applies the boundary condition to a grid velocity v at node position x; true if x is inside.
  KOKKOS_INLINE_FUNCTION bool apply(const double* x, double* v) const {
    if (shape.distance(x) > 0) return false;
    if (type == BoundaryType::Sticky) {
      for (int d = 0; d < Dim; ++d) v[d] = velocity[d];
      return true;
    }
    double n[Dim], rel[Dim];
    shape.normal(x, n);
    double vn = 0;
    for (int d = 0; d < Dim; ++d) {
      rel[d] = v[d] - velocity[d];
      vn += rel[d] * n[d];
    }
    if (type == BoundaryType::SlipAttached) {
      for (int d = 0; d < Dim; ++d) rel[d] -= vn * n[d];
    } else if (vn < 0) {
      double t[Dim], tn = 0;
      for (int d = 0; d < Dim; ++d) {
        t[d] = rel[d] - vn * n[d];
        tn += t[d] * t[d];
      }
      tn = kmath::sqrt(tn);
      double scale = 1.0;  // slip keeps the tangential part
      if (type == BoundaryType::Friction) scale = (tn <= -friction * vn) ? 0.0 : 1.0 + friction * vn / tn;
      for (int d = 0; d < Dim; ++d) rel[d] = t[d] * scale;
    }
    for (int d = 0; d < Dim; ++d) v[d] = rel[d] + velocity[d];
    return true;
  }
};

template <int Dim>
struct ColliderSet {
  static constexpr int kMax = 16;
  Collider<Dim> items[kMax];
  int count = 0;

  KOKKOS_INLINE_FUNCTION void apply(const double* x, double* v) const {
    for (int c = 0; c < count; ++c) items[c].apply(x, v);
  }
};

}  // namespace meniscus::physics
