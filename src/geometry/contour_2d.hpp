#pragma once
// Zero contour of a node-sampled level set on a uniform 2D lattice (marching squares), and Monte
// Carlo sampling of the contour with area-weighted normals — stages 1-2 of the surface resampling of
// Chen et al. 2021, Sec. 4.1.1, in 2D. Segments are oriented so that their outward normal points
// along +grad(phi); saddle cells are resolved by the value at the cell centre, so the contour is
// closed and consistent across neighbouring cells (and therefore across ranks, which contour only
// the cells they own).
#include <Kokkos_Core.hpp>
#include <cstdint>

namespace meniscus::geometry {

// A block of n[0] x n[1] nodes of a global lattice with origin `lower` and spacing h, starting at
// global node `offset`: node (i, j) of the block sits at lower + (offset + (i, j)) h, and phi is stored
// x-fastest, phi(i + n[0] j). Positions are computed from global indices so that every rank computes
// bit-identical contours for the cells it shares with its neighbours.
struct Lattice2D {
  double lower[2];
  double h;
  int n[2];
  int64_t offset[2];
};

struct Segments2D {
  Kokkos::View<double* [2][2]> ends;  // (segment, endpoint a/b, x/y); outward normal = rot(-90)(b - a)
  Kokkos::View<int64_t*> key;         // global cell index * 2 + k: a stable, decomposition-free id
  size_t size() const { return ends.extent(0); }
};

// Contours the block's cells [cell_lo, cell_hi) (cell (i, j) spans nodes i..i+1, j..j+1); global_nx
// (the global node count in x) makes the segment keys global.
Segments2D marching_squares(const Kokkos::View<const double*>& phi, const Lattice2D& lattice, const int cell_lo[2],
                            const int cell_hi[2], int64_t global_nx);

struct SurfaceSamples2D {
  Kokkos::View<double* [2]> position;  // s_r on the contour
  Kokkos::View<double* [2]> area;      // dA_r = |dA| n_hat (length-weighted outward normal)
  size_t size() const { return position.extent(0); }
};

enum class AreaWeight { PerElement, Uniform };

// Sampling draws per element: the part of the contour inside one lattice cell (its one or two
// segments in 2D, its up to 12 triangles in 3D), so that |dA| sums to the element's measure. The paper
// draws per triangle; with Poisson counts a small element is often left empty and its area lost. The
// Kuhn triangulation's slivers lost 12 % of a sphere's area that way at 16 samples per cell area, and
// 2D segments 4 %; the surface force, the Laplace pressure and the Rayleigh frequency fell with it.
// Per cell, and with at least one sample per element (PerElement), the sampled area is the contour's.
//
// Poisson sampling: element E of measure L draws n ~ Poisson(density L) points, uniform on E, each
// with |dA| = L/n and n >= 1 (PerElement), or |dA| = 1/density and possibly n = 0 (Uniform, unbiased
// only in expectation). The random numbers come from a counter-based hash of (seed, step, global cell
// index, draw), so the samples do not depend on the rank count or the thread schedule.
// Stratified placement (stratified = true) replaces the random draw by a deterministic midpoint rule:
// n = max(1, round(density L)) points at the centres of n equal parts of E, each with |dA| = L/n
// (weight is then irrelevant). It removes the random imbalance of the sample forces between
// neighbouring nodes, which backward Euler at large steps answers with spurious tangential flow
// (docs/theory-mpm-implicit.md).
SurfaceSamples2D sample_segments(const Segments2D& segments, double density, AreaWeight weight, uint64_t seed,
                                 int64_t step, bool stratified = false);

// The elements of a contour: first(e) is the index of element e's first segment or triangle, and
// first(elements) the total count. Runs of consecutive keys with the same key / per_cell (one lattice
// cell); marching_squares and marching_tetrahedra emit a cell's pieces together.
Kokkos::View<int*> cell_elements(const Kokkos::View<const int64_t*>& key, int per_cell);

// Counter-based uniform random number in [0, 1) (splitmix64 finaliser over the combined counter).
KOKKOS_INLINE_FUNCTION double hashed_uniform(uint64_t seed, int64_t a, int64_t b, int64_t c) {
  uint64_t z = seed ^ (static_cast<uint64_t>(a) * 0x9E3779B97F4A7C15ull) ^ (static_cast<uint64_t>(b) * 0xC2B2AE3D27D4EB4Full) ^
               (static_cast<uint64_t>(c) * 0x165667B19E3779F9ull);
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z = z ^ (z >> 31);
  return static_cast<double>(z >> 11) * (1.0 / 9007199254740992.0);
}

// Poisson-distributed count with mean lambda, by inversion of the cumulative distribution with the
// hashed uniform number of (seed, step, key) (so every rank draws the same count for an element).
// exp(-lambda) underflows past lambda ~ 745, so a larger mean is the sum of ceil(lambda / 500)
// independent counts (draws -1, -2, ...), each inverted on its own; for lambda <= 500 that is the
// single draw -1.
KOKKOS_INLINE_FUNCTION int hashed_poisson(uint64_t seed, int64_t step, int64_t key, double lambda) {
  const int parts = lambda > 500 ? static_cast<int>(::ceil(lambda / 500)) : 1;
  const double part = lambda / parts;
  int total = 0;
  for (int j = 0; j < parts; ++j) {
    const double u = hashed_uniform(seed, step, key, -1 - j);
    double p = ::exp(-part), cdf = p;
    int k = 0;
    while (u > cdf && k < 2000) {
      ++k;
      p *= part / k;
      cdf += p;
    }
    total += k;
  }
  return total;
}

}  // namespace meniscus::geometry
