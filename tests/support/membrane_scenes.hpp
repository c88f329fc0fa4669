#pragma once
// Small 2D scenes of the Ruan et al. 2021 liquid-membrane method shared by the unit, MPI and
// validation tests: a flat pool and a circular drop in a unit box.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "methods/membrane/fluid_kernels.hpp"
#include "methods/membrane/membrane_flow.hpp"
#include "methods/membrane/membrane_ruan.hpp"
#include "scene.hpp"

namespace meniscus::test {

struct MembraneScene {
  std::unique_ptr<membrane::MacGrid> grid;
  std::unique_ptr<membrane::MembraneFlow> flow;
};

// Pool of depth `depth` in [0,1]^2 with `cells` cells per axis; flat membrane with edges dx/2.
inline MembraneScene make_pool(int cells, double depth, membrane::FlowParameters p,
                               membrane::CoupledSolveOptions o = {}) {
  const double lower[2] = {0, 0};
  const int n[2] = {cells, cells};
  const double dx = 1.0 / cells;
  MembraneScene s;
  s.grid = std::make_unique<membrane::MacGrid>(MPI_COMM_WORLD, lower, n, dx, "test");
  std::vector<double> xy;
  for (int i = 0; i <= 2 * cells; ++i) {
    xy.push_back(i * dx / 2);
    xy.push_back(depth);
  }
  if (p.h == 0) p.h = 0.5 * dx;
  s.flow = std::make_unique<membrane::MembraneFlow>(*s.grid, membrane::make_polyline(xy, false), false, p, o);
  return s;
}

// Drop of radius r at the box centre, edges about dx/2, optional n = 2 perturbation eps.
inline MembraneScene make_drop(int cells, double r, double eps, membrane::FlowParameters p,
                               membrane::CoupledSolveOptions o = {}, MPI_Comm comm = MPI_COMM_WORLD) {
  const double lower[2] = {0, 0};
  const int n[2] = {cells, cells};
  const double dx = 1.0 / cells;
  MembraneScene s;
  s.grid = std::make_unique<membrane::MacGrid>(comm, lower, n, dx, "test");
  const int nv = static_cast<int>(std::ceil(2 * M_PI * r / (dx / 2)));
  if (p.h == 0) p.h = 0.5 * dx;
  s.flow = std::make_unique<membrane::MembraneFlow>(*s.grid, membrane::make_circle(0.5, 0.5, r, nv, eps), true, p, o);
  return s;
}

// Pool in the box [0, width] x [0, height] with cells of side dx, its surface at `level` wrapping
// the wetted arc of every rigid disc that the level cuts (edges dx/2).
inline MembraneScene make_pool_with_bodies(double width, double height, double dx, double level,
                                           std::vector<membrane::Disc> bodies, membrane::FlowParameters p,
                                           membrane::CoupledSolveOptions o = {}, MPI_Comm comm = MPI_COMM_WORLD) {
  const double lower[2] = {0, 0};
  const int n[2] = {static_cast<int>(std::lround(width / dx)), static_cast<int>(std::lround(height / dx))};
  MembraneScene s;
  s.grid = std::make_unique<membrane::MacGrid>(comm, lower, n, dx, "test");
  if (p.h == 0) p.h = 0.5 * dx;
  auto xy = membrane::pool_surface(0.0, n[0] * dx, level, dx / 2, bodies);
  s.flow = std::make_unique<membrane::MembraneFlow>(*s.grid, membrane::make_polyline(xy, false), false, p, o,
                                                    std::move(bodies));
  return s;
}

// What the initial pool surface of pool_surface (x from 0 to 1, one body b) looks like: the largest
// |phi_b| of its vertices off the level, how many there are, its shortest edge, its end points, and
// the area between the level and the chain.
struct PoolSurfaceShape {
  double off_body = 0, shortest_edge = 1e300, first_x = 0, last_x = 0, below = 0;
  long on_body = 0;
};
inline PoolSurfaceShape pool_surface_shape(const membrane::Disc& b, double level, double edge) {
  const auto xy = membrane::pool_surface(0.0, 1.0, level, edge, {b});
  const long n = static_cast<long>(xy.size() / 2);
  PoolSurfaceShape s;
  for (long i = 0; i < n; ++i) {
    const double x[2] = {xy[2 * i], xy[2 * i + 1]};
    if (std::abs(x[1] - level) > 1e-14) {
      s.off_body = std::max(s.off_body, std::abs(b.phi(x)));
      ++s.on_body;
    }
    if (i + 1 < n) {
      s.below += 0.5 * (xy[2 * i + 2] - xy[2 * i]) * (2 * level - xy[2 * i + 1] - xy[2 * i + 3]);
      s.shortest_edge = std::min(s.shortest_edge, std::hypot(xy[2 * i + 2] - xy[2 * i], xy[2 * i + 3] - xy[2 * i + 1]));
    }
  }
  s.first_x = xy[0];
  s.last_x = xy[2 * n - 2];
  return s;
}
// The checks every wrapped body shares: vertices off the level lie on the body (1e-12), more than
// ten of them, no edge below a fifth of `edge`, the chain spans x = 0 .. 1.
inline PoolSurfaceShape expect_pool_surface_wraps(const membrane::Disc& b, double level, double edge) {
  const auto w = pool_surface_shape(b, level, edge);
  EXPECT_LT(w.off_body, 1e-12);
  EXPECT_GT(w.on_body, 10);
  EXPECT_GT(w.shortest_edge, 0.19 * edge);
  EXPECT_NEAR(w.first_x, 0.0, 1e-15);
  EXPECT_NEAR(w.last_x, 1.0, 1e-15);
  return w;
}

// A non-rotating disc of radius r and areal density rho_s centred at (x, level - r / 2): placed on a
// pool whose surface is at `level`, the initial surface wraps its lower 120 degrees.
inline membrane::Disc pool_disc(double x, double level, double r, double rho_s) {
  membrane::Disc d;
  d.radius = r;
  d.density = rho_s;
  d.rotates = false;
  d.c[0] = x;
  d.c[1] = level - 0.5 * r;
  return d;
}

// Parameters of the pool scenes with bodies (CGS, Ruan 2021 2D): water (rho = 1), g = 9.8 cm/s^2
// downward, surface tension sigma, remeshing to edges dx / 2; and solve options with rtol 1e-8.
inline membrane::FlowParameters pool_parameters(double sigma, double dx) {
  membrane::FlowParameters p;
  p.sigma = sigma;
  p.rho = 1.0;
  p.gravity[1] = -9.8;
  p.remesh_edge = 0.5 * dx;
  return p;
}
inline membrane::CoupledSolveOptions pool_solve_options() {
  membrane::CoupledSolveOptions o;
  o.rtol = 1e-8;
  return o;
}

// A body released on the sigma = 0 pool of the floating-body tests (tank 1.2 x 0.8 cm filled to
// 0.4 cm, cells dx, edges dx / 2): the membrane is a passive free surface, a settle damping of 4 /s
// acts throughout (it leaves equilibria and their stability unchanged and slows motion near them)
// and steps are at most 4e-3 s. Advances `duration`, calling each(body) after every step, and
// returns the scene; *volume0 receives the liquid's volume before the first step.
template <class Each>
MembraneScene release_in_pool(const membrane::Disc& body, double duration, double dx, double* volume0, Each each) {
  membrane::FlowParameters p;
  p.sigma = 0.0;
  p.gravity[1] = -9.8;
  p.remesh_edge = 0.5 * dx;
  p.settle_damping = 4.0;
  p.settle_until = 1e9;
  auto sc = make_pool_with_bodies(1.2, 0.8, dx, 0.4, {body}, p, pool_solve_options());
  *volume0 = sc.flow->volume();
  double t = 0;
  while (t < duration - 1e-12) {
    const double dt = sc.flow->stable_dt(0.5, 1.0, 4e-3);
    sc.flow->step(dt);
    t += dt;
    each(sc.flow->bodies()[0]);
  }
  return sc;
}

// Mean height of the membrane vertices farther than `reach` from the first body's centre (its axis)
// and a cell from the walls: the far-field level z_inf.
inline double far_level(membrane::MembraneFlow& f, double reach) {
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.membrane().x);
  const double cx = f.bodies()[0].c[0], dx = f.grid().dx(), width = f.grid().cells(0) * dx;
  double sum = 0;
  long n = 0;
  for (long i = 0; i < f.membrane().vertices(); ++i)
    if (std::abs(x(i, 0) - cx) > reach && x(i, 0) > dx && x(i, 0) < width - dx) {
      sum += x(i, 1);
      ++n;
    }
  return n ? sum / n : 0.0;
}

// A deck of the liquid-membrane method in the 2D unit box with cells of `cell_size`; `membrane`
// holds the keys of its membrane section (the inside of a YAML flow map).
inline std::string unit_box_membrane_deck(const std::string& name, double cell_size, const std::string& membrane) {
  return "simulation: {dimension: 2, method: membrane-ruan2021, end_time: 1.0, name: " + name + "}\n" +
         "domain: {lower: [0, 0], upper: [1.0, 1.0], cell_size: " + std::to_string(cell_size) + "}\n" +
         "membrane: {" + membrane + "}\n";
}

// The liquid-membrane method built from a deck given as YAML text (the deck is read by the
// constructor only, so it need not outlive it).
inline std::unique_ptr<membrane::MembraneRuan> membrane_method(const std::string& yaml) {
  auto d = deck_from_string(yaml);
  return std::make_unique<membrane::MembraneRuan>(MethodContext{MPI_COMM_WORLD, d.deck.root(), 2});
}

// Largest tangential speed of a closed membrane's vertices (tangent from the two neighbours, as
// the normal vertex motion uses).
inline double max_tangential_speed(membrane::Polyline& m) {
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.x);
  auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.v);
  double vt = 0;
  const long nv = m.vertices();
  for (long i = 0; i < nv; ++i) {
    const long a = (i + nv - 1) % nv, b = (i + 1) % nv;
    const double tx = x(b, 0) - x(a, 0), ty = x(b, 1) - x(a, 1);
    vt = std::max(vt, std::abs(v(i, 0) * tx + v(i, 1) * ty) / std::hypot(tx, ty));
  }
  return vt;
}

// Mean pressure p-hat / dt over owned fluid cells whose centre lies deeper than `depth` inside the
// liquid (phi < -depth), and their count (collective).
inline double mean_interior_pressure(membrane::MacGrid& grid, double dt, double depth, long* count = nullptr) {
  const auto g = grid.geometry();
  auto a = grid.field().acquire_local(false);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
  grid.field().release_local(a);
  double sum = 0;
  long n = 0;
  for (int j = g.owned.lo[1]; j < g.owned.lo[1] + g.owned.n[1]; ++j)
    for (int i = g.owned.lo[0]; i < g.owned.lo[0] + g.owned.n[0]; ++i) {
      if (g.cell_type(h, i, j) != membrane::kFluid) continue;
      if (h(g.local(i, j), membrane::kPhi) > -depth) continue;
      sum += h(g.local(i, j), membrane::kP) / dt;
      ++n;
    }
  double gs = 0;
  long gn = 0;
  MPI_Allreduce(&sum, &gs, 1, MPI_DOUBLE, MPI_SUM, grid.comm());
  MPI_Allreduce(&n, &gn, 1, MPI_LONG, MPI_SUM, grid.comm());
  if (count) *count = gn;
  return gn ? gs / gn : 0.0;
}

}  // namespace meniscus::test
