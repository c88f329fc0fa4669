#pragma once
// How particle-to-grid kernels add into a node array from many particles at once. On a threaded host
// backend Kokkos gives each thread its own copy of the array (no atomics; one array's memory per
// thread); with a single thread that copy buys nothing, so the adds go straight into the array: for
// an explicit 3D run this is the largest temporary of the step (32 bytes per ghosted node). On a
// device the default (atomic adds) is kept.
#include <Kokkos_Core.hpp>
#include <Kokkos_ScatterView.hpp>
#include <utility>

#include "grid/grid_field.hpp"

namespace meniscus::grid {

// True when a kernel over particles runs on one host thread, so SerialNodeScatter is safe.
inline bool node_scatter_is_serial() {
  using Exec = Kokkos::DefaultExecutionSpace;
  return Kokkos::SpaceAccessibility<Exec, Kokkos::HostSpace>::accessible && Exec().concurrency() == 1;
}

// The per-thread copies of a threaded host backend's scatter view, kept from one pass to the next:
// a new view per pass takes fresh pages for every copy (the kernel zeroes them) and frees them again;
// a kept one of the same shape is only reset to zero. Serial and device scatters keep nothing.
struct NodeScatterCache {
  using View = decltype(Kokkos::Experimental::create_scatter_view(std::declval<NodeArray&>()));
  View view;
  size_t rows = 0, cols = 0;
};

// Calls launch(scatter) with the scatter view that suits the backend, then adds its contributions
// into `nodes`. `launch` may be a generic lambda, but the device lambda itself must live in the
// (public, templated) function it calls: CUDA rejects device lambdas defined inside generic lambdas.
// With `cache` on a threaded host backend the per-thread copies are kept there between passes.
template <class Launch>
void scatter_into(const NodeArray& nodes, Launch&& launch, NodeScatterCache* cache = nullptr) {
  NodeArray dest = nodes;  // contribute() takes the destination by non-const reference
  if (node_scatter_is_serial()) {
    auto scatter = Kokkos::Experimental::create_scatter_view<
        Kokkos::Experimental::ScatterSum, Kokkos::Experimental::ScatterNonDuplicated,
        Kokkos::Experimental::ScatterNonAtomic>(dest);
    launch(scatter);
    Kokkos::Experimental::contribute(dest, scatter);
  } else if (cache && Kokkos::SpaceAccessibility<Kokkos::DefaultExecutionSpace, Kokkos::HostSpace>::accessible) {
    // Threaded host backends duplicate (the copies do not alias `nodes`, so one view serves any
    // destination of its shape); the same sums in the same order as a new view.
    if (!cache->view.is_allocated() || cache->rows != dest.extent(0) || cache->cols != dest.extent(1)) {
      cache->view = NodeScatterCache::View();  // the old copies first: the two never coexist
      cache->view = Kokkos::Experimental::create_scatter_view(dest);
      cache->rows = dest.extent(0);
      cache->cols = dest.extent(1);
    } else {
      cache->view.reset();
    }
    launch(cache->view);
    Kokkos::Experimental::contribute(dest, cache->view);
  } else {
    auto scatter = Kokkos::Experimental::create_scatter_view(dest);
    launch(scatter);
    Kokkos::Experimental::contribute(dest, scatter);
  }
}

}  // namespace meniscus::grid
