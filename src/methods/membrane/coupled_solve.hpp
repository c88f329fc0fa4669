#pragma once
// The monolithic liquid-membrane saddle-point solve of Ruan et al. 2021 (Eq. 28 without rigid
// bodies, Eq. 19 for the first solve), assembled in PETSc:
//
//   [ A   B^T ] [ p-hat ]   [ b_p ]      A   = (V/rho) G^T P_F G        (all-fluid faces)
//   [ B   -C  ] [ v_F   ] = [ b_v ]      B^T = -V G^T W                 (fluid-air faces)
//                                        C   = M_s + dt^2 K_c + W^T M W
//   b_p = V G^T P_F u**,   b_v = -(M_s v^n + dt f~_c + W^T M u**),   f~_c = f_c(x) + dt K_c v^n
//
// with p-hat = p dt on FLUID cells (identity rows elsewhere), v_F the free membrane velocity
// components, M = rho alpha_f V the liquid mass of each fluid-air dual cell (alpha_f the ghost-fluid
// fraction). K is a MatNest of AIJ blocks. Modes (kkt_solve.hpp): `minres_blockdiag` (MINRES
// preconditioned by the SPD block diagonal diag(S^, C), S^ = A + B^T diag(C)^-1 B, GAMG on S^ and
// Jacobi on C), `schur_cg` (CG on the Schur complement A + B^T C^-1 B), `paper_dpcg` (the paper's
// diagonally preconditioned CG on K) and `direct` (MUMPS LU, for small debug runs). Every option can
// be overridden from the PETSc options database under the prefix (default `membrane_`).
#include <petscksp.h>

#include <string>
#include <vector>

#include "methods/membrane/mac_grid.hpp"
#include "methods/membrane/rigid_body.hpp"

namespace meniscus::membrane {

// Host copy of the membrane as the assembly needs it (replicated on every rank, phase 1 of the
// parallel layout: the membrane is small next to the grid).
struct MembraneHost {
  std::vector<double> xy;      // 2 per vertex
  std::vector<double> v;       // 2 per vertex, v^n
  std::vector<int> kind;       // VertexKind per vertex
  std::vector<int> seg;        // 2 per segment
  std::vector<double> mass;    // lumped vertex masses rho h L/2
  std::vector<double> force;   // capillary force f_c(x), 2 per vertex (zero without tension)
  std::vector<double> weight;  // sigma / L_e per segment (K_c), zero without tension
  // Contact particles (Ruan 2021 §5.2): body[i] >= 0 slaves vertex i to that rigid body. If the
  // body's velocity is an unknown of the solve the vertex moves with J_i v_r (its W columns, mass and
  // capillary force go to the body: K_{a,s}, K_{a,r}, f_a of Eqs. 20-22); otherwise it carries the
  // prescribed velocity v_contact (first solve: the projection velocity v_c-dagger of Eq. 30).
  // Empty vectors: no contact vertices.
  std::vector<int> body;
  std::vector<double> v_contact;  // 2 per vertex
  // false: no adhesion (the negative control of FlowParameters::adhesion): a contact vertex's
  // capillary force does not reach its body (f_a = 0), and an edge between a contact vertex and a
  // free one stiffens the free end only, the contact end taken as anchored at its velocity v^n
  // (K_{a,s} = K_{c,r} = K_{a,r} = 0).
  bool adhesion = true;
  long vertices() const { return static_cast<long>(xy.size() / 2); }
  long segments() const { return static_cast<long>(seg.size() / 2); }
};

// The rigid bodies as a solve sees them (Ruan 2021 §4.3, Eqs. 26-28); Body is Disc (2D) or RigidBody3 (3D).
template <class Body>
struct RigidHostT {
  std::vector<Body> bodies;     // geometry (J is evaluated at these centres) and velocities v^n
  // Body::kDofs per body (3 in 2D, 6 in 3D): velocity of the momentum right-hand side (v_r* = v^n + g dt)
  std::vector<double> v_start;
  // true: every free body's generalized velocity is an unknown (the three-way solve); false: all
  // bodies move with their v^n (the first solve, Stage 4, where fluid-rigid faces are Neumann faces).
  bool unknowns = false;
};
using RigidHost = RigidHostT<Disc>;
using RigidHost3 = RigidHostT<RigidBody3>;

struct CoupledSolveOptions {
  std::string prefix = "membrane_";
  std::string mode = "minres_blockdiag";  // schur_cg, paper_dpcg, direct (kkt_solve.hpp)
  double rtol = 1e-10;
  int max_iterations = 2000;
  // Extent of the W support along the face normal in dual-cell widths. 1 is the paper's dual cell;
  // there about 15 % of a drop's vertex components meet no fluid-air face and collapse under the
  // unresisted tension (docs/theory-membrane.md); 2 leaves about 2.5 %.
  double w_normal_extent = 2.0;
};

struct CoupledSolveResult {
  int iterations = 0;
  int reason = 0;
  long unknowns = 0;
  long fluid_air_faces = 0;
  // Free membrane velocity components that no fluid-air face sees: only their own inertia and the
  // membrane stiffness hold them, so many of them mean the W support is too narrow.
  long uncoupled_components = 0;
  long fluid_rigid_faces = 0;
  // Dim per body (x, y and in 3D z): the force (per unit length in 2D) that the liquid and the
  // membrane exert along a held axis of a body (Disc::held_x, held_y; RigidBody3::held) during the
  // solve's step, i.e. minus the reaction impulse of the hold over dt; 0 for axes not held. Same
  // value on every rank.
  std::vector<double> held_force;
  // One per body: the torque about its centre (counter-clockwise) the liquid and the membrane exert
  // on a body held at its angle (Disc::held_rotation), from the same rows; 0 when not held.
  std::vector<double> held_torque;
};

// Assembled blocks of one solve (with bodies the velocity block v = (v_F, v_r) orders the free
// membrane components first, then (v_x, v_y, omega) of every free body; all of v lives on rank 0), kept for inspection by tests (symmetry, definiteness).
struct KktBlocks {
  Mat A = nullptr, Bt = nullptr, B = nullptr, C = nullptr, negC = nullptr, S = nullptr;
  Mat K = nullptr, P = nullptr;
  Vec b = nullptr, z = nullptr;
  IS is[2] = {nullptr, nullptr};
  long membrane_unknowns = 0, rigid_unknowns = 0;  // sizes of v_F and v_r in the velocity block
  void destroy();
};

class CoupledSolver {
 public:
  CoupledSolver(MacGrid& grid, CoupledSolveOptions options);
  ~CoupledSolver();
  CoupledSolver(const CoupledSolver&) = delete;
  CoupledSolver& operator=(const CoupledSolver&) = delete;

  // Reads cell types, phi and u** (dofs src_u, src_u + 1: kU/kV or kUdag/kVdag) from the grid's
  // ghosted local array, solves, then writes p-hat into dof kP and the new face velocities into dofs
  // dst_u, dst_u + 1 on owned faces (u** - G p-hat / rho on all-fluid faces, W v on fluid-air
  // faces, zero elsewhere) and refreshes ghosts. v_new receives the new membrane velocities (all
  // vertices, constrained components zero). Collective.
  CoupledSolveResult solve(const MembraneHost& m, double rho, double dt, int src_u, int dst_u, std::vector<double>& v_new);
  // The same with rigid bodies: fluid-rigid faces take J_r v_r, contact vertices J_i v_r; vr_new
  // receives (v_x, v_y, omega) per body (the known velocity of a fixed body, or of every body when
  // r.unknowns is false).
  CoupledSolveResult solve(const MembraneHost& m, const RigidHost& r, double rho, double dt, int src_u, int dst_u,
                           std::vector<double>& v_new, std::vector<double>& vr_new);

  // Keeps the assembled blocks of the next solve (tests); blocks() is valid until the next solve.
  void keep_blocks(bool keep) { keep_ = keep; }
  const KktBlocks& blocks() const { return blocks_; }

 private:
  MacGrid& grid_;
  CoupledSolveOptions options_;
  bool keep_ = false;
  KktBlocks blocks_;
};

}  // namespace meniscus::membrane
