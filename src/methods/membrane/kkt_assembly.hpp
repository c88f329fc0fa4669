#pragma once
// Dimension-independent parts of the liquid-membrane(-rigid) saddle-point assembly of Ruan et al.
// 2021 (Eq. 28; Eq. 19 for the first solve), shared by the 2D solve (coupled_solve.cpp) and the 3D
// one (coupled_solve_3d.cpp). Each dimension assembles, on its own grid, the pressure block A, the
// coupling B^T = -V G^T Phi over its mixed faces, b_p, and its velocity-block contributions
// (Phi^T M Phi, -Phi^T M u**, membrane inertia and K_c) as (row, col) -> value maps; these helpers
// then send the velocity block's entries to the ranks owning their rows, build C, B, the preconditioner blocks and the MatNest
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

// One velocity component of a vertex or face as a linear function of the unknowns of the velocity
// block: sum_q c_q z_{k_q} + known. A free membrane component is one unknown; a contact vertex or a
// fluid-rigid face of a free body is a row of J on the body's unknowns (paper §5.2: contact
// particles are not in the solve, they follow the body); prescribed motion is the known part.
struct Term {
  PetscInt k;
  double c;
};
struct LinearVelocity {
  std::vector<Term> terms;
  double known = 0;
};

// The linear velocity of every membrane vertex component (dim per vertex): the unknown unknown[q]
// when it is >= 0, else slaved(i, d) for a contact vertex (contact(i) >= 0), else zero (a component
// held by a wall).
std::vector<LinearVelocity> vertex_velocities(long nvert, int dim, const std::vector<PetscInt>& unknown,
                                              const std::function<int(long)>& contact,
                                              const std::function<LinearVelocity(long, int)>& slaved);

// Velocity component d of the point x of a body (Disc or RigidBody3): the row e_d^T J(x) on the body's
// unknowns from `first` on, or its known velocity when first < 0.
template <class Body>
LinearVelocity rigid_point_velocity(const Body& body, PetscInt first, int d, const double* x) {
  LinearVelocity out;
  if (first < 0) {
    out.known = body.point_velocity(d, x);
    return out;
  }
  double row[Body::kDofs];
  body.jacobian_row(d, x, row);
  for (int q = 0; q < Body::kDofs; ++q)
    if (row[q] != 0) out.terms.push_back({first + q, row[q]});
  return out;
}

// Velocity component d of the point x of body b (Disc or RigidBody3), rigid[b] the first of its unknowns
// (-1: none): rigid_point_velocity. A link's point (root >= 0) moves with its root's J(x) v_root plus the
// known stroke velocity v_kin, or, when the root has no unknowns, with the link's own total velocity.
template <class Body>
LinearVelocity body_point_velocity(const std::vector<Body>& bodies, const std::vector<PetscInt>& rigid, long b, int d,
                                   const double* x) {
  const long owner = bodies[b].root >= 0 ? static_cast<long>(bodies[b].root) : b;
  if (rigid[owner] < 0) return rigid_point_velocity(bodies[b], -1, d, x);
  LinearVelocity out = rigid_point_velocity(bodies[owner], rigid[owner], d, x);
  if (owner != b) out.known = bodies[b].v_kin[d];
  return out;
}

// A fluid-air face's velocity W v of component d: the interpolation row (vertex, weight) through the
// vertices' linear velocities vmap (dim per vertex), terms merged per unknown.
LinearVelocity interpolated_velocity(const std::vector<std::pair<int, double>>& w_row,
                                     const std::vector<LinearVelocity>& vmap, int dim, int d);
// Ghost-fluid fraction of a fluid-air dual cell from the signed distances of its fluid and air cells
// (Ruan 2021 §4.3 mass M; the fraction along the segment between the two cell centres), 0.5 when
// they do not straddle the membrane.
inline double fluid_fraction(double phi_fluid, double phi_air) {
  return phi_fluid < 0 && phi_air > 0 ? -phi_fluid / (phi_air - phi_fluid) : 0.5;
}
// The body covering a fluid-rigid face (the one holding the SOLID cell centre xs, else the nearest),
// or -1; alpha receives the liquid fraction of the dual cell along the segment from the fluid cell
// centre xf to xs (0.5 when the body's surface does not cross it).
template <class Body>
int covering_body(const std::vector<Body>& bodies, const double* xs, const double* xf, double& alpha) {
  int b = body_containing(bodies, xs);
  if (b < 0) b = body_within(bodies, xs, 1e300);
  alpha = 0.5;
  if (b < 0) return b;
  const double phi_f = bodies[b].phi(xf), phi_s = bodies[b].phi(xs);
  if (phi_f > 0 && phi_s < 0) alpha = phi_f / (phi_f - phi_s);
  return b;
}

// The pressure row rc (a fluid cell) of a mixed face with velocity `row`: B^T = -V G^T Phi, with
// s = dx G_{f,c} = -1 or +1, and the known part of the face velocity in b_p like u** (V G^T u_known).
// Entries of held unknowns (held[k] != 0) go to held_bt instead of B^T.
void add_mixed_face_coupling(Mat Bt, Vec bp, PetscInt rc, const LinearVelocity& row, double vol, double s_over_dx,
                             const std::vector<char>& held, VelocityEntries& held_bt);
// A mixed face's velocity-block terms: Phi^T M Phi into c and -Phi^T M (u** - u_known) into bv.
void add_face_mass(const LinearVelocity& row, double mass, double uf, VelocityEntries& c, std::vector<double>& bv);
// One membrane edge (i, j) of stiffness weight w along one component (K_c = sigma L, Eq. 11 in 3D,
// sigma / L_e in 2D): dt^2 w (row of v_i - v_j)^T (row of v_i - v_j) into c; returns
// w ((v_i^n - known_i) - (v_j^n - known_j)), the edge's part of K_c v^n at i (minus it at j).
double add_edge_stiffness(const LinearVelocity& li, const LinearVelocity& lj, double vi, double vj, double w,
                          double dt, VelocityEntries& c);
// -(row)^T value into bv: a vertex component's right-hand-side term through its linear velocity.
void add_vertex_rhs(const LinearVelocity& l, double value, std::vector<double>& bv);
// An edge end that the capillary stiffness sees as anchored at its velocity v (no unknowns): a
// contact vertex when adhesion is off (MembraneHost::adhesion).
inline LinearVelocity anchored_velocity(double v) {
  LinearVelocity l;
  l.known = v;
  return l;
}
// A vertex component's inertia through its linear velocity: mass (row)^T (row) into c and
// -(row)^T rhs into bv (rhs = M_s (v^n - known) + dt (f_c + dt K_c v^n), Eq. 17).
void add_vertex_inertia(const LinearVelocity& l, double mass, double rhs, VelocityEntries& c, std::vector<double>& bv);
// A body's mass matrix M_r (n x n, row major) on its unknowns first .. first + n - 1 and its momentum
// -M_r v_r* in bv (Eq. 27).
void add_rigid_inertia(PetscInt first, int n, const double* mr, const double* v_start, VelocityEntries& c,
                       std::vector<double>& bv);

// An AIJ matrix with `per_row` preallocated entries per row that may grow (membrane rows are few
// and their length depends on how many faces a vertex feeds).
Mat create_kkt_aij(MPI_Comm comm, PetscInt mloc, PetscInt nloc, PetscInt m, PetscInt n, PetscInt per_row);

// Rows of the velocity block owned by each rank: rank q owns [first[q], first[q + 1]) (size + 1
// entries, first[0] = 0, first[size] = nv). rows_by_owner numbers the free components (is_free(i,
// d), dim per vertex) of the vertices by the rank owner[i] that owns the vertex's cell (cell_owner,
// mac_grid.hpp): contiguous per rank, by vertex id and component within it, the same order as one
// rank's at any rank count. unknown (dim per vertex) receives the row of each free component, -1
// elsewhere; first[size] is the number of membrane rows, to which a caller appends rows of its own
// (the bodies') on the last rank by raising first[size].
std::vector<PetscInt> rows_by_owner(int size, const std::vector<int>& owner, int dim,
                                    const std::function<bool(long, int)>& is_free, std::vector<PetscInt>& unknown);

// Every rank's velocity-block entries and right-hand side (global rows, bv_mine of size nv) sent to
// the ranks owning their rows and added there in source-rank order (PETSc would add values sent to
// another rank's rows in message arrival order, so that runs with 3 or more ranks would differ in
// the last bits). c_local (global indices, this rank's rows) and bv_local (this rank's rows, from
// first[rank]) receive the sums. One MPI_Alltoallv. Collective.
void exchange_velocity_block(MPI_Comm comm, const std::vector<PetscInt>& first, const VelocityEntries& c_mine,
                             const std::vector<double>& bv_mine, VelocityEntries& c_local, std::vector<double>& bv_local);

// Completes k from the assembled-or-not k.A and k.Bt (MatAssembly is done here), the pressure
// right-hand side bp (assembled here) and this rank's velocity rows [first[rank], first[rank + 1])
// (c_local: entries with keep(i, j) true, counted preallocation; bv_local: right-hand side): builds
// C, B = (B^T)^T, -C, the SPD preconditioner S^ = A + B^T diag(C)^-1 B, the nests K = [A B^T; B -C]
// and P = diag(S^, C), b and z = 0. Collective.
void build_kkt_system(MPI_Comm comm, KktBlocks& k, Vec bp, const std::vector<PetscInt>& first,
                      const VelocityEntries& c_local, const std::vector<double>& bv_local,
                      const std::function<bool(PetscInt, PetscInt)>& keep);

// The velocity block of k.z on every rank (nv values). Collective.
std::vector<double> velocity_block_on_all_ranks(KktBlocks& k, PetscInt nv);

// Bodies held in place along some of their axes (the held-body force of Vella and Mahadevan 2005;
// 2D Disc::held_x, held_y, held_rotation; 3D RigidBody3::held). A held unknown stays in the
// system, but every coupling of it is set aside: its B^T entries (add_mixed_face_coupling puts them
// in `bt`), the off-diagonal entries of its row and column of C (keep() leaves them out) and its
// right-hand side. It solves to 0, and its row of the full system evaluated at the solution is the
// impulse the liquid and the membrane gave the body along that axis, i.e. minus the hold's reaction
// (a Lagrange multiplier eliminated by hand).
struct HeldRows {
  std::vector<char> held;   // per velocity unknown: 1 where it is a held axis
  VelocityEntries bt;       // (global pressure row, unknown) -> B^T entry, on the pressure row's owner
  std::vector<double> rhs;  // b_v of the held rows less the body's own momentum (on the rows' owner)
  bool any() const;
  // keep(i, j) for build_kkt_system: the entry stays in C unless it couples a held unknown to another.
  bool keep(PetscInt i, PetscInt j) const { return !(held[i] || held[j]) || i == j; }
};
// Sets aside this rank's held rows (from row0 on): each one's C diagonal becomes the body's mass
// along that axis, mass(b, d) (any positive value would do; the mass keeps the block's scale), and
// its right-hand side 0; the old right-hand side plus the body's momentum along the axis,
// mass(b, d) v_start[dofs b + d], is kept in h.rhs. rigid[b]: the first of body b's `dofs`
// unknowns, -1 for a body without unknowns.
void set_aside_held_rows(HeldRows& h, PetscInt row0, PetscInt nv_local, VelocityEntries& c_local,
                         std::vector<double>& bv_local, const std::vector<PetscInt>& rigid, int dofs,
                         const std::vector<double>& v_start, const std::function<double(long, int)>& mass);
// The impulse along every held axis (nv values, 0 elsewhere, the same on every rank): B_x p-hat -
// C'_x z - b'_x from the pressure block of k.z, the held rows' entries in c_local (after
// set_aside_held_rows) and the velocities they couple to, gathered from their owners. Collective.
std::vector<double> held_impulse(KktBlocks& k, const HeldRows& h, const VelocityEntries& c_local, PetscInt nv,
                                 MPI_Comm comm);

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
