#pragma once
// The 2D liquid membrane of Ruan et al. 2021 (§4): an explicit Lagrangian polyline that carries
// the surface tension of the liquid surface as capillary forces, with a small virtual thickness h
// that gives its vertices mass. Segment e = (i, j) is oriented so that the liquid lies on its left
// for a closed counter-clockwise drop (the orientation only matters for the enclosed area).
//
// The operators here are the 2D forms of the paper's Eqs. 9-11: the capillary force
// f_c = -sigma dL/dx (a pull of sigma toward each neighbour) and its "all-directional" implicit
// stiffness K_c = sum_e (sigma / L_e) [[I, -I], [-I, I]], which is symmetric positive
// semidefinite and satisfies f_c = -K_c x exactly.
#include <Kokkos_Core.hpp>
#include <vector>

namespace meniscus::membrane {

using MemSpace = Kokkos::DefaultExecutionSpace::memory_space;
using VertexArray = Kokkos::View<double**, Kokkos::LayoutRight, MemSpace>;  // vertex x component
using SegmentArray = Kokkos::View<int**, Kokkos::LayoutRight, MemSpace>;    // segment x 2 vertex ids

// Which velocity components of a vertex are free: a vertex whose end lies on a vertical (x) wall
// slides along it (x fixed), one on a horizontal wall keeps y (Ruan 2021 leaves walls open; the
// sliding rule gives a 90 degree contact with the wall, see docs/theory-membrane.md).
// kContact marks, in temporary copies only, a vertex slaved to a rigid body (both components follow
// the body, Ruan 2021 §5.2).
enum VertexKind : int { kFree = 0, kWallX = 1, kWallY = 2, kContact = 3 };

struct Polyline {
  VertexArray x, v;       // positions and velocities (n x 2)
  SegmentArray seg;       // segments (s x 2)
  Kokkos::View<int*, MemSpace> kind;  // VertexKind per vertex
  long vertices() const { return static_cast<long>(x.extent(0)); }
  long segments() const { return static_cast<long>(seg.extent(0)); }
};

// A polyline from host coordinates (x0, y0, x1, y1, ...); closed joins the last vertex to the first.
Polyline make_polyline(const std::vector<double>& xy, bool closed);

// Regular n-gon of radius r around (cx, cy), counter-clockwise, optionally with a cos(2 theta)
// radial perturbation of relative amplitude eps (the n = 2 oscillation mode).
Polyline make_circle(double cx, double cy, double r, int n, double eps = 0.0);

// f = -sigma dL/dx (n x 2, overwritten).
void capillary_force(const Polyline& m, double sigma, const VertexArray& f);
// Total length sum_e L_e (the 2D membrane area).
double total_length(const Polyline& m);
// Lumped membrane masses m_i = rho h sum_{e contains i} L_e / 2 (paper §4, 2D analogue).
void vertex_masses(const Polyline& m, double rho, double h, const Kokkos::View<double*, MemSpace>& mass);
// Per-segment stiffness weights sigma / L_e; K_c = sum_e w_e [[I, -I], [-I, I]].
void stiffness_weights(const Polyline& m, double sigma, const Kokkos::View<double*, MemSpace>& w);
// Signed area enclosed by a closed polyline (shoelace); for an open one, the area between the
// polyline and the line y = ybase (its liquid side lies below), i.e. the liquid volume of a pool.
double enclosed_area(const Polyline& m, bool closed, double ybase);

}  // namespace meniscus::membrane
