#pragma once
// Particle seeding: points of a regular lattice that fall inside a shape. Every rank enumerates the
// same global lattice and keeps the points in the box it owns, so the particle set, and each
// particle's lattice index (its stable global id), do not depend on how the domain is split.
#include <Kokkos_Core.hpp>

#include <array>
#include <cstdint>

#include "geometry/shapes.hpp"

namespace meniscus::geometry {

template <int Dim>
struct Seeds {
  Kokkos::View<double**, Kokkos::LayoutRight> x;                // (particle, axis)
  Kokkos::View<int64_t*> lattice_index;    // increasing; axis 0 fastest within the bbox lattice
};

// The position of lattice point i along an axis whose bounding box starts at `lower`: the one formula
// that seeding (seed_lattice) and counting (box_lattice_points) share.
KOKKOS_INLINE_FUNCTION double lattice_coordinate(double lower, int64_t i, double spacing) {
  return lower + (static_cast<double>(i) + 0.5) * spacing;
}

// Lattice points along an axis of `length`: ceil(length / spacing), where a length that is a whole
// number of spacings up to rounding gains no spurious layer (at least 1). Throws std::invalid_argument
// for a non-positive spacing or length, or a lattice too large to index.
int64_t lattice_count(double length, double spacing);

// Lattice points lattice_coordinate(bbox_lower, i, spacing), i = 0 .. lattice_count(upper - lower) - 1 per
// axis, that are inside `shape` (distance < 0) and inside the half-open box [owned_lower,
// owned_upper). Boxes that tile the domain with shared faces therefore seed every point exactly once.
// Throws std::invalid_argument for a non-positive spacing or an empty bbox.
template <int Dim>
Seeds<Dim> seed_lattice(const Shape<Dim>& shape, std::array<double, Dim> bbox_lower, std::array<double, Dim> bbox_upper,
                        double spacing, std::array<double, Dim> owned_lower, std::array<double, Dim> owned_upper);

// Spacing of a lattice with particles_per_cell points per grid cell of size dx: dx / k with
// k^Dim = particles_per_cell. Throws std::invalid_argument unless particles_per_cell is a perfect
// square (2D) or cube (3D).
double lattice_spacing(double dx, int particles_per_cell, int dim);

// The points seed_lattice keeps of a box source [lower, upper] over the whole domain (its own bounding
// box, no ownership window), counted without making them: a box contains a point exactly when each of
// the point's coordinates lies strictly inside its slab (Shape::box_excess < 0 on every axis), so the
// count is the product over the axes of the lattice indices inside the slab. A face off the lattice
// (upper - lower not a whole number of spacings) keeps the last layer only if its points lie inside.
// Points with a coordinate below keep_lower or above keep_upper on some axis are not counted (the
// MPM methods remove the seeded particles inside the box's wall layers, half-spaces x < lower + wall
// thickness and x > upper - wall thickness). range, when given, gets per axis the first and last lattice
// indices counted (positions lattice_coordinate(lower[d], i, spacing); the count is 0 if last < first on
// an axis). O(Dim): for `meniscus check` (run/resource_plan.cpp).
template <int Dim>
int64_t box_lattice_points(const std::array<double, Dim>& lower, const std::array<double, Dim>& upper, double spacing,
                           const std::array<double, Dim>& keep_lower, const std::array<double, Dim>& keep_upper,
                           std::array<std::array<int64_t, 2>, Dim>* range = nullptr);

}  // namespace meniscus::geometry
