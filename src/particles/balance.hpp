#pragma once
// Particle-balanced decomposition at start-up (domain.balance = particles; grid/balance.hpp has the
// cuts): the sources are seeded once on the even split, the per-axis histograms of those particles
// over the grid nodes are summed over ranks, and the decomposition the method then uses has its
// ownership cuts where the histograms split evenly. Shared by every method that seeds `sources` on
// a Decomposition (MPM, SPH). Also the max/mean load reported in diagnostics and the progress line,
// and the rebalancing during a run (domain.rebalance_threshold): the same cuts, from the particles
// where they are now.
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

// Rebalancing during a run (domain.rebalance_threshold, domain.rebalance_interval). Every `interval`
// steps the method asks propose(); when max/mean particles per rank exceeds the threshold and the
// particle-balanced cuts of the current positions predict a lower load, it gets a new decomposition,
// rebuilds what hangs on the grid, moves its particles to their new owners and calls finish(), which
// measures the load again and logs one line. The decomposition is the only state that changes: the
// particles carry everything a step needs (the MPM grid is rebuilt by every P2G, SPH's neighbourhood
// at the start of every step).
// For methods that balance at start-up only (mpm-multiphase, pbd-xing2022, membrane-ruan2021): a
// warning, once on rank 0, when the deck asks for rebalancing during the run, which they ignore.
void warn_no_rebalancing(const config::Section& root, const char* method, MPI_Comm comm);

template <int Dim>
class Rebalancer {
 public:
  Rebalancer() = default;  // off
  // From the deck's domain section; blocks at least `min_nodes` nodes wide (as at the start).
  Rebalancer(const config::Section& root, int min_nodes);
  bool enabled() const { return threshold_ > 0; }
  double threshold() const { return threshold_; }

  // After step `step`: the decomposition to move to, or nullptr to keep `current`. `x` holds the
  // positions of this rank's `n` particles. With `force` (a restart) the interval and the threshold
  // are ignored: the cuts follow the particles whenever they differ. Collective.
  std::unique_ptr<grid::Decomposition<Dim>> propose(const RealField& x, size_t n,
                                                    const grid::Decomposition<Dim>& current, long step,
                                                    bool force = false);
  // After the particles moved to the proposed decomposition: logs the rebalance. Collective.
  void finish(long local_count, MPI_Comm comm);

  struct Stats {
    long step = -1;       // the step after which it happened
    double before = 1, predicted = 1, after = 1;  // max/mean particles per rank
    double seconds = 0;   // wall time from propose() to finish()
  };
  long count() const { return count_; }  // rebalances so far in this run
  const Stats& last() const { return last_; }

 private:
  double threshold_ = 0;
  long interval_ = 1;
  int min_nodes_ = 1;
  long count_ = 0;
  Stats last_{}, pending_{};
  double started_ = 0;
};

}  // namespace meniscus::particles
