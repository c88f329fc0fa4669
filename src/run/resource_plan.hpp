#pragma once
// What a deck will ask of the machine, known before the run allocates its state: particles, grid nodes,
// bytes per rank, and whether an index would overflow 32 bits (PETSc's PetscInt, Kokkos loop
// indices). `meniscus check` prints it; `meniscus run` refuses a deck that cannot fit (exit 2)
// instead of letting the kernel's OOM killer or an uncaught allocation failure end the job.
#include <mpi.h>

#include <string>
#include <vector>

#include "run/deck_schema.hpp"

namespace meniscus::run {

struct ResourcePlan {
  int ranks = 1;
  double particles = 0;        // at the start (SPH emitters add more during the run)
  double grid_nodes = 0;       // the method's background grid (MPM) or cell grid (SPH)
  double surface_samples = 0;  // MPM 3D implicit: surface samples expected from the sources' faces
  double material_nodes = 0;   // MPM 3D implicit: grid nodes the sources' particles reach
  double bytes_total = 0;      // estimate of the working memory of the whole job, summed over its ranks
  double bytes_per_rank = 0;   // the largest rank's: its block of the grid with its ghost layers, its
                               // particles and their halo, and the fixed cost of one process
  std::string overflow;        // why an index would not fit in 32 bits ("" if it fits)
  std::string decomposition;   // why the grid cannot be split among `ranks` ("" if it can)
  std::string decomposition_key = "domain.cell_size";  // the deck key to name with `decomposition`
  std::vector<std::string> warnings;  // e.g. sources that overlap (their particles add up there)
  double output_files = 0;     // particle files the output keys ask for (0: not bounded by the deck)
  double output_bytes = 0;     // their size at the starting particle count
  std::string output;          // why the output keys cannot be meant ("" if they can); names the key
};

// The estimate for `ranks` ranks: arithmetic on the resolved deck, except that mesh, curve and shell
// sources are seeded (their positions only, on the whole box; needs Kokkos started). max_steps and
// end_time, when >= 0 (the command line's --steps, --end-time), replace the deck's.
ResourcePlan plan_resources(const LoadedDeck& deck, int ranks, long max_steps = -1, double end_time = -1);

// One line for `meniscus check`.
std::string describe(const ResourcePlan& plan);

// Bytes one rank may use: the smallest of the deck's run.max_memory, the node's available memory
// (MemAvailable, and the cgroup limit where there is one) shared by the ranks on this node, and the
// process's address-space limit (ulimit -v). `source` names the limit that was chosen. Collective.
double rank_memory_limit(MPI_Comm comm, const LoadedDeck& deck, std::string& source);

// Throws InputError (exit 2, one line) when the plan overflows 32-bit indices, cannot be
// decomposed, asks for an absurd number of output files, or needs more than rank_memory_limit.
// Collective.
void refuse_what_cannot_fit(MPI_Comm comm, const LoadedDeck& deck, const ResourcePlan& plan);

// "1.5 GiB"
std::string human_bytes(double bytes);

}  // namespace meniscus::run
