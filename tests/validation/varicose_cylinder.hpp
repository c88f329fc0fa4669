#pragma once
// A liquid cylinder along z in a box periodic along z, for the Plateau-Rayleigh tests of every particle
// method (Rayleigh 1878): carve a varicose perturbation R(z) = R (1 + eps cos kz) out of a straight,
// seeded cylinder, and measure it from the particles themselves. The number of particles per unit
// length is proportional to R(z)^2 = R^2 (1 + 2 eps cos kz + eps^2 cos^2 kz), so
//   |(1/N) sum_i exp(i k z_i)| = eps / (1 + eps^2 / 2),
// within 0.5 % of eps for eps <= 0.1. A pinched cylinder has two neighbouring slabs, one lattice
// spacing thick, that hold no particle.
#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "particles/particle_set.hpp"

namespace meniscus::test {

// Keeps the owned particles inside R (1 + eps cos kz); `x` is the particle set's position field.
inline void carve_varicose(particles::ParticleSet& set, int x_field, double radius, double eps, double k) {
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(x_field));
  std::vector<int> keep;
  for (size_t i = 0; i < set.size(); ++i)
    if (std::hypot(x(i, 0), x(i, 1)) < radius * (1 + eps * std::cos(k * x(i, 2)))) keep.push_back(static_cast<int>(i));
  particles::IndexList list("keep", keep.size());
  auto h = Kokkos::create_mirror_view(list);
  for (size_t i = 0; i < keep.size(); ++i) h(i) = keep[i];
  Kokkos::deep_copy(list, h);
  set.gather(list, keep.size());
}

struct VaricoseSample {
  double amplitude = 0;  // |(1/N) sum exp(i k z)|, summed over ranks
  long fewest = 0;       // particles in the emptiest slab
  bool pinched = false;  // two neighbouring slabs empty: the neck is cut
};

// `slabs` slabs of thickness length / slabs along z in [0, length); collective over `comm`.
inline VaricoseSample sample_varicose(particles::ParticleSet& set, int x_field, double k, double length, int slabs,
                                      MPI_Comm comm) {
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), set.field(x_field));
  double sum[3] = {0, 0, static_cast<double>(set.size())};
  std::vector<long> count(slabs, 0);
  for (size_t i = 0; i < set.size(); ++i) {
    sum[0] += std::cos(k * x(i, 2));
    sum[1] += std::sin(k * x(i, 2));
    const int b = static_cast<int>(std::floor(x(i, 2) / length * slabs));
    count[std::min(slabs - 1, std::max(0, b))]++;
  }
  MPI_Allreduce(MPI_IN_PLACE, sum, 3, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Allreduce(MPI_IN_PLACE, count.data(), slabs, MPI_LONG, MPI_SUM, comm);
  VaricoseSample s;
  s.amplitude = std::hypot(sum[0], sum[1]) / sum[2];
  s.fewest = *std::min_element(count.begin(), count.end());
  for (int b = 0; b < slabs && !s.pinched; ++b) s.pinched = count[b] == 0 && count[(b + 1) % slabs] == 0;
  return s;
}

}  // namespace meniscus::test
