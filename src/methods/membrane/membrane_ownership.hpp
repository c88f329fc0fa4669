#pragma once
// Owned membrane vertices with a one-ring ghost layer, and their migration with the grid's cell
// ownership (the distributed layout of the membrane of Ruan et al. 2021 §4, polyline in 2D and
// triangle mesh in 3D; the paper runs on one node, so the layout is ours).
//
// A vertex belongs to the rank that owns the MAC cell holding it (cell_owner, mac_grid.hpp). A
// rank stores its owned vertices first, by increasing global id, then ghost copies of the other
// ends of its elements (segments in 2D, triangles in 3D), by increasing global id; its elements are
// every element with an owned end. Global ids are stable until remeshing renumbers the membrane.
//
// Migration (after advection) needs the ghosts' positions of the same step (update_ghosts with
// make_vertex_halo(gid, owned, ghost_owner, comm) of triangle_membrane.hpp): each rank sends every
// owned vertex to the owner of its new cell, together with its elements and the other ends'
// records, from which the receiver rebuilds its one ring (one MPI_Alltoallv). A vertex moves at
// most one cell per step under the CFL bound, but migration does not rely on it.
//
// Remeshing rule: splits and collapses change the numbering along the whole chain, so the chain is
// remeshed whole: gathered in global-id order (gather_polyline, the same order at every rank count),
// remeshed as on one rank and split again by cell (distribute_polyline). A 2D membrane has a few
// hundred vertices next to the grid's 10^4-10^5 cells, so the gather costs little beside the solve.
// In 3D the same gathered rule applies (gather_triangle_membrane, remesh, distribute_triangle_membrane)
// until a patch-wise remesher exists (an operation whose one-ring patches all belong to one rank
// could run there without exchange).
#include <mpi.h>

#include <vector>

#include "grid/decomposition.hpp"
#include "methods/membrane/mac_grid.hpp"
#include "methods/membrane/polyline.hpp"
#include "methods/membrane/triangle_membrane.hpp"

namespace meniscus::membrane {

struct LocalPolyline {
  Polyline m;                    // owned vertices, then ghosts; segments in local ids
  std::vector<long> gid;         // global id of each local vertex
  long owned = 0;                // local vertices [0, owned) belong to this rank
  std::vector<int> ghost_owner;  // rank owning ghost g (local id owned + g)
};

// This rank's part of a polyline that every rank holds whole (global id = index). No communication.
LocalPolyline distribute_polyline(const Polyline& whole, const grid::Decomposition<2>& dec);
// The same for a 3D membrane that every rank holds whole (positions, velocities and kinds travel;
// the layout of triangle_membrane.hpp). No communication.
TriangleMembrane distribute_triangle_membrane(const TriangleMembrane& whole, const grid::Decomposition<3>& dec);

// Sends every owned vertex whose cell another rank now owns to that rank, with its segments, and
// rebuilds the ghost layer. Ghost positions must be those of the same step. Collective.
void migrate_polyline(LocalPolyline& lp, const grid::Decomposition<2>& dec);
// The same for the 3D layout of triangle_membrane.hpp (elements: the triangles, each kept in its
// vertex order; owned triangles first). Collective.
void migrate_triangle_membrane(TriangleMembrane& m, const grid::Decomposition<3>& dec);

// Widens the 3D layout's ghost layer from the one ring to every triangle within `reach` of this
// rank's cells (the cells of its owned nodes, cell_owner), with ghost copies of their vertices: what
// the membrane-grid coupling reads around the rank's cells and faces (the W rows of the triangle
// clipping over a dual cell of half-widths up to w_normal_extent dx / 2, and the signed distance phi
// up to 2 dx from a cell centre, triangle_interpolation.hpp). Each rank sends each of its owned
// triangles to every rank whose widened box meets the triangle's bounding box (one MPI_Alltoallv);
// owned vertices and the owned triangles are unchanged. Ghost positions must be current. Collective.
TriangleMembrane widen_ghosts(const TriangleMembrane& m, const grid::Decomposition<3>& dec, double reach);

// Every rank's owned vertices in global-id order (positions, velocities, kinds; global id = index)
// and every element once, on every rank: the same result at every rank count (elements ordered by
// their global ids, each in its own vertex order). For output, checkpoints and the gathered
// remeshing rule. Collective.
Polyline gather_polyline(const LocalPolyline& lp, const grid::Decomposition<2>& dec);
TriangleMembrane gather_triangle_membrane(const TriangleMembrane& m, const grid::Decomposition<3>& dec);

}  // namespace meniscus::membrane
