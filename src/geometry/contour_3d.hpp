#pragma once
// Zero isosurface of a node-sampled level set on a uniform 3D lattice, and Monte Carlo sampling of
// it with area-weighted normals (Chen et al. 2021, stage 2, in 3D). The surface comes from marching
// tetrahedra on the Kuhn triangulation of each cell (six tetrahedra around the main diagonal): every
// cell face is split the same way from both sides, so the surface is closed and free of the ambiguous
// cases of plain marching cubes, at the price of more, smaller triangles.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "geometry/contour_2d.hpp"

namespace meniscus::geometry {

// A block of n[0] x n[1] x n[2] nodes of a global lattice (origin `lower`, spacing h) starting at
// global node `offset`; phi(i + n0 (j + n1 k)).
struct Lattice3D {
  double lower[3];
  double h;
  int n[3];
  int64_t offset[3];
};

struct Triangles3D {
  Kokkos::View<double* [3][3]> corners;  // (triangle, corner, xyz); outward normal along (b-a) x (c-a)
  Kokkos::View<int64_t*> key;            // global cell index * 12 + local triangle index
  size_t size() const { return corners.extent(0); }
};

// Contours the block's cells [cell_lo, cell_hi); global_n[0..1] make the triangle keys global.
Triangles3D marching_tetrahedra(const Kokkos::View<const double*>& phi, const Lattice3D& lattice, const int cell_lo[3],
                                const int cell_hi[3], const int64_t global_n[2]);

struct SurfaceSamples3D {
  Kokkos::View<double* [3]> position;
  Kokkos::View<double* [3]> area;
  size_t size() const { return position.extent(0); }
};

// Poisson sampling per cell element (its triangles; Osada et al. 2002 uniform points), as sample_segments in 2D.
// Stratified placement (stratified = true): n = max(1, round(density A)) samples per element of area A, each with
// |dA| = A/n, at the midpoints of n equal parts of the element's area (counted triangle by triangle, as 2D counts
// arc length), spread across each part by a golden-ratio sequence; the same points every step, for any seed.
SurfaceSamples3D sample_triangles(const Triangles3D& triangles, double density, AreaWeight weight, uint64_t seed,
                                  int64_t step, bool stratified = false);

}  // namespace meniscus::geometry
