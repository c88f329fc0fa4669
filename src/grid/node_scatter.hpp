#pragma once
// How particle-to-grid kernels add into a node array from many particles at once. On a threaded host
// backend Kokkos gives each thread its own copy of the array (no atomics; one array's memory per
// thread); with a single thread that copy buys nothing, so the adds go straight into the array: for
// an explicit 3D run this is the largest temporary of the step (32 bytes per ghosted node). On a
// device the default (atomic adds) is kept.
#include <Kokkos_Core.hpp>
#include <Kokkos_ScatterView.hpp>

#include "grid/grid_field.hpp"

namespace meniscus::grid {

// True when a kernel over particles runs on one host thread, so SerialNodeScatter is safe.
inline bool node_scatter_is_serial() {
  using Exec = Kokkos::DefaultExecutionSpace;
  return Kokkos::SpaceAccessibility<Exec, Kokkos::HostSpace>::accessible && Exec().concurrency() == 1;
}

// Calls launch(scatter) with the scatter view that suits the backend, then adds its contributions
// into `nodes`. `launch` may be a generic lambda, but the device lambda itself must live in the
// (public, templated) function it calls: CUDA rejects device lambdas defined inside generic lambdas.
template <class Launch>
void scatter_into(const NodeArray& nodes, Launch&& launch) {
  NodeArray dest = nodes;  // contribute() takes the destination by non-const reference
  if (node_scatter_is_serial()) {
    auto scatter = Kokkos::Experimental::create_scatter_view<
        Kokkos::Experimental::ScatterSum, Kokkos::Experimental::ScatterNonDuplicated,
        Kokkos::Experimental::ScatterNonAtomic>(dest);
    launch(scatter);
    Kokkos::Experimental::contribute(dest, scatter);
  } else {
    auto scatter = Kokkos::Experimental::create_scatter_view(dest);
    launch(scatter);
    Kokkos::Experimental::contribute(dest, scatter);
  }
}

}  // namespace meniscus::grid
