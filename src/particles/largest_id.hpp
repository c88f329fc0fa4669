#pragma once
// The largest particle id over every rank (-1 for an empty set): emitters and film insertion number
// new particles after it, so ids stay unique and independent of the rank count. Collective.
#include <mpi.h>

#include <cstdint>

#include "particles/particle_set.hpp"

namespace meniscus::particles {

inline int64_t largest_id(const ParticleSet& set, MPI_Comm comm) {
  auto id = set.id();
  int64_t top = -1;
  Kokkos::parallel_reduce(
      "particles::largest_id", Kokkos::RangePolicy<>(0, set.size()),
      KOKKOS_LAMBDA(const int p, int64_t& m) { m = id(p) > m ? id(p) : m; }, Kokkos::Max<int64_t>(top));
  MPI_Allreduce(MPI_IN_PLACE, &top, 1, MPI_INT64_T, MPI_MAX, comm);
  return top;
}

}  // namespace meniscus::particles
