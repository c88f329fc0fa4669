#pragma once
// Small 3D scenes of the Ruan et al. 2021 liquid-membrane method shared by the unit, MPI and
// validation tests: a flat pool and a spherical drop in a unit box.
#include <mpi.h>

#include <array>
#include <cmath>
#include <memory>
#include <vector>

#include "methods/membrane/membrane_flow_3d.hpp"

namespace meniscus::test {

struct MembraneScene3 {
  std::unique_ptr<membrane::MacGrid3> grid;
  std::unique_ptr<membrane::MembraneFlow3> flow;
};

inline std::unique_ptr<membrane::MacGrid3> unit_box_grid3(int cells, MPI_Comm comm) {
  const double lower[3] = {0, 0, 0};
  const int n[3] = {cells, cells, cells};
  return std::make_unique<membrane::MacGrid3>(comm, lower, n, 1.0 / cells, "test");
}

// Pool of depth `depth` in [0,1]^3 with `cells` cells per axis; a flat membrane of 2 x 2 triangles
// per cell (edges dx/2) spanning the box, counter-clockwise seen from above. With rigid spheres the
// membrane wraps the submerged part of every sphere the level cuts (wrap_wetted_caps).
inline MembraneScene3 make_pool3(int cells, double depth, membrane::Flow3Parameters p,
                                 membrane::CoupledSolveOptions o = {}, MPI_Comm comm = MPI_COMM_WORLD,
                                 std::vector<membrane::Sphere> bodies = {}) {
  MembraneScene3 s;
  s.grid = unit_box_grid3(cells, comm);
  const double lo[2] = {0, 0}, hi[2] = {1, 1};
  auto mesh = membrane::flat_sheet(lo, hi, depth, 2 * cells);
  membrane::wrap_wetted_caps(mesh, depth, bodies);
  if (p.h == 0) p.h = 0.5 / cells;
  p.closed = false;
  s.flow = std::make_unique<membrane::MembraneFlow3>(*s.grid, membrane::make_triangle_membrane(mesh), p, o,
                                                     std::move(bodies));
  return s;
}

// A sphere of radius r and density rho centred at c, at rest.
inline membrane::Sphere sphere3(const std::array<double, 3>& c, double r, double rho) {
  membrane::Sphere b;
  for (int d = 0; d < 3; ++d) b.c[d] = c[d];
  b.radius = r;
  b.density = rho;
  return b;
}

// Spherical drop of radius r at the box centre (edges at most 0.7 dx; with the l = 2 mode of
// relative amplitude a).
inline MembraneScene3 make_drop3(int cells, double r, membrane::Flow3Parameters p, double a = 0,
                                 membrane::CoupledSolveOptions o = {}, MPI_Comm comm = MPI_COMM_WORLD) {
  MembraneScene3 s;
  s.grid = unit_box_grid3(cells, comm);
  const double dx = 1.0 / cells;
  if (p.h == 0) p.h = 0.5 * dx;
  p.closed = true;
  const auto mesh = membrane::perturbed_sphere({0.5, 0.5, 0.5}, r, a, 0.7 * dx);
  s.flow = std::make_unique<membrane::MembraneFlow3>(*s.grid, membrane::make_triangle_membrane(mesh), p, o);
  return s;
}

inline std::array<double, 2> max_speeds3(MembraneScene3& s) {
  return membrane::max_speeds_3d(*s.grid, s.flow->membrane());
}

}  // namespace meniscus::test
