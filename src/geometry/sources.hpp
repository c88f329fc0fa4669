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

// Lattice points bbox_lower + (i + 0.5) * spacing, i = 0 .. ceil((upper - lower) / spacing) - 1 per
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

}  // namespace meniscus::geometry
