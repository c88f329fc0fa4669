#pragma once
// Colliders act on grid velocities at nodes inside their shape: sticky (move with the collider),
// slip (the normal approach is removed, separation is free), slip-attached (the normal velocity is
// removed both ways: liquid slides along the wall but cannot peel off it) or Coulomb friction
// (Stomakhin et al. 2013). A wetting floor does not need slip-attached to hold its contact line: the
// wetting energy faded over `mpm.surface_tension.wetting_width` (methods/mpm/wetting_adhesion.hpp) pulls
// the liquid back with Young's adhesion on any slip, sticky or friction wall, and lets the contact line
// recede, which slip-attached forbids (its line only advances; docs/theory-mpm-surface-tension.md). The set is a fixed-size value so kernels capture it by copy on
// every backend.
//
// A wetting wall (a collider under the adhesive wetting model, mpm.surface_tension.wetting_width > 0)
// also holds the nodes within one cell outside its shape (hold_distance = dx). The particle collision
// keeps the liquid on the wall's side of its surface, so a liquid layer resting on the wall lies at
// 0 <= phi < dx/2; with only the nodes inside the wall held, such a layer took most of its velocity from
// the first free node row, which lies anywhere from 0 to 1 cell above the wall depending on where the wall
// falls among the node rows. The wall's reaction then reached the liquid only through the next row down,
// up to a cell below the wall, and the compressed bottom layer pushed the contact line out: a 3D drop
// spread 7-15 deg below Young's angle, by 4-6 deg more or less as the wall moved among the node rows
// (docs/theory-mpm-surface-tension.md). Holding every node within a cell puts the held rows at or above
// the wall wherever it lies, and a particle on the wall takes at least 7/8 of its velocity from them.
//
// A collider may also translate rigidly at a prescribed velocity during a time window (a gate being
// lifted, a paddle, a moving wall). The host sets the current displacement once per step with
// ColliderSet::at_time; kernels then see the shape shifted by that displacement and, while it moves,
// a wall velocity that includes the translation, so the conditions act in the moving frame.
#include <algorithm>
#include <limits>

#include "core/kmath.hpp"
#include "geometry/shapes.hpp"

namespace meniscus::physics {

enum class BoundaryType : int { Sticky = 0, Slip = 1, Friction = 2, SlipAttached = 3 };

template <int Dim>
struct Collider {
  geometry::Shape<Dim> shape;
  BoundaryType type = BoundaryType::Slip;
  double friction = 0;  // Coulomb coefficient (Friction only)
  double velocity[Dim] = {};  // surface velocity of the wall (a conveyor); the shape stays put
  // Prescribed rigid translation: the shape moves with `translation` (m/s) for move_start <= t <
  // move_end and rests before and after.
  double translation[Dim] = {};
  double move_start = 0, move_end = std::numeric_limits<double>::infinity();
  // State at the current time (set by ColliderSet::at_time): displacement from the deck position,
  // and whether the translation is under way.
  double offset[Dim] = {};
  bool moving = false;
  // Nodes up to this distance outside the shape are held as well (0: only the nodes inside).
  double hold_distance = 0;

  // Signed distance of point x to the shape at its current position (negative inside).
  KOKKOS_INLINE_FUNCTION double distance(const double* x) const {
    double xs[Dim];
    for (int d = 0; d < Dim; ++d) xs[d] = x[d] - offset[d];
    // The box's walls are half-spaces, asked once per particle and wall by the particle collision and
    // the wall images: spelled out here, since the compiler keeps the general switch out of line.
    if (shape.kind == geometry::ShapeKind::HalfSpace) {
      const double d = shape.half_space_distance(xs);
      return shape.inverted ? -d : d;
    }
    return shape.distance(xs);
  }

  // Whether the condition acts on a grid node at x: inside the shape or within hold_distance of it.
  KOKKOS_INLINE_FUNCTION bool holds(const double* x) const { return distance(x) <= hold_distance; }

  // Applies the boundary condition to a grid velocity v at node position x; true if x is held.
  KOKKOS_INLINE_FUNCTION bool apply(const double* x, double* v) const {
    double xs[Dim], wall[Dim];
    for (int d = 0; d < Dim; ++d) {
      xs[d] = x[d] - offset[d];
      wall[d] = velocity[d] + (moving ? translation[d] : 0.0);
    }
    if (shape.distance(xs) > hold_distance) return false;
    if (type == BoundaryType::Sticky) {
      for (int d = 0; d < Dim; ++d) v[d] = wall[d];
      return true;
    }
    double n[Dim], rel[Dim];
    shape.normal(xs, n);
    double vn = 0;
    for (int d = 0; d < Dim; ++d) {
      rel[d] = v[d] - wall[d];
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
    for (int d = 0; d < Dim; ++d) v[d] = rel[d] + wall[d];
    return true;
  }

  // Places the collider at time t (host side): displacement translation * (time moved so far).
  void place_at(double t) {
    const double moved = std::min(std::max(t - move_start, 0.0), move_end - move_start);
    for (int d = 0; d < Dim; ++d) offset[d] = translation[d] * moved;
    moving = t >= move_start && t < move_end;
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

  // A copy with every collider placed at time t (host side, once per step).
  ColliderSet at_time(double t) const {
    ColliderSet placed = *this;
    for (int c = 0; c < count; ++c) placed.items[c].place_at(t);
    return placed;
  }
};

}  // namespace meniscus::physics
