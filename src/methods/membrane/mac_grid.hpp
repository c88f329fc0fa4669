#pragma once
// The liquid of Ruan et al. 2021 (§4.1): an incompressible, inviscid fluid on a 2D MAC grid
// distributed with the shared DMDA decomposition. The DMDA has one node per cell corner
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

// Device-copyable geometry of the grid and its local (ghosted) box.
struct MacGeometry {
  double lower[2];
  double dx;
  int cells[2];
  grid::NodeBox<2> ghost;
  grid::NodeBox<2> owned;

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
  // Type of the face of axis d stored at node (i, j): between cells (i-1, j) and (i, j) for d = 0,
  // (i, j-1) and (i, j) for d = 1.
  template <class A>
  KOKKOS_INLINE_FUNCTION int face_type(const A& a, int d, int i, int j) const {
    if (d == 0 ? (j >= cells[1] || i > cells[0]) : (i >= cells[0] || j > cells[1])) return kNoFace;
    const int k = d == 0 ? i : j;
    if (k == 0 || k == cells[d]) return kWall;
    const int ta = d == 0 ? cell_type(a, i - 1, j) : cell_type(a, i, j - 1);
    const int tb = cell_type(a, i, j);
    if (ta == kFluid && tb == kFluid) return kAllFluid;
    if ((ta == kFluid && tb == kAir) || (ta == kAir && tb == kFluid)) return kFluidAir;
    if ((ta == kFluid && tb == kSolid) || (ta == kSolid && tb == kFluid)) return kFluidRigid;
    return kInactive;
  }
  KOKKOS_INLINE_FUNCTION void face_centre(int d, int i, int j, double* x) const {
    x[0] = lower[0] + (i + (d == 0 ? 0.0 : 0.5)) * dx;
    x[1] = lower[1] + (j + (d == 1 ? 0.0 : 0.5)) * dx;
  }
  KOKKOS_INLINE_FUNCTION void cell_centre(int i, int j, double* x) const {
    x[0] = lower[0] + (i + 0.5) * dx;
    x[1] = lower[1] + (j + 0.5) * dx;
  }
  // Bilinear interpolation of the face component d (dof `dof`) at point x, clamped to the ghost box.
  template <class A>
  KOKKOS_INLINE_FUNCTION double sample(const A& a, int d, int dof, const double* x) const {
    const double sx = (x[0] - lower[0]) / dx - (d == 0 ? 0.0 : 0.5);
    const double sy = (x[1] - lower[1]) / dx - (d == 1 ? 0.0 : 0.5);
    const int hi_i = (d == 0 ? cells[0] : cells[0] - 1), hi_j = (d == 1 ? cells[1] : cells[1] - 1);
    int i0 = static_cast<int>(kmath::floor(sx)), j0 = static_cast<int>(kmath::floor(sy));
    const int lo_i = ghost.lo[0], lo_j = ghost.lo[1];
    const int top_i = ghost.lo[0] + ghost.n[0] - 2, top_j = ghost.lo[1] + ghost.n[1] - 2;
    i0 = i0 < lo_i ? lo_i : (i0 > top_i ? top_i : i0);
    j0 = j0 < lo_j ? lo_j : (j0 > top_j ? top_j : j0);
    i0 = i0 > hi_i - 1 ? hi_i - 1 : i0;
    j0 = j0 > hi_j - 1 ? hi_j - 1 : j0;
    double fx = sx - i0, fy = sy - j0;
    fx = fx < 0 ? 0 : (fx > 1 ? 1 : fx);
    fy = fy < 0 ? 0 : (fy > 1 ? 1 : fy);
    return (1 - fx) * (1 - fy) * a(local(i0, j0), dof) + fx * (1 - fy) * a(local(i0 + 1, j0), dof) +
           (1 - fx) * fy * a(local(i0, j0 + 1), dof) + fx * fy * a(local(i0 + 1, j0 + 1), dof);
  }
};

class MacGrid {
 public:
  // procs: the process grid (0 entries: chosen by the DMDA); ranges: nodes per block along each axis
  // (grid/balance.hpp; they override procs), empty for the even split.
  MacGrid(MPI_Comm comm, const double lower[2], const int cells[2], double dx, const std::string& deck_file,
          std::array<int, 2> procs = {0, 0}, std::array<std::vector<int>, 2> ranges = {});
  ~MacGrid();
  MacGrid(const MacGrid&) = delete;
  MacGrid& operator=(const MacGrid&) = delete;

  const grid::Decomposition<2>& decomposition() const { return *decomp_; }
  grid::GridField<2>& field() { return *field_; }
  DM pressure_dm() const { return dm_p_; }  // one dof per node (cell), same ownership
  MacGeometry geometry() const;
  MPI_Comm comm() const { return decomp_->comm(); }
  double dx() const { return dx_; }
  int cells(int d) const { return cells_[d]; }

 private:
  std::unique_ptr<grid::Decomposition<2>> decomp_;
  std::unique_ptr<grid::GridField<2>> field_;
  DM dm_p_ = nullptr;
  double lower_[2];
  int cells_[2];
  double dx_;
};

}  // namespace meniscus::membrane
