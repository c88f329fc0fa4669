#pragma once
// Liquid-volume preservation of the membrane advection (Stage 5 of Ruan et al. 2021, Eq. 32).
//
// The first solve (Eq. 19 without tension) makes the grid divergence-free with the fluid-air face
// velocities W v-dagger. The liquid area enclosed by the membrane, however, changes at the rate
// sum_i N_i . v_i with N_i = dA/dx_i, the vertex's share of the surface normal. The paper's
// row-normalised W assigns to vertex i the fluid-air face lengths sum_f s_f W_fi dx e_d(f), which is
// not N_i vertex by vertex, so x^{n+1} = x^n + dt v-dagger loses area although the grid sees no
// net flux (measured: 4.1 % of a 2D drop in 0.3 s; docs/theory-membrane.md). Explicit Euler adds a
// second-order change dt^2 A(v) on top.
//
// The correction adds to v-dagger a uniform normal speed mu (the direction d_i = N_i / l_i, with
// l_i the vertex's dual length, is the unit normal for a smooth membrane), chosen so that the area
// after the step equals `target` exactly: A(x + dt (v + mu d)) is quadratic in mu and the root
// nearest zero is taken. Only free velocity components move (a wall vertex keeps its wall-normal
// component). This is a global correction, not in the paper; its speed |mu| is reported per step so
// that a user can see how much of the motion it supplies.
#include <mpi.h>

#include <vector>

#include "methods/membrane/polyline.hpp"
#include "methods/membrane/triangle_membrane.hpp"

namespace meniscus::membrane {

// N_i = dA/dx_i of the enclosed area as `enclosed_area` defines it (n x 2, overwritten).
void area_gradient(const Polyline& m, bool closed, double ybase, const VertexArray& grad);

// Adds mu d to the advection velocities vdag (n x 2) so that the membrane after x += dt vdag
// encloses `target`; returns mu (cm/s). Returns 0 without changing vdag when no free component
// can change the area.
double preserve_enclosed_area(const Polyline& m, bool closed, double ybase, double dt, double target,
                              const VertexArray& vdag);


// The 3D membrane's advection with the volume restored, on the distributed layout of
// triangle_membrane.hpp (owned vertices with their one ring). Stage 5 (Eq. 32): each rank moves its
// owned vertices, x_i += dt v_i, and refreshes its ghosts from their owners (halo). Then, not in the
// paper (the row-normalised W does not conserve the enclosed volume vertex by vertex, as in 2D
// above), `iterations` Newton steps along the volume gradient, x += lambda dV/dx on the free
// components with lambda = (target - V) / |dV/dx|^2. V and |dV/dx|^2 are reproducible sums over the
// owned triangles and vertices (reproducible_sum.hpp) and each owned vertex sums its one ring's
// gradient terms in the order of the triangles' global vertex ids, so the positions are the same
// bits at any rank and thread count. v: 3 per local vertex (owned rows read); held: per local vertex,
// bit d set holds component d (a wall vertex; 7 for a contact particle). Returns V after the step.
// Collective over comm.
double advect_preserving_volume(TriangleMembrane& m, const MembraneHalo& halo, const std::vector<double>& v,
                                const std::vector<int>& held, double dt, int iterations, bool closed, double zbase,
                                double target, MPI_Comm comm);

// The enclosed volume of enclosed_volume as a reproducible sum over the owned triangles of every
// rank: the same bits at any rank and thread count. Collective over comm.
double reproducible_enclosed_volume(const TriangleMembrane& m, bool closed, double zbase, MPI_Comm comm);

}  // namespace meniscus::membrane
