#pragma once
// Largest particle speed over all ranks, for CFL time-step limits (collective). Shared by the MPM
// methods so that each does not repeat the kernel.
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>

#include "particles/particle_set.hpp"

namespace meniscus::particles {

template <int Dim>
double global_max_speed(MPI_Comm comm, const RealField& v, size_t count, const char* label) {
  double vmax = 0;
  Kokkos::parallel_reduce(
      label, Kokkos::RangePolicy<>(0, count),
      KOKKOS_LAMBDA(const int p, double& m) {
        double s = 0;
        for (int d = 0; d < Dim; ++d) s += v(p, d) * v(p, d);
        m = s > m ? s : m;
      },
      Kokkos::Max<double>(vmax));
  // A rank without particles reduces to the lowest double: its sqrt would be NaN, and so would dt.
  vmax = std::sqrt(std::max(vmax, 0.0));
  MPI_Allreduce(MPI_IN_PLACE, &vmax, 1, MPI_DOUBLE, MPI_MAX, comm);
  return vmax;
}

}  // namespace meniscus::particles
