#pragma once
// Grid stages of the Ruan et al. 2021 time step (§5) that do not involve a linear solve: cell
// typing from the membrane, gravity, velocity extrapolation into air, and semi-Lagrangian
// advection. Each runs as Kokkos kernels over the owned nodes of the MAC grid and refreshes ghosts.
#include "methods/membrane/mac_grid.hpp"
#include "methods/membrane/polyline.hpp"
#include "methods/membrane/rigid_body.hpp"

namespace meniscus::membrane {

// Cell types (FLUID where the upward ray from the centre crosses the membrane an odd number of
// times) and the signed distance phi to the membrane (negative in the liquid) of every owned cell.
// A cell whose centre lies inside a rigid body is SOLID whatever the parity (Ruan 2021 §4.3: the
// body takes precedence).
void classify_cells(MacGrid& grid, const Polyline& m, const std::vector<Disc>& bodies = {});
// u += g dt on every face that is not a wall (dofs kU, kV).
void apply_gravity(MacGrid& grid, const double g[2], double dt);
// Extends the face velocities u and u-dagger (2D dofs kU + d, kUdag + d; 3D k3U + d, k3Udag + d)
// from the faces that carry a velocity (all-fluid, fluid-air, fluid-rigid, walls) into `layers`
// layers of inactive faces, each face taking the mean of its valid face neighbours along the axes.
// A wall face is a seed only where its inner cell is liquid (beside air it is extended into).
void extrapolate_velocities(MacGrid& grid, int layers);
void extrapolate_velocities(MacGrid3& grid, int layers);
// u* = u^n(x - dt u-dagger) with an RK2 back-trace and bilinear (2D) or trilinear (3D) sampling
// (paper Eq. 32, the u.grad u term); walls 0. Run after extrapolate_velocities, so that a back-trace
// into the air finds the extended liquid velocity.
void advect_velocities(MacGrid& grid, double dt);
void advect_velocities(MacGrid3& grid, double dt);
// u *= factor on every face (2D dofs kU + d, 3D k3U + d).
template <int Dim>
void scale_face_velocities(MacGridT<Dim>& grid, double factor);
// Largest |u| over faces that carry a velocity (collective).
double max_face_speed(MacGrid& grid);

}  // namespace meniscus::membrane
