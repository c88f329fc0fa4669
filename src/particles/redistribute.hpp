#pragma once
// Sends particles to arbitrary ranks in one all-to-all exchange (MPI_Alltoallv). Migration after
// a step only ever reaches neighbouring ranks; this is for when particles can be anywhere: a
// restart that reads a checkpoint written by a different number of ranks.
#include <mpi.h>

#include "grid/decomposition.hpp"
#include "particles/particle_set.hpp"

namespace meniscus::particles {

// Moves particle p to rank dest(p) with every persistent field, id and material. Afterwards each
// rank holds what it was sent, ordered by source rank and, within one source, by original order.
// Non-persistent fields are left unset (as after migration). Collective.
void redistribute(ParticleSet& set, const IndexList& dest, MPI_Comm comm);

// Sends every particle to the rank that owns its position (its nearest grid node).
template <int Dim>
void send_to_owners(ParticleSet& set, const grid::Decomposition<Dim>& decomp, int position_field);

}  // namespace meniscus::particles
