#pragma once
// Cell-list neighbour search over a rank's owned + ghost particles (rows [0, owned) owned, the rest
// ghosts). Points are binned into cubic cells of edge `support` by a counting sort (count per cell,
// exclusive scan, scatter), then each owned row scans the 3^Dim cells around it. The result is a
// CSR list per owned row of every other row with |x_i - x_j| < support (strict), ordered by cell and
// by row within a cell, so that sums over neighbours do not depend on thread scheduling.
// Any particle method with a compact kernel can reuse it (SPH, DEM, surface sampling).
#include <Kokkos_Core.hpp>

#include "particles/particle_set.hpp"

namespace meniscus::particles {

struct NeighborLists {
  Kokkos::View<int*> offset;  // owned + 1 row starts
  Kokkos::View<int*> index;   // neighbour rows, in [0, total)
  long pairs() const { return index.extent(0); }
};

// x: total x Dim positions (LayoutRight or default layout). Collective over nothing (rank-local).
// `cells_per_support` 2 bins into cells of edge support / 2 and scans 5^Dim of them, which in 3D visits
// about 0.58 of the candidates of the default 3^Dim cells of edge support (the rows come in another
// order, still by cell and by row within a cell).
template <int Dim>
void build_neighbor_lists(ConstRealField x, int owned, double support, NeighborLists& out, int cells_per_support = 1);

// Reference O(owned x total) search with the same contract, for tests.
template <int Dim>
void brute_force_neighbor_lists(ConstRealField x, int owned, double support, NeighborLists& out);

}  // namespace meniscus::particles
