#pragma once
// Particle-balanced decomposition at start-up (domain.balance = particles; grid/balance.hpp has the
// cuts): the sources are seeded once on the even split, the per-axis histograms of those particles
// over the grid nodes are summed over ranks, and the decomposition the method then uses has its
// ownership cuts where the histograms split evenly. Shared by every method that seeds `sources` on
// a Decomposition (MPM, SPH). Also the max/mean load reported in diagnostics and the progress line.
#include <mpi.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "core/deck.hpp"
#include "grid/decomposition.hpp"
#include "particles/particle_set.hpp"

namespace meniscus::particles {

// Particles per node plane along each axis (by nearest node, as ownership), over all ranks, of the
// n x Dim positions `x`. Collective.
template <int Dim>
std::array<std::vector<long>, Dim> node_histograms(const Kokkos::View<double**, Kokkos::LayoutRight, MemSpace>& x,
                                                   const grid::Decomposition<Dim>& decomp);

// The decomposition of `spec` for a method that seeds the deck's `sources` next: with
// domain.balance = particles and several ranks, cut where the seeded particles balance (blocks at
// least `min_nodes` nodes wide); otherwise the even split. Collective.
template <int Dim>
std::unique_ptr<grid::Decomposition<Dim>> balanced_decomposition(MPI_Comm comm,
                                                                 const typename grid::Decomposition<Dim>::Spec& spec,
                                                                 const config::Section& root,
                                                                 const std::vector<std::string>& material_names,
                                                                 int min_nodes);

// Max over ranks of the local particle count divided by the mean (1 without particles). Collective.
double particle_imbalance(long local_count, MPI_Comm comm);

}  // namespace meniscus::particles
