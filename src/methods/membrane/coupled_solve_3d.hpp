#pragma once
// The 3D liquid-membrane saddle-point solve of Ruan et al. 2021 (Eq. 28 without rigid bodies; the
// first solve is Eq. 19 with f_c = K_c = 0), on the 3D MAC grid:
//
//   [ A   B^T ] [ p-hat ]   [ b_p ]      A   = (V/rho) G^T P_F G        (all-fluid faces)
//   [ B   -C  ] [ v_F   ] = [ b_v ]      B^T = -V G^T W                 (fluid-air faces)
//                                        C   = M_s + dt^2 K_c + W^T M W
//   b_p = V G^T P_F u**,   b_v = -(M_s v^n + dt f~_c + W^T M u**),   f~_c = f_c(x) + dt K_c v^n
//
// V = dx^3, W the triangle-clipping interpolation (triangle_interpolation.hpp), K_c = sigma L_cot
// (x) I_3 (Eq. 11), M = rho alpha_f V with alpha_f the ghost-fluid fraction. The system and its
// solver modes are the 2D solve's (kkt_assembly.hpp, kkt_solve.hpp; same options and prefix).
// With rigid bodies (spheres, rigid_body.hpp) it is the three-way solve of Eq. 28 as in 2D: every
// free body adds its six unknowns (v, omega) with M_r = diag(m I_3, I_world), fluid-rigid faces take
// e_d^T J(x_f) v_r (Eq. 26), contact vertices are slaved through J(x_i) (their mass, f_c and K_c
// reach the body as J^T (...) J, Eqs. 20-22). Each rank passes its part of the membrane (the layout
// of triangle_membrane.hpp: owned vertices, then ghosts out to coupling_reach() of its cells); the
// rows of the velocity block are distributed by vertex owner (the rank owning the vertex's cell).
#include <vector>

#include "methods/membrane/coupled_solve.hpp"
#include "methods/membrane/mac_grid.hpp"

namespace meniscus::membrane {

// Host copy of this rank's part of the 3D membrane as the assembly needs it, by local vertex (owned
// vertices first, then ghosts, triangle_membrane.hpp): x, v, fixed, tri, body and v_contact for every
// local vertex (a ghost's as its owner has them); mass and force are read for the owned vertices
// only, the K_c rows (by global id) for the owned rows. Without gid the membrane is whole and owned
// (one rank only).
struct MembraneHost3 {
  std::vector<long> gid;         // global id of each local vertex (empty: the index)
  long owned = -1;               // local vertices [0, owned) are this rank's (-1: all)
  std::vector<int> ghost_owner;  // rank owning ghost g (local id owned + g)
  std::vector<double> x;      // 3 per vertex
  std::vector<double> v;      // 3 per vertex, v^n
  std::vector<int> fixed;     // per vertex, bit d set: component d is held at zero (a vertex on a wall)
  std::vector<int> tri;       // 3 per triangle, counter-clockwise seen from the air
  std::vector<double> mass;   // lumped vertex masses rho h sum A_t / 3
  std::vector<double> force;  // capillary force f_c(x), 3 per vertex (zero without tension)
  // K_c = L (x) I_3 as rows of the scalar matrix L (sigma times the cotangent Laplacian), each
  // (row, col) once; empty without tension.
  std::vector<long> k_row, k_col;
  std::vector<double> k_value;
  // Contact particles (Ruan 2021 §5.2): body[i] >= 0 slaves vertex i to that body (its velocity is
  // J_i v_r if the body's velocity is an unknown, else v_contact, or the body's point velocity when
  // v_contact is empty). Empty: no contact vertices.
  std::vector<int> body;
  std::vector<double> v_contact;  // 3 per vertex
  bool adhesion = true;  // false: no f_a and no K_{a,*} (MembraneHost::adhesion)
  long vertices() const { return static_cast<long>(x.size() / 3); }
};

class CoupledSolver3 {
 public:
  CoupledSolver3(MacGrid3& grid, CoupledSolveOptions options);
  ~CoupledSolver3();
  CoupledSolver3(const CoupledSolver3&) = delete;
  CoupledSolver3& operator=(const CoupledSolver3&) = delete;

  // Reads cell types, phi and u** (dofs src_u + d) from the grid's ghosted array, solves, writes
  // p-hat into dof k3P and the new face velocities into dofs dst_u + d of owned faces (u** - G p-hat
  // / rho on all-fluid faces, W v on fluid-air faces, zero elsewhere) and refreshes ghosts. v_new
  // receives the membrane velocities (3 per vertex, held components zero). Collective.
  CoupledSolveResult solve(const MembraneHost3& m, double rho, double dt, int src_u, int dst_u, std::vector<double>& v_new);
  // The same with rigid bodies: fluid-rigid faces take J_r v_r, contact vertices J_i v_r; vr_new
  // receives (v, omega) per body (6 each; the known velocity of a fixed body, or of every body when
  // r.unknowns is false).
  CoupledSolveResult solve(const MembraneHost3& m, const RigidHost3& r, double rho, double dt, int src_u, int dst_u,
                           std::vector<double>& v_new, std::vector<double>& vr_new);

  // How far around its cells a rank's membrane part must reach for W: the dual cell's half-width
  // along the normal plus one cell (the nearest-triangle fallback of an empty clip finds a triangle
  // within one cell of a mixed face).
  double coupling_reach() const;

  void keep_blocks(bool keep) { keep_ = keep; }
  const KktBlocks& blocks() const { return blocks_; }

 private:
  MacGrid3& grid_;
  CoupledSolveOptions options_;
  bool keep_ = false;
  KktBlocks blocks_;
};

}  // namespace meniscus::membrane
