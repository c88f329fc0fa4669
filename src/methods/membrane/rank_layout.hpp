#pragma once
// The rank cuts of the membrane method's MAC grid (2D and 3D): `domain.ranks` as given; with
// `domain.balance: particles` (the default) the cuts split the initially liquid cells evenly. The
// work per cell is the pressure row of a liquid cell (air and body cells are identity rows); the
// membrane and the bodies are replicated on every rank (membrane_flow.hpp, membrane_flow_3d.hpp),
// so they have no particles to count. The method does not rebalance during a run.
#include <mpi.h>

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "core/deck.hpp"
#include "core/log.hpp"
#include "grid/balance.hpp"
#include "methods/membrane/membrane_deck.hpp"

namespace meniscus::membrane {

// Per axis, how many initially liquid cells (below the pool level, which lies along the last axis,
// or inside the drop; outside every body) each node plane holds; node i stores cell i, so the last
// plane holds none.
template <int Dim, class Body>
std::array<std::vector<long>, Dim> liquid_histograms(const MembraneDeck& deck, const std::vector<Body>& bodies,
                                                     const double* lower, const int* cells, double dx) {
  std::array<std::vector<long>, Dim> hist;
  long total = 1;
  for (int d = 0; d < Dim; ++d) {
    hist[d].assign(cells[d] + 1, 0);
    total *= cells[d];
  }
  for (long q = 0; q < total; ++q) {
    int c[Dim];
    double x[Dim], r[Dim];
    long rest = q;
    for (int d = 0; d < Dim; ++d) {
      c[d] = static_cast<int>(rest % cells[d]);
      rest /= cells[d];
      x[d] = lower[d] + (c[d] + 0.5) * dx;
      r[d] = x[d] - deck.center[d];
    }
    double dist = 0;
    if constexpr (Dim == 2) dist = std::hypot(r[0], r[1]);
    else dist = std::hypot(r[0], r[1], r[2]);
    const bool liquid = deck.shape == "pool" ? x[Dim - 1] < deck.level : dist < deck.radius;
    if (!liquid || body_containing(bodies, x) >= 0) continue;
    for (int d = 0; d < Dim; ++d) ++hist[d][c[d]];
  }
  return hist;
}

// procs (from domain.ranks, 0 = free) and ranges (empty = the even split) for the grid of `cells`
// cells from `lower`; a balanced layout that does not fit is a warning and the even split. Collective
// only through the warning's rank check.
template <int Dim, class Body>
void membrane_rank_layout(const config::Section& root, const MembraneDeck& deck, const std::vector<Body>& bodies,
                          const double* lower, const int* cells, double dx, int stencil_width,
                          std::array<int, Dim>& procs, std::array<std::vector<int>, Dim>& ranges, MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  ranges = {};
  if (size == 1 || root.section("domain").text("balance") != "particles") return;
  std::array<int, Dim> chosen{};
  const std::string why = grid::balanced_layout<Dim>(liquid_histograms<Dim>(deck, bodies, lower, cells, dx), size,
                                                     stencil_width + 1, procs, chosen, ranges);
  if (!why.empty()) {
    log::warn("domain.balance: particles: %s; keeping the even split", why.c_str());
    ranges = {};
  }
}

}  // namespace meniscus::membrane
