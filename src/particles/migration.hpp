#pragma once
// Moves particles to the rank that owns their nearest grid node. Called after every step: by CFL a
// particle moves less than a cell, so it can only land on a neighbouring rank; a particle that
// would jump further is reported (with its id) instead of being lost. On periodic axes a particle
// that left through one face is first moved to the other (x -= box length), then its owner is
// looked up: its id and every field go with it, so it is neither lost nor duplicated.
#include "grid/decomposition.hpp"
#include "particles/particle_set.hpp"

namespace meniscus::particles {

struct MigrationStats {
  long sent = 0;
  long received = 0;
};

// Wraps every position on the decomposition's periodic axes back into the box (no-op without any).
template <int Dim>
void wrap_periodic(ParticleSet& set, const grid::Decomposition<Dim>& decomp, int position_field);

template <int Dim>
MigrationStats migrate(ParticleSet& set, const grid::Decomposition<Dim>& decomp, int position_field);

// Reorders a rank's particles by grid cell (a stable counting sort) so that P2G/G2P walk memory in
// order. The permutation is computed on the host from the cell keys (two integer passes).
template <int Dim>
void sort_by_cell(ParticleSet& set, const grid::Decomposition<Dim>& decomp, int position_field);

}  // namespace meniscus::particles
