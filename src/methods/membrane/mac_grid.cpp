#include "methods/membrane/mac_grid.hpp"

#include "solvers/petsc_check.hpp"

namespace meniscus::membrane {

template <int Dim>
MacGridT<Dim>::MacGridT(MPI_Comm comm, const double* lower, const int* cells, double dx, const std::string& deck_file,
                        std::array<int, Dim> procs, std::array<std::vector<int>, Dim> ranges)
    : dx_(dx) {
  typename grid::Decomposition<Dim>::Spec spec;
  for (int d = 0; d < Dim; ++d) {
    lower_[d] = lower[d];
    cells_[d] = cells[d];
    spec.lower[d] = lower[d];
    spec.upper[d] = lower[d] + cells[d] * dx;
  }
  spec.dx = dx;
  spec.dof = mac_dofs<Dim>();
  spec.stencil_width = 2;  // semi-Lagrangian back-traces up to a cell plus the bilinear stencil
  spec.deck_file = deck_file;
  spec.procs = procs;
  spec.ranges = std::move(ranges);
  decomp_ = std::make_unique<grid::Decomposition<Dim>>(comm, spec);
  field_ = std::make_unique<grid::GridField<Dim>>(*decomp_);
  solvers::petsc_check(DMDACreateCompatibleDMDA(decomp_->dm(), 1, &dm_p_), "DMDACreateCompatibleDMDA");
}

template <int Dim>
MacGridT<Dim>::~MacGridT() {
  field_.reset();
  if (dm_p_) solvers::petsc_check_noexcept(DMDestroy(&dm_p_), "DMDestroy");
}

template <int Dim>
MacGeometryT<Dim> MacGridT<Dim>::geometry() const {
  MacGeometryT<Dim> g;
  for (int d = 0; d < Dim; ++d) {
    g.lower[d] = lower_[d];
    g.cells[d] = cells_[d];
  }
  g.dx = dx_;
  g.ghost = field_->ghost_box();
  g.owned = field_->owned_box();
  return g;
}

template class MacGridT<2>;
template class MacGridT<3>;

}  // namespace meniscus::membrane
