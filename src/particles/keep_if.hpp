#pragma once
// Removing particles by a predicate, written once: count the survivors, list them in their order with
// a scan (the same result on every backend and thread count), gather.
#include <Kokkos_Core.hpp>

#include "particles/particle_set.hpp"

namespace meniscus::particles {

// Keeps, in their order, this rank's particles p for which keep(p) is true (keep: a device function
// object, e.g. a KOKKOS_LAMBDA). Returns how many this rank removed. Not collective.
template <class Keep>
long keep_if(ParticleSet& set, const Keep& keep, const char* label) {
  const int n = static_cast<int>(set.size());
  int nkeep = 0;
  Kokkos::parallel_reduce(
      label, Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int p, int& k) { k += keep(p) ? 1 : 0; }, nkeep);
  if (nkeep == n) return 0;
  IndexList list("particles::kept", nkeep);
  Kokkos::parallel_scan(
      label, Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const int p, int& k, const bool final) {
        const bool in = keep(p);
        if (final && in) list(k) = p;
        k += in ? 1 : 0;
      });
  set.gather(list, nkeep);
  return n - nkeep;
}

}  // namespace meniscus::particles
