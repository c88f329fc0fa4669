#pragma once
// Template bodies of membrane_flow_3d.hpp.
#include <mpi.h>

#include <vector>

#include "core/reproducible_sum.hpp"

namespace meniscus::membrane {

// The mean of p/dt over the owned fluid cells that `select` picks: the sum is exact
// (reproducible_sum, Demmel & Nguyen 2013), so the same pressures give the same bits at any rank count
// (the pressures of a distributed solve still differ by its round-off). Collective.
template <class F>
double mean_fluid_pressure_3d(MacGrid3& grid, double dt, const F& select) {
  const MacGeometryT<3> g = grid.geometry();
  auto owned = grid.field().acquire_owned();
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), owned);
  grid.field().release_owned(owned);
  std::vector<double> terms;
  for (long q = 0; q < g.owned.size(); ++q) {
    int c[3];
    g.owned.node(q, c);
    if (c[0] >= g.cells[0] || c[1] >= g.cells[1] || c[2] >= g.cells[2]) continue;
    if (static_cast<int>(h(q, k3Cell)) != kFluid) continue;
    double x[3];
    g.cell_centre(c, x);
    if (!select(x)) continue;
    terms.push_back(h(q, k3P) / dt);
  }
  long count = static_cast<long>(terms.size());
  Kokkos::View<double*> term("mean_pressure_terms", terms.size());
  Kokkos::deep_copy(term, Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(terms.data(), terms.size()));
  double sum = 0;
  reproducible_sum(grid.comm(), count, ViewTerms{term}, &sum, "membrane::mean_pressure");
  MPI_Allreduce(MPI_IN_PLACE, &count, 1, MPI_LONG, MPI_SUM, grid.comm());
  return count > 0 ? sum / static_cast<double>(count) : 0.0;
}

}  // namespace meniscus::membrane
