#pragma once
// Where each node-pair block of the assembled MPM Hessian lives in a flat value array. Rows are the
// ghosted local nodes that are unknowns of the Newton solve; a row's entries are its unknown
// neighbours within +-2 nodes per axis (two quadratic B-spline stencils of width 3 overlap at most
// that far, Chen et al. 2021, Sec. 3.3), so a row has at most 5^Dim blocks. The values of a row are
// stored row-oriented, Dim rows of (entries x Dim) numbers, exactly as MatSetValuesBlockedLocal reads
// one block row, so the array is handed to PETSc without reordering.
#include <Kokkos_Core.hpp>

#include "grid/grid_field.hpp"

namespace meniscus::mpm {

template <int Dim>
struct HessianLayout {
  static constexpr int Span = 5;  // neighbour offsets -2..2 per axis
  static constexpr int Slots = Dim == 2 ? Span * Span : Span * Span * Span;
  grid::NodeBox<Dim> gbox;        // the ghosted local box the node indices refer to
  Kokkos::View<int*> row;         // ghost node -> compact row, -1 when the node is no unknown
  Kokkos::View<int*> row_start;   // rows + 1: first entry of each row (entries are blocks)
  Kokkos::View<int**, Kokkos::LayoutRight> slot;       // rows x Slots: entry of the neighbour at that offset, or -1

  // Offset slot of node lj seen from node li (both ghost-local, within +-2 of each other).
  KOKKOS_INLINE_FUNCTION int offset(long li, long lj) const {
    int a[Dim], b[Dim];
    gbox.node(li, a);
    gbox.node(lj, b);
    int s = 0, stride = 1;
    for (int d = 0; d < Dim; ++d) {
      s += (b[d] - a[d] + 2) * stride;
      stride *= Span;
    }
    return s;
  }
  // Index of value (a, b) of block (li, lj) in the value array, or -1 when the pair is not stored.
  KOKKOS_INLINE_FUNCTION long position(long li, long lj, int a, int b) const {
    const int r = row(li);
    if (r < 0 || row(lj) < 0) return -1;
    const int e = slot(r, offset(li, lj));
    if (e < 0) return -1;
    const long first = row_start(r), count = row_start(r + 1) - first;
    return first * Dim * Dim + a * count * Dim + (e - first) * Dim + b;
  }
};

// Rows of a listed subset of nodes <-> a compact array of them (the Newton solve's active nodes, the
// reduced matrix's unknowns): to(k) = from(list(k)) when `gather`, else to(list(k)) = from(k). A free
// function: nvcc rejects device lambdas in some member contexts.
template <int Dim, class A, class B, class List>
void copy_listed_rows(const A& from, const B& to, const List& list, bool gather) {
  Kokkos::parallel_for(
      "mpm::copy_listed_rows", Kokkos::RangePolicy<>(0, list.extent(0)), KOKKOS_LAMBDA(const long k) {
        for (int a = 0; a < Dim; ++a) {
          if (gather) to(k, a) = from(list(k), a);
          else to(list(k), a) = from(k, a);
        }
      });
}

}  // namespace meniscus::mpm
