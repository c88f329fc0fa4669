#pragma once
// Template bodies of membrane_flow_3d.hpp.
#include <mpi.h>

namespace meniscus::membrane {

template <class F>
double mean_fluid_pressure_3d(MacGrid3& grid, double dt, const F& select) {
  const MacGeometryT<3> g = grid.geometry();
  auto owned = grid.field().acquire_owned();
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), owned);
  grid.field().release_owned(owned);
  double sum[2] = {0, 0};
  for (long q = 0; q < g.owned.size(); ++q) {
    int c[3];
    g.owned.node(q, c);
    if (c[0] >= g.cells[0] || c[1] >= g.cells[1] || c[2] >= g.cells[2]) continue;
    if (static_cast<int>(h(q, k3Cell)) != kFluid) continue;
    double x[3];
    g.cell_centre(c, x);
    if (!select(x)) continue;
    sum[0] += h(q, k3P) / dt;
    sum[1] += 1;
  }
  MPI_Allreduce(MPI_IN_PLACE, sum, 2, MPI_DOUBLE, MPI_SUM, grid.comm());
  return sum[1] > 0 ? sum[0] / sum[1] : 0.0;
}

}  // namespace meniscus::membrane
