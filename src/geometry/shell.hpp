#pragma once
// Thin shells: a few layers of particles on a surface of revolution, the initial state of a liquid
// film (a soap film between two rings, a film spanning a ring; Xing et al. 2022, Sec. 6.1, Figs. 8
// and 14) or of the ring that holds it. A lattice cut by a shape cannot seed these: a film two
// particles thick would need the lattice aligned with a curved surface.
#include <array>
#include <vector>

namespace meniscus::geometry {

// The surface swept by rotating the segment from (rho0, z0) to (rho1, z1) (distance from the axis,
// height along it, both relative to `center`) about the z axis through `center`: a cylinder
// (rho0 = rho1), a flat disc or annulus (z0 = z1), a cone frustum otherwise; a single ring when both
// ends coincide.
struct ShellSpec {
  std::array<double, 3> center{0, 0, 0};
  double rho0 = 0, z0 = 0, rho1 = 0, z1 = 0;
  int layers = 2;          // copies of the surface, offset along its normal
  double spacing = 0;      // h: between rows, around each row, and between layers
  bool shift_first_row = false;  // stagger: odd rows are turned by half a spacing; with this, even rows
};

// Rows along the profile: n = max(1, round(L / h)) + 1 points from end to end (both ends included,
// spacing L / (n - 1) <= 1.5 h), a single row when L = 0. Layers k = 0 .. layers - 1 at offsets
// (k - (layers - 1) / 2) h along the profile's normal (t_z, -t_rho) in the (rho, z) plane (outwards
// for a cylinder, so a two-layer film lies at rho -+ h/2). Each row of radius rho' gets
// max(1, round(2 pi rho' / h)) points equally spaced around the axis (one point on the axis when
// rho' < h / 4), alternate rows staggered by half that spacing so that neighbouring rows do not form
// co-circular squares. Points are ordered by row, then layer, then angle: the same list on every rank.
struct ShellSamples {
  std::vector<std::array<double, 3>> x;
  std::vector<int> layer;  // per point
  int rows = 0;
};

// Throws std::invalid_argument for a non-positive spacing, fewer than one layer, or a negative radius.
ShellSamples sample_shell(const ShellSpec& spec);

}  // namespace meniscus::geometry
