#pragma once
// What the SPH stages see of the particles around each owned particle: a contract between the
// neighbourhood builder (cell lists over owned + ghost particles) and every kernel that sums over
// neighbours (density, DFSPH, the implicit cohesion + viscosity operator).
//
// Index space: rows [0, owned) are this rank's particles, rows [owned, total) are ghost copies from
// neighbouring ranks (and periodic images), in the halo plan's order. Neighbour lists exist for
// owned rows only; they hold indices into [0, total), exclude the particle itself, and contain
// every particle with |x_i - x_j| < support.
#include <Kokkos_Core.hpp>

#include <functional>

namespace meniscus::sph {

struct Neighborhood {
  int owned = 0;
  int total = 0;
  double support = 0;           // kernel support radius h (m)
  Kokkos::View<int*> offset;    // CSR row starts, owned + 1 entries
  Kokkos::View<int*> index;     // CSR column indices into [0, total)
  Kokkos::View<double**, Kokkos::LayoutRight> x;     // positions, total x Dim (ghost rows current)
  // Copies the owned rows of a (total x components) view into its ghost rows, replaying this
  // step's halo plan (one message per neighbour rank). Collective among neighbours; solvers call it
  // before every operator application whose result reads neighbour values.
  std::function<void(Kokkos::View<double**, Kokkos::LayoutRight>)> refresh_ghosts;
};

}  // namespace meniscus::sph
