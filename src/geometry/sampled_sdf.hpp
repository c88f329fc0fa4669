#pragma once
// A signed distance field sampled on a regular lattice, for shapes that have no closed form
// (triangle meshes). Evaluation is multilinear interpolation and runs inside kernels; the struct is
// a view handle plus a few numbers, so copying it into a lambda is cheap.
#include <Kokkos_Core.hpp>

#include <cstdint>

#include "core/kmath.hpp"

namespace meniscus::geometry {

struct TriangleMesh;

template <int Dim>
struct SampledSdf {
  // Lattice node i sits at origin + i * h; values are stored with axis 0 fastest.
  double origin[Dim] = {};
  double h = 0;
  int count[Dim] = {};
  Kokkos::View<double*> values;

  KOKKOS_INLINE_FUNCTION int64_t size() const {
    int64_t n = 1;
    for (int d = 0; d < Dim; ++d) n *= count[d];
    return n;
  }

  KOKKOS_INLINE_FUNCTION int64_t linear(const int i[Dim]) const {
    int64_t idx = 0, stride = 1;
    for (int d = 0; d < Dim; ++d) {
      idx += i[d] * stride;
      stride *= count[d];
    }
    return idx;
  }

  // Beyond the lattice the field continues as the distance to an estimate of the nearest surface
  // point, found from the nearest lattice point p by stepping back along the field's gradient:
  // c = p - v(p) n(p). That is exact for flat and spherical surfaces (elsewhere good to about h, the
  // gradient's error) and continuous at the lattice box. Builders pad the lattice so that v(p) > 0;
  // where it is not (a field cut off by its lattice), v(p) + |x - p| takes over, which agrees with
  // the estimate at v(p) = 0.
  KOKKOS_INLINE_FUNCTION double distance(const double x[Dim]) const {
    int cell[Dim];
    double t[Dim], off[Dim], grad[Dim];
    locate(x, cell, t, off);
    const double v = interpolate(cell, t, grad);
    const double out = kmath::norm<Dim>(off);
    if (out == 0) return v;
    if (v <= 0) return v + out;
    double gap[Dim];
    extrapolated_gap(off, v, grad, gap);
    return kmath::norm<Dim>(gap);
  }

  // Inside the lattice: the gradient of the interpolant, which is piecewise multilinear and so jumps
  // across cell faces. Beyond it: the direction from the estimated nearest surface point.
  KOKKOS_INLINE_FUNCTION void normal(const double x[Dim], double n[Dim]) const {
    int cell[Dim];
    double t[Dim], off[Dim];
    locate(x, cell, t, off);
    const double v = interpolate(cell, t, n);
    const double out = kmath::norm<Dim>(off);
    if (out > 0) {
      if (v > 0) {
        double gap[Dim];
        extrapolated_gap(off, v, n, gap);
        for (int d = 0; d < Dim; ++d) n[d] = gap[d];
      } else {
        // Along a clamped axis only the box-distance term of v + |x - p| changes.
        for (int d = 0; d < Dim; ++d) n[d] = off[d] != 0 ? off[d] / out : n[d];
      }
    }
    kmath::normalize<Dim>(n);
  }

  // x - c for the nearest-point estimate c = p - v n(p), given off = x - p and the raw gradient.
  KOKKOS_INLINE_FUNCTION void extrapolated_gap(const double off[Dim], double v, const double grad[Dim],
                                               double gap[Dim]) const {
    double n[Dim];
    for (int d = 0; d < Dim; ++d) n[d] = grad[d];
    kmath::normalize<Dim>(n);
    for (int d = 0; d < Dim; ++d) gap[d] = off[d] + v * n[d];
  }

  // Cell containing the clamped point, local coordinates in [0, 1] and the offset of x from the
  // lattice box (zero inside).
  KOKKOS_INLINE_FUNCTION void locate(const double x[Dim], int cell[Dim], double t[Dim], double off[Dim]) const {
    for (int d = 0; d < Dim; ++d) {
      const double hi = origin[d] + (count[d] - 1) * h;
      const double p = kmath::clamp(x[d], origin[d], hi);
      off[d] = x[d] - p;
      const double s = (p - origin[d]) / h;
      int c = static_cast<int>(kmath::floor(s));
      c = c < 0 ? 0 : (c > count[d] - 2 ? count[d] - 2 : c);
      cell[d] = c;
      t[d] = kmath::clamp(s - c, 0.0, 1.0);
    }
  }

  // Multilinear value in `cell` at local coordinates t, and its gradient in physical units.
  KOKKOS_INLINE_FUNCTION double interpolate(const int cell[Dim], const double t[Dim], double grad[Dim]) const {
    double value = 0;
    for (int d = 0; d < Dim; ++d) grad[d] = 0;
    for (int corner = 0; corner < (1 << Dim); ++corner) {
      int node[Dim];
      double w[Dim];
      for (int d = 0; d < Dim; ++d) {
        const int bit = (corner >> d) & 1;
        node[d] = cell[d] + bit;
        w[d] = bit ? t[d] : 1.0 - t[d];
      }
      const double v = values(linear(node));
      double weight = 1;
      for (int d = 0; d < Dim; ++d) weight *= w[d];
      value += weight * v;
      for (int d = 0; d < Dim; ++d) {
        double others = 1;
        for (int e = 0; e < Dim; ++e)
          if (e != d) others *= w[e];
        grad[d] += (((corner >> d) & 1) ? 1.0 : -1.0) * others * v / h;
      }
    }
    return value;
  }
};

// Samples the signed distance of a closed, outward-oriented mesh (as load_obj returns it) on a
// lattice of spacing h that covers the mesh's bounding box plus padding_cells (>= 1) cells on every
// side. Distances are exact point-triangle distances; the sign comes from counting oriented
// crossings of the mesh along each lattice row. Throws std::invalid_argument on bad arguments.
SampledSdf<3> sdf_from_mesh(const TriangleMesh& mesh, double h, int padding_cells);

}  // namespace meniscus::geometry
