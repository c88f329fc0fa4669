#pragma once
// Reading a sessile drop's contact angle from its sampled liquid-gas surface (the contact-angle validation
// tests): an algebraic least-squares circle (2D) or sphere (3D) through the samples (Kasa 1976: minimise
// sum (|x|^2 + D.x + F)^2, linear in D and F), cut with a plane parallel to the floor.
#include <mpi.h>

#include <algorithm>
#include <cmath>

namespace meniscus::test {

// The normal equations of the Kasa fit, summed point by point on each rank; solve() sums them over the ranks.
template <int Dim>
struct KasaFit {
  double A[Dim + 1][Dim + 2] = {};

  void add(const double* x) {
    double row[Dim + 1], rhs = 0;
    for (int d = 0; d < Dim; ++d) {
      row[d] = x[d];
      rhs -= x[d] * x[d];
    }
    row[Dim] = 1.0;
    for (int a = 0; a <= Dim; ++a) {
      for (int b = 0; b <= Dim; ++b) A[a][b] += row[a] * row[b];
      A[a][Dim + 1] += row[a] * rhs;
    }
  }

  // Collective: the centre and radius of the points of all ranks (Gauss-Jordan on the normal equations).
  void solve(MPI_Comm comm, double* centre, double& radius) {
    MPI_Allreduce(MPI_IN_PLACE, &A[0][0], (Dim + 1) * (Dim + 2), MPI_DOUBLE, MPI_SUM, comm);
    for (int c = 0; c <= Dim; ++c)
      for (int r = 0; r <= Dim; ++r) {
        if (r == c) continue;
        const double f = A[r][c] / A[c][c];
        for (int k = 0; k < Dim + 2; ++k) A[r][k] -= f * A[c][k];
      }
    double c2 = 0;
    for (int d = 0; d < Dim; ++d) {
      centre[d] = -A[d][Dim + 1] / A[d][d] / 2;
      c2 += centre[d] * centre[d];
    }
    radius = std::sqrt(c2 - A[Dim][Dim + 1] / A[Dim][Dim]);
  }
};

// The angle at which a circle or sphere of radius R whose centre lies `height_of_centre` above a plane meets
// it, measured inside the liquid: theta = arccos(-h / R) (180 deg when the sphere clears the plane).
inline double cut_angle_deg(double height_of_centre, double R) {
  return std::acos(std::max(-1.0, std::min(1.0, -height_of_centre / R))) * 180 / M_PI;
}

// The sampled surface lies outside the liquid by this many cells (the level set's offset): the sphere fitted
// to seeded 3D caps at t = 0.02 s is larger than the cap by 0.58, 0.53, 0.55 dx at 100, 130, 150 deg (R = 4 dx)
// and 0.61, 0.54 dx at 50 and 150 deg (R = 6 dx).
constexpr double kSampledSurfaceOffset = 0.55;

// The 3D contact angle: the fitted sphere less the sampled surface's offset, cut with the floor plane. Cut with
// the floor plane at its own radius, the sphere reads a cap of Young's angle low by arccos(R cos(theta) /
// (R + 0.55 dx)) (99.0, 124.7, 140.1 deg for 100, 130, 150 deg caps at R = 4 dx); less the offset the same caps
// read 100.1, 130.2, 150.6 deg.
inline double contact_angle_3d_deg(double centre_height_above_floor, double fitted_radius, double dx) {
  return cut_angle_deg(centre_height_above_floor, fitted_radius - kSampledSurfaceOffset * dx);
}

}  // namespace meniscus::test
