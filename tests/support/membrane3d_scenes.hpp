#pragma once
// Small 3D scenes of the Ruan et al. 2021 liquid-membrane method shared by the unit, MPI and
// validation tests: a flat pool and a spherical drop in a unit box.
#include <mpi.h>

#include <algorithm>
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

// Pool of depth `depth` in the box [0, cells dx]^2 x [0, layers dx] (lower corner at the origin); a
// flat membrane of 2 x 2 triangles per cell (edges dx/2) spanning the box, counter-clockwise seen from
// above. With rigid bodies the membrane wraps the submerged part of every body the level cuts
// (wrap_wetted_caps).
inline MembraneScene3 make_pool3_box(int cells, int layers, double dx, double depth, membrane::Flow3Parameters p,
                                     membrane::CoupledSolveOptions o = {}, MPI_Comm comm = MPI_COMM_WORLD,
                                     std::vector<membrane::RigidBody3> bodies = {}) {
  MembraneScene3 s;
  const double lower[3] = {0, 0, 0};
  const int n[3] = {cells, cells, layers};
  s.grid = std::make_unique<membrane::MacGrid3>(comm, lower, n, dx, "test");
  const double lo[2] = {0, 0}, hi[2] = {cells * dx, cells * dx};
  auto mesh = membrane::flat_sheet(lo, hi, depth, 2 * cells);
  membrane::wrap_wetted_caps(mesh, depth, bodies);
  if (p.h == 0) p.h = 0.5 * dx;
  p.closed = false;
  s.flow = std::make_unique<membrane::MembraneFlow3>(*s.grid, membrane::make_triangle_membrane(mesh), p, o,
                                                     std::move(bodies));
  return s;
}

// The same in [0,1]^3 with `cells` cells per axis.
inline MembraneScene3 make_pool3(int cells, double depth, membrane::Flow3Parameters p,
                                 membrane::CoupledSolveOptions o = {}, MPI_Comm comm = MPI_COMM_WORLD,
                                 std::vector<membrane::RigidBody3> bodies = {}) {
  return make_pool3_box(cells, cells, 1.0 / cells, depth, p, o, comm, std::move(bodies));
}

// Mean height of the membrane vertices farther than `reach` from the vertical axis through body 0
// and a cell from the x and y walls: the far-field level z_inf.
inline double far_level3(membrane::MembraneFlow3& f, double reach) {
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.membrane().x);
  const membrane::RigidBody3& b = f.bodies()[0];
  const double dx = f.grid().dx(), width = f.grid().cells(0) * dx;
  double sum = 0;
  long n = 0;
  for (long i = 0; i < f.membrane().owned_vertices; ++i) {
    const double rx = x(i, 0) - b.c[0], ry = x(i, 1) - b.c[1];
    const bool inside = std::min(x(i, 0), x(i, 1)) > dx && std::max(x(i, 0), x(i, 1)) < width - dx;
    if (std::hypot(rx, ry) > reach && inside) {
      sum += x(i, 2);
      ++n;
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_DOUBLE, MPI_SUM, f.grid().comm());
  MPI_Allreduce(MPI_IN_PLACE, &n, 1, MPI_LONG, MPI_SUM, f.grid().comm());
  return n ? sum / n : 0.0;
}

// Keller's balance (Keller 1998, Phys. Fluids 10, 3009): at rest the vertical force of the liquid
// and its surface on a floating body equals the weight of the liquid displaced by the body and by
// its meniscus, measured against the undisturbed level z_inf far away. With the open membrane as
// the liquid's top (the wetted part of a body is wrapped by contact vertices on its surface, so the
// body's submerged volume lies above the membrane) the displaced volume over a region is
// sum_t Axy_t (z_inf - zbar_t) over the triangles t above it (Axy_t the signed area of the
// triangle's projection on the x-y plane, zbar_t its mean height): triangles under a body's bottom
// have negative Axy_t, so each vertical column counts once. Summed over the whole tank it is
// z_inf A_T - V_L, V_L the liquid volume under the membrane (enclosed_volume).
struct KellerReading3 {
  double level = 0;                // z_inf: mean height of the far free vertices
  long far = 0;                    // how many vertices gave it
  std::vector<double> displaced;   // per body: the displaced volume within its reach (below)
  double total = 0;                // over the whole membrane
};

// z_inf from the free (non-contact) vertices farther than every body's bounding radius + `margin`
// from its centre in the horizontal plane and at least `wall_gap` from the tank's side walls; body
// b's displaced volume over the triangles whose centroid lies within its bounding radius + `margin`
// (horizontally; the nearer body's where two reaches overlap), so that the part of the far level's
// error that enters it scales with that disc's area, not the tank's. Owned vertices and triangles
// only: a one-rank reading.
inline KellerReading3 keller_reading3(membrane::MembraneFlow3& f, double margin, double wall_gap = 0) {
  auto& m = f.membrane();
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.x);
  auto tri = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.tri);
  const auto& bodies = f.bodies();
  const std::vector<int>& contact = f.contact();
  const double dx = f.grid().dx(), lo[2] = {f.grid().geometry().lower[0], f.grid().geometry().lower[1]};
  const double hi[2] = {lo[0] + f.grid().cells(0) * dx, lo[1] + f.grid().cells(1) * dx};
  KellerReading3 r;
  r.displaced.assign(bodies.size(), 0.0);
  double sum = 0;
  for (long i = 0; i < m.owned_vertices; ++i) {
    bool away = contact[i] < 0;
    for (int d = 0; d < 2; ++d) away = away && x(i, d) >= lo[d] + wall_gap && x(i, d) <= hi[d] - wall_gap;
    for (const auto& b : bodies) away = away && std::hypot(x(i, 0) - b.c[0], x(i, 1) - b.c[1]) > b.radius + margin;
    if (!away) continue;
    sum += x(i, 2);
    ++r.far;
  }
  r.level = r.far ? sum / r.far : 0.0;
  for (long t = 0; t < m.owned_triangles; ++t) {
    double p[3][3];
    for (int a = 0; a < 3; ++a)
      for (int d = 0; d < 3; ++d) p[a][d] = x(tri(t, a), d);
    const double axy = 0.5 * ((p[1][0] - p[0][0]) * (p[2][1] - p[0][1]) - (p[2][0] - p[0][0]) * (p[1][1] - p[0][1]));
    const double cx = (p[0][0] + p[1][0] + p[2][0]) / 3, cy = (p[0][1] + p[1][1] + p[2][1]) / 3;
    const double dv = axy * (r.level - (p[0][2] + p[1][2] + p[2][2]) / 3);
    r.total += dv;
    long nearest = -1;
    double best = 0;
    for (size_t b = 0; b < bodies.size(); ++b) {
      const double gap = std::hypot(cx - bodies[b].c[0], cy - bodies[b].c[1]) - bodies[b].radius;
      if (gap < margin && (nearest < 0 || gap < best)) {
        nearest = static_cast<long>(b);
        best = gap;
      }
    }
    if (nearest >= 0) r.displaced[nearest] += dv;
  }
  return r;
}

// A sphere of radius r and density rho centred at c, at rest.
inline membrane::RigidBody3 sphere3(const std::array<double, 3>& c, double r, double rho) {
  membrane::RigidBody3 b;
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

// A body released in a pool of depth `depth` in the unit box of `cells`^3 cells with sigma = 0 and
// settle damping zeta (Archimedes tests): `steps` steps of dt, every tenth step's body height,
// contacts, fluid-rigid faces and MINRES iterations printed by `log`.
template <class Log>
MembraneScene3 settle_in_pool3(int cells, double depth, const membrane::RigidBody3& body, int steps, double dt, double zeta,
                               const Log& log) {
  membrane::Flow3Parameters p;
  p.sigma = 0.0;
  p.settle_damping = zeta;
  p.settle_until = 1e9;
  MembraneScene3 s = make_pool3(cells, depth, p, {}, MPI_COMM_WORLD, {body});
  for (int n = 0; n < steps; ++n) {
    const auto r = s.flow->step(dt);
    if (n % 10 == 0) {
      const auto& b = s.flow->bodies()[0];
      log("step %3d: z %.5f, v_z %+.3e, contacts %ld, rigid faces %ld, MINRES %d", n, b.c[2], b.v[2],
          r.contact_vertices, r.second.fluid_rigid_faces, r.second.iterations);
    }
  }
  return s;
}

inline std::array<double, 2> max_speeds3(MembraneScene3& s) {
  return membrane::max_speeds_3d(*s.grid, s.flow->membrane());
}

}  // namespace meniscus::test
