#include "methods/membrane/mac_grid.hpp"

#include "solvers/petsc_check.hpp"

namespace meniscus::membrane {

MacGrid::MacGrid(MPI_Comm comm, const double lower[2], const int cells[2], double dx, const std::string& deck_file,
                 std::array<int, 2> procs, std::array<std::vector<int>, 2> ranges)
    : dx_(dx) {
  grid::Decomposition<2>::Spec spec;
  for (int d = 0; d < 2; ++d) {
    lower_[d] = lower[d];
    cells_[d] = cells[d];
    spec.lower[d] = lower[d];
    spec.upper[d] = lower[d] + cells[d] * dx;
  }
  spec.dx = dx;
  spec.dof = kDofs;
  spec.stencil_width = 2;  // semi-Lagrangian back-traces up to a cell plus the bilinear stencil
  spec.deck_file = deck_file;
  spec.procs = procs;
  spec.ranges = std::move(ranges);
  decomp_ = std::make_unique<grid::Decomposition<2>>(comm, spec);
  field_ = std::make_unique<grid::GridField<2>>(*decomp_);
  solvers::petsc_check(DMDACreateCompatibleDMDA(decomp_->dm(), 1, &dm_p_), "DMDACreateCompatibleDMDA");
}

MacGrid::~MacGrid() {
  field_.reset();
  if (dm_p_) solvers::petsc_check_noexcept(DMDestroy(&dm_p_), "DMDestroy");
}

MacGeometry MacGrid::geometry() const {
  MacGeometry g;
  for (int d = 0; d < 2; ++d) {
    g.lower[d] = lower_[d];
    g.cells[d] = cells_[d];
  }
  g.dx = dx_;
  g.ghost = field_->ghost_box();
  g.owned = field_->owned_box();
  return g;
}

}  // namespace meniscus::membrane
