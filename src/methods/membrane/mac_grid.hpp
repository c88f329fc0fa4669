#pragma once
// The liquid of Ruan et al. 2021 (§4.1): an incompressible, inviscid fluid on a MAC grid
// distributed with the shared DMDA decomposition (2D and 3D; the 3D packing is described at
// MacGeometryT<3> below). The DMDA has one node per cell corner
// ((nx+1) x (ny+1) nodes); node (i, j) stores, as separate dofs, the pressure of cell (i, j), the
// x velocity of the face x = i dx (row j), the y velocity of the face y = j dx (column i), and the
// cell's type and signed liquid distance. Entries past the last cell or face are unused (zero).
// This packing lets one ghost exchange (DMGlobalToLocal) serve every field.
#include <petscdmda.h>

#include <Kokkos_Core.hpp>
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "core/kmath.hpp"
#include "grid/decomposition.hpp"
#include "grid/grid_field.hpp"

namespace meniscus::membrane {

enum CellType : int { kAir = 0, kFluid = 1, kSolid = 2 };
// Dual-cell (face) classification of the paper (§4.3): all-fluid faces take the pressure-projected
// grid velocity, fluid-air faces the membrane velocity W v, fluid-rigid faces (between a FLUID cell
// and a SOLID cell inside the box, i.e. one covered by a rigid body) the body velocity J_r v_r,
// walls zero.
enum FaceType : int { kNoFace = -1, kInactive = 0, kAllFluid = 1, kFluidAir = 2, kWall = 3, kFluidRigid = 4 };
// dofs of a node: p-hat (pressure x dt), face velocities u, v, cell type, signed distance phi
// (negative in the liquid), the advection velocity of the first solve, and extrapolation flags.
enum Dof : int { kP = 0, kU = 1, kV = 2, kCell = 3, kPhi = 4, kUdag = 5, kVdag = 6, kValidU = 7, kValidV = 8, kDofs = 9 };
// dofs of a 3D node (i, j, k): p-hat of cell (i, j, k); the face velocities u, v, w of the faces
// x = i dx, y = j dx, z = k dx through that node's cell (dofs k3U + d); cell type; phi; the first
// solve's advection velocities (k3Udag + d); extrapolation flags (k3Valid + d).
enum Dof3 : int { k3P = 0, k3U = 1, k3Cell = 4, k3Phi = 5, k3Udag = 6, k3Valid = 9, k3Dofs = 12 };

// The dofs of Dof and Dof3 that the dimension-free kernels (fluid_kernels.hpp) use; the d-th
// component of a face field is its first dof + d.
template <int Dim>
struct MacDofs;
template <>
struct MacDofs<2> {
  static constexpr int u = kU, udag = kUdag, valid = kValidU;
};
template <>
struct MacDofs<3> {
  static constexpr int u = k3U, udag = k3Udag, valid = k3Valid;
};

// Face classification from the two incident cell types (Ruan 2021 §4.3; shared by 2D and 3D).
KOKKOS_INLINE_FUNCTION int pair_face_type(int ta, int tb) {
  if (ta == kFluid && tb == kFluid) return kAllFluid;
  if ((ta == kFluid && tb == kAir) || (ta == kAir && tb == kFluid)) return kFluidAir;
  if ((ta == kFluid && tb == kSolid) || (ta == kSolid && tb == kFluid)) return kFluidRigid;
  return kInactive;
}

// The grid and its local (ghosted and owned) boxes, shared by both dimensions' geometry.
template <int Dim>
struct MacBoxes {
  double lower[Dim];
  double dx;
  int cells[Dim];
  grid::NodeBox<Dim> ghost;
  grid::NodeBox<Dim> owned;
  KOKKOS_INLINE_FUNCTION long local(const int* c) const { return ghost.index(c); }
  KOKKOS_INLINE_FUNCTION bool in_ghost(const int* c) const {
    for (int d = 0; d < Dim; ++d)
      if (c[d] < ghost.lo[d] || c[d] >= ghost.lo[d] + ghost.n[d]) return false;
    return true;
  }
  // Centre of the face of axis d stored at node c (its low corner on axis d, cell centres across).
  KOKKOS_INLINE_FUNCTION void face_centre(int d, const int* c, double* x) const {
    for (int e = 0; e < Dim; ++e) x[e] = lower[e] + (c[e] + (e == d ? 0.0 : 0.5)) * dx;
  }
  // Multilinear interpolation of the face component d (dof `dof`) at point x, from the 2^Dim faces
  // of axis d around it; the base face is clamped to the ghost box and to the domain's faces, and
  // the weights to [0, 1] (constant extension outside).
  template <class A>
  KOKKOS_INLINE_FUNCTION double sample(const A& a, int d, int dof, const double* x) const {
    int base[Dim];
    double f[Dim];
    for (int e = 0; e < Dim; ++e) {
      const double s = (x[e] - lower[e]) / dx - (d == e ? 0.0 : 0.5);
      const int hi = d == e ? cells[e] : cells[e] - 1, top = ghost.lo[e] + ghost.n[e] - 2;
      int i0 = static_cast<int>(kmath::floor(s));
      i0 = i0 < ghost.lo[e] ? ghost.lo[e] : (i0 > top ? top : i0);
      i0 = i0 > hi - 1 ? hi - 1 : i0;
      const double t = s - i0;
      base[e] = i0;
      f[e] = t < 0 ? 0 : (t > 1 ? 1 : t);
    }
    double sum = 0;
    for (int corner = 0; corner < (1 << Dim); ++corner) {
      int c[Dim];
      double w = 1;
      for (int e = 0; e < Dim; ++e) {
        const int up = (corner >> e) & 1;
        c[e] = base[e] + up;
        w *= up ? f[e] : 1 - f[e];
      }
      sum += w * a(ghost.index(c), dof);
    }
    return sum;
  }
};

template <int Dim>
struct MacGeometryT;

// Device-copyable geometry of the grid and its local (ghosted) box.
template <>
struct MacGeometryT<2> : MacBoxes<2> {
  using MacBoxes<2>::local;
  using MacBoxes<2>::in_ghost;
  using MacBoxes<2>::face_centre;

  KOKKOS_INLINE_FUNCTION bool in_ghost(int i, int j) const {
    return i >= ghost.lo[0] && i < ghost.lo[0] + ghost.n[0] && j >= ghost.lo[1] && j < ghost.lo[1] + ghost.n[1];
  }
  KOKKOS_INLINE_FUNCTION long local(int i, int j) const {
    const int ij[2] = {i, j};
    return ghost.index(ij);
  }
  // Cell type read from a ghosted array; cells outside the domain count as solid (the tank walls).
  template <class A>
  KOKKOS_INLINE_FUNCTION int cell_type(const A& a, int i, int j) const {
    if (i < 0 || j < 0 || i >= cells[0] || j >= cells[1]) return kSolid;
    return static_cast<int>(a(local(i, j), kCell));
  }
  template <class A>
  KOKKOS_INLINE_FUNCTION int cell_type(const A& a, const int* c) const {
    return cell_type(a, c[0], c[1]);
  }
  // Type of the face of axis d stored at node (i, j): between cells (i-1, j) and (i, j) for d = 0,
  // (i, j-1) and (i, j) for d = 1.
  template <class A>
  KOKKOS_INLINE_FUNCTION int face_type(const A& a, int d, int i, int j) const {
    if (d == 0 ? (j >= cells[1] || i > cells[0]) : (i >= cells[0] || j > cells[1])) return kNoFace;
    const int k = d == 0 ? i : j;
    if (k == 0 || k == cells[d]) return kWall;
    const int ta = d == 0 ? cell_type(a, i - 1, j) : cell_type(a, i, j - 1);
    return pair_face_type(ta, cell_type(a, i, j));
  }
  template <class A>
  KOKKOS_INLINE_FUNCTION int face_type(const A& a, int d, const int* c) const {
    return face_type(a, d, c[0], c[1]);
  }
  KOKKOS_INLINE_FUNCTION void face_centre(int d, int i, int j, double* x) const {
    const int ij[2] = {i, j};
    MacBoxes<2>::face_centre(d, ij, x);
  }
  KOKKOS_INLINE_FUNCTION void cell_centre(int i, int j, double* x) const {
    x[0] = lower[0] + (i + 0.5) * dx;
    x[1] = lower[1] + (j + 0.5) * dx;
  }
};

using MacGeometry = MacGeometryT<2>;

// 3D: node (i, j, k) of the DMDA, (nx+1) x (ny+1) x (nz+1) nodes, stores cell (i, j, k) and the
// three faces through its low corner (Dof3). Same rules as in 2D: cells outside the box are solid
// (the tank walls), domain-boundary faces are walls.
template <>
struct MacGeometryT<3> : MacBoxes<3> {
  using MacBoxes<3>::local;
  using MacBoxes<3>::in_ghost;

  KOKKOS_INLINE_FUNCTION static bool in_box(const grid::NodeBox<3>& b, int i, int j, int k) {
    const int c[3] = {i, j, k};
    for (int d = 0; d < 3; ++d)
      if (c[d] < b.lo[d] || c[d] >= b.lo[d] + b.n[d]) return false;
    return true;
  }
  KOKKOS_INLINE_FUNCTION bool in_ghost(int i, int j, int k) const { return in_box(ghost, i, j, k); }
  KOKKOS_INLINE_FUNCTION bool in_owned(int i, int j, int k) const { return in_box(owned, i, j, k); }
  KOKKOS_INLINE_FUNCTION long local(int i, int j, int k) const {
    const int ijk[3] = {i, j, k};
    return ghost.index(ijk);
  }
  template <class A>
  KOKKOS_INLINE_FUNCTION int cell_type(const A& a, int i, int j, int k) const {
    if (i < 0 || j < 0 || k < 0 || i >= cells[0] || j >= cells[1] || k >= cells[2]) return kSolid;
    return static_cast<int>(a(local(i, j, k), k3Cell));
  }
  template <class A>
  KOKKOS_INLINE_FUNCTION int cell_type(const A& a, const int* c) const {
    return cell_type(a, c[0], c[1], c[2]);
  }
  // Type of the face of axis d stored at node c = (i, j, k): between cells c - e_d and c.
  template <class A>
  KOKKOS_INLINE_FUNCTION int face_type(const A& a, int d, const int* c) const {
    for (int e = 0; e < 3; ++e)
      if (c[e] > cells[e] || (e != d && c[e] == cells[e])) return kNoFace;
    if (c[d] == 0 || c[d] == cells[d]) return kWall;
    const int ta = cell_type(a, c[0] - (d == 0), c[1] - (d == 1), c[2] - (d == 2));
    return pair_face_type(ta, cell_type(a, c[0], c[1], c[2]));
  }
  KOKKOS_INLINE_FUNCTION void cell_centre(const int* c, double* x) const {
    for (int e = 0; e < 3; ++e) x[e] = lower[e] + (c[e] + 0.5) * dx;
  }
};

// Stage 8 on the all-fluid faces (Eq. 7): dst_u + d <- u** - G p-hat / rho from the ghosted array
// `local` (u** in dofs src_u + d, p-hat in dof p) into the owned array; every other face gets 0
// (mixed faces are written afterwards with the structure velocity).
template <int Dim, class A>
void project_fluid_faces(const MacGeometryT<Dim>& g, const A& local, const A& owned, double rho, int src_u, int dst_u,
                         int p) {
  const double inv_rho_dx = 1.0 / (rho * g.dx);
  Kokkos::parallel_for(
      "membrane_project_faces", g.owned.size(), KOKKOS_LAMBDA(const long n) {
        int c[Dim];
        g.owned.node(n, c);
        const long l = g.local(c);
        for (int d = 0; d < Dim; ++d) {
          double u = 0;
          if (g.face_type(local, d, c) == kAllFluid) {
            int ca[Dim];
            for (int e = 0; e < Dim; ++e) ca[e] = c[e] - (e == d);
            u = local(l, src_u + d) - (local(l, p) - local(g.local(ca), p)) * inv_rho_dx;
          }
          owned(n, dst_u + d) = u;
        }
      });
}

template <int Dim>
constexpr int mac_dofs() {
  return Dim == 2 ? static_cast<int>(kDofs) : static_cast<int>(k3Dofs);
}

// The rank owning the MAC cell that holds x: cell c of axis d holds lower + [c, c + 1) dx and is
// stored at DMDA node c; the decomposition's owner map assigns a point to its nearest node, so the
// point half a cell lower finds node c. Points outside the box go to the nearest cell. A membrane
// vertex belongs to this rank (membrane_ownership.hpp, local_triangle_membrane).
template <int Dim>
int cell_owner(const grid::Decomposition<Dim>& dec, const double* x) {
  double shifted[Dim];
  for (int d = 0; d < Dim; ++d) shifted[d] = x[d] - 0.5 * dec.dx();
  return dec.owner_of(shifted);
}

template <int Dim>
class MacGridT {
 public:
  // procs: the process grid (0 entries: chosen by the DMDA); ranges: nodes per block along each axis
  // (grid/balance.hpp; they override procs), empty for the even split.
  MacGridT(MPI_Comm comm, const double* lower, const int* cells, double dx, const std::string& deck_file,
           std::array<int, Dim> procs = {}, std::array<std::vector<int>, Dim> ranges = {});
  ~MacGridT();
  MacGridT(const MacGridT&) = delete;
  MacGridT& operator=(const MacGridT&) = delete;

  const grid::Decomposition<Dim>& decomposition() const { return *decomp_; }
  grid::GridField<Dim>& field() { return *field_; }
  DM pressure_dm() const { return dm_p_; }  // one dof per node (cell), same ownership
  MacGeometryT<Dim> geometry() const;
  MPI_Comm comm() const { return decomp_->comm(); }
  double dx() const { return dx_; }
  int cells(int d) const { return cells_[d]; }

 private:
  std::unique_ptr<grid::Decomposition<Dim>> decomp_;
  std::unique_ptr<grid::GridField<Dim>> field_;
  DM dm_p_ = nullptr;
  double lower_[Dim];
  int cells_[Dim];
  double dx_;
};

using MacGrid = MacGridT<2>;
using MacGrid3 = MacGridT<3>;

}  // namespace meniscus::membrane
