#pragma once
// Shape and topology measures of a particle fluid (Jeske et al. 2023, Sec. 4), global over ranks:
// connected components of the neighbour graph (|x_ij| < h, ghosts included), the gyration tensor
// (sphericity = smallest / largest eigenvalue, radius of gyration sqrt(tr S)) and the colour-field
// surface-energy proxy E = sum_i V_i |grad c_i|^2, c_i = sum_j V_j W_ij.
#include <mpi.h>

#include <Kokkos_Core.hpp>

#include "methods/sph/sph_neighborhood.hpp"
#include "particles/particle_set.hpp"

namespace meniscus::sph {

struct ComponentStats {
  long components = 0;
  long largest = 0;  // particles in the largest component
  int sweeps = 0;    // label-propagation sweeps (each one halo refresh)
};
// Label propagation: each particle's label is the smallest id in its component. Collective.
ComponentStats connected_components(const Neighborhood& nb, const particles::IdField& ids, MPI_Comm comm);

struct GyrationStats {
  double sphericity = 0;          // s_min / s_max of S = (1/N) sum (x - xbar)(x - xbar)^T
  double radius_of_gyration = 0;  // sqrt(tr S)
  double centroid[3] = {0, 0, 0};
  double moment[3] = {0, 0, 0};  // diagonal of S (m^2): shape oscillations along the axes
};
template <int Dim>
GyrationStats gyration(particles::ConstRealField x, int owned, MPI_Comm comm);

// E = sum_i V_i |sum_j V_j grad W_ij|^2 with V = m / rho0 (owned rows; neighbours incl. ghosts).
template <int Dim>
double surface_energy_proxy(const Neighborhood& nb, Kokkos::View<const double*> volume, MPI_Comm comm);

}  // namespace meniscus::sph
