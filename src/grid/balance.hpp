#pragma once
// Particle-balanced ownership ranges. The DMDA splits each axis into blocks of whole nodes, and a
// rank owns the product of one block per axis (a tensor-product decomposition), so the work can only
// be balanced through the per-axis cuts. Given per-axis histograms of the particles over the nodes
// (how many particles have their nearest node in each node plane), each axis is cut where the
// cumulative count crosses an equal share, subject to a minimum block width; among the process grids
// the job's rank count allows, the one with the smallest predicted max/mean load wins (the product of
// the per-axis shares, exact when the particle distribution is separable, as for a block of liquid),
// with the smaller cut surface breaking ties. The first three functions are pure (the caller sums the
// histograms over ranks); the last two build and read decompositions.
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "grid/decomposition.hpp"

namespace meniscus::grid {

// Block sizes (in nodes) that cut an axis with hist.size() nodes into `blocks` pieces of at least
// `min_nodes` nodes, each as close to an equal share of sum(hist) as the node planes allow. Without
// particles the split is even. Requires blocks * min_nodes <= hist.size().
std::vector<int> balanced_ranges(const std::vector<long>& hist, int blocks, int min_nodes);

// Predicted max/mean particles per rank of the tensor-product blocks (1 when there are no particles).
template <int Dim>
double predicted_imbalance(const std::array<std::vector<long>, Dim>& hist,
                           const std::array<std::vector<int>, Dim>& ranges);

// Chooses the process grid (honouring positive entries of `requested`) and the ranges for `size`
// ranks. Returns an empty string on success, or why no grid fits (as Decomposition::choose_procs).
template <int Dim>
std::string balanced_layout(const std::array<std::vector<long>, Dim>& hist, int size, int min_nodes,
                            const std::array<int, Dim>& requested, std::array<int, Dim>& procs,
                            std::array<std::vector<int>, Dim>& ranges);

// A decomposition of `spec`'s grid with these ownership ranges (nodes per block along each axis; the
// process grid is their count per axis). Collective.
template <int Dim>
std::unique_ptr<Decomposition<Dim>> make_decomposition(MPI_Comm comm, typename Decomposition<Dim>::Spec spec,
                                                       const std::array<std::vector<int>, Dim>& ranges);

// The ownership ranges `decomp` has.
template <int Dim>
std::array<std::vector<int>, Dim> ownership_ranges(const Decomposition<Dim>& decomp);

}  // namespace meniscus::grid
