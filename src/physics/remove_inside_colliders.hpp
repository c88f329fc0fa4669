#pragma once
// Seeded particles that start inside a collider or a wall, removed once at start-up.
#include <mpi.h>

#include <Kokkos_Core.hpp>

#include "physics/collider.hpp"
#include "particles/keep_if.hpp"

namespace meniscus::physics {

// Removes this rank's particles whose position (field `position_field`) lies inside any collider of
// `colliders` (the box's walls among them), and returns how many were removed on all ranks
// (collective). A source that overlaps an obstacle or reaches into a wall layer would otherwise start
// with material inside a solid, and a particle seeded outside the walls has grid stencil nodes beyond
// the ghosted grid.
template <int Dim>
long remove_particles_inside_colliders(particles::ParticleSet& set, int position_field, const ColliderSet<Dim>& colliders,
                                       MPI_Comm comm) {
  const auto c = colliders;
  const auto x = set.field(position_field);
  long removed = particles::keep_if(
      set,
      KOKKOS_LAMBDA(const int p)->bool {
        double xp[Dim];
        for (int d = 0; d < Dim; ++d) xp[d] = x(p, d);
        for (int k = 0; k < c.count; ++k)
          if (c.items[k].shape.distance(xp) < 0) return false;
        return true;
      },
      "physics::keep_outside_colliders");
  MPI_Allreduce(MPI_IN_PLACE, &removed, 1, MPI_LONG, MPI_SUM, comm);
  return removed;
}

}  // namespace meniscus::physics
