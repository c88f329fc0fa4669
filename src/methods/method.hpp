#pragma once
// The interface every paper method implements, and the registry that finds one by the name a deck
// gives in simulation.method (SPlisHSPlasH style: one class per method, registered by name).
#include <mpi.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/deck.hpp"
#include "core/schema.hpp"
#include "core/timers.hpp"
#include "particles/particle_set.hpp"

namespace meniscus {

// Named diagnostic values in column order (global over ranks; meaningful on every rank).
using DiagnosticRow = std::vector<std::pair<std::string, double>>;

// A method's grid fields for output: nodes at lower + i*dx of a uniform grid, of which this rank
// holds the box [owned_lo, owned_lo + owned_n) (x index fastest, as PETSc stores them). Unused
// dimensions (z in 2D) have one node. Values are host copies.
struct GridSnapshot {
  double lower[3] = {0, 0, 0};
  double dx = 0;
  long nodes[3] = {1, 1, 1};
  long owned_lo[3] = {0, 0, 0};
  long owned_n[3] = {1, 1, 1};
  struct Field {
    std::string name;
    int components;              // 1, or 3 for vectors (2D vectors padded with 0)
    std::vector<double> values;  // owned nodes x components
  };
  std::vector<Field> fields;
};

class Method {
 public:
  virtual ~Method() = default;
  // Largest stable step for the current state (collective).
  virtual double stable_dt() = 0;
  // Advances by dt. Throws StepRejected when the step must be retried with a smaller dt.
  virtual void step(double dt) = 0;
  // Appends the method's diagnostics (collective).
  virtual void diagnostics(DiagnosticRow& row) = 0;
  virtual long global_particle_count() = 0;
  // Particles on this rank (not collective); the time loop sums it with its per-step reduction.
  virtual long local_particle_count() { return static_cast<long>(particles().size()); }
  virtual Timers& timers() = 0;

  // The particles, for output, in-situ visualisation and checkpoints. Persistent fields (see
  // ParticleSet::field_info) plus ids and materials are the whole particle state.
  virtual particles::ParticleSet& particles() = 0;
  virtual int position_field() const = 0;
  virtual int dimension() const = 0;
  // State beyond the particle fields (step counters, warm starts) as named scalars, so a checkpoint
  // can store it and a restart hand it back. Collective: the values are global (the same on every
  // rank), because a restart may run on a different number of ranks.
  virtual std::vector<std::pair<std::string, double>> state() { return {}; }
  virtual void restore_state(const std::vector<std::pair<std::string, double>>& state) { (void)state; }
  // Grid state a restart needs beyond the particles (a method whose grid carries velocities from
  // step to step): named tables of `columns` doubles per row, this rank's rows. A checkpoint stores
  // each table whole (rank order); a restart gives every rank the whole table, so the method picks
  // its own rows (by a global index column) at any rank count. Called before restore_state.
  struct GridTable {
    std::string name;
    int columns = 1;
    std::vector<double> values;
  };
  virtual std::vector<GridTable> grid_state() { return {}; }
  virtual void restore_grid_state(const std::vector<GridTable>& tables) { (void)tables; }
  // After a restart on a different rank count read the particles in arbitrary blocks: moves every
  // particle to the rank that owns it and restores the method's particle order (collective).
  virtual void redistribute_particles() = 0;
  // Called after a restart replaced the particles (already on their owning ranks).
  virtual void particles_replaced() {}
  // The grid fields for output (collective); false if the method has no grid. With
  // `shared_faces`, a rank's block also holds the first node row past its upper faces (where a
  // neighbour owns it), so that blocks meet without a gap, as VTK's image pieces expect; owned_n then
  // counts those nodes too.
  virtual bool grid_snapshot(GridSnapshot& out, bool shared_faces = false) {
    (void)out;
    (void)shared_faces;
    return false;
  }
};

struct StepRejected : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct MethodContext {
  MPI_Comm comm;
  config::Section root;  // the whole resolved deck
  int dimension;
};

struct MethodInfo {
  std::string name;
  std::string doc;
  // Older names that decks and checkpoints may still use; they resolve to `name`.
  std::vector<std::string> aliases;
  // Sections the method adds to the deck schema for a dimension (the core sections come from the driver).
  std::function<void(config::Schema&)> schema;
  std::function<std::unique_ptr<Method>(const MethodContext&)> create;
};

void register_method(MethodInfo info);
// Finds a method by its name or one of its aliases (nullptr if neither).
const MethodInfo* find_method(const std::string& name);
// The registered names, without aliases.
std::vector<std::string> method_names();
// Registers the methods built into the library (called once by the app and tests).
void register_builtin_methods();

}  // namespace meniscus
