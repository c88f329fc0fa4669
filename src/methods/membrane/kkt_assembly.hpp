#pragma once
// Dimension-independent parts of the liquid-membrane(-rigid) saddle-point assembly of Ruan et al.
// 2021 (Eq. 28; Eq. 19 for the first solve), shared by the 2D solve (coupled_solve.cpp) and the 3D
// one (coupled_solve_3d.cpp). Each dimension assembles, on its own grid, the pressure block A, the
// coupling B^T = -V G^T Phi over its mixed faces, b_p, and its velocity-block contributions
// (Phi^T M Phi, -Phi^T M u**, membrane inertia and K_c) as (row, col) -> value maps; these helpers
// then gather the velocity block on rank 0, build C, B, the preconditioner blocks and the MatNest
// system, solve it (kkt_solve.hpp) and hand the solution back.
#include <petscksp.h>

#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "grid/grid_field.hpp"
#include "methods/membrane/coupled_solve.hpp"
#include "methods/membrane/kkt_solve.hpp"

namespace meniscus::membrane {

using VelocityEntries = std::map<std::pair<PetscInt, PetscInt>, double>;

// An AIJ matrix with `per_row` preallocated entries per row that may grow (membrane rows are few
// and their length depends on how many faces a vertex feeds).
Mat create_kkt_aij(MPI_Comm comm, PetscInt mloc, PetscInt nloc, PetscInt m, PetscInt n, PetscInt per_row);

// Every rank's velocity-block entries and right-hand side added on rank 0 in rank order (PETSc
// would add values sent to another rank's rows in message arrival order, so that runs with 3 or more
// ranks would differ in the last bits). c_all, bv_all (size nv on rank 0) receive the sums.
// Collective.
void gather_velocity_block(MPI_Comm comm, PetscInt nv, const VelocityEntries& c_mine, const std::vector<double>& bv_mine,
                           VelocityEntries& c_all, std::vector<double>& bv_all);

// Completes k from the assembled-or-not k.A and k.Bt (MatAssembly is done here), the pressure
// right-hand side bp (assembled here) and rank 0's velocity entries c_all (those with keep(i, j)
// true; counted preallocation: rank 0 owns every row of the velocity block) and right-hand side
// bv_all: builds C, B = (B^T)^T, -C, the SPD preconditioner S^ = A + B^T diag(C)^-1 B, the nests
// K = [A B^T; B -C] and P = diag(S^, C), b and z = 0. Collective.
void build_kkt_system(MPI_Comm comm, KktBlocks& k, Vec bp, PetscInt nv, const VelocityEntries& c_all,
                      const std::vector<double>& bv_all, const std::function<bool(PetscInt, PetscInt)>& keep);

// The velocity block of k.z on every rank (nv values). Collective.
std::vector<double> velocity_block_on_all_ranks(KktBlocks& k, PetscInt nv);

// Writes the pressure block of k.z (p-hat) into dof `dof` of the owned nodes of `field` (whose DMDA
// numbering the pressure block follows) and refreshes its ghosts. Collective.
template <int Dim>
void store_pressure(KktBlocks& k, grid::GridField<Dim>& field, int dof);

// Stage 8 on the grid's owned faces: u** - G p-hat / rho on all-fluid faces (u** in dofs src_u + d,
// p-hat in dof p), the structure velocity value[q] on mixed face q (axis[q] of owned-box node
// node[q]), zero elsewhere, into dofs dst_u + d; then a ghost refresh. Collective.
template <int Dim>
void write_back_faces(MacGridT<Dim>& grid, double rho, int src_u, int dst_u, int p, const std::vector<long>& node,
                      const std::vector<int>& axis, const std::vector<double>& value);

}  // namespace meniscus::membrane
